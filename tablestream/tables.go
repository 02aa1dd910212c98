// Package tablestream turns uagent runs into table rows, for the engines
// that analyse many runs (DuckDB, Spark, Trino, BigQuery) or a Go
// program's own store: one RunRow per run, a TurnRow per model turn, a
// ToolCallRow per tool operation (and per call that has none), a NoticeRow
// per preflight warning and runner error, and, when asked for, a
// MessageRow per text a person or a model wrote.
//
// Every row comes from the stream package's one fold, as the stats do:
// the turns and operations are its intervals, the calls its calls, so
// summing TurnRow tokens gives the run's tokens and counting distinct
// ToolCallRow call_ids by name gives its tools_by_name.
//
// The struct tags name the columns (the contract's names, flattened with
// _, times as …_at and durations as …_ms) for encoding/json and for
// Parquet writers; this package itself imports only the standard library
// and the stream package. A time is null where the stream has none (a zero
// at, a run without run_started) or one that a timestamp of int64
// nanoseconds cannot hold (before 1678 or after 2262); durations are
// computed from the stream's own times, as the stats compute them.
package tablestream

import (
	"cmp"
	"io"
	"iter"
	"slices"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/uahstream"
)

// RunRow is one run: its summary recomputed from its lines (identity and,
// for a finished run, status, exit code, start and wall time as recorded;
// stats from the events), flattened, and what the file was like.
type RunRow struct {
	RunID              string           `json:"run_id" parquet:"run_id,dict"`
	SessionID          string           `json:"session_id" parquet:"session_id,dict"`
	Provider           string           `json:"provider" parquet:"provider,dict"`
	Model              string           `json:"model" parquet:"model,dict"`
	Effort             string           `json:"effort" parquet:"effort,dict"`
	Workspace          string           `json:"workspace" parquet:"workspace,dict"`
	Status             string           `json:"status" parquet:"status,dict"`
	RunnerExitCode     int64            `json:"runner_exit_code" parquet:"runner_exit_code"`
	StartedAt          *time.Time       `json:"started_at" parquet:"started_at,optional,timestamp(microsecond:utc)"`
	WallMS             int64            `json:"wall_ms" parquet:"wall_ms"`
	EventSpanMS        int64            `json:"event_span_ms" parquet:"event_span_ms"`
	ModelMS            int64            `json:"model_ms" parquet:"model_ms"`
	ToolBusyMS         int64            `json:"tool_busy_ms" parquet:"tool_busy_ms"`
	ToolModelOverlapMS int64            `json:"tool_model_overlap_ms" parquet:"tool_model_overlap_ms"`
	Turns              int64            `json:"turns" parquet:"turns"`
	UserMessages       int64            `json:"user_messages" parquet:"user_messages"`
	ModelResponses     int64            `json:"model_responses" parquet:"model_responses"`
	ToolCalls          int64            `json:"tool_calls" parquet:"tool_calls"`
	FailedToolCalls    int64            `json:"failed_tool_calls" parquet:"failed_tool_calls"`
	MaxParallelTools   int64            `json:"max_parallel_tools" parquet:"max_parallel_tools"`
	ToolsByName        map[string]int64 `json:"tools_by_name" parquet:"tools_by_name"`
	StopReasons        map[string]int64 `json:"stop_reasons" parquet:"stop_reasons"`
	Tokens
	// AutoReview is what uah's auto-reviewer spent during the run (a
	// session stream's auto_reviewed lines): model calls of its own, not
	// in the run's tokens. It is not a column of the runs table (whose
	// columns stay those that datasets already hold): the sessions table
	// sums it.
	AutoReview  `parquet:"-"`
	Failures    []string `json:"failures" parquet:"failures,list"`
	Errors      []string `json:"errors" parquet:"errors,list"`
	Warnings    []string `json:"warnings" parquet:"warnings,list"`
	FinalAnswer bool     `json:"final_answer" parquet:"final_answer"`
	// Answer is the run's answer, only with content (WithContent).
	Answer *string `json:"answer" parquet:"answer,optional"`

	// File is where the stream was read from; CutOff reports a stream
	// without run_finished; LineErrors counts the lines that could not be
	// read; SummaryDiffers reports a run_finished summary whose stats or
	// answer differ from the events'.
	File           string `json:"file" parquet:"file"`
	CutOff         bool   `json:"cut_off" parquet:"cut_off"`
	Lines          int64  `json:"lines" parquet:"lines"`
	LineErrors     int64  `json:"line_errors" parquet:"line_errors"`
	SummaryDiffers bool   `json:"summary_differs" parquet:"summary_differs"`
	// SessionSeq is the run's place in its session (1 for its first run,
	// by start), 0 for a run without a session. Rows sets it to 0: it
	// depends on the session's other runs (see Sessions).
	SessionSeq int64 `json:"session_seq" parquet:"session_seq"`
	// CostUSD is the API-price estimate of its tokens (history.Prices:
	// the rates in force when it started, the long-context rule applied
	// request by request), null when its model has no price; PricesChecked
	// the day the price row was checked, "" with no row.
	CostUSD       *float64 `json:"cost_usd" parquet:"cost_usd,optional"`
	PricesChecked string   `json:"prices_checked" parquet:"prices_checked,dict"`
}

