//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/internal/corpus"
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

// html writes one self-contained file: the page (its script and style
// inline, allowed by their hashes, no request allowed), the events
// embedded; at most twice the stream's size plus the page; a run of the
// history by its id; hostile bytes as JSON escapes, never markup.
func TestHTMLCommand(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	out := filepath.Join(t.TempDir(), "run.html")
	code, _, stderr := runCmd(t, "", "html", "-o", out, runFile)
	require.Equal(t, 0, code, stderr)
	page, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(page), `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-`)
	assert.NotContains(t, string(page), `src="/app.js"`)
	assert.Contains(t, string(page), `<script type="application/json" id="embedded">`)

	// The size: the page, and the events at most twice the stream.
	big := filepath.Join(t.TempDir(), "big.jsonl")
	require.NoError(t, os.WriteFile(big, corpus.Generate(corpus.Real(2<<20)), 0o644))
	code, stdout, stderr := runCmd(t, "", "html", big)
	require.Equal(t, 0, code, stderr)
	_, bare, _ := runCmd(t, "", "html", filepath.Join("..", "..", "testdata", "finished-empty.jsonl"))
	info, _ := os.Stat(big)
	assert.LessOrEqual(t, int64(len(stdout)), 2*info.Size()+int64(len(bare)), "twice the stream, plus the page")

	historyHome(t)
	code, stdout, stderr = runCmd(t, "", "html", "f6071829")
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, unsafeOutput(stdout))
	assert.Equal(t, 2, strings.Count(stdout, "<script"), "the data and the script; no markup from the history")
	assert.Contains(t, stdout, `\u003cscript\u003e\u0026`)
	code, stdout, _ = runCmd(t, "", "html", historytest.Flaky)
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "session_opened")
}
