package main

import (
	"cmp"
	"context"
	"crypto/rand"
	enchex "encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	acp "github.com/coder/acp-go-sdk"
	"github.com/uagentkit/stream"
)

// cmdACP is an Agent Client Protocol agent on standard input and output:
// an editor starts it, opens sessions, and each prompt is one run of
// COMMAND in the session's directory, with the prompt on its standard
// input, its events sent to the editor as session updates. Diagnostics go
// to stderr only.
func cmdACP(e env, args []string) error {
	fl := flags(e, "acp")
	fl.interleave = false // what follows COMMAND is the command's own
	grace := fl.Duration("grace", 5*time.Second, "on cancel, how long the run gets before what is left of it is killed")
	if err := fl.parse(args); err != nil {
		return err
	}
	if fl.NArg() == 0 {
		return fl.usageError("want a COMMAND to run for each prompt, such as: -- uagent --stream")
	}
	a := &acpAgent{command: fl.Args(), grace: *grace, sessions: map[acp.SessionId]*acpSession{}}
	conn := acp.NewAgentSideConnection(a, e.stdout, e.stdin)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil))) // the editor's stdout is the protocol's alone
	a.mu.Lock()
	a.conn = conn // requests may already be served: set under the lock they read it with
	a.mu.Unlock()
	<-conn.Done()
	a.stopAll()
	return nil
}

// acpAgent serves the sessions of one editor connection.
type acpAgent struct {
	command []string
	grace   time.Duration

	mu       sync.Mutex // guards conn, sessions and the sessions' fields
	conn     *acp.AgentSideConnection
	sessions map[acp.SessionId]*acpSession
	runs     sync.WaitGroup // prompts being answered
}

// acpSession is a session: its directory, and the prompt being answered,
// if any.
type acpSession struct {
	cwd    string
	prompt *acpPrompt
}

// acpPrompt is one prompt being answered: how to stop its run, and whether
// it was cancelled. Each prompt has its own, so that a late cancel of one
// prompt never touches the next.
type acpPrompt struct {
	cancel    context.CancelFunc
	cancelled atomic.Bool
}

// stop cancels the prompt's run; with cancelled, the prompt answers
// cancelled.
func (p *acpPrompt) stop(cancelled bool) {
	if cancelled {
		p.cancelled.Store(true)
	}
	p.cancel()
}

var _ acp.Agent = (*acpAgent)(nil)

func (a *acpAgent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		// Text prompts only; no session is loaded or resumed.
		AgentCapabilities: acp.AgentCapabilities{LoadSession: false, PromptCapabilities: acp.PromptCapabilities{}},
		AgentInfo:         &acp.Implementation{Name: "uagent-stream", Version: versionString()},
		AuthMethods:       []acp.AuthMethod{},
	}, nil
}

func (a *acpAgent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *acpAgent) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	if !filepath.IsAbs(p.Cwd) {
		return acp.NewSessionResponse{}, acp.NewInvalidParams(map[string]string{"cwd": "must be an absolute path"})
	}
	b := make([]byte, 12)
	rand.Read(b)
	id := acp.SessionId("sess_" + enchex.EncodeToString(b))
	a.mu.Lock()
	a.sessions[id] = &acpSession{cwd: p.Cwd}
	a.mu.Unlock()
	return acp.NewSessionResponse{SessionId: id}, nil
}

// Cancel stops the session's running prompt: SIGINT to the run's process
// group, the grace period, then kill, as run does on Ctrl-C. The prompt
// answers cancelled once the run has ended and its lines were sent.
func (a *acpAgent) Cancel(_ context.Context, p acp.CancelNotification) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[p.SessionId]; s != nil && s.prompt != nil {
		s.prompt.stop(true)
	}
	return nil
}

// stopAll stops every run when the editor goes away, and waits for them.
func (a *acpAgent) stopAll() {
	a.mu.Lock()
	for _, s := range a.sessions {
		if s.prompt != nil {
			s.prompt.stop(false)
		}
	}
	a.mu.Unlock()
	a.runs.Wait()
}

