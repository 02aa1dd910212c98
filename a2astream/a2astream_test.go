//go:build unix

package a2astream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/execstream"
	"github.com/uagentkit/stream/internal/testenv"
)

var fakeUagent string

// TestMain builds the fake uagent and checks, after all tests, that none
// left a goroutine behind.
func TestMain(m *testing.M) { testenv.MainWithFake(m, "../testdata/fakeuagent", &fakeUagent) }

// fake starts the fake uagent that keeps sessions in the state directory
// ($UAGENT_STATE_DIR): a prompt that says "hang" works until it is
// interrupted (and notes SIGINT in sigint), one that says "nothing"
// writes no stream, one that says "missing" runs no program at all.
func fake(sigint string) execstream.Starter {
	return func(ctx context.Context, p execstream.Prompt) (execstream.Handle, error) {
		argv := []string{fakeUagent, "-state"}
		switch {
		case strings.Contains(p.Text, "hang"):
			argv = append(argv, "-hang", "-sigint-to", sigint)
		case strings.Contains(p.Text, "nothing"):
			argv = []string{fakeUagent, "-stderr", "uagent: no model configured\n", "-exit", "2"}
		case strings.Contains(p.Text, "missing"):
			argv = []string{filepath.Join(os.TempDir(), "no-such-uagent")}
		}
		return execstream.Command(argv, nil, execstream.WithGrace(2*time.Second))(ctx, p)
	}
}

// served is an agent on a test server, with a client of the SDK.
type served struct {
	agent  *Agent
	srv    *httptest.Server
	client *a2aclient.Client
	state  string
	sigint string
}

func serve(t *testing.T, state string, opts ...Option) *served {
	t.Helper()
	t.Setenv("UAGENT_STATE_DIR", state)
	s := &served{state: state, sigint: filepath.Join(t.TempDir(), "sigint")}
	s.agent = New(fake(s.sigint), append([]Option{WithStateDir(state)}, opts...)...)
	s.srv = httptest.NewUnstartedServer(nil)
	s.srv.Start()
	s.srv.Config.Handler = s.agent.Handler(s.srv.URL)
	var err error
	s.client, err = a2aclient.NewFromCard(t.Context(), s.agent.Card(s.srv.URL))
	require.NoError(t, err)
	t.Cleanup(s.close)
	return s
}

func (s *served) close() {
	s.client.Destroy()
	s.srv.Close()
	s.agent.Close()
}

func send(t *testing.T, c *a2aclient.Client, contextID, prompt string) *a2a.Task {
	t.Helper()
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(prompt))
	msg.ContextID = contextID
	res, err := c.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: msg})
	require.NoError(t, err)
	task, ok := res.(*a2a.Task)
	require.True(t, ok, "a task, not %T", res)
	return task
}

