package stream

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/uagentkit/stream/internal/span"
)

// Tokens counts a model's tokens. InputTokens includes the cached and
// cache-write tokens; OutputTokens includes the reasoning tokens.
type Tokens struct {
	InputTokens           int64
	CachedInputTokens     int64
	CacheWriteInputTokens int64
	OutputTokens          int64
	ReasoningTokens       int64
}

// Add returns the field-by-field sum of t and u.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{
		InputTokens:           t.InputTokens + u.InputTokens,
		CachedInputTokens:     t.CachedInputTokens + u.CachedInputTokens,
		CacheWriteInputTokens: t.CacheWriteInputTokens + u.CacheWriteInputTokens,
		OutputTokens:          t.OutputTokens + u.OutputTokens,
		ReasoningTokens:       t.ReasoningTokens + u.ReasoningTokens,
	}
}

// Stats aggregates a run's events, as the run_finished summary and
// summary.json report them. [StatsCollector] computes it exactly as the
// uagent runner does; its doc comment gives the meaning of each field.
type Stats struct {
	EventSpan        time.Duration
	ModelTime        time.Duration
	ToolBusyTime     time.Duration
	ToolModelOverlap time.Duration
	Turns            int
	UserMessages     int
	ModelResponses   int
	ToolCalls        int
	FailedToolCalls  int
	MaxParallelTools int
	ToolsByName      map[string]int
	Tokens           Tokens
	StopReasons      map[string]int
	Failures         []string
	Errors           []string
	Warnings         []string
	FinalAnswer      bool
}

// StatsCollector is the one fold of a run: it folds the events, in arrival
// order, into [Stats] exactly as the uagent runner does, and it says, event
// by event, which model turn, tool operation and tool call opened and
// closed (see [Change]), so that every view of a run (the stats, the
// transcript, the timeline, the page, spans, table rows) takes what it
// shows from the same pairing. The runner's arithmetic has no special
// cases: empty strings, zero times and intervals that end before they start
// take part like any other value.
//
//   - Observed times are those of turn_started, model_responded,
//     tool_called, tool_started, tool_finished, assistant_message,
//     user_message, developer_message and control_input. A zero time is not
//     observed. EventSpan is the latest observed time minus the first one
//     observed (in arrival order), or 0 when none was.
//   - Turns counts turn_started, UserMessages user_message only,
//     ModelResponses model_responded; Tokens sums their usage.
//   - A turn_started opens a turn at its time (a second one restarts the
//     open turn: its start moves, the earlier start is dropped); a
//     model_responded closes [start, at] if a turn is open, even when at is
//     before the start or either time is zero.
//   - A tool_started opens an interval keyed by its op_id, the empty op_id
//     included; the first start of an op_id wins. The first tool_finished
//     with that op_id (a missing op_id is the empty one) closes it. A
//     tool_finished whose op_id was never started adds no interval. Zero
//     times open and close intervals like any other.
//   - At the end, an open turn and unfinished operations run to the later
//     of the latest observed time and the Close time.
//   - The model intervals and the tool intervals are each sorted by start
//     (equal starts keep their arrival order) and merged: a start at or
//     before the previous end merges, and the end becomes the later of the
//     two. ModelTime and ToolBusyTime are the sums of end − start over the
//     merged intervals, negative lengths included, each in time.Time.Sub
//     arithmetic (which saturates). ToolModelOverlap walks the two merged
//     lists pairwise: each pair adds min(ends) − max(starts) when that is
//     positive, then the list whose interval ends first advances (on a tie,
//     the tool list).
//   - MaxParallelTools sweeps the tool intervals' start (+1) and end (−1)
//     edges sorted by time, ends before starts at the same instant, and
//     keeps the highest running count. A reversed interval still
//     contributes both edges.
//   - A call_id is registered the first time it appears in tool_called,
//     tool_started or tool_finished, under that event's name ("?" when the
//     name is empty). ToolCalls counts the calls, ToolsByName counts them by
//     that name, FailedToolCalls counts the calls with any ok:false. The
//     first tool_finished of a call finishes it.
//   - StopReasons counts stops other than "" and "complete"; Failures lists
//     model_responded failures, Errors runner_error messages, Warnings
//     preflight_warning messages, in order.
//   - Every assistant_message sets the last text, even to "". A final one
//     sets the final text, even to "" (clearing an earlier final). The
//     answer is the final text if it is non-empty, else the last text.
//     FinalAnswer reports a non-empty final text.
//
// Durations are summed in nanoseconds; they become milliseconds, truncated
// toward zero, only in [StatsDTO].
//
// The zero StatsCollector is empty and ready to use. Its memory grows with
// the turns, operations and calls it has seen and with the failures,
// errors and warnings it lists, not with the other events. It is not safe
// for concurrent use.
type StatsCollector struct {
	first, last time.Time // first observed to arrive, latest observed
	closeAt     time.Time

	turns, userMessages, modelResponses int
	tokens                              Tokens

	turnOpen bool
	turn     TurnInterval // the open turn
	model    []TurnInterval

	ops   map[string]int // op_id → index in tools
	tools []ToolInterval

	calls       []ToolCall
	callIndex   map[string]int // call_id → index in calls
	byName      map[string]int
	failedCalls int

	stopReasons                map[string]int
	failures, errors, warnings []string

	finalText, lastText string
}

