// Package a2astream serves uagent to other agents over A2A 1.0, the
// Agent2Agent protocol, through its official Go SDK
// (github.com/a2aproject/a2a-go/v2, which only this package imports): an
// orchestrator hands uagent a task, as an editor does over ACP
// (acpstream), and follows it to its end.
//
// The mapping (DESIGN.md, "A2A"): a task is one run; a contextId is a
// uagent session id (a message without one begins a new session, a UUID
// v4, and every run of the context continues it: uagent --session); the
// message's text parts are the prompt, on the runner's standard input.
// The run's fold decides what the client sees: status updates while the
// run works (tool calls and their outcomes, the text as it is written),
// the answer as an artifact, and the final state: completed for a run
// whose status is ok, failed for one that failed, timed out or was cut off
// (the reason in the status message), canceled for one CancelTask
// stopped. Tasks are runs, and uagent saves every run: with a state
// directory (WithStateDir), the tasks outlive the process, and GetTask and
// ListTasks read them from the runs.
package a2astream

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/uagentkit/stream/execstream"
	"github.com/uagentkit/stream/internal/safetext"
	"github.com/uagentkit/stream/internal/webguard"
)

// MaxRequest is the largest request body the Handler reads, in bytes; a
// larger one is answered with the protocol's error, and nothing else is
// affected.
const MaxRequest = 10 << 20

// Agent is uagent as an A2A agent: an a2asrv.AgentExecutor whose tasks
// are runs, with a task store backed by the state directory. Its Handler
// serves it over HTTP. Contexts are independent and their tasks run at
// once; a context runs one task at a time, in the order they came (a
// second message waits for the first's run to end: the running task is
// never lost). Runs are not tied to the requests that began them: a client
// that goes away does not stop one; CancelTask and Close do. An Agent is
// safe for concurrent use.
type Agent struct {
	start   execstream.Starter
	dirs    []string // the history, where runs are found
	log     io.Writer
	name    string
	version string
	token   *webguard.Token
	store   *store

	base context.Context // ends at Close: every run stops
	stop context.CancelFunc
	runs sync.WaitGroup

	mu       sync.Mutex
	tasks    map[a2a.TaskID]*task     // running or waiting for their turn
	turns    map[string]chan struct{} // per context: its one run at a time
	contexts map[string]bool          // contexts this agent knows it has
	closed   bool
}

// task is the agent's side of a task that is running or waiting.
type task struct {
	canceled chan struct{} // closed by CancelTask
	once     sync.Once
}

func (t *task) cancel() { t.once.Do(func() { close(t.canceled) }) }

// Option configures an Agent.
type Option func(*Agent)

// WithStateDir sets the state directories of the history (see
// statedir.Homes: uagent's own and uah's home), where the runs of tasks are
// found, and where (in the first, under a2a/tasks/) the agent notes which
// run each task is: a task then outlives the process, and a context may
// continue any session of the history. Without one, tasks are kept in
// memory only, and a contextId must be one the agent gave.
func WithStateDir(dirs ...string) Option { return func(a *Agent) { a.dirs = dirs } }

// WithInfo sets the name and version the agent card gives.
func WithInfo(name, version string) Option {
	return func(a *Agent) { a.name, a.version = name, version }
}

// WithLog sends the agent's diagnostics, and what the SDK reports, to w,
// one line each, with what a terminal may act on escaped. They go nowhere
// by default.
func WithLog(w io.Writer) Option {
	return func(a *Agent) { a.log = cmp.Or[io.Writer](w, io.Discard) }
}

// WithToken makes the Handler require the token: every request but the
// agent card's carries "Authorization: Bearer TOKEN", or is answered 401;
// tokens are compared in constant time. Without a token, the Handler
// answers only requests whose Host names it locally (see Handler).
func WithToken(token string) Option { return func(a *Agent) { a.token = webguard.NewToken(token) } }

// New returns an Agent that starts each task's run with start
// (execstream.Command for a command: it adds --session and puts the prompt
// on standard input). Close it when done.
func New(start execstream.Starter, opts ...Option) *Agent {
	a := &Agent{start: start, name: "uagent", version: "dev", log: io.Discard, tasks: map[a2a.TaskID]*task{}, turns: map[string]chan struct{}{},
		contexts: map[string]bool{}}
	for _, o := range opts {
		o(a)
	}
	a.base, a.stop = context.WithCancel(context.Background())
	a.store = newStore(a.dirs, func(err error) {
		a.logf("a2a: a task's note cannot be written, so the task will not outlive this process: %v", err)
	})
	return a
}

