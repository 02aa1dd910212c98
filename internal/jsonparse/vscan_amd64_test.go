//go:build !purego

package jsonparse

import (
	"bytes"
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

// The SSE2 mask, which a machine with AVX2 does not use, held to the byte
// mask too.
func TestMaskSSE2(t *testing.T) {
	b := []byte("0123456789abcdef\"0123456789abcdef\\0123456789abcdef\x1f0123456789abcdef0123456789é\x7f\x80")
	for off := 0; off+64 <= len(b); off++ {
		require.Equal(t, stringMaskBytes(b[off:]), maskSSE2(&b[off]), "at %d", off)
	}
}

// Both amd64 masks with the high bytes, held to the byte masks.
func FuzzMaskHighAMD64(f *testing.F) {
	f.Add([]byte("0123456789abcdef\"0123456789abcdef\\0123456789abcdef\x1f0123456789abcdef0123456789é\x7f\x80"))
	f.Add([]byte("plain ascii text, plain ascii text, plain ascii text, plain ascii text"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for off := 0; off+64 <= len(b) && off < 40; off++ {
			want, wantHigh := stringMaskBytes(b[off:]), bytes.ContainsFunc(b[off:off+64], func(r rune) bool { return r >= 0x80 })
			paths := map[string]func(*byte) (uint64, uint64){"SSE2": maskHighSSE2}
			if useAVX2 {
				paths["AVX2"] = maskHighAVX2
			}
			for name, mask := range paths {
				m, high := mask(&b[off])
				require.Equal(t, want, m, "%s at %d of %q", name, off, b)
				require.Equal(t, wantHigh, high != 0, "%s at %d of %q", name, off, b)
			}
			split := map[string]func(*byte) (uint64, uint64){"SSE2": maskSplitSSE2}
			if useAVX2 {
				split["AVX2"] = maskSplitAVX2
			}
			for name, mask := range split {
				m, bs := mask(&b[off])
				require.Equal(t, want, m, "%s at %d of %q", name, off, b)
				require.Equal(t, backslashBytes(b[off:]), bs, "%s at %d of %q", name, off, b)
			}
		}
	})
}
