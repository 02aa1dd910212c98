package tablestream

import (
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/uahstream"
)

// Builder makes the rows of a stream's runs from its lines, as the
// stream's session folded them: it keeps no fold of its own. A run's
// TurnRows, NoticeRows and MessageRows come with the lines that close
// them; its ToolCallRows (a call's failure is known only then) and its
// RunRow come with the line that ends it (uahstream.Change.Ended): its
// run_finished, the next run's run_started, or the session's end. The
// session must keep what its lines say of each operation and call
// (uahstream.Session.KeepText, with arguments when the rows are made with
// content), as Rows and Read have it. A Builder is not safe for
// concurrent use.
type Builder struct {
	config
	tally    *history.Tally
	runID    string
	finished bool  // the open run's run_finished came: what follows is not its
	out      []any // the rows of the line being added
}

// NewBuilder returns a Builder of the rows opts ask for.
func NewBuilder(opts ...Option) *Builder {
	b := &Builder{}
	for _, o := range opts {
		o(&b.config)
	}
	prices := history.DefaultPrices()
	if b.prices != nil {
		prices = *b.prices
	}
	b.tally = prices.Tally()
	return b
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

// Add returns the rows a line closed (each a RunRow, TurnRow,
// ToolCallRow, NoticeRow or MessageRow). The slice is reused by the next
// Add.
func (b *Builder) Add(l uahstream.Line) []any {
	b.out = b.out[:0]
	cost, _ := b.tally.Add(l)
	if l.Ended != nil { // by this line, or cut off by its run_started
		b.end(l.Ended, cost)
	}
	if l.Started {
		b.runID, b.finished = "", false
		if d, ok := l.DTO.(stream.RunStartedDTO); ok {
			b.runID = d.RunID
		}
	}
	if l.Err != nil || l.DTO == nil || l.Run < 0 || b.finished {
		return b.out
	}
	ch := l.Step
	switch d := l.DTO.(type) {
	case stream.ModelRespondedDTO:
		if ch.TurnStep == stream.StepClosed {
			b.out = append(b.out, b.turnRow(l.Turn))
		} else { // a response that closed no turn: its tokens still count
			b.out = append(b.out, TurnRow{RunID: b.runID, Turn: int64(d.Turn), TurnID: d.TurnID, EndedAt: ts(d.At),
				Tokens: tokens(d.Usage.Tokens()), Stop: d.Stop, Failure: d.Failure})
		}
	case stream.PreflightWarningDTO:
		b.notice(d.At, stream.TypePreflightWarning, d.Code, d.Message, l)
	case stream.RunnerErrorDTO:
		b.notice(d.At, stream.TypeRunnerError, "", d.Message, l)
	case stream.UserMessageDTO:
		b.message(d.At, "user", 0, false, d.Text)
	case stream.DeveloperMessageDTO:
		b.message(d.At, "developer", 0, false, d.Text)
	case stream.AssistantMessageDTO:
		b.message(d.At, "assistant", d.Turn, d.Final, d.Text)
	case stream.ReasoningDTO:
		b.message(d.At, "reasoning", d.Turn, false, d.Text)
	case stream.RunFinishedDTO:
		b.finished = true
	}
	return b.out
}

func (b *Builder) notice(at time.Time, typ, code, message string, l uahstream.Line) {
	b.out = append(b.out, NoticeRow{RunID: b.runID, At: ts(at), Type: typ, Code: code, Message: message,
		Index: int64(l.Step.NoticeIndex), Count: int64(l.Notice.Count)})
}

func (b *Builder) message(at time.Time, role string, turn int, final bool, text string) {
	if b.content {
		b.out = append(b.out, MessageRow{RunID: b.runID, At: ts(at), Role: role, Turn: int64(turn), Final: final, Text: text})
	}
}

func (b *Builder) turnRow(iv stream.TurnInterval) TurnRow {
	d := ms(iv.End.Sub(iv.Start))
	return TurnRow{RunID: b.runID, Turn: int64(iv.Turn), TurnID: iv.TurnID, StartedAt: ts(iv.Start), EndedAt: ts(iv.End),
		DurationMS: &d, Open: iv.Open, Tokens: tokens(iv.Usage), Stop: iv.Stop, Failure: iv.Failure}
}

// opRow is the row of an operation; an open one runs to the end, as the
// stats run it, with ok null.
func (b *Builder) opRow(f *stream.Fold, iv stream.ToolInterval) ToolCallRow {
	call := f.Call(iv.Call)
	d := ms(iv.End.Sub(iv.Start))
	row := ToolCallRow{RunID: b.runID, CallID: iv.CallID, OpID: iv.OpID, Name: call.Name, Label: iv.Label, OpType: iv.OpType,
		StartedAt: ts(iv.Start), EndedAt: ts(iv.End), DurationMS: &d, Detail: iv.Detail, CallFailed: call.Failed, Turn: int64(iv.Turn)}
	if !iv.Open {
		ok := iv.OK
		row.OK = &ok
	}
	if b.content {
		row.Arguments = &call.Arguments
	}
	return row
}

// callRow is the row of a call that has no operation.
func (b *Builder) callRow(c stream.ToolCall) ToolCallRow {
	row := ToolCallRow{RunID: b.runID, CallID: c.CallID, Name: c.Name, Label: c.Label, StartedAt: ts(c.At), Detail: c.Detail,
		CallFailed: c.Failed, Turn: int64(c.Turn)}
	if c.Finished {
		d, ok := ms(c.FinishedAt.Sub(c.At)), c.OK
		row.EndedAt, row.DurationMS, row.OK = ts(c.FinishedAt), &d, &ok
	}
	if b.content {
		row.Arguments = &c.Arguments
	}
	return row
}

// end adds the rows of a run that ended: its open turn's, the tool rows
// (operations in the order they started, then the calls without one),
// then its RunRow.
func (b *Builder) end(e *uahstream.Ended, cost history.Cost) {
	f := e.Fold
	for _, iv := range f.Turns() {
		if iv.Open {
			b.out = append(b.out, b.turnRow(iv))
		}
	}
	for _, iv := range f.Tools() {
		b.out = append(b.out, b.opRow(f, iv))
	}
	for _, c := range f.Calls() {
		if c.Ops == 0 {
			b.out = append(b.out, b.callRow(c))
		}
	}
	row := b.runRow(e.Recomputed)
	a := e.AutoReview
	row.AutoReview = AutoReview{AutoReviews: int64(a.Reviews), AutoReviewMS: a.DurationMS, AutoReviewTokensInput: a.Tokens.Input,
		AutoReviewTokensCachedInput: a.Tokens.CachedInput, AutoReviewTokensOutput: a.Tokens.Output}
	if cost.Priced {
		row.CostUSD, row.PricesChecked = &cost.USD, cost.Checked
	}
	b.out = append(b.out, row)
}

func (b *Builder) runRow(r stream.Recomputed) RunRow {
	s := r.Summary
	st := s.Stats
	row := RunRow{RunID: s.RunID, SessionID: s.SessionID, Provider: s.Provider, Model: s.Model, Effort: s.Effort, Workspace: s.Workspace,
		Status: s.Status, RunnerExitCode: int64(s.RunnerExitCode), StartedAt: ts(s.StartedAt), WallMS: s.WallMS,
		EventSpanMS: st.EventSpanMS, ModelMS: st.ModelMS, ToolBusyMS: st.ToolBusyMS, ToolModelOverlapMS: st.ToolModelOverlapMS,
		Turns: int64(st.Turns), UserMessages: int64(st.UserMessages), ModelResponses: int64(st.ModelResponses),
		ToolCalls: int64(st.ToolCalls), FailedToolCalls: int64(st.FailedToolCalls), MaxParallelTools: int64(st.MaxParallelTools),
		ToolsByName: counts(st.ToolsByName), StopReasons: counts(st.StopReasons), Tokens: tokens(st.Tokens.Tokens()),
		Failures: nonNil(st.Failures), Errors: nonNil(st.Errors), Warnings: nonNil(st.Warnings), FinalAnswer: st.FinalAnswer,
		File: b.file, CutOff: r.CutOff, Lines: int64(r.Lines), LineErrors: int64(r.LineErrors), SummaryDiffers: len(r.Diff) > 0}
	if b.content {
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
