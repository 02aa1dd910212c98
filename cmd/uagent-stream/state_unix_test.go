//go:build unix && !solaris && !illumos && !aix

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/acpstream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/ssestream"
	"github.com/uagentkit/stream/tablestream"
)

// One history with a run in each state, a session each: every door says
// one status of each run (statedir.Run.Status), none its own.
func TestEveryDoorSaysOneStatus(t *testing.T) {
	home := t.TempDir()
	at := func(h int) string { return "20261101-" + string(rune('0'+h/10)) + string(rune('0'+h%10)) + "0000-" }
	type tc struct {
		id, session, status string
		summary, held       bool
		want                string
	}
	cases := []tc{
		{at(10), "aaaaaaaa", "ok", true, false, "ok"},
		{at(11), "bbbbbbbb", "error", true, false, "error"},
		{at(12), "cccccccc", "", false, false, "cut_off"}, // no summary, no lock: uagent died
		{at(13), "dddddddd", "", false, true, "running"},  // no summary yet, the lock held
		{at(14), "eeeeeeee", "running", true, true, "running"},
		{at(15), "ffffffff", "running", true, false, "cut_off"}, // says running, nobody holds the lock
	}
	var runs []historytest.Run
	for i := range cases {
		c := &cases[i]
		c.session += "-0000-4000-8000-00000000000" + string(rune('1'+i))
		c.id += c.session[:8]
		st := c.status
		if !c.summary {
			st = ""
		}
		runs = append(runs, historytest.Run{Homes: []string{home}, ID: c.id, Session: c.session, Status: st, NoSummary: !c.summary,
			Start: mustTime(t, c.id), Wall: time.Second, Provider: "openai", Model: "gpt-5.4", Workspace: "/w", Prompt: "prompt " + c.id, Answer: "done"})
	}
	require.NoError(t, historytest.Write(runs, nil))
	for _, c := range cases {
		if c.held {
			release, err := historytest.Hold(home, c.session)
			require.NoError(t, err)
			defer release()
		}
	}
	t.Setenv("UAGENT_STATE_DIR", home)
	want := map[string]string{}
	for _, c := range cases {
		want[c.id] = c.want
	}
	bySession := func(f func(c tc) string) map[string]string {
		out := map[string]string{}
		for _, c := range cases {
			out[c.id] = f(c)
		}
		return out
	}

	t.Run("ls", func(t *testing.T) {
		code, out, stderr := runCmd(t, "", "ls", "--json", "--state-dir", home)
		require.Equal(t, 0, code, stderr)
		var ss []history.SessionJSON
		require.NoError(t, json.Unmarshal([]byte(out), &ss))
		got := map[string]string{}
		for _, s := range ss {
			got[s.SessionID] = s.Status
		}
		assert.Equal(t, want, bySession(func(c tc) string { return got[c.session] }))
	})
	t.Run("ls --runs", func(t *testing.T) {
		code, out, stderr := runCmd(t, "", "ls", "--runs", "--json", "--state-dir", home)
		require.Equal(t, 0, code, stderr)
		var rs []history.RunJSON
		require.NoError(t, json.Unmarshal([]byte(out), &rs))
		got := map[string]string{}
		for _, r := range rs {
			got[r.RunID] = r.Status
		}
		assert.Equal(t, want, got)
	})
	t.Run("cat", func(t *testing.T) {
		got := map[string]string{}
		for _, c := range cases {
			_, out, _ := runCmd(t, "", "cat", "--no-color", c.id)
			for _, l := range strings.Split(out, "\n") { // the last "── WORD" line: how the run ended
				if rest, ok := strings.CutPrefix(l, "── "); ok && !strings.HasPrefix(rest, "turn") {
					got[c.id] = strings.TrimRight(strings.Fields(rest)[0], ":")
				}
			}
		}
		assert.Equal(t, want, got)
	})
	t.Run("export", func(t *testing.T) {
		out := t.TempDir()
		code, _, stderr := runCmd(t, "", "export", "-o", out, home)
		require.Equal(t, 0, code, "a stopped run is the history's truth, not a fault: %s", stderr)
		got := map[string]string{}
		for _, r := range readTable[tablestream.RunRow](t, out, "runs") {
			got[r.RunID] = r.Status
		}
		assert.Equal(t, want, got, "a stopped run exported as such")
	})
	t.Run("page", func(t *testing.T) {
		h := ssestream.NewHistory(history.Open(history.DefaultPrices(), home))
		srv := httptest.NewServer(h)
		defer func() { h.Close(); srv.Close() }()
		res, err := http.Get(srv.URL + "/api/sessions")
		require.NoError(t, err)
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		require.NoError(t, err)
		var ss []history.SessionJSON
		require.NoError(t, json.Unmarshal(b, &ss), string(b))
		got := map[string]string{}
		for _, s := range ss {
			got[s.SessionID] = s.Status
		}
		assert.Equal(t, want, bySession(func(c tc) string { return got[c.session] }))
	})
	t.Run("acp", func(t *testing.T) {
		a := acpstream.New(nil, acpstream.WithStateDir(home))
		res, err := a.ListSessions(context.Background(), acp.ListSessionsRequest{})
		require.NoError(t, err)
		got := map[string]string{}
		for _, s := range res.Sessions {
			got[string(s.SessionId)], _ = s.Meta["uagentkit/status"].(string)
		}
		assert.Equal(t, want, bySession(func(c tc) string { return got[c.session] }))
	})
	t.Run("otel", func(t *testing.T) { // what the trace's run span says of a run without run_finished
		got := map[string]string{}
		for _, c := range cases {
			in, err := openInput(env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, dirs: &dirsFlag{home}}, filepath.Join(home, "runs", c.id), nil)
			require.NoError(t, err)
			for range in.Reader.Lines() {
			}
			got[c.id] = string(in.Status())
			if got[c.id] == "" {
				got[c.id] = in.Run.Summary.Status
			}
		}
		assert.Equal(t, want, got)
	})
}

// mustTime is the start a run id begins with.
func mustTime(t *testing.T, id string) time.Time {
	t.Helper()
	v, err := time.Parse("20060102-150405", id[:15])
	require.NoError(t, err)
	return v
}
