package termstream

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Width counts display columns: East Asian wide and fullwidth characters
// two, a zero-width space none; Cut and Table lay out and cut by it.
func TestTableByDisplayColumns(t *testing.T) {
	assert.Equal(t, 3, Width("中a"))
	assert.Equal(t, 4, Width("ＡＢ"))
	assert.Equal(t, 1, Width("a\u200b"))
	assert.Equal(t, "中…", Cut("中文字", 4))
	assert.Equal(t, "中文字", Cut("中文字", 6))
	assert.Equal(t, "ab…", Cut("abcdef", 3))
	var b strings.Builder
	tb := Table{Header: []string{"WHERE", "TITLE"}}
	tb.Add("/home/开发者", "修复")
	tb.Add("/tmp", "x")
	tb.Note("⌕ a note")
	tb.Write(&b, 0)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	assert.Len(t, lines, 4)
	col := func(l, s string) int { return Width(l[:strings.Index(l, s)]) }
	assert.Equal(t, col(lines[0], "TITLE"), col(lines[1], "修复"), "aligned by columns:\n%s", b.String())
	assert.Equal(t, col(lines[0], "TITLE"), col(lines[2], "x"))
	assert.Equal(t, "    ⌕ a note", lines[3])
	b.Reset()
	tb.Write(&b, 12)
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		assert.LessOrEqual(t, Width(l), 12, l)
	}
	assert.Equal(t, "a b\nc", Wrap("a b c", 3))
}

// Rows of any length, an empty one included, are written, never a panic.
func TestTableRowsOfAnyLength(t *testing.T) {
	var b strings.Builder
	tb := Table{Header: []string{"A"}}
	tb.Add()
	tb.Add("x", "y", "z")
	tb.Write(&b, 0)
	assert.Equal(t, "A\n\nx  y  z\n", b.String())
}
