//go:build unix

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every output of ls, ls --search and usage keeps hostile bytes of the
// history (a title, a workspace, a model, matched text) in check.
func TestHistoryOutputsHoldHostileBytes(t *testing.T) {
	historyHome(t)
	t.Setenv("NO_COLOR", "1")
	for _, args := range [][]string{
		{"ls"}, {"ls", "--json"}, {"ls", "--runs"}, {"ls", "--runs", "--json"}, {"ls", "--search", "say hi"}, {"ls", "--search", "say hi", "--json"},
		{"ls", "--runs", "--search", "hi"}, {"usage"}, {"usage", "--json"}, {"usage", "--by", "model", "--breakdown"}, {"usage", "--by", "workspace"},
		{"usage", "--by", "session", "--json"}, {"cat", "f6071829"}, {"stats", "f6071829"},
	} {
		code, stdout, stderr := runCmd(t, "", args...)
		assert.Equal(t, 0, code, "%q: %s", args, stderr)
		for what, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
			assert.Empty(t, unsafeOutput(out), "%s of %q", what, args)
		}
	}
	_, stdout, _ := runCmd(t, "", "ls", "--search", "say hi")
	assert.Contains(t, stdout, `Say hi \x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\u202e\u200b\x00<script>&`, "the matched text, escaped")
}
