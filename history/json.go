package history

import (
	"math"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/uahstream"
)

// SessionJSON is a session as `uagent-stream ls --json` writes it: the
// fields named as the Parquet tables' columns. CostUSD is null when no
// token of it could be priced; UnpricedTokens counts the tokens it leaves
// out. Matches are the search's, one a run.
type SessionJSON struct {
	SessionID       string           `json:"session_id"`
	Title           string           `json:"title"`
	Source          string           `json:"source"`
	ParentSessionID string           `json:"parent_session_id"`
	Workspace       string           `json:"workspace"`
	StartedAt       *time.Time       `json:"started_at"`
	LastActivityAt  *time.Time       `json:"last_activity_at"`
	Runs            int              `json:"runs"`
	Status          string           `json:"status"`
	Provider        string           `json:"provider"`
	Model           string           `json:"model"`
	Effort          string           `json:"effort"`
	Tokens          stream.TokensDTO `json:"tokens"`
	ToolCalls       int              `json:"tool_calls"`
	WallMS          int64            `json:"wall_ms"`
	CostUSD         *float64         `json:"cost_usd"`
	UnpricedTokens  int64            `json:"unpriced_tokens"`
	Home            string           `json:"home"`
	Matches         []MatchJSON      `json:"matches,omitempty"`
	// Compaction is what uah's compactions spent, apart from the runs'
	// tokens (absent without one); Subagents what its subagent and
	// reviewer sessions spent, all the way down (absent without one).
	Compaction *CompactionJSON `json:"compaction,omitempty"`
	Subagents  *SpentJSON      `json:"subagents,omitempty"`
}

// CompactionJSON is what a session's compactions spent: how many, the
// calls among them that report their usage, their tokens and estimate.
type CompactionJSON struct {
	uahstream.Compaction
	CostUSD        *float64 `json:"cost_usd"`
	UnpricedTokens int64    `json:"unpriced_tokens"`
}

// JSON is what was spent as ls --json writes it: nil for no session.
func (a Spent) JSON() *SpentJSON {
	if a.Sessions == 0 {
		return nil
	}
	return &SpentJSON{Sessions: a.Sessions, Runs: a.Runs, Tokens: a.Tokens, CostUSD: usd(a.Cost.USDOrNil()), UnpricedTokens: a.Cost.UnpricedTokens}
}

// SpentJSON is what some sessions' runs spent.
type SpentJSON struct {
	Sessions       int              `json:"sessions"`
	Runs           int              `json:"runs"`
	Tokens         stream.TokensDTO `json:"tokens"`
	CostUSD        *float64         `json:"cost_usd"`
	UnpricedTokens int64            `json:"unpriced_tokens"`
}

// RunJSON is a run as `uagent-stream ls --runs --json` writes it.
type RunJSON struct {
	RunID      string           `json:"run_id"`
	SessionID  string           `json:"session_id"`
	SessionSeq int              `json:"session_seq"`
	StartedAt  *time.Time       `json:"started_at"`
	WallMS     int64            `json:"wall_ms"`
	Status     string           `json:"status"`
	Provider   string           `json:"provider"`
	Model      string           `json:"model"`
	Effort     string           `json:"effort"`
	Workspace  string           `json:"workspace"`
	Turns      int              `json:"turns"`
	ToolCalls  int              `json:"tool_calls"`
	Tokens     stream.TokensDTO `json:"tokens"`
	CostUSD    *float64         `json:"cost_usd"`
	Title      string           `json:"title"`
	Home       string           `json:"home"`
	Matches    []MatchJSON      `json:"matches,omitempty"`
}

// MatchJSON is a search's match: the run, the time of its line and the
// snippet.
type MatchJSON struct {
	RunID   string     `json:"run_id"`
	At      *time.Time `json:"at"`
	Line    int        `json:"line"`
	Snippet string     `json:"snippet"`
}

