package jsonparse

import (
	"bytes"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestPlainRunMatchesByteByByte(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{0x00, 0x1f, 0x20, 0x21, '"', '\\', 'a', 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	pieces := []string{"é", "€", "😀", "日本", "\xed\xa0\x80", "\xc3", "\xf4\x90\x80\x80"}
	for n := range 20000 {
		var data []byte
		size, odd := rnd.IntN(40), 4
		if n%2 == 1 { // long, mostly ASCII: the vector scan, and back
			size, odd = rnd.IntN(300), 40
		}
		for len(data) < size {
			switch r := rnd.IntN(odd); {
			case r == 0:
				data = append(data, alphabet[rnd.IntN(len(alphabet))])
			case r == 1:
				data = append(data, pieces[rnd.IntN(len(pieces))]...)
			default:
				data = append(data, byte('a'+rnd.IntN(26)))
			}
		}
		start := 0
		if len(data) > 0 {
			start = rnd.IntN(len(data))
		}
		want := start
		for want < len(data) && plain[data[want]] {
			want++
		}
		var u utf8Words
		got := plainRun(data, start, &u)
		require.Equal(t, want, got, "%q from %d", data, start)
		if u.valid() {
			require.True(t, utf8.Valid(data[start:got]), "valid UTF-8 is reported only when it is: %q from %d", data, start)
		}
	}
}

// validUTF8 says what utf8.Valid says, on random mixes of every kind of
// byte sequence, valid and not, at every alignment.
func TestValidUTF8MatchesUTF8Valid(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"a", "abcdefgh", "é", "€", "😀", "\u07ff", "\u0800", "\uffff", "\U00010000", "\U0010ffff", "\u0900", "\ud7ff",
		"\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\x9f\xbf", "\xf0\x8f\xbf\xbf",
		"\xf4\x90\x80\x80", "\xf4\x8f\xbf\xbf", "\xf5\x80\x80\x80", "\xf8\x80\x80\x80\x80", "\xff", "\x80", "\xbf", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\x7f"}
	// Without the leads that send the text to utf8.Valid, every verdict
	// but the last bytes' is the word loop's own.
	common := []string{"a", "abcdefgh", "é", "€", "速", "\u07ff", "\uffff", "\U00040000", "\x80", "\xbf", "\xc3", "\xe2\x82", "\xf1\x80\x80"}
	for _, set := range [][]string{pieces, common} {
		valid := 0
		for range 100000 {
			var b []byte
			for range rnd.IntN(16) {
				b = append(b, set[rnd.IntN(len(set))]...)
			}
			want := utf8.Valid(b)
			require.Equal(t, want, validUTF8(b), "%q", b)
			if want {
				valid++
			}
		}
		require.Greater(t, valid, 1000)
	}
}

func FuzzValidUTF8(f *testing.F) {
	f.Add([]byte("naïve façon, 速い読み取り, ελέγχει"))
	f.Add([]byte("\xed\xa0\x80 \xf4\x90\x80\x80 \U0001f600\U0001f600"))
	f.Fuzz(func(t *testing.T, b []byte) {
		require.Equal(t, utf8.Valid(b), validUTF8(b), "%q", b)
	})
}

// BenchmarkValidUTF8 compares validUTF8 with utf8.Valid on prose where
// ASCII and other characters alternate, as the corpora's non-ASCII text.
func BenchmarkValidUTF8(b *testing.B) {
	prose := []byte(strings.Repeat("Le décodeur lit chaque ligne une fois — naïve façon, 速い読み取り, ελέγχει τα πεδία. ", 500))
	for _, v := range []struct {
		name  string
		valid func([]byte) bool
	}{{"utf8.Valid", utf8.Valid}, {"validUTF8", validUTF8}} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(len(prose)))
			for b.Loop() {
				if !v.valid(prose) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// FuzzSkip holds the one-loop skip to the checked one: whatever skipValid
// skips, skipChecked skips too, to the same byte; and skipValid skips
// every valid JSON value it is given that is not too deep, as
// encoding/json's json.Valid says.
func FuzzSkip(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,{"b":"c\n\u00e9"}],"d":null}`, `[]`, `{}`, `"x"`, `-0.0E+1`, `01`, `[1,]`, `{"a" : 1 , "b":[ true ,false ]}`,
		`"\ud800\u0041"`, `"\ud800\uZZZZ"`, "\"a\x01\"", `{"a":1}}`, `[[[[[]]]]]`, `1.`, `tru`, `{"a":{"b":{"c":[{},[]]}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fast := &Parser{Data: []byte(s)}
		ok := fast.skipValid(1)
		slow := &Parser{Data: []byte(s)}
		err := slow.skipChecked(1)
		if ok {
			require.Nil(t, err, "skipValid skipped what skipChecked refuses")
			require.Equal(t, slow.Pos, fast.Pos, "where the value ends")
		} else {
			require.Zero(t, fast.Pos, "skipValid leaves p.pos when it does not skip")
		}
		trimmed := strings.TrimRight(s, " \t\r\n")
		if json.Valid([]byte(trimmed)) && strings.Count(s, "[")+strings.Count(s, "{") < skipLevels {
			require.True(t, ok, "a valid value is skipped")
			require.Equal(t, len(trimmed), fast.Pos)
		}
	})
}