func answer(t *a2a.Task) string {
	for _, a := range t.Artifacts {
		if a.Name == "answer" && len(a.Parts) > 0 {
			return a.Parts[0].Text()
		}
	}
	return ""
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// A task is a run: its answer the artifact, completed for an ok run; a
// new context is a new uagent session (a UUID v4) that the next message
// continues; GetTask and ListTasks find the tasks, and after a restart
// too, from the runs uagent saved.
func TestATaskIsARun(t *testing.T) {
	state := t.TempDir()
	s := serve(t, state)
	first := send(t, s.client, "", "the first question")
	assert.Equal(t, a2a.TaskStateCompleted, first.Status.State)
	assert.Equal(t, "answer to: the first question", answer(first))
	assert.Regexp(t, uuidV4, first.ContextID, "a new session")
	second := send(t, s.client, first.ContextID, "the second question")
	assert.Equal(t, "answer to: the second question (after: the first question)", answer(second), "the conversation goes on")
	assert.Equal(t, first.ContextID, second.ContextID)

	got, err := s.client.GetTask(t.Context(), &a2a.GetTaskRequest{ID: first.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
	list, err := s.client.ListTasks(t.Context(), &a2a.ListTasksRequest{ContextID: first.ContextID, IncludeArtifacts: true})
	require.NoError(t, err)
	require.Len(t, list.Tasks, 2)
	assert.Equal(t, second.ID, list.Tasks[0].ID, "the latest first")

	s.close() // the process ends; the tasks stay, in the runs
	s = serve(t, state)
	got, err = s.client.GetTask(t.Context(), &a2a.GetTaskRequest{ID: second.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
	assert.Equal(t, "answer to: the second question (after: the first question)", answer(got))
	assert.Equal(t, "the second question", got.History[0].Parts[0].Text())
	list, err = s.client.ListTasks(t.Context(), &a2a.ListTasksRequest{ContextID: first.ContextID, Status: "UNRECOGNIZED"})
	require.NoError(t, err)
	assert.Len(t, list.Tasks, 2, "a status that is no state filters nothing, as the JavaScript client sends it")
	list, err = s.client.ListTasks(t.Context(), &a2a.ListTasksRequest{ContextID: first.ContextID, Status: a2a.TaskStateFailed})
	require.NoError(t, err)
	assert.Empty(t, list.Tasks)
	list, err = s.client.ListTasks(t.Context(), &a2a.ListTasksRequest{ContextID: first.ContextID, PageSize: 1})
	require.NoError(t, err)
	require.Len(t, list.Tasks, 1)
	assert.Equal(t, 2, list.TotalSize)
	assert.NotEmpty(t, list.NextPageToken)
	third := send(t, s.client, first.ContextID, "the third question")
	assert.Equal(t, "answer to: the third question (after: the first question | the second question)", answer(third),
		"a context of an earlier process goes on")
}

// A streaming message: the task, working, each tool call as it is made,
// starts and ends, the answer, completed.
func TestStreamingATask(t *testing.T) {
	s := serve(t, t.TempDir())
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("count the files"))
	var steps []string
	for ev, err := range s.client.SendStreamingMessage(t.Context(), &a2a.SendMessageRequest{Message: msg}) {
		require.NoError(t, err)
		switch ev := ev.(type) {
		case *a2a.Task:
			steps = append(steps, "task "+string(ev.Status.State))
		case *a2a.TaskStatusUpdateEvent:
			step := string(ev.Status.State)
			if m := ev.Status.Message; m != nil {
				for _, p := range m.Parts {
					if d, ok := p.Data().(map[string]any); ok {
						step += " " + d["status"].(string)
					}
				}
			}
			steps = append(steps, step)
		case *a2a.TaskArtifactUpdateEvent:
			steps = append(steps, "artifact "+ev.Artifact.Name+": "+ev.Artifact.Parts[0].Text())
		}
	}
	assert.Equal(t, []string{"task TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_WORKING pending", "TASK_STATE_WORKING running",
		"TASK_STATE_WORKING finished", "TASK_STATE_WORKING", "artifact answer: answer to: count the files", "TASK_STATE_COMPLETED"}, steps)
}

// waitFor waits for a file to appear, or fails.
func waitFor(t *testing.T, path string) {
	t.Helper()
	require.Eventually(t, func() bool { _, err := os.Stat(path); return err == nil }, 10*time.Second, 10*time.Millisecond, path)
}

// CancelTask interrupts the run (SIGINT reaches the runner), and the task
// ends canceled once the run has; a second message to the context waits
// for the first's run, and runs after it; cancelling a task that has
// ended is the protocol's not-cancelable error; resubscribing to a
// running task gives the rest of it.
func TestCancelAndResubscribe(t *testing.T) {
	s := serve(t, t.TempDir())
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hang on"))
	res, err := s.client.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: msg, Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	require.NoError(t, err)
	first := res.(*a2a.Task)
	require.Eventually(t, func() bool {
		got, err := s.client.GetTask(t.Context(), &a2a.GetTaskRequest{ID: first.ID})
		return err == nil && got.Status.Message != nil && strings.Contains(got.Status.Message.Parts[0].Text(), "sleep 1000")
	}, 10*time.Second, 10*time.Millisecond, "the run works")

	next := make(chan *a2a.Task)
	go func() {
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("and then?"))
		msg.ContextID = first.ContextID
		res, err := s.client.SendMessage(context.Background(), &a2a.SendMessageRequest{Message: msg})
		if err != nil {
			next <- nil
			return
		}
		next <- res.(*a2a.Task)
	}()

	var rest []a2a.TaskState
	resubscribed := make(chan struct{})
	go func() {
		defer close(resubscribed)
		for ev, err := range s.client.SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: first.ID}) {
			if err != nil {
				return
			}
			if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
				rest = append(rest, st.Status.State)
			}
		}
	}()
	time.Sleep(200 * time.Millisecond)
	select {
	case <-next:
		t.Fatal("the second message ran while the first's run was going")
	default:
	}
	canceled, err := s.client.CancelTask(t.Context(), &a2a.CancelTaskRequest{ID: first.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, canceled.Status.State)
	b, err := os.ReadFile(s.sigint)
	require.NoError(t, err, "SIGINT reached the runner")
	assert.Equal(t, "SIGINT\n", string(b))
	second := <-next
	require.NotNil(t, second)
	assert.Equal(t, a2a.TaskStateCompleted, second.Status.State, "the second message ran once the first's run ended")
	<-resubscribed
	require.NotEmpty(t, rest)
	assert.Equal(t, a2a.TaskStateCanceled, rest[len(rest)-1], "the subscription gave the rest, to the end")

	_, err = s.client.CancelTask(t.Context(), &a2a.CancelTaskRequest{ID: second.ID})
	assert.ErrorIs(t, err, a2a.ErrTaskNotCancelable)
	got, err := s.client.GetTask(t.Context(), &a2a.GetTaskRequest{ID: first.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, got.Status.State)
}

// What goes wrong is a clear error or a failed task with its reason, and
// nothing else is affected.
func TestBadInput(t *testing.T) {
	s := serve(t, t.TempDir())
	ctx := t.Context()
	_, err := s.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"x": 1}))})
	assert.ErrorIs(t, err, a2a.ErrInvalidParams, "no text part")
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))
	msg.ContextID = "4d2c8a3e-0000-4000-8000-000000000000"
	_, err = s.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
	assert.ErrorIs(t, err, a2a.ErrInvalidParams, "an unknown context")
	_, err = s.client.GetTask(ctx, &a2a.GetTaskRequest{ID: "../../etc/passwd"})
	assert.ErrorIs(t, err, a2a.ErrTaskNotFound)
	_, err = s.client.GetTask(ctx, &a2a.GetTaskRequest{ID: "0198c0de-0000-7000-8000-000000000000"})
	assert.ErrorIs(t, err, a2a.ErrTaskNotFound)

	missing := send(t, s.client, "", "missing runner")
	assert.Equal(t, a2a.TaskStateFailed, missing.Status.State)
	assert.Contains(t, missing.Status.Message.Parts[0].Text(), "could not be started")
	nothing := send(t, s.client, "", "nothing at all")
	assert.Equal(t, a2a.TaskStateFailed, nothing.Status.State)
	assert.Contains(t, nothing.Status.Message.Parts[0].Text(), "uagent wrote no stream")
	assert.Contains(t, nothing.Status.Message.Parts[0].Text(), "no model configured", "the runner's last words")
	ok := send(t, s.client, "", "still fine")
	assert.Equal(t, a2a.TaskStateCompleted, ok.Status.State, "nothing else is affected")

	post := func(body string) int {
		resp, err := http.Post(s.srv.URL, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		var out struct {
			Error *struct{ Code int } `json:"error"`
		}
		b, _ := io.ReadAll(resp.Body)
		if json.Unmarshal(b, &out) != nil || out.Error == nil {
			return resp.StatusCode
		}
		return out.Error.Code
	}
	assert.Equal(t, -32700, post(`{"jsonrpc":"2.0","id":1,"method":`), "malformed")
	assert.NotEqual(t, 200, post(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"m","parts":[{"text":"`+
		strings.Repeat("x", MaxRequest)+`"}]}}}`), "oversized")
}

// With a token, every request but the card's needs it; without one, a
// request whose Host names another server is refused.
func TestAccess(t *testing.T) {
	s := serve(t, t.TempDir(), WithToken("s3cret"))
	get := func(path string, hdr map[string]string) int {
		req, _ := http.NewRequest(http.MethodGet, s.srv.URL+path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, 200, get("/.well-known/agent-card.json", nil))
	assert.Equal(t, 401, get("/rest/tasks", nil))
	assert.Equal(t, 401, get("/rest/tasks", map[string]string{"Authorization": "Bearer wrong"}))
	assert.NotEqual(t, 401, get("/rest/tasks", map[string]string{"Authorization": "Bearer s3cret"}))
	_, err := s.client.ListTasks(t.Context(), &a2a.ListTasksRequest{})
	assert.Error(t, err, "the SDK's client without the token")
	assert.NotEmpty(t, s.agent.Card(s.srv.URL).SecuritySchemes)

	open := serve(t, t.TempDir())
	req, _ := http.NewRequest(http.MethodGet, open.srv.URL+"/rest/tasks", nil)
	req.Host = "evil.example:80"
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 403, resp.StatusCode, "DNS rebinding")
}

// A task whose run is going, seen by another process, is working (its
// run's summary says running); once the agent that ran it stops (Close
// interrupts its runs), it is failed, from its run directory, with why.
func TestATaskSeenFromAnotherProcess(t *testing.T) {
	state := t.TempDir()
	s := serve(t, state)
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hang on"))
	res, err := s.client.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: msg, Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	require.NoError(t, err)
	task := res.(*a2a.Task)
	waitFor(t, filepath.Join(state, "a2a", "tasks", string(task.ID)+".json"))
	other := New(fake(""), WithStateDir(state))
	defer other.Close()
	require.Eventually(t, func() bool {
		st, err := other.store.Get(t.Context(), task.ID)
		return err == nil && st.Task.Status.State == a2a.TaskStateWorking
	}, 10*time.Second, 10*time.Millisecond, "its summary says running")
	s.close()
	st, err := other.store.Get(t.Context(), task.ID)
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateFailed, st.Task.Status.State)
	assert.Contains(t, st.Task.Status.Message.Parts[0].Text(), "the run ended interrupted")
}

// Every string of a run reaches a client escaped: what a terminal acts
// on (ESC, C1, bidi and invisible characters) is never sent raw, in a
// status update, a tool call's data or the answer.
func TestHostileRunIsEscaped(t *testing.T) {
	const hostile = "\x1b]52;c;cm0=\x07\x1b[2J\u009b31m\u202e\u200b<script>"
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	sink := stream.NewSink(f)
	sink.Emit(stream.RunStarted{At: at, RunID: "r" + hostile, SessionID: "s"})
	sink.Emit(stream.RunnerError{At: at, Message: hostile})
	sink.Emit(stream.ToolCalled{At: at, CallID: "c" + hostile, Name: "Bash" + hostile, Label: hostile})
	sink.Emit(stream.ToolStarted{At: at, CallID: "c" + hostile, OpID: "o", Name: "Bash" + hostile, Label: hostile})
	sink.Emit(stream.ToolFinished{At: at, CallID: "c" + hostile, OpID: "o", Name: "Bash" + hostile, Label: hostile, Detail: hostile})
	sink.Emit(stream.AssistantMessage{At: at, Text: "answer " + hostile, Final: true})
	sink.Emit(stream.RunFinished{At: at.Add(time.Second), Result: stream.Result{Status: stream.StatusError, Stats: stream.Stats{Errors: []string{hostile}}}})
	require.NoError(t, f.Close())
	agent := New(func(ctx context.Context, p execstream.Prompt) (execstream.Handle, error) {
		return execstream.Open(path)
	})
	defer agent.Close()
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	defer srv.Close()
	srv.Config.Handler = agent.Handler(srv.URL)
	client, err := a2aclient.NewFromCard(t.Context(), agent.Card(srv.URL))
	require.NoError(t, err)
	defer client.Destroy()
	n := 0
	for ev, err := range client.SendStreamingMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("go"))}) {
		require.NoError(t, err)
		b, err := json.Marshal(ev)
		require.NoError(t, err)
		var back any // the JSON decoded: the strings as a client reads them
		require.NoError(t, json.Unmarshal(b, &back))
		s := fmt.Sprint(back)
		for _, bad := range []string{"\x1b", "\u009b", "\u202e", "\u200b", "\x07"} {
			assert.NotContains(t, s, bad, "in %s", b)
		}
		n++
	}
	assert.Greater(t, n, 5)
}

