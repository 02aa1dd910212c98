// Package acpstream is an Agent Client Protocol agent that answers each
// prompt with a uagent run: editors (Zed, JetBrains IDEs, Neovim plugins)
// start it and speak JSON-RPC 2.0 with it on its standard input and
// output. A Go harness embeds it with its own way to start a run (a
// [Starter]); the command uagent-stream acp is this package with
// [Command]. It is the only code of the module that imports the ACP SDK,
// github.com/coder/acp-go-sdk.
//
// A session is a uagent session: its id is a uagent session id (a UUID),
// and each prompt's run continues it (uagent --session). With a state
// directory ([WithStateDir]) the agent lists the saved sessions
// (session/list), reopens one with its history replayed from its run
// directories (session/load) or without (session/resume); the effort
// and, with [WithModels], the model are session config options.
//
// Each prompt's run is read through the stream package's fold: messages
// and reasoning become message and thought chunks, each tool call a tool
// call whose states (pending, in progress, completed or failed) are the
// fold's Changes, each notice (a preflight warning, a runner error) a
// marked message, once, with its repeats counted at the end. Every string
// from a run reaches the editor with what a terminal may act on escaped
// (C0 controls but tab and newline, C1, bidirectional and invisible
// characters), inside JSON-RPC's own string encoding.
package acpstream

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/execstream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/internal/safetext"
)

// Prompt is what a run is started for (execstream.Prompt): the session's
// id (a uagent session id, which the run continues: uagent --session), its
// directory, the prompt's text (its text blocks, and the links of its
// resource links, one per line), and the effort and model the person
// chose for the session ("" for the command's own).
type Prompt = execstream.Prompt

// Run is a run started for a prompt (execstream.Handle): its lines as
// they arrive, each as its session folded it, then the session's end; its
// session; then its outcome. *execstream.Run is one.
type Run = execstream.Handle

// Starter starts the run of a prompt (execstream.Starter). The run must
// stop (interrupt, grace, kill) when ctx ends: on session/cancel, when the
// editor gives up on the prompt, or when the connection closes.
type Starter = execstream.Starter

// Command returns a Starter that runs argv (execstream.Command): with
// --session, -e and -m from the prompt, its text on standard input.
func Command(argv []string, prepare func(*exec.Cmd), opts ...execstream.Option) Starter {
	return execstream.Command(argv, prepare, opts...)
}

// Agent is the agent: it implements acp.Agent, and [Agent.Serve] serves one
// editor connection with it. Sessions are independent, and several may
// answer prompts at once; a session answers one prompt at a time.
type Agent struct {
	start     Starter
	info      acp.Implementation
	log       io.Writer
	stateDirs []string // the history (uagent's, uah's), for session/list and session/load
	models    []string // the models a person may choose, when given
	effort    string   // the command's own effort, when it says
	window    int      // the models' context window, for usage_update; 0: not sent

	mu       sync.Mutex // guards conn, sessions and the sessions' fields, arrived, admitted and closed
	conn     *acp.AgentSideConnection
	sessions map[acp.SessionId]*session
	runs     sync.WaitGroup // prompts being answered
	// arrived counts the prompts read of each session, admitted those
	// queued: the SDK serves each request on a goroutine of its own, so
	// a prompt waits (on admit) for those read before it to be queued,
	// and a session runs its prompts in the order they were read.
	arrived, admitted map[acp.SessionId]uint64
	admit             *sync.Cond // on mu: admitted grew, or closed
	closed            bool       // the connection ended: nothing waits its place

	hist *history.Live // the history, read again from what changed for each list and load
}

// Option configures an [Agent].
type Option func(*Agent)

// WithInfo sets the name and version the agent gives at initialize
// (uagentkit-stream and no version by default).
func WithInfo(name, version string) Option {
	return func(a *Agent) { a.info = acp.Implementation{Name: name, Version: version} }
}

// WithLog sends the agent's diagnostics, and what the SDK reports (a line
// it could not read, a connection that failed), to w, one line each, with
// what a terminal may act on escaped. They go nowhere by default: the
// editor's stdout is the protocol's alone.
func WithLog(w io.Writer) Option {
	return func(a *Agent) { a.log = cmp.Or[io.Writer](w, io.Discard) }
}

