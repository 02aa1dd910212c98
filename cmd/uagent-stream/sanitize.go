package main

import (
	"strings"
	"unicode/utf8"
)

// sanitize makes a string from a stream safe for a terminal or an SVG: C0
// and C1 controls (ESC among them), DEL, and the bidirectional overrides
// that can disguise text become visible escapes like \x1b; invalid UTF-8
// becomes U+FFFD. With keepNewlines, "\n" (and U+2028/U+2029) stay line
// breaks; otherwise they become the two characters \n. Tabs become spaces.
func sanitize(s string, keepNewlines bool) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 || (r >= 0x7f && r < 0xa0) || isBidi(r) || r == '\u2028' || r == '\u2029' {
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
		case r >= 0x80 && r < 0xa0, isBidi(r):
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[(r>>shift)&0xf])
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

const hex = "0123456789abcdef"

// isBidi reports the Unicode bidirectional embedding, override and isolate
// controls.
func isBidi(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || r == '\u200e' || r == '\u200f' || r == '\u061c'
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
