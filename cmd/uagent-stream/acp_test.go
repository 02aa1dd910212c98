//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/sessions"
	"github.com/uagentkit/stream/internal/testenv"
)

// acpClient is an editor as the SDK's client side: it records every
// session update, as JSON, in order.
type acpClient struct {
	mu      sync.Mutex
	updates []map[string]any
	got     chan struct{} // told on every update
}

func (c *acpClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	c.mu.Lock()
	c.updates = append(c.updates, m)
	c.mu.Unlock()
	select {
	case c.got <- struct{}{}:
	default:
	}
	return nil
}

// of returns the updates of one session, their "update" objects.
func (c *acpClient) of(id acp.SessionId) []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []map[string]any
	for _, u := range c.updates {
		if u["sessionId"] == string(id) {
			out = append(out, u["update"].(map[string]any))
		}
	}
	return out
}

var errNotOffered = errors.New("not offered by this client")

func (c *acpClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, errNotOffered
}
func (c *acpClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, errNotOffered
}
func (c *acpClient) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{}, errNotOffered
}
func (c *acpClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errNotOffered
}
func (c *acpClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errNotOffered
}
func (c *acpClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errNotOffered
}
func (c *acpClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errNotOffered
}
func (c *acpClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errNotOffered
}

// acpAgentProcess starts `uagent-stream acp -- COMMAND…` and connects the
// SDK's client side to it; the agent is stopped (its stdin closed) and
// reaped at the end of the test.
func acpAgentProcess(t *testing.T, command ...string) (*acp.ClientSideConnection, *acpClient, *syncBuffer) {
	t.Helper()
	return acpAgentWith(t, nil, command...)
}

// acpAgentWith is acpAgentProcess with flags of acp's own.
func acpAgentWith(t *testing.T, flags []string, command ...string) (*acp.ClientSideConnection, *acpClient, *syncBuffer) {
	t.Helper()
	for i, a := range command { // the runs start in the sessions' directories
		if _, err := os.Stat(a); err == nil && !filepath.IsAbs(a) {
			command[i], _ = filepath.Abs(a)
		}
	}
	args := append(append([]string{"acp", "--grace", "300ms"}, flags...), "--")
	cmd := exec.Command(self(t), append(args, command...)...)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	c := &acpClient{got: make(chan struct{}, 1)}
	conn := acp.NewClientSideConnection(c, in, out)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() {
		in.Close()
		assert.Equal(t, 0, waitExit(t, cmd), "the agent ends when the editor closes its stdin: %s", stderr.String())
	})
	init, err := conn.Initialize(t.Context(), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	require.NoError(t, err)
	require.Equal(t, acp.ProtocolVersion(1), init.ProtocolVersion)
	return conn, c, stderr
}

func newSession(t *testing.T, conn *acp.ClientSideConnection) (acp.SessionId, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := conn.NewSession(t.Context(), acp.NewSessionRequest{Cwd: dir, McpServers: []acp.McpServer{}})
	require.NoError(t, err)
	return s.SessionId, dir
}

func prompt(ctx context.Context, conn *acp.ClientSideConnection, id acp.SessionId, text string) (acp.PromptResponse, error) {
	return conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
}

// kinds lists the updates' kinds, with a tool call's id and status.
func kinds(updates []map[string]any) []string {
	var out []string
	for _, u := range updates {
		k := u["sessionUpdate"].(string)
		if id, ok := u["toolCallId"].(string); ok {
			k += " " + id + " " + fmt.Sprint(u["status"])
		}
		out = append(out, k)
	}
	return out
}

// A prompt is one run of the command in the session's directory, with the
// prompt on its stdin; its events arrive as session updates in order, each
// tool call ending in the right status, and the answer is end_turn with the
// run's usage.
func TestACPPromptOnARecordedRun(t *testing.T) {
	stdin := filepath.Join(t.TempDir(), "stdin.txt")
	conn, c, _ := acpAgentProcess(t, fakeUagent, "-stdin-to", stdin, "-replay", runFile)
	id, _ := newSession(t, conn)
	res, err := prompt(t.Context(), conn, id, "List the files, please.")
	require.NoError(t, err)
	assert.Equal(t, acp.StopReasonEndTurn, res.StopReason)
	require.NotNil(t, res.Usage)
	assert.Equal(t, 1355, res.Usage.InputTokens)
	assert.Equal(t, 80, res.Usage.OutputTokens)
	b, err := os.ReadFile(stdin)
	require.NoError(t, err)
	assert.Equal(t, "List the files, please.", string(b), "the prompt on the runner's stdin")

	ups := c.of(id)
	assert.Equal(t, []string{
		"agent_message_chunk", // the preflight warning, marked
		"agent_thought_chunk",
		"tool_call call_ls pending", "tool_call call_wc pending", "tool_call call_cat pending",
		"tool_call_update call_ls in_progress", "tool_call_update call_wc in_progress", "tool_call_update call_cat in_progress",
		"tool_call_update call_ls completed", "tool_call_update call_wc completed", "tool_call_update call_cat failed",
		"agent_message_chunk",
	}, kinds(ups))
	assert.Contains(t, ups[0]["content"].(map[string]any)["text"], "[uagent preflight warning auth_expiring] credentials expire in 2 days")
	assert.Equal(t, "a.txt has 3 lines; b.txt does not exist.", ups[len(ups)-1]["content"].(map[string]any)["text"])
	call := ups[2]
	assert.Equal(t, "ls", call["title"])
	assert.Equal(t, "execute", call["kind"])
	assert.Equal(t, map[string]any{"command": "ls"}, call["rawInput"], "arguments parsed as JSON")
	failed := ups[10]["content"].([]any)[0].(map[string]any)["content"].(map[string]any)["text"]
	assert.Equal(t, "exit 1", failed, "the detail (no output files here)")
}