// UsageJSON is a row of `uagent-stream usage --json`: tokens in the
// summary's classes (input includes cached and cache-write input, output
// includes reasoning), UncachedInput and TotalTokens derived from them,
// CostUSD the priced runs' (null when none is priced), UnpricedTokens
// what it leaves out, Models the breakdown.
type UsageJSON struct {
	Period         string           `json:"period"`
	Sessions       int              `json:"sessions"`
	Runs           int              `json:"runs"`
	Subagents      int              `json:"subagents"`
	Tokens         stream.TokensDTO `json:"tokens"`
	UncachedInput  int64            `json:"uncached_input"`
	TotalTokens    int64            `json:"total_tokens"`
	CostUSD        *float64         `json:"cost_usd"`
	UnpricedTokens int64            `json:"unpriced_tokens"`
	Models         []UsageJSON      `json:"models,omitempty"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// usd rounds a cost to a millionth of a dollar, as it is written.
func usd(v *float64) *float64 {
	if v == nil {
		return nil
	}
	if math.IsInf(*v, 0) || math.IsNaN(*v) {
		return nil // not a number JSON has: as the table, no figure
	}
	r := math.Round(*v*1e6) / 1e6
	return &r
}

// JSON is the session as ls --json writes it.
func (s *Session) JSON() SessionJSON {
	out := SessionJSON{SessionID: s.ID, Title: s.Title, Source: s.Source, ParentSessionID: s.Parent, Workspace: s.Workspace,
		StartedAt: timePtr(s.StartedAt), LastActivityAt: timePtr(s.LastActivity), Runs: len(s.Runs), Status: s.Status,
		Provider: s.Provider, Model: s.Model, Effort: s.Effort, Tokens: s.Tokens, ToolCalls: s.ToolCalls, WallMS: s.WallMS,
		CostUSD: usd(s.Cost.USDOrNil()), UnpricedTokens: s.Cost.UnpricedTokens, Home: s.Home}
	if c := s.Compaction; c.Compactions > 0 {
		out.Compaction = &CompactionJSON{Compaction: c, CostUSD: usd(s.CompactionCost.USDOrNil()), UnpricedTokens: s.CompactionCost.UnpricedTokens}
	}
	out.Subagents = s.Subagents.JSON()
	return out
}

// JSON is the run as ls --runs --json writes it.
func (r *Run) JSON() RunJSON {
	var cost *float64
	if r.Cost.Priced {
		cost = usd(&r.Cost.USD)
	}
	return RunJSON{RunID: r.ID, SessionID: r.SessionID, SessionSeq: r.Seq, StartedAt: timePtr(r.StartedAt), WallMS: r.WallMS,
		Status: r.Status, Provider: r.Provider, Model: r.Model, Effort: r.Effort, Workspace: r.Workspace, Turns: r.Turns,
		ToolCalls: r.ToolCalls, Tokens: r.Tokens, CostUSD: cost, Title: r.Title, Home: r.Home}
}

// JSON is the match as the listings write it.
func (m Match) JSON() MatchJSON {
	return MatchJSON{RunID: m.Run.ID, At: timePtr(m.At), Line: m.Line, Snippet: m.Snippet}
}

// JSON is the row as usage --json writes it.
func (u UsageRow) JSON() UsageJSON {
	out := UsageJSON{Period: u.Period, Sessions: u.Sessions, Runs: u.Runs, Subagents: u.Subagents, Tokens: u.Tokens,
		UncachedInput: u.UncachedInput(), TotalTokens: u.Total(), CostUSD: usd(u.Cost.USDOrNil()), UnpricedTokens: u.Cost.UnpricedTokens}
	for _, m := range u.Models {
		out.Models = append(out.Models, m.JSON())
	}
	return out
}

// UsageReport is what usage --json writes and the history page's
// /api/usage answers: the grouping, the time zone, what the costs are
// (Estimate.Note), the rows and the total.
type UsageReport struct {
	By       string      `json:"by"`
	Timezone string      `json:"timezone"`
	Estimate string      `json:"estimate"`
	Rows     []UsageJSON `json:"rows"`
	Total    UsageJSON   `json:"total"`
}

// Report is the UsageReport of rows and total, as Usage grouped them by
// by in loc.
func Report(by string, loc *time.Location, rows []UsageRow, total UsageRow) UsageReport {
	if loc == nil {
		loc = time.Local
	}
	out := UsageReport{By: by, Timezone: loc.String(), Estimate: total.Cost.Note(), Rows: []UsageJSON{}, Total: total.JSON()}
	for _, r := range rows {
		out.Rows = append(out.Rows, r.JSON())
	}
	return out
}
