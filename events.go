package stream

import "time"

// Event is a domain event of a uagent run: what happened and when.
// OccurredAt reports the event's own time; a zero time asks the [Sink] to
// stamp the event with its clock.
//
// Event is sealed: only the 14 event structs below, and pointers to them,
// implement it, so that every Event has a wire form. (A struct that embeds
// one of them satisfies the interface too, but is not one of the 14 types:
// [EventToDTO] reports ok=false for it and the [Sink] skips it.)
type Event interface {
	OccurredAt() time.Time
	event() // seals the interface
}

// RunStarted is always the first event of a started run. RunID names the
// run directory.
type RunStarted struct {
	At        time.Time
	RunID     string
	SessionID string
	Provider  string
	Model     string
	Effort    string
	Workspace string
}

// PreflightWarning is a non-blocking preflight finding, such as
// auth_expiring.
type PreflightWarning struct {
	At      time.Time
	Code    string
	Message string
}

// UserMessage reports that the runner accepted a user message. ID is the
// message ID the runner deduplicates on.
type UserMessage struct {
	At   time.Time
	ID   string
	Text string
}

// DeveloperMessage reports that the runner accepted a developer message:
// the harness's, not the user's. It is not counted in Stats.UserMessages.
type DeveloperMessage struct {
	At   time.Time
	ID   string
	Text string
}

// ControlInput reports that the runner accepted a control message: settings
// (with Effort), when_idle, hard, or heartbeat (with Reason).
type ControlInput struct {
	At     time.Time
	ID     string
	Mode   string
	Effort string
	Reason string
}

// TurnStarted reports that the runner sent a request to the model. Turns
// count from 1; TurnID is the runner's ID for the turn.
type TurnStarted struct {
	At     time.Time
	Turn   int
	TurnID string
}

// ModelResponded reports that the model answered. Stop is [StopComplete]
// for a normal response; Failure is empty unless the response failed.
type ModelResponded struct {
	At       time.Time
	Turn     int
	TurnID   string
	Duration time.Duration
	Usage    Tokens
	Stop     string
	Failure  string
}

// ToolCalled reports that the model asked for a tool. Label is the Bash
// command or the raw arguments on one line; Arguments is the raw JSON.
type ToolCalled struct {
	At        time.Time
	CallID    string
	Name      string
	Label     string
	Arguments string
}

// ToolStarted reports that the runner started the operation OpID for the
// call CallID.
type ToolStarted struct {
	At      time.Time
	CallID  string
	OpID    string
	Name    string
	Label   string
	OpType  string
	OutPath string
	ErrPath string
}

// ToolFinished reports that an operation ended. OpID is empty when the call
// failed before an operation started. Detail is "exit N", a status, or an
// error.
type ToolFinished struct {
	At       time.Time
	CallID   string
	OpID     string
	Name     string
	Label    string
	OK       bool
	Detail   string
	Duration time.Duration
	OpType   string
	OutPath  string
	ErrPath  string
}

// AssistantMessage is assistant text from a turn; Final marks the final
// answer.
type AssistantMessage struct {
	At    time.Time
	Turn  int
	Text  string
	Final bool
}

// ReasoningSummary is one reasoning summary line (wire type "reasoning").
type ReasoningSummary struct {
	At   time.Time
	Turn int
	Text string
}

// RunnerError reports an error of the runner, or a line it printed that is
// not JSON.
type RunnerError struct {
	At      time.Time
	Message string
}

// RunFinished is always the last event of a started run.
type RunFinished struct {
	At     time.Time
	Result Result
	// EndWithin, when positive, says that At is the run's end only to
	// within this much: the run ended in [At, At+EndWithin). A run rebuilt
	// from what the runner saved has it (its wall time is saved in whole
	// milliseconds: statedir). It is not written: the line has no such
	// field. A Fold closes such a run at the earliest end in the range at
	// which the figures of the summary that depend on the end (the time
	// of the turns and operations still open, which it closes) are the
	// summary's, and at At when none is: a summary the runner computed at
	// its exact end agrees with its events, and the recomputed summary,
	// its Diff and the run's times are those of that one end.
	EndWithin time.Duration
}

// OccurredAt returns the event's At, its own time: so does every event's
// OccurredAt below (see [Event]).
func (e RunStarted) OccurredAt() time.Time       { return e.At }
func (e PreflightWarning) OccurredAt() time.Time { return e.At }
func (e UserMessage) OccurredAt() time.Time      { return e.At }
func (e DeveloperMessage) OccurredAt() time.Time { return e.At }
func (e ControlInput) OccurredAt() time.Time     { return e.At }
func (e TurnStarted) OccurredAt() time.Time      { return e.At }
func (e ModelResponded) OccurredAt() time.Time   { return e.At }
func (e ToolCalled) OccurredAt() time.Time       { return e.At }
func (e ToolStarted) OccurredAt() time.Time      { return e.At }
func (e ToolFinished) OccurredAt() time.Time     { return e.At }
func (e AssistantMessage) OccurredAt() time.Time { return e.At }
func (e ReasoningSummary) OccurredAt() time.Time { return e.At }
func (e RunnerError) OccurredAt() time.Time      { return e.At }
func (e RunFinished) OccurredAt() time.Time      { return e.At }

func (RunStarted) event()       {}
func (PreflightWarning) event() {}
func (UserMessage) event()      {}
func (DeveloperMessage) event() {}
func (ControlInput) event()     {}
func (TurnStarted) event()      {}
func (ModelResponded) event()   {}
func (ToolCalled) event()       {}
func (ToolStarted) event()      {}
func (ToolFinished) event()     {}
func (AssistantMessage) event() {}
func (ReasoningSummary) event() {}
func (RunnerError) event()      {}
func (RunFinished) event()      {}