// TurnInterval is a model turn as the fold paired it.
type TurnInterval struct {
	// Start and End are the times of the turn_started and of the closing
	// model_responded. End may be before Start. For an open turn, End is
	// where the stats run it to: the later of the latest observed time and
	// the Close time.
	Start, End time.Time
	// Open reports a turn that no model_responded closed.
	Open bool
	// The turn_started's turn and turn_id.
	Turn   int
	TurnID string
	// The closing model_responded's duration, usage, stop and failure.
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
	// Open reports an operation that no tool_finished closed.
	Open bool
	// The first tool_started's fields, and Turn, the turn of the latest
	// turn_started before it (0 before any).
	CallID, OpID, Name, Label, OpType, OutPath, ErrPath string
	Turn                                                int
	// CallIndex is the index of its call in [StatsCollector.Calls].
	CallIndex int
	// The closing tool_finished's ok, detail and duration.
	OK       bool
	Detail   string
	Duration time.Duration
}

// ToolCall is a tool call as the fold registered it: by its call_id, the
// first time one of tool_called, tool_started or tool_finished names it.
type ToolCall struct {
	CallID string
	// Name is the name the call counts under in ToolsByName ("?" for an
	// empty one); Label that of the same event.
	Name, Label string
	// At is when the call was registered; Turn the turn of the latest
	// turn_started before it (0 before any).
	At   time.Time
	Turn int
	// Arguments are those of its first tool_called.
	Arguments string
	// Ops are the indexes, in [StatsCollector.ToolIntervals], of the
	// operations its tool_started lines opened, in order.
	Ops []int
	// Failed reports any ok:false among its tool_finished lines.
	Failed bool
	// Finished reports a tool_finished for the call; FinishedAt, OK and
	// Detail are the first one's.
	Finished   bool
	FinishedAt time.Time
	OK         bool
	Detail     string

	called bool // a tool_called named it
}

// Step is what one event did to a turn, an operation or a call.
type Step uint8

// The steps of a [Change].
const (
	// Opened: a turn, operation or call began (for a call: it was
	// registered).
	Opened Step = iota + 1
	// Restarted: a turn_started while a turn was open moved its start.
	Restarted
	// Closed: a turn or operation was closed, a call finished.
	Closed
)

// Change is what one event changed in the fold: for the turn, the
// operation and the call it touched, the step and the index (in
// ModelIntervals, ToolIntervals and Calls, which never reorder). A zero
// Step means nothing changed there.
type Change struct {
	Turn, Tool, Call                Step
	TurnIndex, ToolIndex, CallIndex int
}

func (c *StatsCollector) observe(t time.Time) {
	if t.IsZero() {
		return
	}
	if c.first.IsZero() {
		c.first = t
	}
	if t.After(c.last) {
		c.last = t
	}
}