func (a *acpAgent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	a.mu.Lock()
	s := a.sessions[p.SessionId]
	switch {
	case s == nil:
		a.mu.Unlock()
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]string{"sessionId": "no such session"})
	case s.prompt != nil:
		a.mu.Unlock()
		return acp.PromptResponse{}, acp.NewInvalidRequest(map[string]string{"sessionId": "the session is answering a prompt"})
	}
	runCtx, cancel := context.WithCancel(context.Background()) // the run outlives nothing but its prompt
	pr := &acpPrompt{cancel: cancel}
	s.prompt = pr
	conn := a.conn
	a.runs.Add(1)
	a.mu.Unlock()
	// The request's context ends on session/cancel (the SDK ends it before
	// it calls Cancel) and when the editor gives up on the request: either
	// way the prompt is cancelled.
	stopWatching := context.AfterFunc(ctx, func() { pr.stop(true) })
	defer func() {
		stopWatching()
		cancel()
		a.mu.Lock()
		s.prompt = nil
		a.mu.Unlock()
		a.runs.Done()
	}()

	cmd := exec.Command(a.command[0], a.command[1:]...)
	cmd.Dir = s.cwd
	cmd.Stdin = strings.NewReader(promptText(p.Prompt))
	run, err := stream.Start(runCtx, cmd, stream.WithGrace(a.grace))
	if err != nil {
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": sanitize(err.Error(), false)})
	}
	u := &acpUpdates{conn: conn, session: p.SessionId}
	for dto, err := range run.Events() {
		if err == nil {
			u.add(dto)
		}
	}
	o, err := run.Wait()
	u.endNotices()
	usage := u.usage()
	switch {
	case pr.cancelled.Load():
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled, Usage: usage}, nil
	case err == nil && o.Status == stream.StatusOK && u.lastStop() == "max_tokens":
		return acp.PromptResponse{StopReason: acp.StopReasonMaxTokens, Usage: usage}, nil
	case err == nil && o.Status == stream.StatusOK:
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn, Usage: usage}, nil
	}
	data := map[string]any{"status": string(o.Status), "ending": o.Ending.String(), "exit_code": o.ExitCode,
		"stderr": sanitize(string(o.Stderr[max(0, len(o.Stderr)-4096):]), true)}
	if err != nil {
		data["error"] = sanitize(err.Error(), false)
	}
	return acp.PromptResponse{}, &acp.RequestError{Code: -32603, Message: "the run ended with status " + string(o.Status), Data: data}
}

// promptText is what the runner reads on its standard input: the prompt's
// text blocks, and the links of its resource links, one per line.
func promptText(blocks []acp.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.ResourceLink != nil:
			parts = append(parts, b.ResourceLink.Uri)
		}
	}
	return strings.Join(parts, "\n")
}

func (a *acpAgent) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[p.SessionId]; s != nil && s.prompt != nil {
		s.prompt.stop(false)
	}
	delete(a.sessions, p.SessionId)
	return acp.CloseSessionResponse{}, nil
}

func (a *acpAgent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound("session/list")
}

func (a *acpAgent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound("session/resume")
}

func (a *acpAgent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound("session/set_config_option")
}

func (a *acpAgent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, acp.NewMethodNotFound("session/set_mode")
}

// acpUpdates turns one run's lines into session updates, taking the tool
// calls' pairing and states from the package's fold.
type acpUpdates struct {
	conn    *acp.AgentSideConnection
	session acp.SessionId
	fold    stream.Summarizer
	notices stream.Notices
	repeats []noticeRepeat
}

// noticeRepeat is a notice shown once, and how many times it came.
type noticeRepeat struct {
	text  string
	count int
}

func (u *acpUpdates) send(up acp.SessionUpdate) {
	// An editor that has gone away makes the connection end; the run is
	// then stopped by the agent.
	_ = u.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: u.session, Update: up})
}

func (u *acpUpdates) add(dto any) {
	ch := u.fold.Add(dto, nil, nil)
	f := u.fold.Fold()
	switch d := dto.(type) {
	case stream.AssistantMessageDTO:
		u.send(acp.UpdateAgentMessageText(sanitize(d.Text, true)))
	case stream.ReasoningDTO:
		u.send(acp.UpdateAgentThoughtText(sanitize(d.Text, true)))
	case stream.PreflightWarningDTO:
		u.notice(dto, fmt.Sprintf("[uagent preflight warning %s] %s", d.Code, d.Message))
	case stream.RunnerErrorDTO:
		u.notice(dto, "[uagent runner error] "+d.Message)
	}
	if ch.Call == stream.Opened {
		c := f.Call(ch.CallIndex)
		u.send(acp.StartToolCall(acp.ToolCallId(sanitize(c.CallID, false)), sanitize(c.Label, false),
			acp.WithStartKind(toolKind(c.Name)), acp.WithStartStatus(acp.ToolCallStatusPending), acp.WithStartRawInput(rawInput(c.Arguments))))
	}
	if ch.Tool == stream.Opened {
		iv := f.Tool(ch.ToolIndex)
		u.send(acp.UpdateToolCall(acp.ToolCallId(sanitize(iv.CallID, false)), acp.WithUpdateStatus(acp.ToolCallStatusInProgress)))
	}
	fin, _ := dto.(stream.ToolFinishedDTO) // its output files, where it names them
	switch {
	case ch.Tool == stream.Closed:
		iv := f.Tool(ch.ToolIndex)
		u.finished(iv.CallID, iv.OK, iv.Detail, cmp.Or(fin.OutPath, iv.OutPath), cmp.Or(fin.ErrPath, iv.ErrPath))
	case ch.Call != 0:
		// A call that finished with no operation: it failed before one
		// started.
		if c := f.Call(ch.CallIndex); c.Finished && len(c.Ops) == 0 {
			u.finished(c.CallID, c.OK, c.Detail, fin.OutPath, fin.ErrPath)
		}
	}
}