// Notes reports whether the notes of tasks can be written (under
// a2a/tasks/ of the first state directory: see WithStateDir): nil when
// they can, or when there is no state directory; the error otherwise, so
// that a server says at its start that its tasks would not outlive it. A
// note that cannot be written later is said once, in the log.
func (a *Agent) Notes() error {
	if err := a.store.check(); err != nil {
		return fmt.Errorf("stream: a2a: the notes of tasks cannot be written in %s: %w", a.store.dir, err)
	}
	return nil
}

// Close stops every run (interrupt, the starter's grace, kill) and waits
// for them to end; a task still waiting for its turn ends failed. The
// Handler's requests that need a run are answered with errors from then
// on.
func (a *Agent) Close() error {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.stop()
	a.runs.Wait()
	return nil
}

func (a *Agent) logf(format string, args ...any) {
	fmt.Fprintf(safetext.Writer{W: a.log}, format+"\n", args...)
}

// Card is the agent card of an Agent served at url (the JSON-RPC
// endpoint; the REST one is url + "rest"): its name and version, what it
// does, streaming, and, with a token, the bearer scheme.
func (a *Agent) Card(url string) *a2a.AgentCard {
	url = strings.TrimSuffix(url, "/") + "/"
	card := &a2a.AgentCard{
		Name:        a.name,
		Description: "uagent, a coding agent: it works in its workspace with tools (shell commands, files) until it can answer. Each task is one run of uagent; a context is a uagent session, so that the conversation goes on.",
		Version:     a.version,
		SupportedInterfaces: []*a2a.AgentInterface{
			a2a.NewAgentInterface(url, a2a.TransportProtocolJSONRPC),
			a2a.NewAgentInterface(url+"rest", a2a.TransportProtocolHTTPJSON),
		},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{{
			ID:          "uagent-run",
			Name:        "Run uagent",
			Description: "Runs uagent on the message's text: it reads and changes the workspace with its tools, and answers. Tool calls and their outcomes come as status updates, the answer as the artifact \"answer\".",
			Tags:        []string{"coding", "agent", "shell"},
			Examples:    []string{"Run the tests and fix what fails.", "What does this repository do?"},
			InputModes:  []string{"text/plain"},
			OutputModes: []string{"text/plain", "application/json"},
		}},
	}
	if a.token != nil {
		card.SecuritySchemes = a2a.NamedSecuritySchemes{"bearer": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer",
			Description: "the token uagent-stream a2a was given (--token-file)"}}
		card.SecurityRequirements = a2a.SecurityRequirementsOptions{{"bearer": {}}}
	}
	return card
}

// Handler serves the agent at url: the card at
// /.well-known/agent-card.json, the JSON-RPC binding at /, the REST
// binding under /rest. A request body over MaxRequest is refused. With a
// token (WithToken) every request but the card's needs it (401); without
// one, a request whose Host does not name the server locally is refused
// (403), so that a page of another origin cannot reach it through DNS
// rebinding. A request that is not GET (every call of both bindings) sent
// by a page of another origin is refused (403), and so is one whose body
// is not application/json (415), before the body is read
// (webguard.Changes): a page a person visits cannot start a run.
func (a *Agent) Handler(url string) http.Handler {
	card := a.Card(url)
	h := resubscribe{a2asrv.NewHandler(a, a2asrv.WithTaskStore(a.store), a2asrv.WithCallInterceptors(messages{a}),
		a2asrv.WithCapabilityChecks(&card.Capabilities),
		a2asrv.WithLogger(slog.New(slog.NewTextHandler(safetext.Writer{W: a.log}, nil)))), a.store}
	mux := http.NewServeMux()
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(h)))
	mux.Handle("/", a2asrv.NewJSONRPCHandler(h))
	guarded := webguard.Changes(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		card := r.URL.Path == "/.well-known/agent-card.json"
		switch {
		case a.token != nil && !card && !a.token.Bearer(r):
			w.Header().Set("WWW-Authenticate", `Bearer realm="uagent-stream"`)
			http.Error(w, "unauthorized: this agent needs its token", http.StatusUnauthorized)
			return
		case a.token == nil && !webguard.LocalHost(r):
			http.Error(w, "forbidden: the Host names another server", http.StatusForbidden)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxRequest)
		guarded.ServeHTTP(w, r)
	})
}