// call registers a call the first time its id appears, and returns its
// index and whether this registered it.
func (c *StatsCollector) call(id, name, label string, at time.Time) (int, bool) {
	if i, ok := c.callIndex[id]; ok {
		return i, false
	}
	if c.callIndex == nil {
		c.callIndex, c.byName = map[string]int{}, map[string]int{}
	}
	if name == "" {
		name = "?"
	}
	c.callIndex[id] = len(c.calls)
	c.calls = append(c.calls, ToolCall{CallID: id, Name: name, Label: label, At: at, Turn: c.turn.Turn})
	c.byName[name]++
	return len(c.calls) - 1, true
}

// Add folds one event and returns what it changed. Pointers to the event
// structs are accepted; nil events are ignored.
func (c *StatsCollector) Add(event Event) Change {
	var ch Change
	register := func(id, name, label string, at time.Time) *ToolCall {
		i, added := c.call(id, name, label, at)
		ch.CallIndex = i
		if added {
			ch.Call = Opened
		}
		return &c.calls[i]
	}
	_, e := kindOf(event)
	switch e := e.(type) {
	case TurnStarted:
		c.observe(e.At)
		c.turns++
		ch.Turn, ch.TurnIndex = Opened, len(c.model)
		if c.turnOpen {
			ch.Turn = Restarted
		}
		c.turnOpen = true
		c.turn = TurnInterval{Start: e.At, Open: true, Turn: e.Turn, TurnID: e.TurnID}
	case ModelResponded:
		c.observe(e.At)
		c.modelResponses++
		c.tokens = c.tokens.Add(e.Usage)
		if c.turnOpen {
			iv := c.turn
			iv.End, iv.Open, iv.Duration, iv.Usage, iv.Stop, iv.Failure = e.At, false, e.Duration, e.Usage, e.Stop, e.Failure
			ch.Turn, ch.TurnIndex = Closed, len(c.model)
			c.model = append(c.model, iv)
			c.turnOpen = false
		}
		if e.Stop != "" && e.Stop != StopComplete {
			if c.stopReasons == nil {
				c.stopReasons = map[string]int{}
			}
			c.stopReasons[e.Stop]++
		}
		if e.Failure != "" {
			c.failures = append(c.failures, e.Failure)
		}
	case ToolCalled:
		c.observe(e.At)
		if call := register(e.CallID, e.Name, e.Label, e.At); !call.called {
			call.called, call.Arguments = true, e.Arguments
		}
	case ToolStarted:
		c.observe(e.At)
		call := register(e.CallID, e.Name, e.Label, e.At)
		if _, seen := c.ops[e.OpID]; !seen {
			if c.ops == nil {
				c.ops = map[string]int{}
			}
			c.ops[e.OpID] = len(c.tools)
			call.Ops = append(call.Ops, len(c.tools))
			ch.Tool, ch.ToolIndex = Opened, len(c.tools)
			c.tools = append(c.tools, ToolInterval{Start: e.At, Open: true, CallID: e.CallID, OpID: e.OpID,
				Name: e.Name, Label: e.Label, OpType: e.OpType, OutPath: e.OutPath, ErrPath: e.ErrPath, Turn: c.turn.Turn,
				CallIndex: ch.CallIndex})
		}
	case ToolFinished:
		c.observe(e.At)
		call := register(e.CallID, e.Name, e.Label, e.At)
		if !e.OK && !call.Failed {
			call.Failed = true
			c.failedCalls++
		}
		if !call.Finished {
			call.Finished, call.FinishedAt, call.OK, call.Detail = true, e.At, e.OK, e.Detail
			if ch.Call == 0 {
				ch.Call = Closed
			}
		}
		if i, ok := c.ops[e.OpID]; ok && c.tools[i].Open {
			iv := &c.tools[i]
			iv.End, iv.Open, iv.OK, iv.Detail, iv.Duration = e.At, false, e.OK, e.Detail, e.Duration
			ch.Tool, ch.ToolIndex = Closed, i
		}
	case AssistantMessage:
		c.observe(e.At)
		c.lastText = e.Text
		if e.Final {
			c.finalText = e.Text
		}
	case UserMessage:
		c.observe(e.At)
		c.userMessages++
	case DeveloperMessage:
		c.observe(e.At)
	case ControlInput:
		c.observe(e.At)
	case PreflightWarning:
		c.warnings = append(c.warnings, e.Message)
	case RunnerError:
		c.errors = append(c.errors, e.Message)
	}
	return ch
}