func (u *acpUpdates) finished(callID string, ok bool, detail, outPath, errPath string) {
	status := acp.ToolCallStatusCompleted
	if !ok {
		status = acp.ToolCallStatusFailed
	}
	text := sanitize(detail, true)
	for _, o := range []struct{ what, path string }{{"stdout", outPath}, {"stderr", errPath}} {
		for _, l := range tailLines(o.path) {
			text += "\n" + o.what + " │ " + sanitize(l, false)
		}
	}
	u.send(acp.UpdateToolCall(acp.ToolCallId(sanitize(callID, false)), acp.WithUpdateStatus(status),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(text))})))
}

// notice shows a preflight warning or runner error the first time it
// comes, marked as such; repeats are counted, by the package's rule, and
// said once at the end.
func (u *acpUpdates) notice(dto any, text string) {
	i, n, _ := u.notices.Add(dto)
	if n == 1 {
		u.repeats = append(u.repeats, noticeRepeat{text: sanitize(text, true)})
		u.send(acp.UpdateAgentMessageText("\n" + u.repeats[i].text + "\n"))
	}
	u.repeats[i].count = n
}

func (u *acpUpdates) endNotices() {
	for _, r := range u.repeats {
		if r.count > 1 {
			u.send(acp.UpdateAgentMessageText(fmt.Sprintf("\n%s (came %d times)\n", r.text, r.count)))
		}
	}
}

// lastStop is the stop reason of the last model response the fold closed.
func (u *acpUpdates) lastStop() string {
	turns := u.fold.Fold().ModelIntervals()
	for i := len(turns) - 1; i >= 0; i-- {
		if !turns[i].Open {
			return turns[i].Stop
		}
	}
	return ""
}

// usage is the run's token usage, as the protocol's (unstable) usage.
func (u *acpUpdates) usage() *acp.Usage {
	t := u.fold.Recomputed().Summary.Stats.Tokens
	cached, written, thought := int(t.CachedInput), int(t.CacheWriteInput), int(t.Reasoning)
	return &acp.Usage{InputTokens: int(t.Input), OutputTokens: int(t.Output), CachedReadTokens: &cached,
		CachedWriteTokens: &written, ThoughtTokens: &thought, TotalTokens: int(t.Input + t.Output)}
}

// rawInput is a call's arguments: their JSON value when they are JSON,
// else the text; nil when there are none.
func rawInput(args string) any {
	if args == "" {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(args), &v) == nil {
		return sanitizeValue(v)
	}
	return sanitize(args, true)
}

// sanitizeValue escapes terminal controls in every string of a JSON value.
func sanitizeValue(v any) any {
	switch v := v.(type) {
	case string:
		return sanitize(v, true)
	case []any:
		for i := range v {
			v[i] = sanitizeValue(v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[sanitize(k, false)] = sanitizeValue(x)
		}
		return out
	}
	return v
}

// toolKinds maps a tool's name to the kind editors show it as, the way the
// existing adapters do: the name is cut into words (at _, -, . and space,
// and where a lower-case letter meets an upper-case one), and the first
// rule with one of its words wins. README's table lists them.
var toolKinds = []struct {
	words []string
	kind  acp.ToolKind
}{
	{[]string{"bash", "shell", "sh", "exec", "command", "terminal"}, acp.ToolKindExecute},
	{[]string{"think", "todo", "plan"}, acp.ToolKindThink},
	{[]string{"read", "view", "cat", "open"}, acp.ToolKindRead},
	{[]string{"edit", "write", "patch", "replace", "create", "delete", "move"}, acp.ToolKindEdit},
	{[]string{"grep", "glob", "search", "find", "list", "ls"}, acp.ToolKindSearch},
	{[]string{"fetch", "http", "web", "url", "curl"}, acp.ToolKindFetch},
}

func toolKind(name string) acp.ToolKind {
	var words []string
	var w []rune
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ' || r == '/':
			words, w = append(words, string(w)), w[:0]
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			words, w = append(words, string(w)), w[:0]
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		w = append(w, unicode.ToLower(r))
	}
	words = append(words, string(w))
	for _, rule := range toolKinds {
		for _, word := range words {
			if slices.Contains(rule.words, word) {
				return rule.kind
			}
		}
	}
	return acp.ToolKindOther
}
