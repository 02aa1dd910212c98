package main

import (
	"strings"

	"golang.org/x/text/width"
)

// textWidth is how many columns of a terminal s takes: two for an East
// Asian wide or fullwidth character (CJK, Hangul, fullwidth forms), none
// for a combining mark, one for the rest. Every table of the command
// lays out and cuts by it.
func textWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeColumns(r)
	}
	return n
}

func runeColumns(r rune) int {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	if r == 0x200B || (r >= 0x0300 && r <= 0x036F) { // zero-width space, combining diacritics
		return 0
	}
	return 1
}

// cutColumns is s (already sanitized, one line) cut to at most cols
// columns: what fits of it in cols−1 and "…" when it does not fit whole;
// all of it when cols is 0 or less.
func cutColumns(s string, cols int) string {
	if cols <= 0 || textWidth(s) <= cols {
		return s
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		w := runeColumns(r)
		if n+w > cols-1 {
			break
		}
		b.WriteRune(r)
		n += w
	}
	return b.String() + "…"
}
