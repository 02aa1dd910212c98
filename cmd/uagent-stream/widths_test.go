package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/termstream"
)

// At any width, every line of ls, ls --runs, ls --search and usage fits,
// by display columns (a CJK character takes two), and COST is there.
func TestTablesFitEveryWidth(t *testing.T) {
	f := historyHome(t)
	require.NoError(t, historytest.Write([]historytest.Run{{Homes: []string{f.Uagent}, ID: "20261105-090000-c0ffee00", Session: "c0ffee00-0000-4000-8000-00000000000d",
		Start: time.Date(2026, 11, 5, 9, 0, 0, 0, time.UTC), Wall: time.Minute, Status: "ok", Provider: "openai", Model: "gpt-5.4",
		Workspace: "/home/dev/项目/非常长的工作区名称/子目录", Prompt: "修复解析器中不稳定的测试并解释原因，然后更新文档", Answer: "好的",
		Tokens: stream.TokensDTO{Input: 123456, Output: 7890}}}, nil))
	for _, cols := range []int{60, 80, 100, 120} {
		t.Setenv("COLUMNS", strconv.Itoa(cols))
		for _, args := range [][]string{{"ls"}, {"ls", "--runs"}, {"ls", "--search", "test"}, {"usage"}, {"usage", "--by", "workspace"}, {"usage", "--by", "session", "--breakdown"}} {
			code, stdout, stderr := runCmd(t, "", append(args, "--timezone", "UTC")...)
			require.Equal(t, 0, code, stderr)
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			assert.Contains(t, lines[0], "COST", "%d columns, %v: %s", cols, args, lines[0])
			for _, l := range lines {
				assert.LessOrEqual(t, termstream.Width(l), cols, "%d columns, %v: %q", cols, args, l)
			}
			if args[0] == "ls" && len(args) < 3 && cols >= 80 {
				assert.Contains(t, stdout, "修复", "%d columns, %v: the title, cut at its end\n%s", cols, args, stdout)
			}
		}
	}
}

// A terminal's page of ls ends saying how many more there are, and how to
// see them.
func TestLsPageSaysHowManyMore(t *testing.T) {
	historyHome(t)
	t.Setenv("COLUMNS", "120")
	t.Setenv("LINES", "6") // a page of 3
	_, stdout, _ := runCmd(t, "", "ls")
	assert.Contains(t, stdout, "… and 4 more (--limit 0 shows all)\n", stdout)
	_, stdout, _ = runCmd(t, "", "ls", "--limit", "0")
	assert.NotContains(t, stdout, "more (--limit")
}
