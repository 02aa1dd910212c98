//go:build !purego

package jsonparse

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Both amd64 paths, whichever the machine chose: SSE2 always, AVX2 where
// the CPU has it.
func FuzzScanAMD64(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123456789abcdef0123456789abcdef\"0123456789abcdef"))
	f.Add([]byte("ascii then é then more ascii to fill the blocks up to sixty-four bytes"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for off := range min(len(b), 40) + 1 {
			s := b[off:]
			for _, high := range []byte{0, 0x80} {
				paths := map[string]func([]byte, byte) int{"SSE2": indexSSE2}
				if useAVX2 {
					paths["AVX2"] = indexAVX2
				}
				for name, index := range paths {
					i := index(s, high)
					want := scanBytes(s, high != 0)
					block := map[string]int{"SSE2": 16, "AVX2": 32}[name]
					whole := len(s) &^ (block - 1)
					if want < whole {
						require.Equal(t, want, i, "%s at %d of %q", name, off, b)
					} else {
						require.Equal(t, whole, i, "%s at %d of %q", name, off, b)
					}
				}
			}
		}
	})
}

// Both amd64 masks (SSE2 always, AVX2 where the CPU has it), held to the
// byte masks, whichever the machine chose.
func FuzzMasksAMD64(f *testing.F) {
	f.Add([]byte("0123456789abcdef\"0123456789abcdef\\0123456789abcdef\x1f0123456789abcdef0123456789é\x7f\x80"))
	f.Add([]byte("plain ascii text, plain ascii text, plain ascii text, plain ascii text"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for off := 0; off+64 <= len(b) && off < 40; off++ {
			wm, wbs, whigh := stringMasksBytes(b[off:])
			paths := map[string]func(*byte) (uint64, uint64, uint64){"SSE2": masksSSE2}
			if useAVX2 {
				paths["AVX2"] = masksAVX2
			}
			for name, masks := range paths {
				m, bs, high := masks(&b[off])
				require.Equal(t, [3]any{wm, wbs, whigh}, [3]any{m, bs, high != 0}, "%s at %d of %q", name, off, b)
			}
		}
	})
}
