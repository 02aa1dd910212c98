package stream

import (
	"cmp"
	"maps"
	"slices"
	"time"
)

// What the fold answers: the turns, operations, calls and notices it
// paired, the run's answer and its times, each at any moment, from what
// it keeps (fold.go folds the lines into it).

// TurnInterval is a model turn as the fold paired it.
type TurnInterval struct {
	// Start and End are the times of the turn_started and of the closing
	// model_responded. End may be before Start. For an open turn, End is
	// where the stats run it to: the later of the latest observed time and
	// the end time.
	Start, End time.Time
	// Open reports a turn that no model_responded closed.
	Open bool
	// Turn is the turn_started's turn.
	Turn int
	// The lines' own fields: TurnID is the turn_started's, while the turn
	// is open and in the Change that closes it, which also sets the
	// model_responded's Duration, Usage, Stop and Failure. Otherwise they
	// are empty, unless the fold keeps them ([Fold.KeepText]: Failure).
	TurnID        string
	Duration      time.Duration
	Usage         Tokens
	Stop, Failure string
}

// ToolInterval is a tool operation as the fold paired it.
type ToolInterval struct {
	// Start and End are the times of the operation's first tool_started
	// and of the tool_finished that closed it; End may be before Start. For
	// an open operation, End is where the stats run it to.
	Start, End time.Time
	// Open reports an operation that no tool_finished closed; OK is the
	// closing tool_finished's ok.
	Open, OK bool
	// Turn is the turn of the latest turn_started before its first start
	// (0 before any); Call is the index of its call in [Fold.Calls].
	Turn, Call int
	// OpID, CallID and Name are those of its first tool_started.
	OpID, CallID, Name string
	// The lines' own fields. While the operation is open: the label, op
	// type and paths of its first tool_started. In the Change that closes
	// it, also the closing tool_finished's detail and duration, and its
	// paths where it has them. Otherwise they are empty, unless the fold
	// keeps them ([Fold.KeepText]: all but Duration).
	Label, OpType, OutPath, ErrPath, Detail string
	Duration                                time.Duration
}

// ToolCall is a tool call as the fold registered it: by its call_id, the
// first time one of tool_called, tool_started or tool_finished names it.
type ToolCall struct {
	CallID string
	// Name is the name the call counts under in ToolsByName ("?" for an
	// empty one).
	Name string
	// Turn is the turn of the latest turn_started before it was
	// registered (0 before any).
	Turn int
	// Ops counts the operations its tool_started lines opened.
	Ops int
	// Failed reports any ok:false among its tool_finished lines.
	Failed bool
	// Finished reports a tool_finished for the call; OK is the first one's.
	Finished, OK bool
	// The lines' own fields, while the last line added is one of the
	// call's tool lines: its label, a tool_called's arguments; At, in the
	// Change that registers the call, when it was registered; FinishedAt
	// and Detail, in the Change of its first tool_finished, that line's.
	// Otherwise they are zero, unless the fold keeps them
	// ([Fold.KeepText]): then Label and At are those of the line that
	// registered the call, Detail and FinishedAt its first tool_finished's,
	// Arguments its first tool_called's (when arguments are kept).
	Label, Arguments, Detail string
	At, FinishedAt           time.Time
}

// Notice is a preflight warning or a runner error, and its repeats: a
// preflight_warning is the same notice as another with its code and
// message, a runner_error as another with its message; no other line is a
// notice. Front-ends show a notice once, with the number of times it came.
type Notice struct {
	Type, Code, Message string
	// At is when it first came; Count how many times it has come.
	At    time.Time
	Count int
}

// String is how a front-end that answers in text (an editor over ACP,
// another agent over A2A) says the notice: its message, labelled by its
// kind (and a preflight warning's code). The message is the stream's, as
// it came: the caller makes it safe for where it goes.
func (n Notice) String() string {
	if n.Type == TypePreflightWarning {
		return "[uagent preflight warning " + n.Code + "] " + n.Message
	}
	return "[uagent runner error] " + n.Message
}

// Running returns the operations still open, in the order they started,
// each run to the end as Tools gives them: what a view says is still
// running when a run is cut off, without the closed ones. The slice is
// the caller's.
func (f *Fold) Running() []ToolInterval {
	idx := slices.Sorted(maps.Keys(f.opLines))
	out := make([]ToolInterval, len(idx))
	for k, i := range idx {
		out[k] = f.Tool(i)
	}
	return out
}

// Answer returns the run's answer: the final text if it is non-empty, else
// the last assistant text.
func (f *Fold) Answer() string { return cmp.Or(f.finalText, f.lastText) }

// end is where open intervals run to.
func (f *Fold) end() instant {
	if f.compare(f.closeAt, f.obsLast) > 0 {
		return f.closeAt
	}
	return f.obsLast
}

// Times returns when the run began and ended: first is the time of the
// first line that has one (run_started's, in a stream that starts as it
// should); last is where open turns and operations run to, the later of
// the latest observed time and the end time (run_finished's, once it came).
func (f *Fold) Times() (first, last time.Time) {
	return f.firstAt, f.time(f.end())
}

