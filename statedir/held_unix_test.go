//go:build unix && !solaris && !illumos && !aix

package statedir

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeld: a run's session lock held by a process (uagent's flock) is
// found held, at once; one let go of, or never made, is not.
func TestHeld(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "runs", "20261101-090000-5f3c2a1e")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, SummaryFile),
		[]byte(`{"v":1,"runner_exit_code":0,"wall_ms":0,"stats":{},"run_id":"20261101-090000-5f3c2a1e","session_id":"5f3c2a1e-0000-4000-8000-000000000001","status":"running","started_at":"2026-11-01T09:00:00Z"}`), 0o644))
	r, err := OpenRun(dir)
	require.NoError(t, err)
	held, known := r.Held()
	assert.True(t, known)
	assert.False(t, held, "no lock file: nobody holds it")

	require.NoError(t, os.MkdirAll(filepath.Join(state, SessionsDir), 0o700))
	f, err := os.OpenFile(filepath.Join(state, SessionsDir, "5f3c2a1e-0000-4000-8000-000000000001.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	held, known = r.Held()
	assert.True(t, known)
	assert.True(t, held, "held by a run")

	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_UN))
	held, _ = r.Held()
	assert.False(t, held, "let go of")
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB), "the probe let go of it too")
}
