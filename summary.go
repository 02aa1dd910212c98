package stream

import (
	"maps"
	"slices"
	"time"
)

// Request is a run's identity and settings.
type Request struct {
	RunID     string
	SessionID string
	Provider  string
	Model     string
	Effort    string
	Workspace string
}

// Status is the outcome of a run, as written in its summary.
type Status string

// The statuses of the contract. StatusRunning appears only in summary.json
// while a run is in progress.
const (
	StatusOK          Status = "ok"
	StatusError       Status = "error"
	StatusTimeout     Status = "timeout"
	StatusInterrupted Status = "interrupted"
	StatusDiskLimit   Status = "disk_limit"
	StatusRunning     Status = "running"
)

// Final reports whether s is one of the statuses a finished run has: all
// the declared ones but StatusRunning, which summary.json holds only while
// the run goes on.
func (s Status) Final() bool {
	switch s {
	case StatusOK, StatusError, StatusTimeout, StatusInterrupted, StatusDiskLimit:
		return true
	}
	return false
}

// Result is a finished run: what summary.json and the run_finished line
// hold. RunnerExitCode is -1 when the runner was killed.
type Result struct {
	Request
	Status         Status
	RunnerExitCode int
	StartedAt      time.Time
	Wall           time.Duration
	Stats
	Answer string
}

// Classify returns a run's status. termination is how the runner stopped
// the run: StatusTimeout, StatusInterrupted or StatusDiskLimit, which win,
// or "" for a run that ended by itself (any other value counts as ""). Then
// the status is
// StatusError when exitCode is non-zero or stats has errors or failures, and
// StatusOK otherwise.
func Classify(termination Status, exitCode int, stats Stats) Status {
	switch termination {
	case StatusTimeout, StatusInterrupted, StatusDiskLimit:
		return termination
	}
	if exitCode != 0 || len(stats.Errors) > 0 || len(stats.Failures) > 0 {
		return StatusError
	}
	return StatusOK
}

// ExitCode returns the process exit code of a run that ended with status s:
// ok 0, error 1, disk_limit 3, timeout 124, interrupted 130. Any other
// status, StatusRunning included, maps to 1. (2 is a usage error or a
// blocked preflight, which have no status.)
func (s Status) ExitCode() int {
	switch s {
	case StatusOK:
		return ExitOK
	case StatusDiskLimit:
		return ExitDiskLimit
	case StatusTimeout:
		return ExitTimeout
	case StatusInterrupted:
		return ExitInterrupted
	}
	return ExitError
}

// TokensDTO is the wire form of [Tokens].
type TokensDTO struct {
	Input           int64 `json:"input"`
	CachedInput     int64 `json:"cached_input"`
	CacheWriteInput int64 `json:"cache_write_input"`
	Output          int64 `json:"output"`
	Reasoning       int64 `json:"reasoning"`
}

// StatsDTO is the wire form of [Stats]. Durations are whole milliseconds,
// truncated.
type StatsDTO struct {
	EventSpanMS        int64          `json:"event_span_ms"`
	ModelMS            int64          `json:"model_ms"`
	ToolBusyMS         int64          `json:"tool_busy_ms"`
	ToolModelOverlapMS int64          `json:"tool_model_overlap_ms"`
	Turns              int            `json:"turns"`
	UserMessages       int            `json:"user_messages"`
	ModelResponses     int            `json:"model_responses"`
	ToolCalls          int            `json:"tool_calls"`
	FailedToolCalls    int            `json:"failed_tool_calls"`
	MaxParallelTools   int            `json:"max_parallel_tools"`
	ToolsByName        map[string]int `json:"tools_by_name"`
	Tokens             TokensDTO      `json:"tokens"`
	StopReasons        map[string]int `json:"stop_reasons,omitempty"`
	Failures           []string       `json:"failures,omitempty"`
	Errors             []string       `json:"errors,omitempty"`
	Warnings           []string       `json:"warnings,omitempty"`
	FinalAnswer        bool           `json:"final_answer"`
}

// SummaryDTO is a finished run. It is the run_finished payload and the
// content of summary.json.
type SummaryDTO struct {
	V              int       `json:"v"`
	Status         string    `json:"status" stream:"id"`
	RunnerExitCode int       `json:"runner_exit_code"`
	RunID          string    `json:"run_id"`
	SessionID      string    `json:"session_id"`
	Provider       string    `json:"provider"`
	Model          string    `json:"model"`
	Effort         string    `json:"effort"`
	Workspace      string    `json:"workspace"`
	StartedAt      time.Time `json:"started_at"`
	WallMS         int64     `json:"wall_ms"`
	Stats          StatsDTO  `json:"stats"`
	Answer         string    `json:"answer"`
}