// A tool's output files, when readable, add their last lines to its
// finished update, bounded as cat --tool-output.
func TestACPToolOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(out, []byte(strings.Repeat("line\n", 20)+"last\n"), 0o644))
	run := sinkFile(t, stream.RunStarted{At: t1, RunID: "r"},
		stream.ToolStarted{At: t1, CallID: "c1", OpID: "o1", Name: "Read", Label: "read a"},
		stream.ToolFinished{At: t1, CallID: "c1", OpID: "o1", Name: "Read", Label: "read a", OK: true, Detail: "ok", OutPath: out},
		stream.RunFinished{At: t1, Result: stream.Result{Status: stream.StatusOK}})
	conn, c, _ := acpAgentProcess(t, fakeUagent, "-replay", run)
	id, _ := newSession(t, conn)
	_, err := prompt(t.Context(), conn, id, "x")
	require.NoError(t, err)
	ups := c.of(id)
	require.Equal(t, []string{"tool_call c1 pending", "tool_call_update c1 in_progress", "tool_call_update c1 completed"}, kinds(ups))
	assert.Equal(t, "read", ups[0]["kind"])
	text := ups[2]["content"].([]any)[0].(map[string]any)["content"].(map[string]any)["text"].(string)
	assert.Equal(t, "ok\nstdout │ line\nstdout │ line\nstdout │ line\nstdout │ line\nstdout │ last", text)
}

// A run that does not end ok answers with a JSON-RPC error naming its
// status, exit code and stderr.
func TestACPFailingRun(t *testing.T) {
	conn, _, _ := acpAgentProcess(t, fakeUagent, "-replay", runFile, "-lines", "12", "-exit", "1", "-stderr", "runner: boom\x1b[31m\n")
	id, _ := newSession(t, conn)
	_, err := prompt(t.Context(), conn, id, "x")
	var re *acp.RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "the run ended with status error", re.Message)
	data := re.Data.(map[string]any)
	assert.Equal(t, "error", data["status"])
	assert.Equal(t, float64(1), data["exit_code"])
	assert.Equal(t, "cut_off", data["ending"])
	assert.Contains(t, data["stderr"], "runner: boom")
	assert.NotContains(t, data["stderr"], "\x1b", "stderr sanitized")
}

// session/cancel interrupts the run as run does; the prompt answers
// cancelled within the grace period, every line written before the stop
// arrives, and nothing is left running.
func TestACPCancel(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
	conn, c, _ := acpAgentProcess(t, fakeUagent, "-replay", runFile, "-lines", "12", "-hang", "-on-int", "finish",
		"-finish-line", `{"v":1,"type":"assistant_message","at":"2026-09-23T12:39:24Z","text":"stopping","final":false}`, "-grandchild", pidFile)
	id, _ := newSession(t, conn)
	done := make(chan struct{})
	var res acp.PromptResponse
	var err error
	go func() {
		defer close(done)
		res, err = prompt(t.Context(), conn, id, "x")
	}()
	require.Eventually(t, func() bool { return len(c.of(id)) >= 6 }, 10*time.Second, 10*time.Millisecond, "the lines before the hang")
	start := time.Now()
	require.NoError(t, conn.Cancel(t.Context(), acp.CancelNotification{SessionId: id}))
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the prompt did not answer after cancel")
	}
	require.NoError(t, err)
	assert.Equal(t, acp.StopReasonCancelled, res.StopReason)
	assert.Less(t, time.Since(start), 3*time.Second)
	ups := c.of(id)
	last := ups[len(ups)-1]
	assert.Equal(t, "stopping", last["content"].(map[string]any)["text"], "the line written on the interrupt arrived")
	pid := testenv.ReadPid(t, pidFile)
	assert.Eventually(t, func() bool { return !testenv.Alive(pid) }, 5*time.Second, 10*time.Millisecond, "nothing left running")
}