// WithStateDir sets the state directories of the history (see
// statedir.Homes: uagent's, uah's home), where session/list and
// session/load find the saved sessions. Without one they find none.
func WithStateDir(dirs ...string) Option { return func(a *Agent) { a.stateDirs = dirs } }

// WithModels offers the models as a session config option (category
// model); without it, the model is the command's.
func WithModels(models ...string) Option { return func(a *Agent) { a.models = models } }

// WithEffort says the effort the command runs with when none is chosen
// (its own -e), shown as the effort option's current value; "high" by
// default.
func WithEffort(effort string) Option { return func(a *Agent) { a.effort = effort } }

// WithContextWindow sets the models' context window in tokens: after each
// model response the session is sent a usage_update (an unstable part of
// the protocol) with the tokens in context (the response's input and
// output) out of n. Without it none is sent.
func WithContextWindow(n int) Option { return func(a *Agent) { a.window = n } }

// New returns an Agent that starts a run with start for every prompt.
func New(start Starter, opts ...Option) *Agent {
	a := &Agent{start: start, info: acp.Implementation{Name: "uagentkit-stream"}, log: io.Discard, effort: "high",
		sessions: map[acp.SessionId]*session{}, arrived: map[acp.SessionId]uint64{}, admitted: map[acp.SessionId]uint64{}}
	a.admit = sync.NewCond(&a.mu)
	for _, o := range opts {
		o(a)
	}
	a.hist = history.NewLive(history.DefaultPrices(), a.stateDirs...)
	return a
}

// session is a session: its directory, the effort and model chosen for
// its runs ("" for the command's own), the prompt being answered, if any,
// and the prompts waiting their turn. Its id is a uagent session id.
type session struct {
	id                    string // the uagent session id its runs continue
	cwd                   string
	effort, model         string // chosen (set_config_option)
	lastEffort, lastModel string // of its last saved run
	prompt                *prompt
	waiting               []*prompt
}

// prompt is one prompt: how to stop its run, whether it was cancelled,
// and when its turn comes. Each prompt has its own, so that a late cancel
// of one prompt never touches the next.
type prompt struct {
	cancel    context.CancelFunc
	cancelled atomic.Bool
	stopped   atomic.Bool   // stopped before its turn: it answers without a run
	turn      chan struct{} // closed when it may run (or was stopped waiting)
}

// stop cancels the prompt's run; with cancelled, the prompt answers
// cancelled.
func (p *prompt) stop(cancelled bool) {
	if cancelled {
		p.cancelled.Store(true)
	}
	p.cancel()
}

// stopAll stops the session's prompt and every one waiting its turn; with
// cancelled, they answer cancelled. Called with a.mu held.
func (s *session) stopAll(cancelled bool) {
	if s.prompt != nil {
		s.prompt.stop(cancelled)
	}
	for _, w := range s.waiting {
		w.stopped.Store(true)
		w.stop(cancelled)
		close(w.turn)
	}
	s.waiting = nil
}

// next gives the turn to the first prompt waiting, if any. Called with
// a.mu held.
func (s *session) next() {
	s.prompt = nil
	if len(s.waiting) > 0 {
		s.prompt, s.waiting = s.waiting[0], s.waiting[1:]
		close(s.prompt.turn)
	}
}

var _ acp.Agent = (*Agent)(nil)

// Serve serves one editor connection: requests are read from in and
// answered on out until in ends, then every run is stopped and waited for.
// A request line too long for the SDK to read, or one that is not JSON, is
// answered with an error, and the connection goes on (see [MaxRequest]).
// Serve may be called once per Agent.
func (a *Agent) Serve(in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	filtered := filterRequests(in, w, a.logf, a.arrive)
	conn := acp.NewAgentSideConnection(a, w, filtered)
	conn.SetLogger(slog.New(slog.NewTextHandler(safetext.Writer{W: a.log}, nil)))
	a.mu.Lock()
	a.conn = conn // requests may already be served: set under the lock they read it with
	a.mu.Unlock()
	// The history is read while the editor initializes, so that its first
	// session/list finds it read (or waits only for the rest of it).
	var warm sync.WaitGroup
	if len(a.stateDirs) > 0 {
		warm.Go(func() { a.saved() })
	}
	defer warm.Wait()
	<-conn.Done()
	a.mu.Lock()
	a.closed = true
	a.admit.Broadcast()
	a.mu.Unlock()
	a.stopAll()
	return nil
}

