//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/tablestream"
)

// uagent's state directory by its current rule, and its old name beside
// it: a HOME with only the new name, one with only $XDG_STATE_HOME/uagent,
// and one with both names holding overlapping runs (each run once), as
// export, ls and acp's session/list read them; a reviewer's session is
// listed under its parent as a review.
func TestBothNamesOfTheStateDirectory(t *testing.T) {
	run := func(home, session, id string, at time.Time) historytest.Run {
		return historytest.Run{Homes: []string{home}, ID: id, Session: session, Start: at, Wall: time.Second, Provider: "openai", Model: "gpt-5.4",
			Workspace: "/w", Prompt: "prompt of " + id, Answer: "done"}
	}
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	const s1, s2, s3 = "11111111-0000-4000-8000-000000000001", "22222222-0000-4000-8000-000000000002", "33333333-0000-4000-8000-000000000003"
	for _, c := range []struct {
		name string
		// layout writes the history under root (HOME) and sets XDG.
		layout func(t *testing.T, root string) (sessions []string)
	}{
		{"only ~/.local/state/uagent", func(t *testing.T, root string) []string {
			t.Setenv("XDG_STATE_HOME", "")
			home := filepath.Join(root, ".local", "state", "uagent")
			require.NoError(t, historytest.Write([]historytest.Run{run(home, s1, "20261101-100000-11111111", at)}, nil))
			return []string{s1}
		}},
		{"only $XDG_STATE_HOME/uagent", func(t *testing.T, root string) []string {
			xdg := filepath.Join(root, "xdg")
			t.Setenv("XDG_STATE_HOME", xdg)
			require.NoError(t, historytest.Write([]historytest.Run{run(filepath.Join(xdg, "uagent"), s1, "20261101-100000-11111111", at)}, nil))
			return []string{s1}
		}},
		{"both names, overlapping", func(t *testing.T, root string) []string {
			t.Setenv("XDG_STATE_HOME", "")
			home := filepath.Join(root, ".local", "state", "uagent")
			old := filepath.Join(root, ".local", "state", "unreal-agent")
			both := run(home, s2, "20261101-110000-22222222", at.Add(time.Hour))
			both.Homes = []string{home, old}
			require.NoError(t, historytest.Write([]historytest.Run{
				run(old, s1, "20261101-100000-11111111", at), both, run(home, s3, "20261101-120000-33333333", at.Add(2*time.Hour)),
			}, nil))
			return []string{s3, s2, s1}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			t.Setenv("HOME", root)
			t.Setenv("UAGENT_STATE_DIR", "")
			t.Setenv("UAH_STATE_DIR", filepath.Join(root, "no-uah"))
			want := c.layout(t, root)

			out := t.TempDir()
			code, _, stderr := runCmd(t, "", "export", "-o", out)
			require.Equal(t, 0, code, stderr)
			var got []string
			for _, s := range readTable[tablestream.SessionRow](t, out, "sessions") {
				got = append(got, s.SessionID)
			}
			assert.ElementsMatch(t, want, got, "each run once")
			assert.Len(t, readTable[tablestream.RunRow](t, out, "runs"), len(want))

			code, stdout, stderr := runCmd(t, "", "ls", "--json")
			require.Equal(t, 0, code, stderr)
			for _, id := range want {
				assert.Contains(t, stdout, id)
			}

			conn, _, _ := acpAgentProcess(t, fakeUagent, "-state")
			res, err := conn.ListSessions(t.Context(), acp.ListSessionsRequest{})
			require.NoError(t, err)
			var listed []string
			for _, s := range res.Sessions {
				listed = append(listed, string(s.SessionId))
			}
			assert.Equal(t, want, listed, "acp's session/list, the latest first")
		})
	}
}

// A reviewer (the subagent of uah's /review, its sidecar saying review)
// is listed under its parent as a review, a subagent as a subagent.
func TestACPListsReviewsUnderTheirParent(t *testing.T) {
	f := historyHome(t)
	_ = f
	conn, _, _ := acpAgentProcess(t, fakeUagent, "-state")
	res, err := conn.ListSessions(t.Context(), acp.ListSessionsRequest{})
	require.NoError(t, err)
	i := slices.IndexFunc(res.Sessions, func(s acp.SessionInfo) bool { return s.SessionId == historytest.Flaky })
	require.GreaterOrEqual(t, i, 0)
	meta := res.Sessions[i].Meta
	ids := func(key string) []string {
		var out []string
		for _, s := range meta[key].([]any) {
			out = append(out, s.(map[string]any)["sessionId"].(string))
		}
		return out
	}
	assert.Equal(t, []string{historytest.Reviewer}, ids("uagentkit/reviews"))
	assert.Equal(t, []string{historytest.Sub}, ids("uagentkit/subagents"))
	for _, s := range res.Sessions {
		assert.NotContains(t, []string{historytest.Reviewer, historytest.Sub}, string(s.SessionId), "not at the top")
	}
	_, err = os.Stat(f.Old)
	require.NoError(t, err)
}
