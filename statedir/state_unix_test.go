//go:build unix && !solaris && !illumos && !aix

package statedir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One state per run directory, decided by the summary and the session's
// lock: each case with its word.
func TestState(t *testing.T) {
	home := t.TempDir()
	summary := func(id, session, status string) string {
		return `{"v":1,"runner_exit_code":0,"wall_ms":5,"stats":{},"run_id":"` + id + `","session_id":"` + session + `","status":"` + status + `","started_at":"2026-11-01T09:00:00Z"}`
	}
	write := func(id, session, status string) *Run {
		dir := filepath.Join(home, "runs", id)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, RequestFile), []byte(`{"session_id":"`+session+`","prompt":"hi"}`), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, EventsFile), nil, 0o644))
		if status != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, SummaryFile), []byte(summary(id, session, status)), 0o644))
		}
		r, err := OpenRun(dir)
		require.NoError(t, err)
		return r
	}
	const a, b, c, d = "aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002", "cccccccc-0000-4000-8000-000000000003", "dddddddd-0000-4000-8000-000000000004"
	ok := write("20261101-090000-aaaaaaaa", a, "ok")
	failed := write("20261101-090100-aaaaaaaa", a, "error")
	noSummary := write("20261101-090000-bbbbbbbb", b, "")
	noSummaryHeld := write("20261101-090000-cccccccc", c, "")
	runningHeld := write("20261101-090000-dddddddd", d, "running")
	runningGone := write("20261101-090200-aaaaaaaa", a, "running")
	for _, s := range []string{c, d} {
		release, err := hold(home, s)
		require.NoError(t, err)
		defer release()
	}
	for _, tc := range []struct {
		r      *Run
		state  State
		status string
	}{
		{ok, StateFinished, "ok"},
		{failed, StateFinished, "error"},
		{noSummary, StateStopped, "cut_off"},
		{noSummaryHeld, StateRunning, "running"},
		{runningHeld, StateRunning, "running"},
		{runningGone, StateStopped, "cut_off"},
	} {
		assert.Equal(t, tc.state, tc.r.State(), tc.r.ID)
		assert.Equal(t, tc.status, tc.r.Status(), tc.r.ID)
	}

	// The lock is the session's: a run of it that a later run of the
	// session followed is not the one going on.
	later := write("20261101-100000-dddddddd", d, "running")
	assert.Equal(t, StateRunning, later.State())
	assert.Equal(t, StateStopped, runningHeld.State(), "its session's later run holds the lock")
}