// arrivalKey is the _meta key a prompt read is stamped with: its place
// among its session's prompts (1, 2, …). One a client sends is replaced.
const arrivalKey = "uagentkit/arrival"

// arrive is called with every request line in the order lines are read:
// a session/prompt request that the SDK will hand to Prompt (it has an
// id, and its params are a valid PromptRequest, as the SDK checks) is
// stamped with its place among its session's prompts; every other line
// is passed on as it is.
func (a *Agent) arrive(line []byte) []byte {
	if !bytes.Contains(line, []byte(`session/prompt`)) {
		return line
	}
	var req map[string]json.RawMessage
	if json.Unmarshal(line, &req) != nil || string(req["method"]) != `"session/prompt"` || len(req["id"]) == 0 || string(req["id"]) == "null" {
		return line
	}
	var p acp.PromptRequest
	if json.Unmarshal(req["params"], &p) != nil || p.Validate() != nil {
		return line // answered invalid by the SDK, never served
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(req["params"], &params) != nil {
		return line
	}
	meta := map[string]json.RawMessage{}
	if m := params["_meta"]; len(m) > 0 && string(m) != "null" && json.Unmarshal(m, &meta) != nil {
		return line
	}
	a.mu.Lock()
	a.arrived[p.SessionId]++
	n := a.arrived[p.SessionId]
	a.mu.Unlock()
	meta[arrivalKey] = json.RawMessage(strconv.FormatUint(n, 10))
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return line
	}
	if req["params"], err = json.Marshal(params); err != nil {
		return line
	}
	out, err := json.Marshal(req)
	if err != nil {
		return line
	}
	return out
}

// waitArrival waits, with a.mu held, until the prompts of the session
// read before p were queued (or the connection ended), and counts p as
// queued: called before p is queued, under the same hold of a.mu.
func (a *Agent) waitArrival(p acp.PromptRequest) {
	v, ok := p.Meta[arrivalKey].(float64)
	if !ok || v < 1 {
		return // not read by Serve's filter: served as it comes
	}
	n := uint64(v)
	for a.admitted[p.SessionId]+1 < n && !a.closed {
		a.admit.Wait()
	}
	a.admitted[p.SessionId] = max(a.admitted[p.SessionId], n)
	a.admit.Broadcast()
}

// logf writes one diagnostic line.
func (a *Agent) logf(format string, args ...any) {
	fmt.Fprintf(safetext.Writer{W: a.log}, format+"\n", args...)
}

// Initialize offers text prompts, session/load, and the session
// capabilities list, resume and close.
func (a *Agent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	info := a.info
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{LoadSession: true, PromptCapabilities: acp.PromptCapabilities{},
			SessionCapabilities: acp.SessionCapabilities{List: &acp.SessionListCapabilities{}, Resume: &acp.SessionResumeCapabilities{},
				Close: &acp.SessionCloseCapabilities{}}},
		AgentInfo:   &info,
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

// Authenticate needs nothing: the runs authenticate themselves.
func (a *Agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

// NewSession opens a session in cwd, which must be an absolute path to a
// directory that exists. Its id is a new uagent session id (a random
// UUID): every prompt's run continues that session.
func (a *Agent) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	if err := checkCwd(p.Cwd); err != nil {
		return acp.NewSessionResponse{}, err
	}
	id := acp.SessionId(execstream.NewSessionID())
	s := &session{id: string(id), cwd: p.Cwd}
	a.mu.Lock()
	a.sessions[id] = s
	opts := a.configOptions(s)
	a.mu.Unlock()
	return acp.NewSessionResponse{SessionId: id, ConfigOptions: opts}, nil
}

// checkCwd refuses a session directory that is not an absolute path to a
// directory, so that a prompt never fails later for it.
func checkCwd(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return acp.NewInvalidParams(map[string]string{"cwd": "must be an absolute path"})
	}
	info, err := os.Stat(cwd)
	switch {
	case err != nil:
		return acp.NewInvalidParams(map[string]string{"cwd": safetext.Human(fmt.Sprintf("the session's directory cannot be used: %v", err), 0)})
	case !info.IsDir():
		return acp.NewInvalidParams(map[string]string{"cwd": "the session's directory is not a directory"})
	}
	return nil
}

