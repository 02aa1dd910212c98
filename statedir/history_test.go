package statedir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mkRun writes a run directory runs/<id> under home: n records, and a
// summary of the session with status (none when status is "").
func mkRun(t *testing.T, home, id, session, status string, n int) {
	t.Helper()
	dir := filepath.Join(home, "runs", id)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var rec strings.Builder
	for i := range n {
		fmt.Fprintf(&rec, `{"Sequence":%d,"RecordedAt":"2026-11-01T09:00:0%dZ","Kind":"turn","Data":{"ID":"t%d"}}`+"\n", i+1, i%10, i)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, EventsFile), []byte(rec.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, RequestFile), []byte(`{"prompt":"prompt of `+id+`","session_id":"`+session+`"}`), 0o644))
	if status != "" {
		sum := fmt.Sprintf(`{"v":1,"status":%q,"runner_exit_code":0,"run_id":%q,"session_id":%q,"provider":"p","model":"m","effort":"","workspace":"/w","started_at":"2026-11-01T09:00:00Z","wall_ms":1000,"stats":{},"answer":""}`, status, id, session)
		require.NoError(t, os.WriteFile(filepath.Join(dir, SummaryFile), []byte(sum), 0o600))
	}
}

func sidecar(t *testing.T, home, id, body string) {
	t.Helper()
	dir := filepath.Join(home, "sessions")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, id+sidecarSuffix), []byte(body), 0o600))
}

// A history of uagent's state directory and uah's home: each run once
// (the copy that has ended, when the two differ, and said), uah's
// sidecars read (source, parent, first prompt), and each bad one named
// once while the rest is read.
func TestHistoryOfTwoHomes(t *testing.T) {
	uagent, uah := t.TempDir(), t.TempDir()
	mkRun(t, uagent, "20261101-090000-aaaaaaaa", "aaaaaaaa-1", "ok", 2)
	mkRun(t, uagent, "20261101-091000-bbbbbbbb", "bbbbbbbb-1", "running", 1)
	mkRun(t, uah, "20261101-091000-bbbbbbbb", "bbbbbbbb-1", "ok", 3) // the run went on in uah's home
	mkRun(t, uagent, "20261101-092000-cccccccc", "cccccccc-1", "ok", 2)
	mkRun(t, uah, "20261101-092000-cccccccc", "cccccccc-1", "ok", 2) // copied at uah's first start: the same
	mkRun(t, uah, "20261101-093000-dddddddd", "dddddddd-1", "ok", 1)
	mkRun(t, uah, "20261101-094000-subagent", "subagent-eeee", "ok", 1)
	mkRun(t, uah, "20261101-095000-ffffffff", "ffffffff-1", "ok", 1)
	mkRun(t, uah, "20261101-096000-99999999", "99999999-1", "ok", 1)
	mkRun(t, uah, "20261101-097000-88888888", "88888888-1", "ok", 1)
	sidecar(t, uah, "dddddddd-1", `{"source":"tui","created":"2026-11-01T09:30:00Z","workspace":"/w","first_prompt":"Fix the\nbuild"}`)
	sidecar(t, uah, "subagent-eeee", `{"source":"subagent","created":"2026-11-01T09:40:00Z","parent":"dddddddd-1"}`)
	sidecar(t, uah, "ffffffff-1", `{"source":"subagent","parent":"no-such-session"}`)
	sidecar(t, uah, "99999999-1", `{"source":"subagent","parent":"88888888-1"}`)
	sidecar(t, uah, "88888888-1", `{"source":"subagent","parent":"99999999-1"}`)
	sidecar(t, uah, "cccccccc-1", `{"source":5}`)
	sidecar(t, uah, "aaaaaaaa-1", `not json`)
	sidecar(t, uah, "77777777-1", `{"source":"tui","first_prompt":"never ran"}`)

	h := OpenHistory(uagent, uah)
	var ids []string
	for _, r := range h.Runs() {
		ids = append(ids, r.ID)
	}
	assert.Equal(t, []string{"20261101-090000-aaaaaaaa", "20261101-091000-bbbbbbbb", "20261101-092000-cccccccc",
		"20261101-093000-dddddddd", "20261101-094000-subagent", "20261101-095000-ffffffff", "20261101-096000-99999999",
		"20261101-097000-88888888"}, ids, "each run once")
	b := h.Runs()[1]
	assert.Equal(t, filepath.Join(uah, "runs", "20261101-091000-bbbbbbbb"), b.Dir, "the copy that has ended")

	problems := h.Problems()
	said := map[string]int{}
	for _, p := range problems {
		var pr *Problem
		require.True(t, errors.As(p, &pr), "%v", p)
		said[filepath.Base(pr.File)]++
	}
	assert.Equal(t, map[string]int{"20261101-091000-bbbbbbbb": 1, "cccccccc-1.uah.json": 1, "aaaaaaaa-1.uah.json": 1}, said,
		"each named once: %v", problems)
	assert.Equal(t, "Fix the build", h.Sidecar("dddddddd-1").Title(), "the sidecar's first prompt, on one line")
	assert.Equal(t, "dddddddd-1", h.Sidecar("subagent-eeee").Parent)
	assert.Nil(t, h.Sidecar("cccccccc-1"), "a bad sidecar: read without it")
	two := problems[slices.IndexFunc(problems, func(e error) bool { return errors.Is(e, ErrTwoCopies) })]
	assert.Contains(t, two.Error(), "20261101-091000-bbbbbbbb (in "+uagent+" and "+uah+"): "+uah+"'s is read, it has ended")
	// The other way round: the copy taken is the first directory's.
	_, why := choose(b, OpenHistory(uagent).Runs()[1])
	assert.Equal(t, "it has ended (the other's summary is missing or says running)", why)
	for _, p := range OpenHistory(uah, uagent).Problems() {
		if errors.Is(p, ErrTwoCopies) {
			assert.Contains(t, p.Error(), "20261101-091000-bbbbbbbb (in "+uah+" and "+uagent+"): "+uah+"'s is read")
		}
	}

}

