package a2astream

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/execstream"
	"github.com/uagentkit/stream/internal/safetext"
	"github.com/uagentkit/stream/uahstream"
)

// exec is one task's execution: what it yields to the SDK.
type exec struct {
	a       *Agent
	ec      *a2asrv.ExecutorContext
	yield   func(a2a.Event, error) bool
	stopped bool // the SDK took no more events
}

// emit yields an event, and reports whether the SDK still takes them.
func (e *exec) emit(ev a2a.Event) bool {
	if !e.stopped && !e.yield(ev, nil) {
		e.stopped = true
	}
	return !e.stopped
}

// status yields a status update: a working one with what the run did, or
// the final one.
func (e *exec) status(state a2a.TaskState, msg *a2a.Message) bool {
	return e.emit(a2a.NewStatusUpdateEvent(e.ec, state, msg))
}

// run waits for the context's turn, runs the task and ends it.
func (e *exec) run(ctx context.Context, t *task, turn chan struct{}) {
	ec := e.ec
	if ec.StoredTask == nil && !e.emit(a2a.NewSubmittedTask(ec, ec.Message)) {
		return
	}
	select {
	case turn <- struct{}{}:
	case <-t.canceled:
		e.a.store.canceled(ec.TaskID)
		e.status(a2a.TaskStateCanceled, agentText(ec, "canceled before its turn came"))
		return
	case <-e.a.base.Done():
		e.status(a2a.TaskStateFailed, agentText(ec, "the agent stopped before the task's turn came"))
		return
	}
	defer func() { <-turn }()
	select {
	case <-t.canceled:
		e.a.store.canceled(ec.TaskID)
		e.status(a2a.TaskStateCanceled, agentText(ec, "canceled before its run began"))
		return
	default:
	}
	// The run is the agent's, not the request's: a client that goes away
	// does not stop it; CancelTask and Close do.
	runCtx, stop := context.WithCancel(e.a.base)
	defer stop()
	go func() {
		select {
		case <-t.canceled:
			stop()
		case <-runCtx.Done():
		}
	}()
	run, err := e.a.start(runCtx, execstream.Prompt{Session: ec.ContextID, Text: promptOf(ec.Message)})
	if err != nil {
		e.a.logf("a2a: task %s: %v", ec.TaskID, err)
		e.a.store.failed(ec.TaskID, "uagent could not be started: "+err.Error())
		e.status(a2a.TaskStateFailed, agentText(ec, "uagent could not be started: "+err.Error()))
		return
	}
	if !e.status(a2a.TaskStateWorking, nil) { // submitted until here: the run exists
		stop()
		run.Wait()
		return
	}
	// The run's lines are read as they come, whatever the client's pace:
	// each becomes its events at once (from the fold as it is at that
	// line), queued for the SDK, so that uagent never waits on its stdout
	// for a slow client, and nothing is lost.
	q := newQueue()
	u := &updates{e: e, q: q}
	var ended *uahstream.Ended
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer q.close()
		for l := range run.Lines() {
			if d, ok := l.DTO.(stream.RunStartedDTO); ok {
				e.a.store.ran(ec.TaskID, d.RunID)
			}
			if l.Ended != nil {
				ended = l.Ended
			}
			u.add(l)
		}
	}()
	for {
		ev, ok := q.pop(e.a.base.Done())
		if !ok {
			break // the run's lines are read; or the agent stops, and what clients did not take yet is left
		}
		if !e.emit(ev) {
			stop() // the SDK ended the task: its run ends too
		}
	}
	<-read
	o, werr := run.Wait()
	canceled := false
	select {
	case <-t.canceled:
		canceled = true
	default:
	}
	state, why := outcome(o, werr, canceled)
	if state == a2a.TaskStateCanceled {
		e.a.store.canceled(ec.TaskID) // noted only when the cancel stopped the run
	}
	if ended != nil && state != a2a.TaskStateCanceled {
		if answer := ended.Fold.Answer(); answer != "" {
			art := a2a.NewArtifactEvent(ec, a2a.NewTextPart(text(answer)))
			art.Artifact.ID, art.Artifact.Name = "answer", "answer"
			art.LastChunk = true
			e.emit(art)
		}
	}
	if state == a2a.TaskStateCompleted {
		e.status(state, nil)
		return
	}
	e.status(state, agentText(ec, why))
}

// queue is the events of a run waiting for the SDK: a FIFO that grows as
// it must (an event of progress is small), so that its writer never
// waits.
type queue struct {
	mu     sync.Mutex
	events []a2a.Event
	closed bool
	ready  chan struct{} // has a value when events or closed changed
}

func newQueue() *queue { return &queue{ready: make(chan struct{}, 1)} }