// Sessions are independent and may prompt at once.
func TestACPTwoSessionsAtOnce(t *testing.T) {
	conn, c, _ := acpAgentProcess(t, fakeUagent, "-replay", runFile, "-delay", "5ms")
	a, _ := newSession(t, conn)
	b, _ := newSession(t, conn)
	var wg sync.WaitGroup
	for _, id := range []acp.SessionId{a, b} {
		wg.Go(func() {
			res, err := prompt(t.Context(), conn, id, "x")
			assert.NoError(t, err)
			assert.Equal(t, acp.StopReasonEndTurn, res.StopReason)
		})
	}
	wg.Wait()
	assert.Equal(t, kinds(c.of(a)), kinds(c.of(b)), "each session got its own run's updates")
	assert.Len(t, c.of(a), 12)
}

// Hostile text in every field reaches the editor with its terminal
// controls escaped (C0 but tab and newline, C1, bidi), inside JSON-RPC's
// own string encoding.
func TestACPHostileText(t *testing.T) {
	evil := "a\x1b[2Jb\u009bc\u202ed\u2066e\x07f\tg\nh"
	run := sinkFile(t, stream.RunStarted{At: t1, RunID: evil},
		stream.PreflightWarning{At: t1, Code: evil, Message: evil},
		stream.RunnerError{At: t1, Message: evil},
		stream.ReasoningSummary{At: t1, Text: evil},
		stream.ToolCalled{At: t1, CallID: evil, Name: "Bash" + evil, Label: evil, Arguments: `{"k` + "\u202e" + `":"` + "\\u001b[31m" + `"}`},
		stream.ToolStarted{At: t1, CallID: evil, OpID: "o", Name: evil, Label: evil},
		stream.ToolFinished{At: t1, CallID: evil, OpID: "o", Name: evil, Label: evil, OK: false, Detail: evil},
		stream.ToolCalled{At: t1, CallID: "c2", Name: "x", Label: "y", Arguments: evil},
		stream.AssistantMessage{At: t1, Text: evil, Final: true},
		stream.RunFinished{At: t1, Result: stream.Result{Status: stream.StatusOK}})
	conn, c, _ := acpAgentProcess(t, fakeUagent, "-replay", run)
	id, _ := newSession(t, conn)
	_, err := prompt(t.Context(), conn, id, "x")
	require.NoError(t, err)
	ups := c.of(id)
	require.NotEmpty(t, ups)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			for _, r := range v {
				bad := unicode.Is(unicode.Cc, r) && r != '\t' && r != '\n' || unicode.Is(unicode.Cf, r)
				assert.False(t, bad, "%U in %q", r, v)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				walk(k)
				walk(x)
			}
		}
	}
	for _, u := range ups {
		walk(u)
	}
	assert.Contains(t, fmt.Sprint(ups), "\\x1b[2J", "escaped as the command's human output escapes it")
}

// A run that ends ok after a response that stopped on max_tokens answers
// max_tokens.
func TestACPMaxTokens(t *testing.T) {
	run := sinkFile(t, stream.RunStarted{At: t1, RunID: "r"},
		stream.TurnStarted{At: t1, Turn: 1},
		stream.ModelResponded{At: t1.Add(time.Second), Turn: 1, Stop: "max_tokens"},
		stream.AssistantMessage{At: t1.Add(time.Second), Turn: 1, Text: "cut", Final: true},
		stream.RunFinished{At: t1.Add(time.Second), Result: stream.Result{Status: stream.StatusOK}})
	conn, _, _ := acpAgentProcess(t, fakeUagent, "-replay", run)
	id, _ := newSession(t, conn)
	res, err := prompt(t.Context(), conn, id, "x")
	require.NoError(t, err)
	assert.Equal(t, acp.StopReasonMaxTokens, res.StopReason)
}

