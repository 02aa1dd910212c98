package history_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/statedir"
)

// mkRun writes a run directory runs/<id> under home: n records, a
// request (body, or a prompt of its id), and a summary of the session with
// status (none when status is "").
func mkRun(t *testing.T, home, id, session, status string, n int, request ...string) {
	t.Helper()
	dir := filepath.Join(home, "runs", id)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var rec strings.Builder
	for i := range n {
		fmt.Fprintf(&rec, `{"Sequence":%d,"RecordedAt":"2026-11-01T09:00:0%dZ","Kind":"turn","Data":{"ID":"t%d"}}`+"\n", i+1, i%10, i)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, statedir.EventsFile), []byte(rec.String()), 0o644))
	req := `{"prompt":"prompt of ` + id + `","session_id":"` + session + `"}`
	if len(request) > 0 {
		req = request[0]
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, statedir.RequestFile), []byte(req), 0o644))
	if status != "" {
		sum := fmt.Sprintf(`{"v":1,"status":%q,"runner_exit_code":0,"run_id":%q,"session_id":%q,"provider":"p","model":"m","effort":"","workspace":"/w","started_at":"2026-11-01T09:00:00Z","wall_ms":1000,"stats":{},"answer":""}`, status, id, session)
		require.NoError(t, os.WriteFile(filepath.Join(dir, statedir.SummaryFile), []byte(sum), 0o600))
	}
}

func sidecar(t *testing.T, home, id, body string) {
	t.Helper()
	dir := filepath.Join(home, "sessions")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, id+".uah.json"), []byte(body), 0o600))
}

// Sessions of two homes: uah's sidecars give titles, sources and
// parents; a parent with no runs, and a cycle, are problems (ErrParent),
// each said once, and those sessions stay at the top; a bad sidecar is
// read without; a session that never ran is not listed.
func TestSessionsOfTwoHomes(t *testing.T) {
	uagent, uah := t.TempDir(), t.TempDir()
	mkRun(t, uagent, "20261101-090000-aaaaaaaa", "aaaaaaaa-1", "ok", 2)
	mkRun(t, uah, "20261101-092000-cccccccc", "cccccccc-1", "ok", 2)
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
	sidecar(t, uah, "77777777-1", `{"source":"tui","first_prompt":"never ran"}`)

	x := history.Open(history.Prices{}, uagent, uah)
	parents := 0
	for _, p := range x.Problems() {
		if errors.Is(p, history.ErrParent) {
			parents++
			var pr *statedir.Problem
			require.ErrorAs(t, p, &pr)
			assert.Contains(t, []string{"ffffffff-1.uah.json", "99999999-1.uah.json", "88888888-1.uah.json"}, filepath.Base(pr.File))
		}
	}
	assert.Equal(t, 3, parents, "a parent with no runs, and the two of a cycle: %v", x.Problems())
	assert.Nil(t, x.Session("77777777-1"), "a session that never ran is left out")
	s := x.Session("dddddddd-1")
	assert.Equal(t, "Fix the build", s.Title, "the sidecar's first prompt")
	assert.Equal(t, "tui", s.Source)
	require.Len(t, s.Children, 1)
	assert.Equal(t, "subagent-eeee", s.Children[0].ID)
	assert.Equal(t, "dddddddd-1", x.Session("subagent-eeee").Parent)
	assert.Equal(t, "subagent", x.Session("subagent-eeee").Source)
	for _, id := range []string{"ffffffff-1", "99999999-1", "88888888-1"} {
		assert.Empty(t, x.Session(id).Parent, id)
	}
	assert.Equal(t, "prompt of 20261101-092000-cccccccc", x.Session("cccccccc-1").Title, "a bad sidecar: read without it")
	assert.Empty(t, x.Session("cccccccc-1").Source)
	assert.Equal(t, "prompt of 20261101-090000-aaaaaaaa", x.Session("aaaaaaaa-1").Title)
}