// Close marks the end of the run at t: for a recorded stream, the time of
// its run_finished line. Open turns and operations run to the later of t and
// the latest observed time. Events may still be added after Close, and
// Close may be called again; the last call counts.
func (c *StatsCollector) Close(t time.Time) { c.closeAt = t }

// Answer returns the run's answer: the final text if it is non-empty, else
// the last assistant text.
func (c *StatsCollector) Answer() string { return cmp.Or(c.finalText, c.lastText) }

// end is where open intervals run to.
func (c *StatsCollector) end() time.Time { return span.Later(c.last, c.closeAt) }

// ModelIntervals returns the model turns in the order their turn_started
// arrived, the one still open (if any) last, with its End run to the end.
// The slice is the caller's.
func (c *StatsCollector) ModelIntervals() []TurnInterval {
	out := slices.Clone(c.model)
	if c.turnOpen {
		out = append(out, c.Turn(len(c.model)))
	}
	return out
}

// Turn returns the i-th model turn of ModelIntervals without copying the
// others, as a live view does after a [Change]. It panics if i is out of
// range.
func (c *StatsCollector) Turn(i int) TurnInterval {
	if i == len(c.model) && c.turnOpen {
		iv := c.turn
		iv.End = c.end()
		return iv
	}
	return c.model[i]
}

// ToolIntervals returns the tool operations in the order their first
// tool_started arrived; the open ones have their End run to the end. The
// slice is the caller's.
func (c *StatsCollector) ToolIntervals() []ToolInterval {
	out := slices.Clone(c.tools)
	end := c.end()
	for i := range out {
		if out[i].Open {
			out[i].End = end
		}
	}
	return out
}

// Tool returns the i-th operation of ToolIntervals without copying the
// others. It panics if i is out of range.
func (c *StatsCollector) Tool(i int) ToolInterval {
	iv := c.tools[i]
	if iv.Open {
		iv.End = c.end()
	}
	return iv
}

// Calls returns the tool calls in the order they were registered. The
// slice is the caller's; the calls' Ops slices are shared and must not be
// modified.
func (c *StatsCollector) Calls() []ToolCall { return slices.Clone(c.calls) }

// Call returns the i-th call of Calls. Its Ops slice is shared and must not
// be modified. It panics if i is out of range.
func (c *StatsCollector) Call(i int) ToolCall { return c.calls[i] }

// Stats returns the statistics of the events added so far, as of the Close
// time (or of the latest observed time before Close is called). The maps and
// slices are the caller's. ToolsByName is never nil.
func (c *StatsCollector) Stats() Stats {
	model, tools := turnSpans(c.ModelIntervals()), toolSpans(c.ToolIntervals())
	s := Stats{
		Turns:            c.turns,
		UserMessages:     c.userMessages,
		ModelResponses:   c.modelResponses,
		ToolCalls:        len(c.calls),
		FailedToolCalls:  c.failedCalls,
		MaxParallelTools: span.MaxParallel(tools),
		ToolsByName:      maps.Clone(c.byName),
		Tokens:           c.tokens,
		StopReasons:      maps.Clone(c.stopReasons),
		Failures:         slices.Clone(c.failures),
		Errors:           slices.Clone(c.errors),
		Warnings:         slices.Clone(c.warnings),
		FinalAnswer:      c.finalText != "",
	}
	if s.ToolsByName == nil {
		s.ToolsByName = map[string]int{}
	}
	if !c.first.IsZero() {
		s.EventSpan = c.last.Sub(c.first)
	}
	model, tools = span.Merge(model), span.Merge(tools)
	s.ModelTime, s.ToolBusyTime = span.Total(model), span.Total(tools)
	s.ToolModelOverlap = span.Total(span.Intersect(model, tools))
	return s
}

// turnSpans and toolSpans return the intervals' start and end times.
func turnSpans(ivs []TurnInterval) []span.Span {
	out := make([]span.Span, len(ivs))
	for i, iv := range ivs {
		out[i] = span.Span{Start: iv.Start, End: iv.End}
	}
	return out
}

