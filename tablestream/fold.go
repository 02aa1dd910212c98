package tablestream

import (
	"time"

	"github.com/uagentkit/stream"
)

// folder makes rows from the fold's changes, line by line.
type folder struct {
	config
	s       stream.Summarizer
	runID   string
	started bool
	notices stream.Notices
	out     []any // the rows of the line being added
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
func (f *folder) add(dto any, err error, raw []byte) []any {
	f.out = f.out[:0]
	if err != nil || f.s.Finished() {
		f.s.Add(dto, err, raw)
		return nil
	}
	if d, ok := dto.(stream.RunStartedDTO); ok && !f.started {
		f.runID, f.started = d.RunID, true
	}
	ch := f.s.Add(dto, nil, raw)
	fold := f.s.Fold()
	switch d := dto.(type) {
	case stream.ModelRespondedDTO:
		if ch.Turn == stream.Closed {
			f.out = append(f.out, f.turnRow(fold.Turn(ch.TurnIndex)))
		} else { // a response that closed no turn: its tokens still count
			f.out = append(f.out, TurnRow{RunID: f.runID, Turn: int64(d.Turn), TurnID: d.TurnID, EndedAt: ts(d.At),
				Tokens: tokens(usage(d.Usage)), Stop: d.Stop, Failure: d.Failure})
		}
	case stream.PreflightWarningDTO:
		f.notice(d.At, stream.TypePreflightWarning, d.Code, d.Message, dto)
	case stream.RunnerErrorDTO:
		f.notice(d.At, stream.TypeRunnerError, "", d.Message, dto)
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

func usage(u stream.TokensDTO) stream.Tokens {
	return stream.Tokens{InputTokens: u.Input, CachedInputTokens: u.CachedInput, CacheWriteInputTokens: u.CacheWriteInput,
		OutputTokens: u.Output, ReasoningTokens: u.Reasoning}
}

func (f *folder) notice(at time.Time, typ, code, message string, dto any) {
	i, n, _ := f.notices.Add(dto)
	f.out = append(f.out, NoticeRow{RunID: f.runID, At: ts(at), Type: typ, Code: code, Message: message, Index: int64(i), Count: int64(n)})
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

// opRow is the row of an operation; an open one runs to the end, as the
// stats run it, with ok null.
func (f *folder) opRow(iv stream.ToolInterval) ToolCallRow {
	call := f.s.Fold().Call(iv.CallIndex)
	d := ms(iv.End.Sub(iv.Start))
	row := ToolCallRow{RunID: f.runID, CallID: iv.CallID, OpID: iv.OpID, Name: call.Name, Label: iv.Label, OpType: iv.OpType,
		StartedAt: ts(iv.Start), EndedAt: ts(iv.End), DurationMS: &d, Detail: iv.Detail, CallFailed: call.Failed, Turn: int64(iv.Turn)}
	if !iv.Open {
		ok := iv.OK
		row.OK = &ok
	}
	if f.content {
		row.Arguments = &call.Arguments
	}
	return row
}

// callRow is the row of a call without an operation.
func (f *folder) callRow(c stream.ToolCall) ToolCallRow {
	row := ToolCallRow{RunID: f.runID, CallID: c.CallID, Name: c.Name, Label: c.Label, StartedAt: ts(c.At), Detail: c.Detail,
		CallFailed: c.Failed, Turn: int64(c.Turn)}
	if c.Finished {
		d, ok := ms(c.FinishedAt.Sub(c.At)), c.OK
		row.EndedAt, row.DurationMS, row.OK = ts(c.FinishedAt), &d, &ok
	}
	if f.content {
		row.Arguments = &c.Arguments
	}
	return row
}

// end returns the open turn's row, the tool rows (operations in the order
// they started, then the calls without one: only now is every call's
// failure known), then the RunRow.
func (f *folder) end() []any {
	f.out = f.out[:0]
	fold := f.s.Fold()
	for _, iv := range fold.ModelIntervals() {
		if iv.Open {
			f.out = append(f.out, f.turnRow(iv))
		}
	}
	for _, iv := range fold.ToolIntervals() {
		f.out = append(f.out, f.opRow(iv))
	}
	for _, c := range fold.Calls() {
		if len(c.Ops) == 0 {
			f.out = append(f.out, f.callRow(c))
		}
	}
	return append(f.out, f.runRow())
}

func (f *folder) runRow() RunRow {
	r := f.s.Recomputed()
	s := r.Summary
	st := s.Stats
	row := RunRow{RunID: s.RunID, SessionID: s.SessionID, Provider: s.Provider, Model: s.Model, Effort: s.Effort, Workspace: s.Workspace,
		Status: s.Status, RunnerExitCode: int64(s.RunnerExitCode), StartedAt: ts(s.StartedAt), WallMS: s.WallMS,
		EventSpanMS: st.EventSpanMS, ModelMS: st.ModelMS, ToolBusyMS: st.ToolBusyMS, ToolModelOverlapMS: st.ToolModelOverlapMS,
		Turns: int64(st.Turns), UserMessages: int64(st.UserMessages), ModelResponses: int64(st.ModelResponses),
		ToolCalls: int64(st.ToolCalls), FailedToolCalls: int64(st.FailedToolCalls), MaxParallelTools: int64(st.MaxParallelTools),
		ToolsByName: counts(st.ToolsByName), StopReasons: counts(st.StopReasons), Tokens: tokens(usage(st.Tokens)),
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