// A session's title is its first prompt from the user: never the
// developer's <context_preparation> message uah sends first, in the
// index and in every view that takes it (the command's ls, acp's
// session/list); cut to statedir.MaxTitle runes, on one line.
func TestTitleSkipsTheDevelopersMessage(t *testing.T) {
	home := t.TempDir()
	mkRun(t, home, "20261101-090000-aaaaaaaa", "aaaaaaaa-1", "ok", 1,
		`{"session_id":"aaaaaaaa-1","messages":[{"role":"developer","content":"<context_preparation> <environment>/w</environment>"},{"role":"user","content":"  Fix\n the   flaky test "}]}`)
	long := strings.Repeat("é", statedir.MaxTitle+10)
	mkRun(t, home, "20261101-090000-bbbbbbbb", "bbbbbbbb-1", "ok", 1, `{"session_id":"bbbbbbbb-1","prompt":"`+long+`"}`)
	mkRun(t, home, "20261101-090000-cccccccc", "cccccccc-1", "ok", 1,
		`{"session_id":"cccccccc-1","messages":[{"role":"developer","content":"<context_preparation>"}]}`)
	x := history.Open(history.Prices{}, home)
	assert.Equal(t, "Fix the flaky test", x.Session("aaaaaaaa-1").Title)
	assert.Equal(t, "Fix the flaky test", x.Run("20261101-090000-aaaaaaaa").Title)
	assert.Equal(t, strings.Repeat("é", statedir.MaxTitle), x.Session("bbbbbbbb-1").Title)
	assert.Empty(t, x.Session("cccccccc-1").Title, "a developer's message alone is no title")
}

// Reopen of a history where nothing changed reads nothing: the same
// index; a new run makes a new one that has it, its finished runs taken
// from the last.
func TestReopenOfAnIdleHistory(t *testing.T) {
	home := t.TempDir()
	mkRun(t, home, "20261101-090000-aaaaaaaa", "aaaaaaaa-1", "ok", 1)
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{home, filepath.Join(home, "runs")} {
		require.NoError(t, os.Chtimes(d, old, old))
	}
	x := history.Open(history.Prices{}, home)
	require.Same(t, x, x.Reopen(), "nothing changed: nothing read")
	mkRun(t, home, "20261101-100000-bbbbbbbb", "bbbbbbbb-1", "ok", 1)
	y := x.Reopen()
	require.NotSame(t, x, y)
	assert.Len(t, y.Runs(), 2)
	assert.Equal(t, x.Run("20261101-090000-aaaaaaaa").Title, y.Run("20261101-090000-aaaaaaaa").Title)
}

// The sessions of the bundled state directory: the runs that share a
// session_id (from the summary, else the request), in the order they
// started; the one of the latest activity first; the title the first
// prompt, and what the last run ran with.
func TestSessionsOfTheBundledStateDirectory(t *testing.T) {
	x := history.Open(history.Prices{}, filepath.Join("..", "statedir", "testdata", "state"))
	type row struct {
		id      string
		runs    int
		updated string
		title   string
		ws      string
		effort  string
		model   string
	}
	var got []row
	for _, s := range x.Sessions() {
		got = append(got, row{s.ID, len(s.Runs), s.LastActivity.Format(time.RFC3339Nano), s.Title, s.Workspace, s.Effort, s.Model})
	}
	assert.Equal(t, []row{
		{"bbbb0000-0000-4000-8000-000000000000", 1, "2026-11-01T13:00:00Z", "", "", "", "m"}, // a request alone: its start is its directory's name
		{"5f3c2a1e-1111-4222-8333-944455556666", 3, "2026-11-01T11:00:00Z", "Count the lines of a.txt; then list the files.", "/home/dev/demo", "high", "gpt-6-sol"},
		{"cccc0000-0000-4000-8000-000000000000", 1, "2026-11-01T10:00:02.5Z", "", "/home/dev/demo", "high", "gpt-6-sol"},
	}, got)
	assert.Len(t, x.Problems(), 2, "the directory that is not a run's, and the file")
	var ids []string
	for _, r := range x.Session("5f3c2a1e-1111-4222-8333-944455556666").Runs {
		ids = append(ids, r.ID)
	}
	assert.Equal(t, []string{"20261101-090000-5f3c2a1e", "20261101-100000-5f3c2a1e", "20261101-110000-5f3c2a1e"}, ids)
}