func toolSpans(ivs []ToolInterval) []span.Span {
	out := make([]span.Span, len(ivs))
	for i, iv := range ivs {
		out[i] = span.Span{Start: iv.Start, End: iv.End}
	}
	return out
}

// Difference is one field in which a recorded summary and the one
// recomputed from the events differ.
type Difference struct {
	Field      string // the wire path: "stats.model_ms", …, or "answer"
	Recorded   string // the recorded value, as JSON
	Recomputed string // the recomputed value, as JSON
}

// String formats the difference as "FIELD is A, recomputed B".
func (d Difference) String() string {
	return d.Field + " is " + d.Recorded + ", recomputed " + d.Recomputed
}

// statsDiff returns the fields in which a recorded summary's stats and
// answer differ from the recomputed ones, in the order of the wire,
// skipping the fields that present does not hold (the fields a recorded
// summary did not have). An absent map or list equals an empty one. Values
// are JSON without HTML escaping; control characters in strings are
// escaped, as JSON requires.
func statsDiff(recorded, recomputed SummaryDTO, present map[string]bool) []Difference {
	var out []Difference
	c := summaryCodec.fields[summaryCodec.byName["stats"]].sub
	rv, gv := reflect.ValueOf(recorded.Stats), reflect.ValueOf(recomputed.Stats)
	for _, f := range c.fields {
		name := "stats." + f.name
		if present != nil && !present[name] {
			continue
		}
		a, b := fieldOf(rv, f.index), fieldOf(gv, f.index)
		if (f.kind == kindMapInt || f.kind == kindStrings) && a.Len() == 0 && b.Len() == 0 {
			continue
		}
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			out = append(out, Difference{name, jsonOf(a.Interface()), jsonOf(b.Interface())})
		}
	}
	if recorded.Answer != recomputed.Answer && (present == nil || present["answer"]) {
		out = append(out, Difference{"answer", jsonOf(recorded.Answer), jsonOf(recomputed.Answer)})
	}
	return out
}

// summaryFields returns the paths of the fields a run_finished line's
// summary has ("answer", "stats.model_ms", …), for comparing only those.
func summaryFields(line []byte) map[string]bool {
	var l struct {
		Summary struct {
			Stats  map[string]json.RawMessage `json:"stats"`
			Answer *json.RawMessage           `json:"answer"`
		} `json:"summary"`
	}
	present := map[string]bool{}
	if json.Unmarshal(line, &l) != nil {
		return present
	}
	for k := range l.Summary.Stats {
		present["stats."+k] = true
	}
	if l.Summary.Answer != nil {
		present["answer"] = true
	}
	return present
}

