package termstream

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/uagentkit/stream/internal/safetext"
	"golang.org/x/text/width"
)

// Table is rows of cells written aligned for a terminal, each column as
// wide as its widest cell in display columns (see Width), the last cell of
// a row as long as it is; a note goes under the row added before it. The
// cells are the caller's, already sanitized. A Table is not safe for
// concurrent use.
//
// Written to a width, a table that is wider first cuts the columns of
// Squeeze (each, in order, down to twice SqueezeTo columns, then each
// down to SqueezeTo, its cells cut with "…"), then leaves out the columns of Drop, in order, until it fits, and
// gives what is left over back to the squeezed columns, in order; each
// line is then cut to the width, so that every line fits.
type Table struct {
	// Header is the first row.
	Header []string
	// Squeeze are the columns that may be cut to fit a width, the first
	// first; Drop those that may be left out, the first first. A column in
	// neither is never cut but by the cut of the whole line.
	Squeeze, Drop []int
	rows          [][]string
	notes         map[int][]string
}

// Columns returns the indexes of the header's columns of these names
// (those it has), in the order of names: for Squeeze and Drop.
func (t *Table) Columns(names ...string) []int {
	var out []int
	for _, n := range names {
		if i := slices.Index(t.Header, n); i >= 0 {
			out = append(out, i)
		}
	}
	return out
}

// SqueezeTo is the narrowest a squeezed column is cut to.
const SqueezeTo = 12

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
// with width > 0, fitted to it (see Table): columns squeezed, then left
// out, and each line cut to width columns ("…" where it is cut).
func (t *Table) Write(w io.Writer, width int) {
	all := append([][]string{t.Header}, t.rows...)
	n := 0
	for _, r := range all {
		n = max(n, len(r))
	}
	widths := make([]int, n) // of every column, the last's too
	for _, r := range all {
		for i, c := range r {
			widths[i] = max(widths[i], Width(c))
		}
	}
	natural := slices.Clone(widths)
	shown := make([]bool, n)
	for i := range shown {
		shown[i] = true
	}
	over := func() int {
		total, cols := 0, 0
		for i, on := range shown {
			if on {
				total += widths[i]
				cols++
			}
		}
		return total + 2*max(cols-1, 0) - width
	}
	if width > 0 {
		for _, to := range []int{2 * SqueezeTo, SqueezeTo} { // each to twice the least first, then to the least
			for _, i := range t.Squeeze {
				if e := over(); e > 0 && i < n && widths[i] > to {
					widths[i] = max(to, widths[i]-e)
				}
			}
		}
		for _, i := range t.Drop {
			if over() > 0 && i < n {
				shown[i] = false
			}
		}
		for _, i := range t.Squeeze { // what leaving columns out left over, given back
			if e := over(); e < 0 && i < n && shown[i] {
				widths[i] = min(natural[i], widths[i]-e)
			}
		}
	}
	last := n - 1
	for last > 0 && !shown[last] {
		last--
	}
	line := func(cells []string) string {
		var b strings.Builder
		for i, c := range cells {
			if !shown[i] {
				continue
			}
			if Width(c) > widths[i] {
				c = Cut(c, widths[i])
			}
			b.WriteString(c)
			if i < last {
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