func (q *queue) push(ev a2a.Event) {
	q.mu.Lock()
	q.events = append(q.events, ev)
	q.mu.Unlock()
	q.signal()
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (q *queue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// pop is the next event, waiting for one; false once the queue is
// closed and empty, or when stop is done.
func (q *queue) pop(stop <-chan struct{}) (a2a.Event, bool) {
	for {
		select {
		case <-stop:
			return nil, false
		default:
		}
		q.mu.Lock()
		if len(q.events) > 0 {
			ev := q.events[0]
			q.events[0] = nil
			q.events = q.events[1:]
			q.mu.Unlock()
			return ev, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return nil, false
		}
		select {
		case <-q.ready:
		case <-stop:
			return nil, false
		}
	}
}

// outcome is the state a task's run ends its task in, and why, for a
// state other than completed: the run's verdict (its fold's, as run says
// it), canceled when CancelTask stopped it.
func outcome(o execstream.Outcome, err error, canceled bool) (a2a.TaskState, string) {
	tail := lastLine(o.Stderr)
	switch {
	case canceled && (o.Ending != stream.EndFinished || o.Status == stream.StatusInterrupted):
		// Cancel acts on the run: a run that had ended on its own (ok or
		// not) keeps its state, whatever a client had read of it.
		return a2a.TaskStateCanceled, fmt.Sprintf("canceled: the run was interrupted (exit code %d)", o.ExitCode)
	case err != nil:
		return a2a.TaskStateFailed, "the run failed: " + err.Error()
	case o.Ending == stream.EndFinished && o.Status == stream.StatusOK:
		return a2a.TaskStateCompleted, ""
	case o.Ending == stream.EndFinished:
		why := fmt.Sprintf("the run ended %s (exit code %d)", o.Status, o.ExitCode)
		if s := o.Summary; s != nil {
			if first := append(append([]string{}, s.Stats.Failures...), s.Stats.Errors...); len(first) > 0 {
				why += ": " + first[0]
			}
		}
		return a2a.TaskStateFailed, why
	case o.Ending == stream.EndCutOff:
		return a2a.TaskStateFailed, withTail(fmt.Sprintf("the run was cut off: it ended without run_finished (%s, exit code %d)", o.Status, o.ExitCode), tail)
	case o.Ending == stream.EndPreflightBlocked:
		return a2a.TaskStateFailed, withTail(fmt.Sprintf("uagent wrote no stream: preflight blocked the run, or it is not uagent (exit code %d)", o.ExitCode), tail)
	default:
		return a2a.TaskStateFailed, withTail(fmt.Sprintf("the runner could not start (exit code %d)", o.ExitCode), tail)
	}
}

func withTail(why, tail string) string {
	if tail == "" {
		return why
	}
	return why + ": " + tail
}

// lastLine is the last line of the runner's stderr that is not empty.
func lastLine(b []byte) string {
	b = bytes.TrimSpace(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return safetext.OneLine(string(b), 300)
}

// agentText is an agent's message of the task with one text part.
func agentText(ec *a2asrv.ExecutorContext, s string) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(text(s)))
}

// text is a string from a run, as a person may read it: what a terminal
// acts on escaped, its lines and tabs kept.
func text(s string) string { return safetext.Human(s, safetext.KeepNewlines|safetext.KeepTabs) }

// line is a string from a run kept on one line.
func line(s string) string { return safetext.Human(s, 0) }

// updates turns a task's lines into status updates, as its fold says
// them: a tool call when it is made, starts and ends (a text part, and a
// data part {"kind":"tool_call", call_id, name, label, status, detail,
// ok}); the text as the model writes it (a session stream's text_delta)
// and each assistant text (but what streamed already); the runner's errors
// and preflight warnings once each, and the harness's notices.
type updates struct {
	e *exec
	q *queue
}

// say queues a working status update whose message says one step of the
// run: a message of progress (its metadata "uagentkit/kind" says which),
// which the task's history does not keep (see store.Update).
func (u *updates) say(kind string, parts ...*a2a.Part) {
	m := a2a.NewMessageForTask(a2a.MessageRoleAgent, u.e.ec, parts...)
	m.SetMeta(kindKey, kind)
	u.q.push(a2a.NewStatusUpdateEvent(u.e.ec, a2a.TaskStateWorking, m))
}

// kindKey marks a message of progress, in its metadata.
const kindKey = "uagentkit/kind"

func (u *updates) add(l uahstream.Line) {
	if l.Err != nil || l.DTO == nil {
		return
	}
	switch d := l.DTO.(type) {
	case uahstream.TextDeltaDTO:
		u.say("text_delta", a2a.NewTextPart(text(d.Text)))
	case uahstream.NoticeDTO:
		u.say("notice", a2a.NewTextPart(text("[uah "+d.Level+"] "+d.Message)))
	case stream.AssistantMessageDTO:
		// What streamed was said as it came; the rest, or, when the
		// response says something else, all of it.
		if rest, _ := l.Change.Unstreamed(d.Text); rest != "" {
			u.say("assistant_message", a2a.NewTextPart(text(rest)))
		}
	}
	ch := l.Step
	if ch.NoticeStep == stream.StepOpened {
		u.say("notice", a2a.NewTextPart(text(l.Notice.String())))
	}
	if ch.CallStep == stream.StepOpened {
		c := l.Call
		u.tool(c.CallID, c.Name, c.Label, "pending", "", nil)
	}
	if ch.ToolStep == stream.StepOpened {
		t := l.Tool
		u.tool(t.CallID, t.Name, t.Label, "running", "", nil)
	}
	switch {
	case ch.ToolStep == stream.StepClosed:
		t := l.Tool
		u.tool(t.CallID, t.Name, t.Label, "finished", t.Detail, &t.OK)
	case ch.CallStep != 0:
		if c := l.Call; c.Finished && c.Ops == 0 { // it failed before an operation started
			u.tool(c.CallID, c.Name, c.Label, "finished", c.Detail, &c.OK)
		}
	}
}

// tool says a step of a tool call.
func (u *updates) tool(id, name, label, status, detail string, ok *bool) {
	data := map[string]any{"kind": "tool_call", "call_id": line(id), "name": line(name), "label": line(label), "status": status}
	shown := line(name) + ": " + line(label)
	switch {
	case ok == nil:
		shown = status + " " + shown
	case *ok:
		shown = "✓ " + shown
		data["ok"], data["detail"] = true, line(detail)
	default:
		shown = "✗ " + shown
		data["ok"], data["detail"] = false, line(detail)
	}
	if detail != "" && ok != nil {
		shown += " (" + line(detail) + ")"
	}
	u.say("tool_call", a2a.NewTextPart(shown), a2a.NewDataPart(data))
}
