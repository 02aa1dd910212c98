package statedir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Saved tells the files uagent and uah saved from any other.
func TestSaved(t *testing.T) {
	home := t.TempDir()
	run := filepath.Join(home, "runs", "20261101-090000-aaaaaaaa")
	require.NoError(t, os.MkdirAll(run, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(run, EventsFile), nil, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(home, SessionsDir), 0o755))
	for _, f := range []string{EventsFile, SummaryFile, RequestFile, StderrFile} {
		assert.True(t, Saved(filepath.Join(run, f)), f)
	}
	assert.True(t, Saved(filepath.Join(home, SessionsDir, "x.uah.json")))
	assert.False(t, Saved(filepath.Join(run, "page.html")), "another name in a run directory")
	assert.False(t, Saved(filepath.Join(t.TempDir(), EventsFile)), "events.jsonl beside nothing of a run")
}