// A prompt whose command writes a session stream of the harness (uah run
// --stream): the text reaches the editor as the model writes it, and the
// response's own text, the same, is not sent again; a stream reset is
// said; the stop and usage are the session's.
func TestACPOnASessionStream(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(path, sessions.Write(sessions.Options{Runs: []sessions.Run{
		{Message: "one", Answer: "DONE", Calls: 1}, {Message: "two", Answer: "Again", Reset: true}}}), 0o644))
	conn, c, _ := acpAgentProcess(t, fakeUagent, "-replay", path)
	id, _ := newSession(t, conn)
	res, err := prompt(t.Context(), conn, id, "go")
	require.NoError(t, err)
	assert.Equal(t, acp.StopReasonEndTurn, res.StopReason)
	require.NotNil(t, res.Usage)
	assert.Equal(t, 3*12873, res.Usage.InputTokens, "the session's three responses")
	var said, thought []string
	for _, u := range c.of(id) {
		content, _ := u["content"].(map[string]any)
		switch u["sessionUpdate"] {
		case "agent_message_chunk":
			said = append(said, content["text"].(string))
		case "agent_thought_chunk":
			thought = append(thought, content["text"].(string))
		}
	}
	all := strings.Join(said, "")
	assert.Equal(t, 1, strings.Count(all, "I'll run the commands."), "once: streamed, not again: %q", said)
	assert.Equal(t, 1, strings.Count(all, "DONE"), "%q", said)
	assert.Equal(t, 1, strings.Count(all, "Again"), "%q", said)
	assert.Contains(t, all, "A first try\n[uah: the text above is void: the stream was reset]\n")
	assert.Equal(t, 4, strings.Count(strings.Join(thought, ""), "Thinking it over."), "each response's reasoning once, and the one a reset voided; %q", thought)
}

// A second prompt to a session that is answering one waits its turn, and
// nothing is lost: the first run goes on to its answer (the SDK ends its
// request's context when the second arrives: that is not a cancel), then
// the second runs. A session/cancel while one waits cancels both: the
// running one is interrupted, the waiting one answers cancelled without
// a run.
func TestACPSecondPromptWaitsItsTurn(t *testing.T) {
	argsTo := filepath.Join(t.TempDir(), "args.txt")
	conn, c, _ := acpAgentProcess(t, fakeUagent, "-args-to", argsTo, "-replay", runFile, "-delay", "15ms")
	id, _ := newSession(t, conn)
	answers := make(chan acp.StopReason, 2)
	go func() {
		res, err := prompt(t.Context(), conn, id, "first")
		assert.NoError(t, err)
		answers <- res.StopReason
	}()
	require.Eventually(t, func() bool { return len(c.of(id)) >= 3 }, 10*time.Second, 5*time.Millisecond, "the first run is going")
	go func() {
		res, err := prompt(t.Context(), conn, id, "second")
		assert.NoError(t, err)
		answers <- res.StopReason
	}()
	for range 2 {
		select {
		case got := <-answers:
			assert.Equal(t, acp.StopReasonEndTurn, got, "both prompts are answered, neither cancelled")
		case <-time.After(20 * time.Second):
			t.Fatal("a prompt was not answered")
		}
	}
	b, err := os.ReadFile(argsTo)
	require.NoError(t, err)
	assert.Len(t, strings.Split(strings.TrimSpace(string(b)), "\n"), 2, "two runs, one after the other")
	assert.Len(t, c.of(id), 24, "every update of both runs")

	// A cancel while the second waits: both answer cancelled, one run.
	hang := filepath.Join(t.TempDir(), "args.txt")
	conn, _, _ = acpAgentProcess(t, fakeUagent, "-args-to", hang, "-replay", runFile, "-lines", "3", "-hang")
	id, _ = newSession(t, conn)
	for _, text := range []string{"first", "second"} {
		go func() {
			res, err := prompt(t.Context(), conn, id, text)
			assert.NoError(t, err)
			answers <- res.StopReason
		}()
		time.Sleep(200 * time.Millisecond)
	}
	require.NoError(t, conn.Cancel(t.Context(), acp.CancelNotification{SessionId: id}))
	for range 2 {
		select {
		case got := <-answers:
			assert.Equal(t, acp.StopReasonCancelled, got)
		case <-time.After(20 * time.Second):
			t.Fatal("a prompt was not answered after cancel")
		}
	}
	b, err = os.ReadFile(hang)
	require.NoError(t, err)
	assert.Len(t, strings.Split(strings.TrimSpace(string(b)), "\n"), 1, "the waiting prompt never ran")

	// session/close while one runs and one waits answers both as cancel
	// does: cancelled, not an internal error.
	closed := filepath.Join(t.TempDir(), "args.txt")
	conn, _, _ = acpAgentProcess(t, fakeUagent, "-args-to", closed, "-replay", runFile, "-lines", "3", "-hang")
	id, _ = newSession(t, conn)
	for _, text := range []string{"first", "second"} {
		go func() {
			res, err := prompt(t.Context(), conn, id, text)
			assert.NoError(t, err, "session/close answers the prompts as session/cancel does")
			answers <- res.StopReason
		}()
		time.Sleep(200 * time.Millisecond)
	}
	_, err = conn.CloseSession(t.Context(), acp.CloseSessionRequest{SessionId: id})
	require.NoError(t, err)
	for range 2 {
		select {
		case got := <-answers:
			assert.Equal(t, acp.StopReasonCancelled, got)
		case <-time.After(20 * time.Second):
			t.Fatal("a prompt was not answered after close")
		}
	}
}