// A home that is a file, or missing, is said, and the rest read.
func TestHistoryOfAFile(t *testing.T) {
	home := t.TempDir()
	mkRun(t, home, "20261101-090000-aaaaaaaa", "aaaaaaaa-1", "ok", 1)
	file := filepath.Join(t.TempDir(), "home")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	h := OpenHistory(file, home, filepath.Join(home, "missing"))
	require.Len(t, h.Runs(), 1)
	require.Len(t, h.Problems(), 2)
	assert.Contains(t, h.Problems()[0].Error(), "not a directory")
}

// Homes: the directories given; else $UAGENT_STATE_DIR alone; else
// uagent's under its name and its old one, and uah's ($UAH_STATE_DIR,
// else $UAH_HOME, else ~/.uah), those that exist.
func TestHomes(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	for _, v := range []string{StateDirEnv, uahStateDirEnv, uahHomeEnv} {
		t.Setenv(v, "")
	}
	uagent := filepath.Join(home, ".local", "state", "uagent")
	old := filepath.Join(home, ".local", "state", "unreal-agent")
	uah := filepath.Join(home, ".uah")
	got, err := Homes(nil)
	require.NoError(t, err)
	assert.Equal(t, []string{uagent}, got, "none exists: uagent's, to be said missing")
	require.NoError(t, os.MkdirAll(old, 0o755))
	got, _ = Homes(nil)
	assert.Equal(t, []string{old}, got, "a machine not yet moved")
	require.NoError(t, os.MkdirAll(uah, 0o755))
	got, _ = Homes(nil)
	assert.Equal(t, []string{old, uah}, got)
	require.NoError(t, os.MkdirAll(uagent, 0o755))
	got, _ = Homes(nil)
	assert.Equal(t, []string{uagent, old, uah}, got, "both names: the new first")
	require.NoError(t, os.Remove(old))
	got, _ = Homes(nil)
	assert.Equal(t, []string{uagent, uah}, got, "moved")
	xdg := t.TempDir()
	t.Setenv("XDG_STATE_HOME", xdg)
	require.NoError(t, os.MkdirAll(filepath.Join(xdg, "uagent"), 0o755))
	got, _ = Homes(nil)
	assert.Equal(t, []string{filepath.Join(xdg, "uagent"), uah}, got, "$XDG_STATE_HOME/uagent")
	t.Setenv("XDG_STATE_HOME", "")
	other := t.TempDir()
	t.Setenv(uahHomeEnv, other)
	got, _ = Homes(nil)
	assert.Equal(t, []string{uagent, other}, got, "UAH_HOME")
	state := t.TempDir()
	t.Setenv(uahStateDirEnv, state)
	got, _ = Homes(nil)
	assert.Equal(t, []string{uagent, state}, got, "UAH_STATE_DIR wins")
	t.Setenv(StateDirEnv, "/x")
	got, _ = Homes(nil)
	assert.Equal(t, []string{"/x"}, got, "UAGENT_STATE_DIR alone")
	got, _ = Homes([]string{"/a", "/b"})
	assert.Equal(t, []string{"/a", "/b"}, got, "--state-dir, twice")
}