// What the SDK reports goes to WithLog's writer, one line each, escaped
// as the agent's own diagnostics are (a client's task id here), not to
// the process's default logger.
func TestTheSDKLogsToWithLog(t *testing.T) {
	var log syncBuffer
	s := serve(t, t.TempDir(), WithLog(&log))
	_, err := s.client.CancelTask(t.Context(), &a2a.CancelTaskRequest{ID: "t\x1b]52;c;cm0=\x07\u202e"})
	require.ErrorIs(t, err, a2a.ErrTaskNotFound)
	assert.Contains(t, log.String(), "a2a.task_id=", "the SDK's line, with the client's task id")
	for _, bad := range []string{"\x1b", "\x07", "\u202e"} {
		assert.NotContains(t, log.String(), bad)
	}
}

// syncBuffer is a buffer one goroutine writes while another reads it.
type syncBuffer = testenv.SyncBuffer

// A web page cannot start a run: a SendMessage from another origin (as a
// no-cors fetch sends it, text/plain) is refused before its body is read,
// on both bindings, and so is any body that is not JSON; no run starts.
// The official client (JSON, no Origin) is served.
func TestAPageOfAnotherOriginCannotStartARun(t *testing.T) {
	state := t.TempDir()
	s := serve(t, state)
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"rm -rf ~"}]}}}`
	rest := `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"rm -rf ~"}]}}`
	post := func(path, payload, contentType string, hdr map[string]string) int {
		req, _ := http.NewRequest(http.MethodPost, s.srv.URL+path, strings.NewReader(payload))
		req.Header.Set("Content-Type", contentType)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	evil := map[string]string{"Origin": "http://127.0.0.1:1"}
	for _, c := range []struct {
		path, payload string
	}{{"/", body}, {"/rest/message:send", rest}} {
		assert.Equal(t, 403, post(c.path, c.payload, "text/plain", evil), "%s: another origin, text/plain", c.path)
		assert.Equal(t, 403, post(c.path, c.payload, "application/json", evil), "%s: another origin, JSON", c.path)
		assert.Equal(t, 403, post(c.path, c.payload, "application/json", map[string]string{"Sec-Fetch-Site": "cross-site"}), "%s: cross-site", c.path)
		assert.Equal(t, 415, post(c.path, c.payload, "text/plain", nil), "%s: not JSON", c.path)
		assert.Equal(t, 415, post(c.path, c.payload, "application/x-www-form-urlencoded", nil), "%s: a form", c.path)
	}
	entries, _ := os.ReadDir(filepath.Join(state, "runs"))
	assert.Empty(t, entries, "no run started")

	u, _ := url.Parse(s.srv.URL)
	assert.NotEqual(t, 403, post("/", body, "application/json; charset=utf-8", map[string]string{"Origin": s.srv.URL, "Host": u.Host}), "its own origin")
	task := send(t, s.client, "", "hello")
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State, "the official client is served")
}

// Task notes that cannot be written are said: at the start (Notes, which
// the command makes an error), and, when they stop being writable later,
// once in the log, however many tasks then run; never silently.
func TestUnwritableNotesAreSaid(t *testing.T) {
	state := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(state, "a2a"), []byte("a file where a2a/tasks/ should be"), 0o644))
	a := New(fake(""), WithStateDir(state))
	defer a.Close()
	err := a.Notes()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the notes of tasks cannot be written in")

	state = t.TempDir()
	var log testenv.SyncBuffer
	s := serve(t, state, WithLog(&log))
	require.NoError(t, s.agent.Notes())
	require.NoError(t, os.RemoveAll(filepath.Join(state, "a2a")))
	require.NoError(t, os.WriteFile(filepath.Join(state, "a2a"), nil, 0o644))
	for range 2 {
		send(t, s.client, "", "hello")
	}
	assert.Equal(t, 1, strings.Count(log.String(), "a task's note cannot be written"), log.String())
}

// A task is submitted until its run exists: working only once uagent has
// started.
func TestSubmittedUntilTheRunStarts(t *testing.T) {
	state := t.TempDir()
	t.Setenv("UAGENT_STATE_DIR", state)
	release := make(chan struct{})
	starting := make(chan struct{}, 1)
	held := func(ctx context.Context, p execstream.Prompt) (execstream.Handle, error) {
		starting <- struct{}{}
		<-release
		return fake("")(ctx, p)
	}
	a := New(held, WithStateDir(state))
	srv := httptest.NewServer(nil)
	srv.Config.Handler = a.Handler(srv.URL)
	defer func() { srv.Close(); a.Close() }()
	c, err := a2aclient.NewFromCard(t.Context(), a.Card(srv.URL))
	require.NoError(t, err)
	defer c.Destroy()
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))
	res, err := c.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: msg, Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	require.NoError(t, err)
	task := res.(*a2a.Task)
	<-starting
	got, err := c.GetTask(t.Context(), &a2a.GetTaskRequest{ID: task.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateSubmitted, got.Status.State, "the run is not there yet")
	close(release)
	require.Eventually(t, func() bool {
		got, err := c.GetTask(t.Context(), &a2a.GetTaskRequest{ID: task.ID})
		return err == nil && got.Status.State == a2a.TaskStateCompleted
	}, 20*time.Second, 20*time.Millisecond)
}

// ListTasks pages by a cursor, in an order no update changes: a task
// created between two pages, or one updated, neither repeats nor goes
// missing; every task is listed once.
func TestListTasksPagesByACursor(t *testing.T) {
	s := serve(t, t.TempDir())
	var made []a2a.TaskID
	for i := range 5 {
		made = append(made, send(t, s.client, "", "task "+strconv.Itoa(i)).ID)
	}
	page, err := s.client.ListTasks(t.Context(), &a2a.ListTasksRequest{PageSize: 2})
	require.NoError(t, err)
	require.Len(t, page.Tasks, 2)
	assert.Equal(t, 5, page.TotalSize)
	seen := map[a2a.TaskID]int{}
	for _, task := range page.Tasks {
		seen[task.ID]++
	}
	newer := send(t, s.client, "", "made between two pages").ID
	send(t, s.client, string(page.Tasks[0].ContextID), "and the first page's context goes on") // a task of its context, created now
	for token := page.NextPageToken; token != ""; {
		page, err = s.client.ListTasks(t.Context(), &a2a.ListTasksRequest{PageSize: 2, PageToken: token})
		require.NoError(t, err)
		for _, task := range page.Tasks {
			seen[task.ID]++
		}
		token = page.NextPageToken
	}
	for _, id := range made {
		assert.Equal(t, 1, seen[id], "%s listed once", id)
	}
	assert.Zero(t, seen[newer], "a task created after the first page is before it, on no later page")
	_, err = s.client.ListTasks(t.Context(), &a2a.ListTasksRequest{PageToken: "bm90IGEgY3Vyc29y"})
	assert.Error(t, err, "a token this agent did not give")
}
