package termstream

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A table too wide for its width squeezes its Squeeze columns, leaves
// out its Drop columns until it fits, and gives what is left over back to
// the squeezed ones; every line fits.
func TestTableFitsItsWidth(t *testing.T) {
	tab := Table{Header: []string{"WHEN", "ID", "WHERE", "COST", "TITLE"}}
	tab.Add("2026-11-01 10:00", "a1b2c3d4", "/home/dev/a/very/long/workspace/path", "$1.50", "Fix the flaky test in parser_test.go")
	tab.Add("2026-11-02 11:00", "e5f6a7b8", "/tmp/x", "?", "修复解析器中不稳定的测试")
	tab.Squeeze, tab.Drop = tab.Columns("TITLE", "WHERE"), tab.Columns("WHERE", "WHEN")
	var b strings.Builder
	tab.Write(&b, 60)
	assert.Equal(t, ""+
		"WHEN              ID        COST   TITLE\n"+
		"2026-11-01 10:00  a1b2c3d4  $1.50  Fix the flaky test in pa…\n"+ // 25 columns left for the title
		"2026-11-02 11:00  e5f6a7b8  ?      修复解析器中不稳定的测试\n", b.String())
	b.Reset()
	tab.Write(&b, 40)
	assert.Equal(t, ""+
		"ID        COST   TITLE\n"+
		"a1b2c3d4  $1.50  Fix the flaky test in …\n"+ // 23 columns left
		"e5f6a7b8  ?      修复解析器中不稳定的测…\n", b.String()) // 11 wide characters and …
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		assert.LessOrEqual(t, Width(l), 40, l)
	}
}
