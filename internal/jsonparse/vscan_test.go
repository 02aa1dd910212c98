package jsonparse

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// scanBytes is the scan byte by byte: what every path must give.
func scanBytes(b []byte, high bool) int {
	for i, c := range b {
		if c < 0x20 || c == '"' || c == '\\' || high && c >= 0x80 {
			return i
		}
	}
	return len(b)
}

// FuzzScan holds the scans (the vector code this machine has, and the Go
// words) to the scan byte by byte, at every offset of the text.
func FuzzScan(f *testing.F) {
	for _, s := range []string{"", "a", `"`, "plain ascii text that goes on and on past thirty-two bytes", "é", "\x1f", "\x7f\x80",
		"0123456789abcdef0123456789abcdef\\", "0123456789abcdef0123456789abcdefé", "0123456789abcdef0123456789abcde\"f"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for off := range min(len(b), 40) + 1 {
			s := b[off:]
			require.Equal(t, scanBytes(s, false), scanString(s), "scanString at %d of %q", off, b)
			require.Equal(t, scanBytes(s, true), scanASCII(s), "scanASCII at %d of %q", off, b)
			require.Equal(t, scanBytes(s, false), scanWords(s, 0), "scanWords at %d", off)
			require.Equal(t, scanBytes(s, true), scanWords(s, msb), "scanWords high at %d", off)
			for _, high := range []bool{false, true} {
				i := indexVector(s, high)
				require.LessOrEqual(t, i, len(s))
				require.Equal(t, scanBytes(s[:i], high), i, "the vector code passed nothing it should stop at")
				if j := scanBytes(s, high); j < i {
					t.Fatalf("the vector code passed %d", j)
				}
			}
		}
	})
}

// Long random texts, a stop at every place, through every path.
func TestScanAtEveryPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := r.IntN(300)
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(0x20 + r.IntN(0x5f))
			if b[i] == '"' || b[i] == '\\' {
				b[i] = 'x'
			}
		}
		if n > 0 && r.IntN(4) > 0 {
			b[r.IntN(n)] = []byte{'"', '\\', 0x00, 0x1f, 0x80, 0xff, 0xc3}[r.IntN(7)]
		}
		require.Equal(t, scanBytes(b, false), scanString(b))
		require.Equal(t, scanBytes(b, true), scanASCII(b))
	}
	t.Logf("vector code: %s", vectorName)
}

// FuzzMask holds stringMasks (the vector code this machine has) to the
// masks byte by byte, at every offset.
func FuzzMask(f *testing.F) {
	f.Add([]byte(`0123456789abcdef"0123456789abcdef\0123456789abcdef` + "\x1f0123456789abcdef0123456789"))
	f.Add([]byte("é日本\"\\\x00\x7f\x80\xff plain text plain text plain text plain text plain text"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for off := 0; off+64 <= len(b) && off < 40; off++ {
			requireMasks(t, b[off:], "at %d of %q", off, b)
		}
	})
}

// requireMasks requires stringMasks of b to be stringMasksBytes'.
func requireMasks(t *testing.T, b []byte, msgAndArgs ...any) {
	t.Helper()
	m, bs, high := stringMasks(b)
	wm, wbs, whigh := stringMasksBytes(b)
	require.Equal(t, [3]any{wm, wbs, whigh}, [3]any{m, bs, high}, msgAndArgs...)
}

// Random blocks, every path: the vector masks are the byte masks.
func TestMaskRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	b := make([]byte, 200)
	for range 3000 {
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
			if r.IntN(8) == 0 {
				b[i] = []byte{'"', '\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xff, 0xc3}[r.IntN(9)]
			}
		}
		requireMasks(t, b[r.IntN(100):])
	}
}

// skipStringBytes is SkipStringValid byte by byte: the reference.
func skipStringBytes(data []byte, i int) (int, bool) {
	i++
	for i < len(data) {
		switch c := data[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i+1 < len(data) && simpleEscape[data[i+1]] != 0 {
				i += 2
				continue
			}
			if i+1 < len(data) && data[i+1] == 'u' {
				if _, ok := hex4(data, i+2); ok {
					i += 6
					continue
				}
			}
			return i, false
		default:
			i++
		}
	}
	return i, false
}

// SkipStringValid reads 64 bytes a step with the vector mask: it gives
// what the scan byte by byte gives, on strings of escapes (runs of them,
// \u ones across the blocks' edges, bad ones) and controls, of every
// length.
func TestSkipStringValid(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{`\"`, `\\`, `\n`, `\u00e9`, `\ud83d\ude00`, `\x`, `\u12`, "\x01", "é", `"`}
	for range 20000 {
		var b []byte
		b = append(b, '"')
		n := r.IntN(400)
		for len(b) < n {
			if r.IntN(6) == 0 {
				b = append(b, pieces[r.IntN(len(pieces))]...)
			} else {
				b = append(b, byte('a'+r.IntN(26)))
			}
		}
		if r.IntN(2) == 0 {
			b = append(b, '"')
		}
		b = append(b, `, "next": 1}`...)
		wantI, wantOK := skipStringBytes(b, 0)
		gotI, gotOK := SkipStringValid(b, 0)
		require.Equal(t, [2]any{wantI, wantOK}, [2]any{gotI, gotOK}, "%q", b)
	}
}