// SessionRow is one session: the runs that share a session_id, in the
// order they started.
type SessionRow struct {
	SessionID string `json:"session_id" parquet:"session_id"`
	// Runs counts the session's runs.
	Runs int64 `json:"runs" parquet:"runs"`
	// StartedAt is the first run's start; EndedAt the last run's end (its
	// start plus its wall time).
	StartedAt *time.Time `json:"started_at" parquet:"started_at,optional,timestamp(microsecond:utc)"`
	EndedAt   *time.Time `json:"ended_at" parquet:"ended_at,optional,timestamp(microsecond:utc)"`
	// Workspace is the first run's; Model and Status the last run's.
	Workspace string `json:"workspace" parquet:"workspace,dict"`
	Model     string `json:"model" parquet:"model,dict"`
	Status    string `json:"status" parquet:"status,dict"`
	// The runs' tokens, tool calls and failed tool calls, summed, and
	// what the auto-reviewer spent during them, apart.
	Tokens
	ToolCalls       int64 `json:"tool_calls" parquet:"tool_calls"`
	FailedToolCalls int64 `json:"failed_tool_calls" parquet:"failed_tool_calls"`
	AutoReview
	// Title, Source and ParentSessionID are what uah's sidecar of the
	// session says (statedir.Sidecar): Title its first prompt, else the
	// first prompt of the session's first run, and only with content
	// (null without: it is what a person wrote); Source "tui", "run" or
	// "subagent"; ParentSessionID a subagent's parent. Sessions leaves
	// them empty: the dataset writer (parquetstream) fills them.
	Title           *string `json:"title" parquet:"title,optional"`
	Source          string  `json:"source" parquet:"source,dict"`
	ParentSessionID string  `json:"parent_session_id" parquet:"parent_session_id"`
	// Review reports a reviewer session (a subagent of uah's /review), as
	// its sidecar says.
	Review bool `json:"review" parquet:"review"`
	// CostUSD is its runs' estimates summed, null when none of them is
	// priced (a partial sum when some are not); PricesChecked the latest
	// day a price row of its runs was checked.
	CostUSD       *float64 `json:"cost_usd" parquet:"cost_usd,optional"`
	PricesChecked string   `json:"prices_checked" parquet:"prices_checked,dict"`
}

// Sessions groups runs into sessions: those with the same session_id, in
// the order of their start (then of their run_id), each a SessionRow; it
// sets each run's SessionSeq. Runs without a session_id are in none, their
// SessionSeq 0. The sessions are in the order of their first run.
func Sessions(runs []*RunRow) []SessionRow {
	by := map[string][]*RunRow{}
	var order []string
	for _, r := range runs {
		if r.SessionID == "" {
			r.SessionSeq = 0
			continue
		}
		if by[r.SessionID] == nil {
			order = append(order, r.SessionID)
		}
		by[r.SessionID] = append(by[r.SessionID], r)
	}
	var out []SessionRow
	for _, id := range order {
		rs := by[id]
		slices.SortStableFunc(rs, RunOrder)
		first, last := rs[0], rs[len(rs)-1]
		s := SessionRow{SessionID: id, Runs: int64(len(rs)), StartedAt: first.StartedAt, Workspace: first.Workspace,
			Model: last.Model, Status: last.Status}
		if last.StartedAt != nil {
			end := last.StartedAt.Add(time.Duration(last.WallMS) * time.Millisecond)
			s.EndedAt = &end
		}
		for i, r := range rs {
			r.SessionSeq = int64(i + 1)
			s.TokensInput += r.TokensInput
			s.TokensCachedInput += r.TokensCachedInput
			s.TokensCacheWriteInput += r.TokensCacheWriteInput
			s.TokensOutput += r.TokensOutput
			s.TokensReasoning += r.TokensReasoning
			s.ToolCalls += r.ToolCalls
			s.FailedToolCalls += r.FailedToolCalls
			s.AutoReviews += r.AutoReviews
			s.AutoReviewMS += r.AutoReviewMS
			s.AutoReviewTokensInput += r.AutoReviewTokensInput
			s.AutoReviewTokensCachedInput += r.AutoReviewTokensCachedInput
			s.AutoReviewTokensOutput += r.AutoReviewTokensOutput
			if r.CostUSD != nil {
				sum := *r.CostUSD
				if s.CostUSD != nil {
					sum += *s.CostUSD
				}
				s.CostUSD = &sum
			}
			s.PricesChecked = max(s.PricesChecked, r.PricesChecked)
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b SessionRow) int { return compareTime(a.StartedAt, b.StartedAt) })
	return out
}

