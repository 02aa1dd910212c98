package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeSamples is the README's block of sample outputs: its start and
// end in the file, and the commands it shows.
func readmeSamples(t *testing.T, readme string) (start, end int, commands [][]string) {
	t.Helper()
	at := strings.Index(readme, "\n## Your history at a glance\n")
	require.Positive(t, at)
	start = strings.Index(readme[at:], "\n```\n$ uagent-stream ")
	require.Positive(t, start)
	start += at + len("\n```\n")
	end = start + strings.Index(readme[start:], "```\n")
	for _, l := range strings.Split(readme[start:end], "\n") {
		if cmd, ok := strings.CutPrefix(l, "$ uagent-stream "); ok {
			commands = append(commands, strings.Fields(cmd))
		}
	}
	return start, end, commands
}

// The README's sample outputs are what the command prints on the
// history historytest writes (whose figures ls_test.go pins by hand):
// each "$ uagent-stream …" line of the block is run, at 160 columns, in
// UTC, and what it prints (stderr, then stdout) must be what follows it.
// go test -update rewrites them.
func TestREADMESamplesAreWhatTheCommandPrints(t *testing.T) {
	historyHome(t)
	t.Setenv("COLUMNS", "160")
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(b)
	start, end, commands := readmeSamples(t, readme)
	require.NotEmpty(t, commands)
	var want []string
	for _, args := range commands {
		code, stdout, stderr := runCmd(t, "", append(args, "--timezone", "UTC")...)
		require.Equal(t, 0, code, "%v: %s", args, stderr)
		want = append(want, "$ uagent-stream "+strings.Join(args, " ")+"\n"+stderr+stdout)
	}
	block := strings.Join(want, "\n")
	if *update {
		require.NoError(t, os.WriteFile("../../README.md", []byte(readme[:start]+block+readme[end:]), 0o644))
		return
	}
	assert.Equal(t, block, readme[start:end], "README.md's samples drift from what the command prints: go test ./cmd/uagent-stream -run READMESamples -update")
}