// Cancel stops the session's running prompt: its run's context ends (for
// a process: SIGINT to its process group, the grace period, then kill).
// The prompt answers cancelled once the run has ended and its lines were
// sent; the prompts waiting their turn answer cancelled without a run.
func (a *Agent) Cancel(_ context.Context, p acp.CancelNotification) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[p.SessionId]; s != nil {
		s.stopAll(true)
	}
	return nil
}

// stopAll stops every run when the editor goes away, and waits for them.
func (a *Agent) stopAll() {
	a.mu.Lock()
	for _, s := range a.sessions {
		s.stopAll(false)
	}
	a.mu.Unlock()
	a.runs.Wait()
}

// stopMaxTokens is the stop of a model response cut at its output limit.
const stopMaxTokens = "max_tokens"

// Prompt answers a prompt with one run, its lines sent as session updates
// as they arrive. A session answers one prompt at a time: a prompt that
// comes while another is answered waits its turn, then runs (as uah
// queues a message sent while the agent works), and nothing of the first
// is lost. A session's prompts run in the order Serve read them from the
// connection, whatever order the SDK's goroutines call Prompt in (Serve
// stamps each as it reads it, in its params' _meta "uagentkit/arrival"). It answers end_turn for a run that ended ok, max_tokens when
// its last response stopped on its output limit, cancelled after
// session/cancel (a prompt still waiting then answers cancelled without a
// run), and otherwise an internal error whose data has the run's status,
// ending, exit code and the tail of its stderr.
//
// What stops a run is session/cancel, session/close and the end of the
// connection, never the end of the request's context alone: the SDK ends
// a session's running prompt's context when the next prompt arrives.
func (a *Agent) Prompt(_ context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	a.mu.Lock()
	a.waitArrival(p)
	s := a.sessions[p.SessionId]
	if s == nil {
		a.mu.Unlock()
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]string{"sessionId": "no such session"})
	}
	runCtx, cancel := context.WithCancel(context.Background()) // the run outlives nothing but its prompt
	pr := &prompt{cancel: cancel, turn: make(chan struct{})}
	if s.prompt == nil {
		s.prompt = pr
		close(pr.turn)
	} else {
		s.waiting = append(s.waiting, pr)
	}
	conn := a.conn
	a.runs.Add(1)
	a.mu.Unlock()
	<-pr.turn
	defer func() {
		cancel()
		a.mu.Lock()
		if s.prompt == pr {
			s.next()
		}
		a.mu.Unlock()
		a.runs.Done()
	}()
	if pr.stopped.Load() {
		if pr.cancelled.Load() {
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": "the session was closed before the prompt's turn"})
	}

	a.mu.Lock()
	effort, model, uagentID := s.effort, s.model, s.id
	a.mu.Unlock()
	run, err := a.start(runCtx, Prompt{Session: uagentID, Cwd: s.cwd, Text: promptText(p.Prompt), Effort: effort, Model: model})
	if err != nil {
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": safetext.Human(err.Error(), 0)})
	}
	u := &updates{conn: conn, session: p.SessionId, window: a.window}
	for l := range run.Lines() {
		u.add(l)
	}
	o, err := run.Wait()
	usage := usage(run.Session())
	switch {
	case pr.cancelled.Load():
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled, Usage: usage}, nil
	case err == nil && o.Status == stream.StatusOK && u.lastStop() == stopMaxTokens:
		return acp.PromptResponse{StopReason: acp.StopReasonMaxTokens, Usage: usage}, nil
	case err == nil && o.Status == stream.StatusOK:
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn, Usage: usage}, nil
	}
	data := map[string]any{"status": safetext.Human(string(o.Status), 0), "ending": o.Ending.String(), "exit_code": o.ExitCode,
		"stderr": safetext.Human(string(o.Stderr[max(0, len(o.Stderr)-4096):]), safetext.KeepNewlines|safetext.KeepTabs)}
	if err != nil {
		data["error"] = safetext.Human(err.Error(), 0)
	}
	re := acp.NewInternalError(data)
	re.Message = "the run ended with status " + safetext.Human(string(o.Status), 0)
	return acp.PromptResponse{}, re
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

// CloseSession stops the session's run, if any, and forgets the session:
// its prompts, the one running and those waiting, answer cancelled, as
// after session/cancel.
func (a *Agent) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[p.SessionId]; s != nil {
		s.stopAll(true)
	}
	delete(a.sessions, p.SessionId)
	return acp.CloseSessionResponse{}, nil
}

// SetSessionMode is not offered: the agent has no modes.
func (a *Agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
}