// RunOrder is the order of a session's runs that Sessions numbers them in
// (SessionSeq) and takes the first and last of: by start, a run without
// one first, then by run id. It is safe for concurrent use.
func RunOrder(a, b *RunRow) int {
	return cmp.Or(compareTime(a.StartedAt, b.StartedAt), cmp.Compare(a.RunID, b.RunID))
}

// compareTime orders times, a null one first.
func compareTime(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return a.Compare(*b)
}

// Tokens are a run's or a turn's token columns. Input includes the cached
// and cache-write tokens; output includes the reasoning ones.
type Tokens struct {
	TokensInput           int64 `json:"tokens_input" parquet:"tokens_input"`
	TokensCachedInput     int64 `json:"tokens_cached_input" parquet:"tokens_cached_input"`
	TokensCacheWriteInput int64 `json:"tokens_cache_write_input" parquet:"tokens_cache_write_input"`
	TokensOutput          int64 `json:"tokens_output" parquet:"tokens_output"`
	TokensReasoning       int64 `json:"tokens_reasoning" parquet:"tokens_reasoning"`
}

// AutoReview is what uah's auto-reviewer spent (auto_reviewed): how many
// verdicts, how long they took, and their tokens (input includes cached
// input), apart from the runs' tokens.
type AutoReview struct {
	AutoReviews                 int64 `json:"auto_reviews" parquet:"auto_reviews"`
	AutoReviewMS                int64 `json:"auto_review_ms" parquet:"auto_review_ms"`
	AutoReviewTokensInput       int64 `json:"auto_review_tokens_input" parquet:"auto_review_tokens_input"`
	AutoReviewTokensCachedInput int64 `json:"auto_review_tokens_cached_input" parquet:"auto_review_tokens_cached_input"`
	AutoReviewTokensOutput      int64 `json:"auto_review_tokens_output" parquet:"auto_review_tokens_output"`
}

// TurnRow is one model turn the fold paired, or a model response that
// closed none (StartedAt null). An unanswered turn is Open, running to the
// end of the run, without tokens.
type TurnRow struct {
	RunID     string     `json:"run_id" parquet:"run_id,dict"`
	Turn      int64      `json:"turn" parquet:"turn"`
	TurnID    string     `json:"turn_id" parquet:"turn_id"`
	StartedAt *time.Time `json:"started_at" parquet:"started_at,optional,timestamp(microsecond:utc)"`
	EndedAt   *time.Time `json:"ended_at" parquet:"ended_at,optional,timestamp(microsecond:utc)"`
	// DurationMS is EndedAt − StartedAt, as the stats count it (it may be
	// negative); null without a start.
	DurationMS *int64 `json:"duration_ms" parquet:"duration_ms,optional"`
	Open       bool   `json:"open" parquet:"open"`
	Tokens
	Stop    string `json:"stop" parquet:"stop,dict"`
	Failure string `json:"failure" parquet:"failure"`
}

// ToolCallRow is one tool operation the fold paired, or a call that has
// none (it failed before an operation started, or never started one):
// then OpID is empty, StartedAt is when the call was registered, and
// EndedAt and OK are those of its first tool_finished, null while it has
// none. Name is the name the call counts under in tools_by_name ("?" for an
// empty one); CallFailed reports any ok:false for the call, as
// failed_tool_calls counts it.
type ToolCallRow struct {
	RunID      string     `json:"run_id" parquet:"run_id,dict"`
	CallID     string     `json:"call_id" parquet:"call_id"`
	OpID       string     `json:"op_id" parquet:"op_id"`
	Name       string     `json:"name" parquet:"name,dict"`
	Label      string     `json:"label" parquet:"label"`
	OpType     string     `json:"op_type" parquet:"op_type,dict"`
	StartedAt  *time.Time `json:"started_at" parquet:"started_at,optional,timestamp(microsecond:utc)"`
	EndedAt    *time.Time `json:"ended_at" parquet:"ended_at,optional,timestamp(microsecond:utc)"`
	DurationMS *int64     `json:"duration_ms" parquet:"duration_ms,optional"`
	// OK is the closing tool_finished's ok, null while unfinished.
	OK         *bool  `json:"ok" parquet:"ok,optional"`
	Detail     string `json:"detail" parquet:"detail"`
	CallFailed bool   `json:"call_failed" parquet:"call_failed"`
	Turn       int64  `json:"turn" parquet:"turn"`
	// Arguments are the call's first tool_called arguments, only with
	// content.
	Arguments *string `json:"arguments" parquet:"arguments,optional"`
}

