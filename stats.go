package stream

import (
	"cmp"
	"errors"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/uagentkit/stream/internal/span"
)

// StatsCollector folds a run's events, in arrival order, into [Stats]
// exactly as the uagent runner computes them:
//
//   - Observed times are those of turn_started, model_responded,
//     tool_called, tool_started, tool_finished, assistant_message,
//     user_message, developer_message and control_input; zero times are
//     skipped. EventSpan is the latest observed time minus the first one to
//     arrive.
//   - Turns counts turn_started, UserMessages user_message only,
//     ModelResponses model_responded; Tokens sums their usage.
//   - A turn_started opens a model interval at its time (a second one
//     replaces the start); a model_responded closes [start, at] if a turn is
//     open. A tool_started opens a tool interval keyed by its op_id (the
//     first start wins); the first tool_finished with that op_id closes it.
//     A tool_finished with no known op_id adds no interval. Events with a
//     zero time, and an empty op_id, open and close nothing.
//   - At the end, an open turn and unfinished operations run to the later of
//     the latest observed time and the Close time.
//   - ModelTime and ToolBusyTime are the totals of the merged intervals (a
//     start at or before the previous end merges); ToolModelOverlap is the
//     length of the intersection of the two merged sets. An interval that
//     ends before it starts counts as empty.
//   - MaxParallelTools sweeps the tool intervals; at the same instant ends
//     come before starts, so back-to-back tools count 1.
//   - A call_id is registered the first time it appears in tool_called,
//     tool_started or tool_finished, under that event's name ("?" when the
//     name is empty). ToolCalls counts the calls, ToolsByName counts them by
//     that name, FailedToolCalls counts calls with any ok:false.
//   - StopReasons counts stops other than "" and "complete"; Failures lists
//     model_responded failures, Errors runner_error messages, Warnings
//     preflight_warning messages, in order.
//   - The answer is the text of the last final assistant message or, if
//     that is empty, the last non-empty assistant text. FinalAnswer reports
//     a non-empty final text.
//
// Durations are summed in nanoseconds; they become milliseconds, by
// truncation, only in [StatsDTO]. A StatsCollector uses memory in proportion
// to the intervals and calls it has seen, never to the events. It is not
// safe for concurrent use.
type StatsCollector struct {
	first, last time.Time // first observed to arrive, latest observed
	closeAt     time.Time

	turns, userMessages, modelResponses int
	tokens                              Tokens

	turnOpen  bool
	turnStart time.Time
	model     []interval

	ops   map[string]int // op_id → index in tools
	tools []interval

	calls       map[string]bool // call_id → failed
	byName      map[string]int
	failedCalls int

	stopReasons                map[string]int
	failures, errors, warnings []string

	finalText, lastText string
}

// interval is a model turn or a tool operation; an open one has no end yet.
type interval struct {
	start, end time.Time
	open       bool
}