// Execute runs a task: it waits for its context's turn, starts the run of
// its message's text, and yields what the run's fold says (see the package
// doc); the SDK calls it in a goroutine of its own.
func (a *Agent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		a.mu.Lock()
		if a.closed {
			a.mu.Unlock()
			yield(nil, fmt.Errorf("the agent is closed: %w", a2a.ErrInternalError))
			return
		}
		a.runs.Add(1)
		t := a.tasks[ec.TaskID]
		if t == nil {
			t = &task{canceled: make(chan struct{})}
			a.tasks[ec.TaskID] = t
		}
		turn := a.turns[ec.ContextID]
		if turn == nil {
			turn = make(chan struct{}, 1)
			a.turns[ec.ContextID] = turn
		}
		a.contexts[ec.ContextID] = true
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			delete(a.tasks, ec.TaskID)
			a.mu.Unlock()
			a.runs.Done()
		}()
		e := &exec{a: a, ec: ec, yield: yield}
		e.run(ctx, t, turn)
	}
}

// Cancel stops a task's run as Ctrl-C stops run's: it is interrupted, and
// after the grace killed; the task ends canceled when the run has ended
// interrupted (Execute says so). A run that had ended on its own keeps
// its state: cancel acts on the run, not on what a client has read of it. A task with no run here (one of an earlier process,
// or one that has ended) ends canceled at once when it has not ended;
// the SDK refuses one that has (the protocol's not-cancelable error).
func (a *Agent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		a.mu.Lock()
		t := a.tasks[ec.TaskID]
		a.mu.Unlock()
		if t != nil {
			t.cancel()
			return // Execute ends the task canceled once its run has ended, when the cancel stopped it
		}
		a.store.canceled(ec.TaskID)
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, agentText(ec, "canceled")), nil)
	}
}

// resubscribe is the SDK's request handler, but that SubscribeToTask
// finds a task with no execution here (one that has ended, or one of an
// earlier process): it answers the task as it is (its state, its
// artifacts), then ends, where the SDK finds no such task.
type resubscribe struct {
	a2asrv.RequestHandler
	store *store
}

func (h resubscribe) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		first := true
		for ev, err := range h.RequestHandler.SubscribeToTask(ctx, req) {
			if first && errors.Is(err, a2a.ErrTaskNotFound) && req != nil {
				if st, gerr := h.store.Get(ctx, req.ID); gerr == nil {
					yield(st.Task, nil)
					return
				}
			}
			first = false
			if !yield(ev, err) {
				return
			}
		}
	}
}

// messages checks what a client sends before the SDK acts on it: a
// message has a text part; a new task's message without a contextId gets
// a new session's (a UUID v4); one with a contextId names a context the
// agent knows (a session of its history, or one it began).
type messages struct{ a *Agent }

func (m messages) Before(ctx context.Context, _ *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	p, ok := req.Payload.(*a2a.SendMessageRequest)
	if !ok || p == nil {
		return ctx, nil, nil
	}
	msg := p.Message
	if msg == nil {
		return ctx, nil, fmt.Errorf("the request has no message: %w", a2a.ErrInvalidParams)
	}
	if promptOf(msg) == "" {
		return ctx, nil, fmt.Errorf("the message has no text part (uagent's prompt is text): %w", a2a.ErrInvalidParams)
	}
	switch {
	case msg.TaskID != "":
	case msg.ContextID == "":
		msg.ContextID = execstream.NewSessionID()
		m.a.mu.Lock()
		m.a.contexts[msg.ContextID] = true
		m.a.mu.Unlock()
	case !m.a.knows(msg.ContextID):
		return ctx, nil, fmt.Errorf("no context %q: a contextId is one a task of this agent has, or a session of its history: %w",
			safetext.Human(msg.ContextID, 0), a2a.ErrInvalidParams)
	}
	return ctx, nil, nil
}

func (messages) After(context.Context, *a2asrv.CallContext, *a2asrv.Response) error { return nil }

// knows reports whether id is a context of the agent: one of its tasks',
// or a session of the history.
func (a *Agent) knows(id string) bool {
	a.mu.Lock()
	known := a.contexts[id]
	a.mu.Unlock()
	return known || a.store.knows(id)
}

// promptOf is a message's text parts, one after another on lines of their
// own.
func promptOf(m *a2a.Message) string {
	var texts []string
	for _, p := range m.Parts {
		if p != nil {
			if t := p.Text(); t != "" {
				texts = append(texts, t)
			}
		}
	}
	return strings.Join(texts, "\n")
}