// jsonOf encodes v as JSON without HTML escaping.
func jsonOf(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Recomputed is a run's summary rebuilt from its stream by [Summarize].
type Recomputed struct {
	// Summary has the stats and answer recomputed from the events, the
	// identity of run_started and, when the stream has one, the status,
	// runner exit code, start and wall time of run_finished. A stream cut
	// off before run_finished is closed at its last line's time; its
	// runner exit code is then -1 (killed), its status what Classify says
	// of that, its start the time of run_started and its wall time the span
	// from there to the last line.
	Summary SummaryDTO
	// Recorded is the summary the run_finished line holds, when there is one.
	Recorded *SummaryDTO
	// recordedFields are the fields Recorded's line has.
	recordedFields map[string]bool
	// CutOff reports a stream that ended without run_finished.
	CutOff bool
	// Lines counts the lines decoded, of known and unknown types.
	Lines int
	// LineErrors counts the lines that could not be decoded, as
	// Outcome.LineErrors does; FirstErrors holds the first 1000 of their
	// *LineError values.
	LineErrors  int
	FirstErrors []error
}

const maxKeptErrors = 1000

// Diff returns the fields in which the recorded summary's stats and answer
// differ from the recomputed ones, in the order of the wire, leaving out the fields
// the run_finished line does not have: a v1 stream written before a field
// existed is not wrong about it. It returns nil when the stream has no
// run_finished.
func (r Recomputed) Diff() []Difference {
	if r.Recorded == nil {
		return nil
	}
	return statsDiff(*r.Recorded, r.Summary, r.recordedFields)
}

// Summarize reads a stream through a [Decoder] and recomputes its summary.
// Lines that cannot be decoded are counted and skipped; lines after
// run_finished are not folded. The error is nil unless the reader failed.
func Summarize(r io.Reader, opts ...Option) (Recomputed, error) {
	var s Summarizer
	dec := NewDecoder(r, opts...)
	for dto, err := range dec.All() {
		if err != nil {
			if _, ok := errors.AsType[*LineError](err); !ok {
				return s.Recomputed(), err
			}
		}
		s.Add(dto, err, finishedRaw(dec, dto))
	}
	return s.Recomputed(), nil
}

// finishedRaw is the line's Raw when the Summarizer reads it: for
// run_finished. Not asking for the others spares the copy Raw makes of a
// long line whose strings were unescaped in place.
func finishedRaw(dec *Decoder, dto any) []byte {
	if _, ok := dto.(RunFinishedDTO); ok {
		return dec.Raw()
	}
	return nil
}

// Summarizer rebuilds a run's summary from its lines as they arrive, as
// [Summarize] does for a whole stream, so that a live view can show the
// summary so far; its [StatsCollector] is the run's fold, closed at each
// line's time until run_finished closes it at its own, so that open turns
// and operations run to the last line so far. The zero Summarizer is ready.
// It is not safe for concurrent use.
type Summarizer struct {
	c       StatsCollector
	out     Recomputed
	started *RunStartedDTO
	last    time.Time
}

// Add folds one line: what a [Decoder] returned for it, and its raw bytes
// (only the run_finished line's are read, to know which summary fields it
// has; they are not kept). A line error is counted; lines after
// run_finished are counted but not folded. It returns what the line changed
// in the fold.
func (s *Summarizer) Add(dto any, err error, raw []byte) Change {
	out := &s.out
	if err != nil {
		out.LineErrors++
		if len(out.FirstErrors) < maxKeptErrors {
			out.FirstErrors = append(out.FirstErrors, err)
		}
		return Change{}
	}
	out.Lines++
	if out.Recorded != nil {
		return Change{}
	}
	var ch Change
	switch d := dto.(type) {
	case RunStartedDTO:
		if s.started == nil {
			s.started = &d
		}
	case RunFinishedDTO:
		out.Recorded, out.recordedFields = &d.Summary, summaryFields(raw)
		s.c.Close(d.At)
		return ch
	case UnknownDTO:
		s.last = d.At
		s.c.Close(d.At)
		return ch
	}
	if e, ok := DTOToEvent(dto); ok {
		ch = s.c.Add(e)
		s.last = e.OccurredAt()
		s.c.Close(s.last)
	}
	return ch
}

// Fold returns the run's fold so far: the turns, operations and calls the
// lines paired (see [Change]). It is the Summarizer's own: valid until the
// next Add, and not to be added to.
func (s *Summarizer) Fold() *StatsCollector { return &s.c }

// Finished reports whether a run_finished line has been added.
func (s *Summarizer) Finished() bool { return s.out.Recorded != nil }

// Recomputed returns the summary of the lines added so far; a stream
// without run_finished so far is treated as cut off at its last line. The
// result is the caller's.
func (s *Summarizer) Recomputed() Recomputed {
	out := s.out
	out.FirstErrors = slices.Clone(out.FirstErrors)
	out.CutOff = out.Recorded == nil
	stats := s.c.Stats()
	sum := SummaryToDTO(Result{Stats: stats, Answer: s.c.Answer()})
	if st := s.started; st != nil {
		sum.RunID, sum.SessionID, sum.Provider = st.RunID, st.SessionID, st.Provider
		sum.Model, sum.Effort, sum.Workspace = st.Model, st.Effort, st.Workspace
	}
	if f := out.Recorded; f != nil {
		sum.Status, sum.RunnerExitCode, sum.StartedAt, sum.WallMS = f.Status, f.RunnerExitCode, f.StartedAt, f.WallMS
	} else {
		sum.RunnerExitCode = -1
		sum.Status = string(Classify("", -1, stats))
		if s.started != nil {
			sum.StartedAt = s.started.At
			sum.WallMS = s.last.Sub(s.started.At).Milliseconds()
		}
	}
	out.Summary = sum
	return out
}
