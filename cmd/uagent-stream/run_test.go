//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunCommand(t *testing.T) {
	_, want, _ := runCmd(t, "", "cat", runFile)
	code, stdout, stderr := runCmd(t, "", "run", "--", fakeUagent, "-replay", runFile, "-delay", "1ms", "-stderr", "diag\n")
	assert.Equal(t, 0, code)
	assert.Equal(t, want, stdout, "renders live like cat")
	assert.Equal(t, "diag\nuagent-stream: "+fakeUagent+": finished, status ok, exit 0, 21 lines\n", stderr)

	code, stdout, stderr = runCmd(t, "", "run", "--json", "--", fakeUagent, "-replay", runFile, "-exit", "3")
	assert.Equal(t, 3, code, "the command's exit code")
	raw, err := os.ReadFile(runFile)
	require.NoError(t, err)
	assert.Equal(t, string(raw), stdout, "--json passes the stream through unchanged")
	assert.Contains(t, stderr, "finished, status ok, exit 3, 21 lines")

	code, _, stderr = runCmd(t, "", "run", "--", fakeUagent, "-exit", "2", "-stderr", "preflight: blocked\n")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "preflight: blocked\n")
	assert.Contains(t, stderr, "preflight_blocked, status error, exit 2, 0 lines")

	code, stdout, stderr = runCmd(t, "", "run", "--", "sh", "-c", `head -3 `+runFile+`; kill -KILL $$`)
	assert.Equal(t, 128+9, code, "128+signal when killed")
	assert.Contains(t, stderr, "cut_off, status error, killed by signal 9 (killed), 3 lines")
	assert.Contains(t, stdout, "no run_finished")

	code, _, stderr = runCmd(t, "", "run", "--", filepath.Join(t.TempDir(), "missing"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "uagent-stream: stream: start ")

	code, _, _ = runCmd(t, "", "run")
	assert.Equal(t, 2, code)
}
