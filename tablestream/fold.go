package tablestream

import (
	"time"

	"github.com/uagentkit/stream"
)

// folder makes rows from the fold's changes, line by line, keeping what
// the tool rows need at the end that the fold does not keep: each
// operation's label, op type and detail, and each call's label, detail and
// (with content) arguments.
type folder struct {
	config
	f       stream.Fold
	runID   string
	started bool
	ops     []opText
	calls   []callText
	out     []any // the rows of the line being added
}

type opText struct{ label, opType, detail string }

type callText struct {
	label, detail, args string
	at, finishedAt      time.Time
	called              bool // a tool_called gave the arguments
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

// ts is a time as a column holds it: null for a zero time and for one that
// int64 nanoseconds since 1970 cannot hold.
func ts(t time.Time) *time.Time {
	if t.IsZero() || !time.Unix(0, t.UnixNano()).Equal(t) {
		return nil
	}
	return &t
}

func tokens(t stream.Tokens) Tokens {
	return Tokens{TokensInput: t.InputTokens, TokensCachedInput: t.CachedInputTokens,
		TokensCacheWriteInput: t.CacheWriteInputTokens, TokensOutput: t.OutputTokens, TokensReasoning: t.ReasoningTokens}
}

// add folds one line and returns the rows it closed. The slice is reused.
func (f *folder) add(dto any, err error) []any {
	f.out = f.out[:0]
	if err != nil || f.f.Finished() {
		f.f.Add(dto, err)
		return nil
	}
	if d, ok := dto.(stream.RunStartedDTO); ok && !f.started {
		f.runID, f.started = d.RunID, true
	}
	ch := f.f.Add(dto, nil)
	f.keep(dto, ch)
	switch d := dto.(type) {
	case stream.ModelRespondedDTO:
		if ch.TurnStep == stream.Closed {
			f.out = append(f.out, f.turnRow(f.f.Turn(ch.TurnIndex)))
		} else { // a response that closed no turn: its tokens still count
			f.out = append(f.out, TurnRow{RunID: f.runID, Turn: int64(d.Turn), TurnID: d.TurnID, EndedAt: ts(d.At),
				Tokens: tokens(d.Usage.Tokens()), Stop: d.Stop, Failure: d.Failure})
		}
	case stream.PreflightWarningDTO:
		f.notice(d.At, stream.TypePreflightWarning, d.Code, d.Message, ch)
	case stream.RunnerErrorDTO:
		f.notice(d.At, stream.TypeRunnerError, "", d.Message, ch)
	case stream.UserMessageDTO:
		f.message(d.At, "user", 0, false, d.Text)
	case stream.DeveloperMessageDTO:
		f.message(d.At, "developer", 0, false, d.Text)
	case stream.AssistantMessageDTO:
		f.message(d.At, "assistant", d.Turn, d.Final, d.Text)
	case stream.ReasoningDTO:
		f.message(d.At, "reasoning", d.Turn, false, d.Text)
	}
	return f.out
}

// keep keeps what the line said of its operation and call, for the rows
// made at the end.
func (f *folder) keep(dto any, ch stream.Change) {
	switch ch.ToolStep {
	case stream.Opened:
		iv := f.f.Tool(ch.ToolIndex)
		f.ops = append(f.ops, opText{label: iv.Label, opType: iv.OpType})
	case stream.Closed:
		f.ops[ch.ToolIndex].detail = f.f.Tool(ch.ToolIndex).Detail
	}
	switch dto.(type) {
	case stream.ToolCalledDTO, stream.ToolStartedDTO, stream.ToolFinishedDTO:
	default:
		return
	}
	c := f.f.Call(ch.CallIndex)
	if ch.CallStep == stream.Opened {
		f.calls = append(f.calls, callText{label: c.Label, at: c.At})
	}
	kept := &f.calls[ch.CallIndex]
	if ch.CallStep == stream.Closed || ch.CallStep == stream.Opened && c.Finished {
		kept.detail, kept.finishedAt = c.Detail, c.FinishedAt
	}
	if _, ok := dto.(stream.ToolCalledDTO); ok && !kept.called && f.content {
		kept.args, kept.called = c.Arguments, true
	}
}

func (f *folder) notice(at time.Time, typ, code, message string, ch stream.Change) {
	f.out = append(f.out, NoticeRow{RunID: f.runID, At: ts(at), Type: typ, Code: code, Message: message,
		Index: int64(ch.NoticeIndex), Count: int64(f.f.Notice(ch.NoticeIndex).Count)})
}

func (f *folder) message(at time.Time, role string, turn int, final bool, text string) {
	if f.content {
		f.out = append(f.out, MessageRow{RunID: f.runID, At: ts(at), Role: role, Turn: int64(turn), Final: final, Text: text})
	}
}

func (f *folder) turnRow(iv stream.TurnInterval) TurnRow {
	d := ms(iv.End.Sub(iv.Start))
	return TurnRow{RunID: f.runID, Turn: int64(iv.Turn), TurnID: iv.TurnID, StartedAt: ts(iv.Start), EndedAt: ts(iv.End),
		DurationMS: &d, Open: iv.Open, Tokens: tokens(iv.Usage), Stop: iv.Stop, Failure: iv.Failure}
}

// opRow is the row of the i-th operation; an open one runs to the end, as
// the stats run it, with ok null.
func (f *folder) opRow(i int, iv stream.ToolInterval) ToolCallRow {
	call := f.f.Call(iv.Call)
	d := ms(iv.End.Sub(iv.Start))
	t := f.ops[i]
	row := ToolCallRow{RunID: f.runID, CallID: iv.CallID, OpID: iv.OpID, Name: call.Name, Label: t.label, OpType: t.opType,
		StartedAt: ts(iv.Start), EndedAt: ts(iv.End), DurationMS: &d, Detail: t.detail, CallFailed: call.Failed, Turn: int64(iv.Turn)}
	if !iv.Open {
		ok := iv.OK
		row.OK = &ok
	}
	if f.content {
		row.Arguments = &f.calls[iv.Call].args
	}
	return row
}

// callRow is the row of the i-th call, which has no operation.
func (f *folder) callRow(i int, c stream.ToolCall) ToolCallRow {
	t := f.calls[i]
	row := ToolCallRow{RunID: f.runID, CallID: c.CallID, Name: c.Name, Label: t.label, StartedAt: ts(t.at), Detail: t.detail,
		CallFailed: c.Failed, Turn: int64(c.Turn)}
	if c.Finished {
		d, ok := ms(t.finishedAt.Sub(t.at)), c.OK
		row.EndedAt, row.DurationMS, row.OK = ts(t.finishedAt), &d, &ok
	}
	if f.content {
		row.Arguments = &t.args
	}
	return row
}

// end returns the open turn's row, the tool rows (operations in the order
// they started, then the calls without one: only now is every call's
// failure known), then the RunRow.
func (f *folder) end() []any {
	f.out = f.out[:0]
	for _, iv := range f.f.Turns() {
		if iv.Open {
			f.out = append(f.out, f.turnRow(iv))
		}
	}
	for i, iv := range f.f.Tools() {
		f.out = append(f.out, f.opRow(i, iv))
	}
	for i, c := range f.f.Calls() {
		if c.Ops == 0 {
			f.out = append(f.out, f.callRow(i, c))
		}
	}
	return append(f.out, f.runRow())
}

func (f *folder) runRow() RunRow {
	r := f.f.Recomputed()
	s := r.Summary
	st := s.Stats
	row := RunRow{RunID: s.RunID, SessionID: s.SessionID, Provider: s.Provider, Model: s.Model, Effort: s.Effort, Workspace: s.Workspace,
		Status: s.Status, RunnerExitCode: int64(s.RunnerExitCode), StartedAt: ts(s.StartedAt), WallMS: s.WallMS,
		EventSpanMS: st.EventSpanMS, ModelMS: st.ModelMS, ToolBusyMS: st.ToolBusyMS, ToolModelOverlapMS: st.ToolModelOverlapMS,
		Turns: int64(st.Turns), UserMessages: int64(st.UserMessages), ModelResponses: int64(st.ModelResponses),
		ToolCalls: int64(st.ToolCalls), FailedToolCalls: int64(st.FailedToolCalls), MaxParallelTools: int64(st.MaxParallelTools),
		ToolsByName: counts(st.ToolsByName), StopReasons: counts(st.StopReasons), Tokens: tokens(st.Tokens.Tokens()),
		Failures: nonNil(st.Failures), Errors: nonNil(st.Errors), Warnings: nonNil(st.Warnings), FinalAnswer: st.FinalAnswer,
		File: f.file, CutOff: r.CutOff, Lines: int64(r.Lines), LineErrors: int64(r.LineErrors), SummaryDiffers: len(r.Diff()) > 0}
	if f.content {
		row.Answer = &s.Answer
	}
	return row
}

func counts(m map[string]int) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = int64(v)
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