// NewStatsCollector returns an empty collector.
func NewStatsCollector() *StatsCollector {
	return &StatsCollector{
		ops:    map[string]int{},
		calls:  map[string]bool{},
		byName: map[string]int{},
	}
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

func (c *StatsCollector) call(id, name string) {
	if _, ok := c.calls[id]; ok {
		return
	}
	if name == "" {
		name = "?"
	}
	c.calls[id] = false
	c.byName[name]++
}

// Add folds one event. Pointers to the event structs are accepted; nil and
// unknown events are ignored.
func (c *StatsCollector) Add(event Event) {
	_, e := kindOf(event)
	switch e := e.(type) {
	case TurnStarted:
		c.observe(e.At)
		c.turns++
		if !e.At.IsZero() {
			c.turnOpen, c.turnStart = true, e.At
		}
	case ModelResponded:
		c.observe(e.At)
		c.modelResponses++
		c.tokens = c.tokens.Add(e.Usage)
		if c.turnOpen && !e.At.IsZero() {
			c.model = append(c.model, interval{start: c.turnStart, end: e.At})
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
		c.call(e.CallID, e.Name)
	case ToolStarted:
		c.observe(e.At)
		c.call(e.CallID, e.Name)
		if _, seen := c.ops[e.OpID]; !seen && e.OpID != "" && !e.At.IsZero() {
			c.ops[e.OpID] = len(c.tools)
			c.tools = append(c.tools, interval{start: e.At, open: true})
		}
	case ToolFinished:
		c.observe(e.At)
		c.call(e.CallID, e.Name)
		if !e.OK && !c.calls[e.CallID] {
			c.calls[e.CallID] = true
			c.failedCalls++
		}
		if i, ok := c.ops[e.OpID]; ok && c.tools[i].open && !e.At.IsZero() {
			c.tools[i].end, c.tools[i].open = e.At, false
		}
	case AssistantMessage:
		c.observe(e.At)
		if e.Final {
			c.finalText = e.Text
		}
		if e.Text != "" {
			c.lastText = e.Text
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
}

// Close marks the end of the run at t: for a recorded stream, the time of
// its run_finished line. Open turns and operations run to the later of t and
// the latest observed time. Close may be called again; the last call counts.
func (c *StatsCollector) Close(t time.Time) { c.closeAt = t }

// Answer returns the run's answer: the text of the last final assistant
// message or, if that is empty, the last non-empty assistant text.
func (c *StatsCollector) Answer() string { return cmp.Or(c.finalText, c.lastText) }

// Stats returns the statistics of the events added so far, as of the Close
// time (or of the latest observed time before Close is called). The maps and
// slices are the caller's. ToolsByName is never nil.
func (c *StatsCollector) Stats() Stats {
	end := c.last
	if c.closeAt.After(end) {
		end = c.closeAt
	}
	model := closeSpans(c.model, end)
	if c.turnOpen {
		model = append(model, span.Span{Start: c.turnStart, End: later(end, c.turnStart)})
	}
	tools := closeSpans(c.tools, end)
	s := Stats{
		Turns:            c.turns,
		UserMessages:     c.userMessages,
		ModelResponses:   c.modelResponses,
		ToolCalls:        len(c.calls),
		FailedToolCalls:  c.failedCalls,
		MaxParallelTools: maxParallel(tools),
		ToolsByName:      maps.Clone(c.byName),
		Tokens:           c.tokens,
		StopReasons:      maps.Clone(c.stopReasons),
		Failures:         slices.Clone(c.failures),
		Errors:           slices.Clone(c.errors),
		Warnings:         slices.Clone(c.warnings),
		FinalAnswer:      c.finalText != "",
	}
	if !c.first.IsZero() {
		s.EventSpan = c.last.Sub(c.first)
	}
	model, tools = span.Merge(model), span.Merge(tools)
	s.ModelTime, s.ToolBusyTime = span.Total(model), span.Total(tools)
	s.ToolModelOverlap = span.Total(span.Intersect(model, tools))
	return s
}

// closeSpans copies the spans, running open ones to end and making
// reversed ones empty. It leaves room for one more.
func closeSpans(spans []interval, end time.Time) []span.Span {
	out := make([]span.Span, 0, len(spans)+1)
	for _, s := range spans {
		if s.open {
			s.end = end
		}
		out = append(out, span.Span{Start: s.start, End: later(s.end, s.start)})
	}
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// maxParallel is the largest number of spans open at one instant, ends
// before starts at the same instant.
func maxParallel(spans []span.Span) int {
	type edge struct {
		t     time.Time
		delta int
	}
	edges := make([]edge, 0, 2*len(spans))
	for _, s := range spans {
		edges = append(edges, edge{s.Start, +1}, edge{s.End, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		return cmp.Or(a.t.Compare(b.t), cmp.Compare(a.delta, b.delta))
	})
	n, most := 0, 0
	for _, e := range edges {
		n += e.delta
		most = max(most, n)
	}
	return most
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
	// CutOff reports a stream that ended without run_finished.
	CutOff bool
	// Lines counts the lines decoded, of known and unknown types.
	Lines int
	// LineErrors holds the first 1000 line errors; ErrorCount counts all.
	LineErrors []error
	ErrorCount int
}

const maxKeptErrors = 1000

// Summarize reads a stream through a [Decoder] and recomputes its summary.
// Lines that cannot be decoded are counted and skipped; lines after
// run_finished are not folded. The error is nil unless the reader failed.
func Summarize(r io.Reader, opts ...DecoderOption) (Recomputed, error) {
	var (
		out     Recomputed
		c       = NewStatsCollector()
		started *RunStartedDTO
		last    time.Time
	)
	dec := NewDecoder(r, opts...)
	for dto, err := range dec.All() {
		if err != nil {
			if _, ok := errors.AsType[*LineError](err); !ok {
				return out, err
			}
			out.ErrorCount++
			if len(out.LineErrors) < maxKeptErrors {
				out.LineErrors = append(out.LineErrors, err)
			}
			continue
		}
		out.Lines++
		if out.Recorded != nil {
			continue
		}
		switch d := dto.(type) {
		case RunStartedDTO:
			if started == nil {
				started = &d
			}
		case RunFinishedDTO:
			out.Recorded = &d.Summary
			c.Close(d.At)
		case UnknownDTO:
			last = d.At
			continue
		}
		if e, ok := DTOToEvent(dto); ok {
			c.Add(e)
			last = e.OccurredAt()
		}
	}
	out.CutOff = out.Recorded == nil
	if out.CutOff {
		c.Close(last)
	}
	stats := c.Stats()
	s := SummaryToDTO(Result{Stats: stats, Answer: c.Answer()})
	if started != nil {
		s.RunID, s.SessionID, s.Provider = started.RunID, started.SessionID, started.Provider
		s.Model, s.Effort, s.Workspace = started.Model, started.Effort, started.Workspace
	}
	if f := out.Recorded; f != nil {
		s.Status, s.RunnerExitCode, s.StartedAt, s.WallMS = f.Status, f.RunnerExitCode, f.StartedAt, f.WallMS
	} else {
		s.RunnerExitCode = -1
		s.Status = string(Classify("", -1, stats))
		if started != nil {
			s.StartedAt = started.At
			s.WallMS = last.Sub(started.At).Milliseconds()
		}
	}
	out.Summary = s
	return out, nil
}
