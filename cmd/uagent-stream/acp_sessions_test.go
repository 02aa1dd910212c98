//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// texts lists the text of the updates of a kind.
func texts(updates []map[string]any, kind string) []string {
	var out []string
	for _, u := range updates {
		if u["sessionUpdate"] == kind {
			if c, ok := u["content"].(map[string]any); ok {
				out = append(out, c["text"].(string))
			}
		}
	}
	return out
}

// An editor conversation is one uagent session: every prompt runs the
// command with --session and the session's id (a UUID); the effort chosen
// reaches the next run; after the agent restarts, session/list shows the
// session, session/load replays it, and a prompt continues it.
func TestACPSessionGoesOn(t *testing.T) {
	state := t.TempDir()
	t.Setenv("UAGENT_STATE_DIR", state)
	args := filepath.Join(t.TempDir(), "args.txt")
	conn, c, _ := acpAgentProcess(t, fakeUagent, "-state", "-args-to", args)
	s, err := conn.NewSession(t.Context(), acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	require.NoError(t, err)
	id := s.SessionId
	assert.Regexp(t, uuidRE, string(id), "a uagent session id")
	require.Len(t, s.ConfigOptions, 1)
	effort := s.ConfigOptions[0].Select
	require.NotNil(t, effort)
	assert.Equal(t, acp.SessionConfigId("effort"), effort.Id)
	assert.Equal(t, acp.SessionConfigOptionCategoryThoughtLevel, *effort.Category)
	assert.Equal(t, acp.SessionConfigValueId("high"), effort.CurrentValue)
	var offered []string
	for _, o := range *effort.Options.Ungrouped {
		offered = append(offered, string(o.Value))
	}
	assert.Equal(t, []string{"low", "medium", "high", "xhigh", "max"}, offered)

	_, err = prompt(t.Context(), conn, id, "the first question")
	require.NoError(t, err)
	set, err := conn.SetSessionConfigOption(t.Context(), acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{
		SessionId: id, ConfigId: "effort", Value: "low"}})
	require.NoError(t, err)
	assert.Equal(t, acp.SessionConfigValueId("low"), set.ConfigOptions[0].Select.CurrentValue)
	_, err = prompt(t.Context(), conn, id, "the second question")
	require.NoError(t, err)
	b, err := os.ReadFile(args)
	require.NoError(t, err)
	runs := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, runs, 2)
	assert.Equal(t, "-state -args-to "+args+" --session "+string(id), runs[0])
	assert.Equal(t, "-state -args-to "+args+" --session "+string(id)+" -e low", runs[1], "the effort chosen, from the next prompt")
	answers := texts(c.of(id), "agent_message_chunk")
	assert.Contains(t, answers, "answer to: the second question (after: the first question)", "the conversation went on")

	// The agent restarts: the session is in the state directory.
	conn2, c2, _ := acpAgentProcess(t, fakeUagent, "-state", "-args-to", args)
	list, err := conn2.ListSessions(t.Context(), acp.ListSessionsRequest{})
	require.NoError(t, err)
	require.Len(t, list.Sessions, 1)
	got := list.Sessions[0]
	assert.Equal(t, id, got.SessionId)
	require.NotNil(t, got.Title)
	assert.Equal(t, "the first question", *got.Title)
	require.NotNil(t, got.UpdatedAt)
	_, err = time.Parse(time.RFC3339Nano, *got.UpdatedAt)
	require.NoError(t, err)
	assert.Nil(t, list.NextCursor)
	elsewhere := t.TempDir()
	none, err := conn2.ListSessions(t.Context(), acp.ListSessionsRequest{Cwd: &elsewhere})
	require.NoError(t, err)
	assert.Empty(t, none.Sessions, "sessions of another workspace are not listed")

	loaded, err := conn2.LoadSession(t.Context(), acp.LoadSessionRequest{SessionId: id, Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	require.NoError(t, err)
	assert.Equal(t, acp.SessionConfigValueId("low"), loaded.ConfigOptions[0].Select.CurrentValue, "what the last run ran with")
	ups := c2.of(id)
	assert.Equal(t, []string{"the first question", "the second question"}, texts(ups, "user_message_chunk"))
	assert.Equal(t, []string{"answer to: the first question", "answer to: the second question (after: the first question)"}, texts(ups, "agent_message_chunk"))
	var calls []string
	for _, k := range kinds(ups) {
		if strings.HasPrefix(k, "tool_call") {
			calls = append(calls, strings.Fields(k)[0]+" "+strings.Fields(k)[2])
		}
	}
	assert.Equal(t, []string{"tool_call pending", "tool_call_update in_progress", "tool_call_update completed",
		"tool_call pending", "tool_call_update in_progress", "tool_call_update completed"}, calls, "each run's call, to its last state")

	_, err = prompt(t.Context(), conn2, id, "the third question")
	require.NoError(t, err)
	assert.Contains(t, texts(c2.of(id), "agent_message_chunk"), "answer to: the third question (after: the first question | the second question)")

	// resume: no replay; close: forgotten.
	before := len(c2.of(id))
	_, err = conn2.ResumeSession(t.Context(), acp.ResumeSessionRequest{SessionId: id, Cwd: t.TempDir()})
	require.NoError(t, err)
	assert.Len(t, c2.of(id), before)
	_, err = conn2.CloseSession(t.Context(), acp.CloseSessionRequest{SessionId: id})
	require.NoError(t, err)
	_, err = prompt(t.Context(), conn2, id, "after close")
	require.Error(t, err, "a closed session is forgotten")
}

// What session/load and the prompts say when they cannot: an unknown
// session; a saved run that cannot be read (said once, marked, after
// what could be); a session another uagent holds (uagent's own message).
func TestACPSessionTrouble(t *testing.T) {
	state := t.TempDir()
	t.Setenv("UAGENT_STATE_DIR", state)
	conn, _, _ := acpAgentProcess(t, fakeUagent, "-state")
	_, err := conn.LoadSession(t.Context(), acp.LoadSessionRequest{SessionId: "00000000-0000-4000-8000-000000000000", Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	var re *acp.RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, -32602, re.Code)
	assert.Contains(t, string(mustJSON(t, re.Data)), "no such session in the state directory")

	s, err := conn.NewSession(t.Context(), acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	require.NoError(t, err)
	for _, q := range []string{"one", "two"} {
		_, err = prompt(t.Context(), conn, s.SessionId, q)
		require.NoError(t, err)
	}
	dirs, err := filepath.Glob(filepath.Join(state, "runs", "*"))
	require.NoError(t, err)
	require.Len(t, dirs, 2)
	require.NoError(t, os.Remove(filepath.Join(dirs[1], "events.jsonl")))
	require.NoError(t, os.Mkdir(filepath.Join(dirs[1], "events.jsonl"), 0o755)) // cannot be read, even by root
	conn2, c2, _ := acpAgentProcess(t, fakeUagent, "-state")
	_, err = conn2.LoadSession(t.Context(), acp.LoadSessionRequest{SessionId: s.SessionId, Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	require.NoError(t, err)
	said := texts(c2.of(s.SessionId), "agent_message_chunk")
	require.NotEmpty(t, said)
	assert.Contains(t, said[len(said)-1], "[uagent-stream: 1 parts of this session's saved runs could not be read; the first: ")
	assert.Contains(t, said, "answer to: one", "what could be read is replayed")

	require.NoError(t, os.MkdirAll(filepath.Join(state, "sessions"), 0o755))
	lock, err := os.OpenFile(filepath.Join(state, "sessions", string(s.SessionId)+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	require.NoError(t, err)
	defer lock.Close()
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB), "held, as another uagent holds it")
	_, err = prompt(t.Context(), conn2, s.SessionId, "three")
	require.ErrorAs(t, err, &re)
	assert.Contains(t, string(mustJSON(t, re.Data)), "is in use by another uagent", "uagent's own message")
}

// session/list pages, the latest activity first.
func TestACPSessionListPages(t *testing.T) {
	state := t.TempDir()
	t.Setenv("UAGENT_STATE_DIR", state)
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 120 {
		session := "00000000-0000-4000-8000-" + strings.Repeat("0", 9) + strconv.Itoa(100+i)
		run := filepath.Join(state, "runs", at.Add(time.Duration(i)*time.Minute).Format("20060102-150405-")+"00000000")
		require.NoError(t, os.MkdirAll(run, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(run, "request.json"), []byte(`{"prompt":"task `+strconv.Itoa(i)+`\u001b[2J","session_id":"`+session+`"}`), 0o644))
		require.NoError(t, stream.SummaryDTO{V: 1, Status: "ok", SessionID: session, Workspace: "/w",
			StartedAt: at.Add(time.Duration(i) * time.Minute), WallMS: 1000}.WriteFile(filepath.Join(run, "summary.json")))
	}
	conn, _, _ := acpAgentProcess(t, fakeUagent, "-state")
	var titles []string
	var cursor *string
	pages := 0
	for {
		res, err := conn.ListSessions(t.Context(), acp.ListSessionsRequest{Cursor: cursor})
		require.NoError(t, err)
		pages++
		for _, s := range res.Sessions {
			titles = append(titles, *s.Title)
		}
		if cursor = res.NextCursor; cursor == nil {
			break
		}
	}
	assert.Equal(t, 3, pages)
	require.Len(t, titles, 120)
	assert.Equal(t, `task 119\x1b[2J`, titles[0], "the latest first, what a terminal acts on escaped")
	assert.Equal(t, `task 0\x1b[2J`, titles[119])
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// With --models the model is a config option (category model) whose
// choice reaches the next run as -m; with --context-window each model
// response sends a usage_update: the tokens in context of the window.
func TestACPModelAndUsage(t *testing.T) {
	t.Setenv("UAGENT_STATE_DIR", t.TempDir())
	args := filepath.Join(t.TempDir(), "args.txt")
	conn, c, _ := acpAgentWith(t, []string{"--models", "gpt-6-sol,gpt-6-mini", "--context-window", "400000"}, fakeUagent, "-args-to", args, "-replay", runFile)
	s, err := conn.NewSession(t.Context(), acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	require.NoError(t, err)
	require.Len(t, s.ConfigOptions, 2)
	model := s.ConfigOptions[1].Select
	assert.Equal(t, acp.SessionConfigId("model"), model.Id)
	assert.Equal(t, acp.SessionConfigOptionCategoryModel, *model.Category)
	assert.Equal(t, acp.SessionConfigValueId("gpt-6-sol"), model.CurrentValue)
	_, err = conn.SetSessionConfigOption(t.Context(), acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{
		SessionId: s.SessionId, ConfigId: "model", Value: "gpt-6-mini"}})
	require.NoError(t, err)
	_, err = conn.SetSessionConfigOption(t.Context(), acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{
		SessionId: s.SessionId, ConfigId: "model", Value: "not-offered"}})
	require.Error(t, err, "a model the agent does not offer")
	_, err = prompt(t.Context(), conn, s.SessionId, "x")
	require.NoError(t, err)
	b, err := os.ReadFile(args)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(strings.TrimSpace(string(b)), "--session "+string(s.SessionId)+" -m gpt-6-mini"), string(b))

	var used []any
	for _, u := range c.of(s.SessionId) {
		if u["sessionUpdate"] == "usage_update" {
			assert.Equal(t, float64(400000), u["size"])
			used = append(used, u["used"])
		}
	}
	// testdata/run.jsonl's two responses: 554 in + 61 out, 801 in + 19 out
	assert.Equal(t, []any{float64(615), float64(820)}, used)
}

// Every session id session/list shows loads, and nothing raw reaches the
// editor: an id holding a newline, NUL, ESC or U+202E (a hand-edited or
// hostile summary) is listed escaped, and session/load of what was listed
// reopens it; its prompts continue the uagent session as it is (an id
// with a NUL cannot be a command's argument: its prompts fail, saying
// so).
func TestACPListedIDsLoad(t *testing.T) {
	state := t.TempDir()
	t.Setenv("UAGENT_STATE_DIR", state)
	for i, id := range []string{"evil\n\x1b[2J\u202eid", "nul\x00id"} {
		run := filepath.Join(state, "runs", "20261101-10000"+itoa(i)+"-00000000")
		require.NoError(t, os.MkdirAll(run, 0o755))
		require.NoError(t, stream.SummaryDTO{V: 1, Status: "ok", SessionID: id,
			StartedAt: time.Date(2026, 11, 1, 10, 0, i, 0, time.UTC), WallMS: 1000}.WriteFile(filepath.Join(run, "summary.json")))
		require.NoError(t, os.WriteFile(filepath.Join(run, "events.jsonl"), nil, 0o644))
	}
	args := filepath.Join(t.TempDir(), "args.txt")
	conn, _, _ := acpAgentProcess(t, fakeUagent, "-replay", runFile, "-args-to", args)
	list, err := conn.ListSessions(t.Context(), acp.ListSessionsRequest{})
	require.NoError(t, err)
	require.Len(t, list.Sessions, 2)
	for _, s := range list.Sessions {
		for _, r := range string(s.SessionId) {
			assert.False(t, r < 0x20 || r == 0x7f || r == '\u202e', "listed raw: %q", s.SessionId)
		}
		_, err = conn.LoadSession(t.Context(), acp.LoadSessionRequest{SessionId: s.SessionId, Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
		require.NoError(t, err, "what session/list shows loads: %q", s.SessionId)
	}
	_, err = prompt(t.Context(), conn, list.Sessions[1].SessionId, "more") // the first one's, listed last
	require.NoError(t, err)
	b, err := os.ReadFile(args)
	require.NoError(t, err)
	assert.Contains(t, string(b), "--session evil\n\x1b[2J\u202eid", "the run continues the uagent session as it is")
	_, err = prompt(t.Context(), conn, list.Sessions[0].SessionId, "more")
	var re *acp.RequestError
	require.ErrorAs(t, err, &re)
	assert.NotContains(t, string(mustJSON(t, re.Data)), "\x00", "nothing raw in the error")
}

// A loaded session whose last run was cut off (no summary, a half-written
// last record) replays what could be read, then says the run was cut
// off, as cat does.
func TestACPLoadSaysARunWasCutOff(t *testing.T) {
	state := t.TempDir()
	t.Setenv("UAGENT_STATE_DIR", state)
	conn, _, _ := acpAgentProcess(t, fakeUagent, "-state")
	s, err := conn.NewSession(t.Context(), acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	require.NoError(t, err)
	_, err = prompt(t.Context(), conn, s.SessionId, "one")
	require.NoError(t, err)
	dirs, err := filepath.Glob(filepath.Join(state, "runs", "*"))
	require.NoError(t, err)
	require.Len(t, dirs, 1)
	require.NoError(t, os.Remove(filepath.Join(dirs[0], "summary.json")))
	events, err := os.ReadFile(filepath.Join(dirs[0], "events.jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dirs[0], "events.jsonl"), append(events, `{"Sequence":99,"Kind":"tu`...), 0o644))
	conn2, c2, _ := acpAgentProcess(t, fakeUagent, "-state")
	_, err = conn2.LoadSession(t.Context(), acp.LoadSessionRequest{SessionId: s.SessionId, Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	require.NoError(t, err)
	said := texts(c2.of(s.SessionId), "agent_message_chunk")
	require.NotEmpty(t, said)
	assert.Contains(t, said, "answer to: one", "what could be read is replayed")
	assert.Contains(t, said[len(said)-1], "[uagent-stream: this run was cut_off: uagent stopped before it ended")
}