// Turns returns the model turns in the order their turn_started arrived,
// the one still open (if any) last, with its End run to the end. The slice
// is the caller's.
func (f *Fold) Turns() []TurnInterval {
	n := len(f.model)
	if f.turnOpen {
		n++
	}
	out := make([]TurnInterval, n)
	for i := range out {
		out[i] = f.Turn(i)
	}
	return out
}

// Turn returns the i-th model turn of Turns without copying the others, as
// a live view does after a [Change]. It panics if i is out of range.
func (f *Fold) Turn(i int) TurnInterval {
	if i == len(f.model) && f.turnOpen {
		return TurnInterval{Start: f.time(f.open.start), End: f.time(f.end()), Open: true, Turn: f.open.turn, TurnID: f.openID}
	}
	r := f.model[i]
	iv := TurnInterval{Start: f.time(r.start), End: f.time(r.end), Turn: r.turn}
	switch {
	case f.change.TurnStep == StepClosed && f.change.TurnIndex == i:
		d := f.line.(ModelRespondedDTO)
		iv.TurnID, iv.Duration, iv.Usage, iv.Stop, iv.Failure = f.openID, ms(d.DurationMS), d.Usage.Tokens(), d.Stop, d.Failure
	case f.keepText:
		iv.Failure = f.turnFailures[i]
	}
	return iv
}

// Tools returns the tool operations in the order their first tool_started
// arrived; the open ones have their End run to the end. The slice is the
// caller's.
func (f *Fold) Tools() []ToolInterval {
	out := make([]ToolInterval, len(f.ops))
	for i := range out {
		out[i] = f.Tool(i)
	}
	return out
}

// Tool returns the i-th operation of Tools without copying the others. It
// panics if i is out of range.
func (f *Fold) Tool(i int) ToolInterval {
	r := f.ops[i]
	iv := ToolInterval{Start: f.time(r.start), End: f.time(r.end), Open: r.open, OK: r.ok, Turn: int(r.turn), Call: int(r.call),
		OpID: f.opKeys.Key(i), CallID: f.callKeys.Key(int(r.call)), Name: f.names.Key(int(r.name))}
	switch {
	case r.open:
		iv.End = f.time(f.end())
		l := f.opLines[i]
		iv.Label, iv.OpType, iv.OutPath, iv.ErrPath = l.label, l.opType, l.outPath, l.errPath
	case f.change.ToolStep == StepClosed && f.change.ToolIndex == i:
		d, l := f.line.(ToolFinishedDTO), f.closedOp
		iv.Label, iv.OpType, iv.OutPath, iv.ErrPath = l.label, l.opType, cmp.Or(d.OutPath, l.outPath), cmp.Or(d.ErrPath, l.errPath)
		iv.Detail, iv.Duration = d.Detail, ms(d.DurationMS)
	case f.keepText:
		t := f.opTexts[i]
		iv.Label, iv.OpType, iv.OutPath, iv.ErrPath, iv.Detail = t.label, t.opType, t.outPath, t.errPath, t.detail
	}
	return iv
}

// Calls returns the tool calls in the order they were registered. The
// slice is the caller's.
func (f *Fold) Calls() []ToolCall {
	out := make([]ToolCall, len(f.calls))
	for i := range out {
		out[i] = f.Call(i)
	}
	return out
}

// Call returns the i-th call of Calls. It panics if i is out of range.
func (f *Fold) Call(i int) ToolCall {
	r := f.calls[i]
	c := ToolCall{CallID: f.callKeys.Key(i), Name: f.names.Key(int(r.name)), Turn: int(r.turn), Ops: int(r.ops),
		Failed: r.flags&callFailed != 0, Finished: r.flags&callFinished != 0, OK: r.flags&callOK != 0}
	if f.lineCall != i+1 {
		if f.keepText {
			t := f.callTexts[i]
			c.Label, c.Arguments, c.Detail, c.At, c.FinishedAt = t.label, t.args, t.detail, t.at, t.finishedAt
		}
		return c
	}
	var at time.Time
	switch d := f.line.(type) {
	case ToolCalledDTO:
		at, c.Label, c.Arguments = d.At, d.Label, d.Arguments
	case ToolStartedDTO:
		at, c.Label = d.At, d.Label
	case ToolFinishedDTO:
		at, c.Label = d.At, d.Label
		if f.lineFinished {
			c.Detail, c.FinishedAt = d.Detail, d.At
		}
	}
	if f.change.CallStep == StepOpened {
		c.At = at
	}
	return c
}

// Notices returns the notices in the order they first came. The slice is
// the caller's.
func (f *Fold) Notices() []Notice { return slices.Clone(f.notices) }

// Notice returns the i-th notice of Notices. It panics if i is out of
// range.
func (f *Fold) Notice(i int) Notice { return f.notices[i] }

// Finished reports whether a run_finished line has been added.
func (f *Fold) Finished() bool { return f.recorded != nil }

// Started returns the first run_started line, or nil before one came.
func (f *Fold) Started() *RunStartedDTO { return f.started }