// SummaryToDTO maps a result to its wire form. StartedAt becomes UTC,
// durations become milliseconds by truncation, and tools_by_name is always
// an object, never null. The maps and slices of r are copied.
func SummaryToDTO(r Result) SummaryDTO {
	return SummaryDTO{
		V:              SchemaVersion,
		Status:         string(r.Status),
		RunnerExitCode: r.RunnerExitCode,
		RunID:          r.RunID,
		SessionID:      r.SessionID,
		Provider:       r.Provider,
		Model:          r.Model,
		Effort:         r.Effort,
		Workspace:      r.Workspace,
		StartedAt:      r.StartedAt.UTC(),
		WallMS:         r.Wall.Milliseconds(),
		Stats:          statsToDTO(r.Stats),
		Answer:         r.Answer,
	}
}

// SummaryFromDTO restores run metadata from a saved summary. Stats are not
// restored: callers recompute them from events.jsonl (see [Summarize]).
func SummaryFromDTO(d SummaryDTO) Result {
	return Result{
		Request: Request{
			RunID:     d.RunID,
			SessionID: d.SessionID,
			Provider:  d.Provider,
			Model:     d.Model,
			Effort:    d.Effort,
			Workspace: d.Workspace,
		},
		Status:         Status(d.Status),
		RunnerExitCode: d.RunnerExitCode,
		StartedAt:      d.StartedAt,
		Wall:           ms(d.WallMS),
		Answer:         d.Answer,
	}
}

// Stats returns d as [Stats], its milliseconds as durations. The maps and
// slices are the caller's.
func (d StatsDTO) Stats() Stats {
	return Stats{
		EventSpan:        ms(d.EventSpanMS),
		ModelTime:        ms(d.ModelMS),
		ToolBusyTime:     ms(d.ToolBusyMS),
		ToolModelOverlap: ms(d.ToolModelOverlapMS),
		Turns:            d.Turns,
		UserMessages:     d.UserMessages,
		ModelResponses:   d.ModelResponses,
		ToolCalls:        d.ToolCalls,
		FailedToolCalls:  d.FailedToolCalls,
		MaxParallelTools: d.MaxParallelTools,
		ToolsByName:      maps.Clone(d.ToolsByName),
		Tokens:           d.Tokens.Tokens(),
		StopReasons:      maps.Clone(d.StopReasons),
		Failures:         slices.Clone(d.Failures),
		Errors:           slices.Clone(d.Errors),
		Warnings:         slices.Clone(d.Warnings),
		FinalAnswer:      d.FinalAnswer,
	}
}

// clone is d with maps and slices of its own.
func (d StatsDTO) clone() StatsDTO {
	d.ToolsByName, d.StopReasons = maps.Clone(d.ToolsByName), maps.Clone(d.StopReasons)
	d.Failures, d.Errors, d.Warnings = slices.Clone(d.Failures), slices.Clone(d.Errors), slices.Clone(d.Warnings)
	return d
}

func statsToDTO(s Stats) StatsDTO {
	byName := maps.Clone(s.ToolsByName)
	if byName == nil {
		byName = map[string]int{}
	}
	return StatsDTO{
		EventSpanMS:        s.EventSpan.Milliseconds(),
		ModelMS:            s.ModelTime.Milliseconds(),
		ToolBusyMS:         s.ToolBusyTime.Milliseconds(),
		ToolModelOverlapMS: s.ToolModelOverlap.Milliseconds(),
		Turns:              s.Turns,
		UserMessages:       s.UserMessages,
		ModelResponses:     s.ModelResponses,
		ToolCalls:          s.ToolCalls,
		FailedToolCalls:    s.FailedToolCalls,
		MaxParallelTools:   s.MaxParallelTools,
		ToolsByName:        byName,
		Tokens:             s.Tokens.DTO(),
		StopReasons:        maps.Clone(s.StopReasons),
		Failures:           slices.Clone(s.Failures),
		Errors:             slices.Clone(s.Errors),
		Warnings:           slices.Clone(s.Warnings),
		FinalAnswer:        s.FinalAnswer,
	}
}