// FuzzUnquoteUTF8 holds unquote's verdict to utf8.Valid: a value it calls
// valid UTF-8 for sure is valid, whatever escapes cut the raw bytes
// (a sequence left open before an escape is not, and must not be
// passed).
func FuzzUnquoteUTF8(f *testing.F) {
	f.Add([]byte(`"naïve façon, 速い読み取り\n, ελέγχει τα πεδία\"."`), false)
	f.Add([]byte("\"ab\xc3\\n\xa9 and some more words to fill a word or two\""), true)
	f.Add([]byte("\"0123456789abcd\xe9\\t\x80\x80 and some more words\""), false)
	f.Add([]byte("\"\\u00e9\xc3\\\"\xa9\""), true)
	f.Add([]byte(`"a long string with escapes: \"quoted\", \\ and \n, \t, \u00e9 and \ud83d\ude00, then plain words past a block of sixty-four bytes"`), false)
	f.Fuzz(func(t *testing.T, data []byte, inPlace bool) {
		if len(data) == 0 || data[0] != '"' {
			data = append([]byte{'"'}, data...)
		}
		p := &Parser{Data: bytes.Clone(data)}
		b, utf8OK, _, err := p.unquote(inPlace)
		if err == nil && utf8OK {
			require.True(t, utf8.Valid(b), "%q read as %q", data, b)
		}
		// Every way a string value is built reads as encoding/json reads:
		// owned (in a slab, or its own), borrowed, in place, and with
		// the bytes after the text readable (Slack), whatever they are.
		var want string
		wantErr := json.Unmarshal(data, &want)
		if len(bytes.TrimSpace(data)) != len(data) {
			return // encoding/json reads space around a value; Str does not
		}
		after := []byte(`"\"\\ and more after the string's end, a block's worth and more of it: \u00e9"`)
		for _, mode := range []struct{ own, borrow, slack, slabs bool }{{}, {borrow: true}, {own: true}, {slack: true}, {slabs: true, slack: true}, {borrow: true, slack: true}, {own: true, borrow: true}} {
			buf := append(bytes.Clone(data), after...)
			p := &Parser{Data: buf[:len(data)], Own: mode.own, Borrow: mode.borrow, Slack: mode.slack, Slabs: mode.slabs}
			p.Scratch = append(p.Scratch, "a value before"...)
			before := p.Scratch
			got, err := p.Str()
			if err == nil && p.Pos != len(data) {
				err = p.Syntax("the end of the string")
			}
			if wantErr != nil {
				require.NotNil(t, err, "%+v: %q read as %q; encoding/json: %v", mode, data, got, wantErr)
				continue
			}
			require.Nil(t, err, "%+v: %q", mode, data)
			require.Equal(t, want, got, "%+v: %q", mode, data)
			if mode.borrow {
				require.Equal(t, "a value before", string(before), "%+v: a value before is kept", mode)
			}
		}
	})
}

// escapedBytes is the byte-by-byte rule: a backslash not itself escaped
// escapes the byte after it, across blocks.
func TestEscapedBytes(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		var bs, carry uint64
		run := rnd.IntN(8) // how often a backslash comes
		for j := range 64 {
			if rnd.IntN(8) <= run {
				bs |= 1 << j
			}
		}
		carry = uint64(rnd.IntN(2))
		var want uint64
		esc := carry == 1
		for j := range 64 {
			switch {
			case esc:
				want |= 1 << j
				esc = false
			case bs>>j&1 == 1:
				esc = true
			}
		}
		got, next := escapedBytes(bs, carry)
		require.Equal(t, want, got, "backslashes %064b, carry %d", bs, carry)
		require.Equal(t, esc, next == 1, "the carry out of %064b, carry %d", bs, carry)
	}
}

