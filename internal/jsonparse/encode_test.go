package jsonparse

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/testenv"
)

// hostile are strings that exercise every escaping rule.
var hostile = testenv.Escaping

func TestAppendStringIsValidUTF8(t *testing.T) {
	for _, s := range hostile {
		b := appendString(nil, s)
		assert.True(t, utf8.Valid(b))
		var back string
		require.NoError(t, json.Unmarshal(b, &back))
	}
}

// FuzzAppendString holds appendString to encoding/json with HTML escaping
// off, byte for byte: every escape, invalid UTF-8 as \ufffd, U+2028 and
// U+2029 escaped, and valid text of every length copied as it is.
func FuzzAppendString(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add("Le décodeur lit chaque ligne une fois — naïve façon, 速い読み取り, ελέγχει τα πεδία.\n")
	f.Add("\xe0\xa0\x80\xe0\x9f\xbf\xed\x9f\xbf\xed\xa0\x80\xf0\x90\x80\x80\xf0\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x90\x80\x80\xc2\x80\xc1\xbf\xf5\x80\x80\x80")
	f.Add("é then \"quoted\" and a \\ and\ttabs\x01, é then more plain words \x7f")
	f.Add("\xe2\x80\xa7\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa\xe2\x81\xa8 cut at the end \xf0\x9f\x98")
	f.Fuzz(func(t *testing.T, s string) {
		var want strings.Builder
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(s))
		require.Equal(t, strings.TrimSuffix(want.String(), "\n"), string(appendString(nil, s)))
	})
}

// BenchmarkAppendString writes 40 KB texts of the corpora's kinds: code
// (an escape every few bytes), prose (non-ASCII every few bytes), plain,
// and the mix of the real-shaped corpus; each beside encoding/json.
func BenchmarkAppendString(b *testing.B) {
	const (
		code  = "func (d *Decoder) Decode() (any, error) {\n\tif d.err != nil {\n\t\treturn nil, fmt.Errorf(\"stream: %w\", d.err)\n\t}\n\treturn d.next() // \\n is not a newline\n}\n"
		prose = "Le décodeur lit chaque ligne une fois — naïve façon, 速い読み取り, ελέγχει τα πεδία. "
		plain = "The decoder reads every line once and fills the struct as it goes along. "
	)
	for _, k := range []struct{ name, text string }{
		{"code", code}, {"prose", prose}, {"plain", plain},
		{"mixed", code + prose + plain + `{"path":"a.go","content":"x := \"y\"\n"}`},
	} {
		s := strings.Repeat(k.text, 40<<10/len(k.text))
		b.Run(k.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			buf := make([]byte, 0, 2*len(s))
			for b.Loop() {
				buf = appendString(buf[:0], s)
			}
		})
		b.Run(k.name+"/encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			for b.Loop() {
				buf.Reset()
				_ = enc.Encode(s)
			}
		})
	}
}

// TestAppendStringLong holds appendString to encoding/json on long
// strings: a sequence, an escape or a cut sequence after runs of every
// length around 4 KiB (plain, where the vector scan runs, and non-ASCII,
// where textRun does), and strings where every byte grows to six.
func TestAppendStringLong(t *testing.T) {
	const block = 4096
	want := func(s string) string {
		var w strings.Builder
		enc := json.NewEncoder(&w)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(s))
		return strings.TrimSuffix(w.String(), "\n")
	}
	var cases []string
	for _, piece := range []string{"é", "速", "😀", "\u2028", "\xff", "\xe2\x80", "\n", "\x01", `"`, "\\"} {
		for k := block - 12; k <= block+4; k++ {
			cases = append(cases, strings.Repeat("a", k)+piece+strings.Repeat("b", 10)+piece)
			cases = append(cases, strings.Repeat("é", k/2)+piece+strings.Repeat("x", k))
		}
	}
	cases = append(cases,
		strings.Repeat("\x01", 3*block+5),  // every byte six
		strings.Repeat("\xff", 3*block+5),  // every byte \ufffd
		strings.Repeat("\u2029", block+1),  // three bytes to six
		strings.Repeat("plain ", 3*block),  // the vector scan over a long run
		strings.Repeat("\"q\" é\t", block), // everything, mixed
	)
	for _, s := range cases {
		got := string(appendString([]byte("prefix"), s))
		if w := "prefix" + want(s); got != w {
			t.Fatalf("%d bytes: differs from encoding/json at byte %d", len(s), firstDiff(got, w))
		}
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
