package termstream

import (
	"fmt"
	"io"
	"strings"

	"github.com/uagentkit/stream/internal/safetext"
	"golang.org/x/text/width"
)

// Table is rows of cells written aligned for a terminal, each column as
// wide as its widest cell in display columns (see Width), the last cell of
// a row as long as it is; a note goes under the row added before it. The
// cells are the caller's, already sanitized. A Table is not safe for
// concurrent use.
type Table struct {
	// Header is the first row.
	Header []string
	rows   [][]string
	notes  map[int][]string
}

// Add adds a row.
func (t *Table) Add(cells ...string) { t.rows = append(t.rows, cells) }

// Note adds a line under the row added last, indented.
func (t *Table) Note(s string) {
	if t.notes == nil {
		t.notes = map[int][]string{}
	}
	t.notes[len(t.rows)-1] = append(t.notes[len(t.rows)-1], s)
}

// Write writes the table to w, its columns aligned by display columns;
// with width > 0, each line cut to width columns ("…" where it is cut).
func (t *Table) Write(w io.Writer, width int) {
	var widths []int
	for _, r := range append([][]string{t.Header}, t.rows...) {
		for i := range max(len(r)-1, 0) { // the last cell of a row is as long as it is
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], Width(r[i]))
		}
	}
	line := func(cells []string) string {
		var b strings.Builder
		for i, c := range cells {
			b.WriteString(c)
			if i < len(cells)-1 && i < len(widths) {
				b.WriteString(strings.Repeat(" ", widths[i]-Width(c)+2))
			}
		}
		return Cut(strings.TrimRight(b.String(), " "), width)
	}
	fmt.Fprintln(w, line(t.Header))
	for i, r := range t.rows {
		fmt.Fprintln(w, line(r))
		for _, n := range t.notes[i] {
			fmt.Fprintln(w, Cut("    "+n, width))
		}
	}
}

// Wrap breaks s into lines of at most width columns at spaces (a word
// longer than width on a line of its own); all of it without a width.
func Wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		k := Width(w)
		if i > 0 && n+1+k > width {
			b.WriteByte('\n')
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += k
	}
	return b.String()
}

// Cut is s (already sanitized) on one line, cut to width display columns:
// what fits of it in width−1 and "…" when it does not fit whole; all of
// it without a width.
func Cut(s string, width int) string {
	return cutColumns(safetext.OneLine(s, len(s)+1), width)
}

// Width is how many columns of a terminal s takes: two for an East
// Asian wide or fullwidth character (CJK, Hangul, fullwidth forms), none
// for a combining mark, one for the rest. Every Table lays out and cuts by it.
func Width(s string) int {
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
	if cols <= 0 || Width(s) <= cols {
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