// SkipStringValid, 64 bytes a step, skips what skipStringChecked skips, to the
// same end, and nothing else, whatever the escapes and where blocks cut
// them.
func FuzzSkipString(f *testing.F) {
	f.Add([]byte(`"a run of escapes \\\\\\\" and \\\" then a quote, long enough for a block or two of sixty-four bytes: \u00e9 \n" and more`))
	f.Add([]byte(`"` + strings.Repeat(`\\`, 40) + `\" x"`))
	f.Add([]byte(`"` + strings.Repeat(`ab\`, 30) + "\x01" + `"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || data[0] != '"' {
			data = append([]byte{'"'}, data...)
		}
		p := &Parser{Data: data}
		err := p.skipStringChecked()
		end, ok := SkipStringValid(data, 0)
		require.Equal(t, err == nil, ok, "%q: skipString says %v", data, err)
		if ok {
			require.Equal(t, p.Pos, end, "%q: where the string ends", data)
		}
	})
}

func TestSkipStringRandom(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 10))
	pieces := []string{`\\`, `\"`, `\n`, `\u00e9`, `\u12`, `\x`, "\x01", `"`, `\`, "é", "abcdefgh", "0123456789abcdef"}
	for range 20000 {
		var b strings.Builder
		b.WriteByte('"')
		for b.Len() < 40+rnd.IntN(200) {
			if rnd.IntN(3) == 0 {
				b.WriteString(pieces[rnd.IntN(len(pieces))])
			} else {
				b.WriteByte('a' + byte(rnd.IntN(26)))
			}
		}
		data := []byte(b.String())
		p := &Parser{Data: data}
		err := p.skipStringChecked()
		end, ok := SkipStringValid(data, 0)
		require.Equal(t, err == nil, ok, "%q: skipString says %v", data, err)
		if ok {
			require.Equal(t, p.Pos, end, "%q", data)
		}
	}
}

// BenchmarkSkipString: a string shaped like the corpus's texts (code and
// JSON inside JSON, a backslash every 16 bytes or so, runs of them), 40 KB,
// skipped 64 bytes a step from its backslashes (SkipStringValid), stop by
// stop from the same vector mask (skipStringStops, SkipStringValid before
// 2026-12-06), and stop by stop in Go (skipStringChecked).
func BenchmarkSkipString(b *testing.B) {
	var s strings.Builder
	s.WriteByte('"')
	words := []string{`func (d *Decoder) Decode() (any, error) {`, `\n\t`, `return nil, fmt.Errorf(\"stream: %w\", err)`, `\\\"`, ` {\"path\":\"a.go\"} `, `x := y`, `\\n`}
	for r := rand.New(rand.NewPCG(1, 2)); s.Len() < 40<<10; {
		s.WriteString(words[r.IntN(len(words))])
	}
	s.WriteByte('"')
	data := []byte(s.String())
	b.Run("blocks", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, ok := SkipStringValid(data, 0); !ok {
				b.Fatal("not valid")
			}
		}
	})
	b.Run("stops from the mask", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, ok := skipStringStops(data, 0); !ok {
				b.Fatal("not valid")
			}
		}
	})
	b.Run("stops", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		p := &Parser{Data: data}
		for b.Loop() {
			p.Pos = 0
			if err := p.skipStringChecked(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// skipStringStops is SkipStringValid as it was before the escaped bytes
// were found from the backslashes: each stop the vector mask flags
// handled in turn. BenchmarkSkipString measures beside it.
func skipStringStops(data []byte, i int) (int, bool) {
	i++
	for len(data)-i >= 64 {
		base := i
		for m, _, _ := stringMasks(data[base:]); m != 0; m &= m - 1 {
			j := base + bits.TrailingZeros64(m)
			if j < i {
				continue // a byte of the escape before
			}
			next, ok, end := stringStop(data, j)
			if !ok || end {
				return next, ok
			}
			i = next
		}
		i = max(i, base+64)
	}
	return skipStops(data, i)
}
