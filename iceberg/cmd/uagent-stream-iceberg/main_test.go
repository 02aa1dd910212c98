package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/uagentkit/stream/history/historytest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsage(t *testing.T) {
	code, _, stderr := runCmd("export")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "uagent-stream-iceberg: export: --catalog is needed")
	code, _, stderr = runCmd("--catalog", "mysql://x")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--catalog is sqlite:PATH, postgres://… or http(s)://…")
	code, _, _ = runCmd("--no-such-flag")
	assert.Equal(t, 2, code)
}

// TestLiveRunExitsZero: a history with a run still going is exported,
// the run said and left for later, exit 0; a hostile name is said
// escaped.
func TestLiveRunExitsZero(t *testing.T) {
	root := t.TempDir()
	fx, err := historytest.WriteFixture(filepath.Join(root, "h"))
	require.NoError(t, err)
	release, err := fx.HoldLive() // its last run goes on; the one before it was stopped, and is appended
	require.NoError(t, err)
	defer release()
	db := "sqlite:" + filepath.Join(root, "cat.db")
	args := append([]string{"export", "--catalog", db}, fx.Dirs()...)
	code, _, stderr := runCmd(args...)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "still running: not ended: left for a later export")
	assert.Regexp(t, `appended \d+ runs to uagent.runs\n$`, stderr)

	hostile := filepath.Join(root, "\x1b]52;c;eA==\x07\x1b[2J.jsonl")
	require.NoError(t, os.WriteFile(hostile, []byte("not a stream\n"), 0o644))
	code, _, stderr = runCmd("--catalog", db, hostile)
	assert.Equal(t, 1, code)
	assert.NotContains(t, stderr, "\x1b")
	assert.NotContains(t, stderr, "\x07")
	assert.Contains(t, stderr, "no run id: not appended")

	code, _, stderr = runCmd("--catalog", db, "--allow-errors", hostile)
	assert.Equal(t, 0, code, stderr)
}