// NoticeRow is one preflight warning or runner error line. Index numbers
// the distinct notices of the run (repeats of one notice, by the stream
// package's Notices rule, share it); Count is how many times that notice
// had come, this line included.
type NoticeRow struct {
	RunID   string     `json:"run_id" parquet:"run_id,dict"`
	At      *time.Time `json:"at" parquet:"at,optional,timestamp(microsecond:utc)"`
	Type    string     `json:"type" parquet:"type,dict"`
	Code    string     `json:"code" parquet:"code,dict"`
	Message string     `json:"message" parquet:"message"`
	Index   int64      `json:"index" parquet:"index"`
	Count   int64      `json:"count" parquet:"count"`
}

// MessageRow is one text a person or a model wrote: a user, developer or
// assistant message or a reasoning summary. Only with content.
type MessageRow struct {
	RunID string     `json:"run_id" parquet:"run_id,dict"`
	At    *time.Time `json:"at" parquet:"at,optional,timestamp(microsecond:utc)"`
	Role  string     `json:"role" parquet:"role,dict"` // user, developer, assistant, reasoning
	Turn  int64      `json:"turn" parquet:"turn"`
	Final bool       `json:"final" parquet:"final"`
	Text  string     `json:"text" parquet:"text"`
}

// Option configures a Builder, Rows and Read.
type Option func(*config)

type config struct {
	content bool
	file    string
	stream  []stream.DecoderOption
	prices  *history.Prices
}

// WithPrices prices the runs by p (RunRow.CostUSD); without it, by
// history.DefaultPrices.
func WithPrices(p history.Prices) Option { return func(c *config) { c.prices = &p } }

// WithContent includes what people and models wrote: MessageRows, the
// tool arguments and the answer. Without it, no such text leaves the
// stream.
func WithContent() Option { return func(c *config) { c.content = true } }

// WithFile sets RunRow.File.
func WithFile(name string) Option { return func(c *config) { c.file = name } }

// WithStreamOptions passes options to the stream's Decoder (such as
// stream.WithMaxLineSize), for Rows and Read.
func WithStreamOptions(opts ...stream.DecoderOption) Option {
	return func(c *config) { c.stream = append(c.stream, opts...) }
}

// Tables are one run's rows.
type Tables struct {
	Run       RunRow
	Turns     []TurnRow
	ToolCalls []ToolCallRow
	Notices   []NoticeRow
	Messages  []MessageRow
}

// add adds a row to the tables of its kind.
func (t *Tables) add(row any) {
	switch row := row.(type) {
	case RunRow:
		t.Run = row
	case TurnRow:
		t.Turns = append(t.Turns, row)
	case ToolCallRow:
		t.ToolCalls = append(t.ToolCalls, row)
	case NoticeRow:
		t.Notices = append(t.Notices, row)
	case MessageRow:
		t.Messages = append(t.Messages, row)
	}
}

// Read reads a stream (a run's; or a session stream's runs, in order) and
// returns each run's rows. The error is that of r; lines that cannot be
// read are counted in RunRow.LineErrors.
func Read(r io.Reader, opts ...Option) ([]Tables, error) {
	var out []Tables
	var cur Tables
	for row, err := range Rows(r, opts...) {
		if err != nil {
			return out, err
		}
		cur.add(row)
		if _, ok := row.(RunRow); ok {
			out, cur = append(out, cur), Tables{}
		}
	}
	return out, nil
}

// Rows reads a stream (a run's; or a session stream's runs, in order)
// through a uahstream.Reader and a Builder, and yields each run's rows:
// a TurnRow when a model response closes a turn (or closes none), a
// NoticeRow and a MessageRow as their lines come; when the run ends, the
// row of a turn still open, the ToolCallRows (a call's failure is known
// only then), then the RunRow. Its RunID is the run_started's; the other
// rows carry it once run_started has come. Each value is a RunRow,
// TurnRow, ToolCallRow, NoticeRow or MessageRow. An error of r ends the
// sequence, after the rows of what was read.
func Rows(r io.Reader, opts ...Option) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		b := NewBuilder(opts...)
		rd := uahstream.NewReader(r, b.stream...)
		if b.content {
			rd.Session().KeepArguments()
		} else {
			rd.Session().KeepText()
		}
		for l := range rd.Lines() {
			for _, row := range b.Add(l) {
				if !yield(row, nil) {
					return
				}
			}
		}
		if err := rd.Err(); err != nil {
			yield(nil, err)
		}
	}
}
