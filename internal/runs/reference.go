package runs

import (
	"time"

	"github.com/uagentkit/stream"
)

// Reference folds events by DESIGN.md's words, as plainly as possible and
// without the fold's code: a second implementation that the fold and
// every view are compared with.
// Beside the stats and the answer it returns the intervals it paired: the
// model turns in the order they closed (the open one last), the tool
// operations in the order they first started.
func Reference(events []stream.Event, closeAt time.Time) (stream.Stats, string, [][2]time.Time, [][2]time.Time) {
	var s stream.Stats
	s.ToolsByName = map[string]int{}
	var first, latest time.Time
	seen := false
	observe := func(at time.Time) {
		if at.IsZero() {
			return
		}
		if !seen {
			first, seen = at, true
		}
		if at.After(latest) {
			latest = at
		}
	}
	type iv struct {
		start, end time.Time
		closed     bool
	}
	var model []iv
	var turnStart time.Time
	turnOpen := false
	var opNames []string
	ops := map[string]*iv{}
	calls := map[string]bool{} // registered
	failed := map[string]bool{}
	var callOrder []string
	register := func(id, name string) {
		if calls[id] {
			return
		}
		calls[id] = true
		callOrder = append(callOrder, id)
		if name == "" {
			name = "?"
		}
		s.ToolsByName[name]++
	}
	var finalText, lastText string
	for _, e := range events {
		switch e := e.(type) {
		case stream.TurnStarted:
			observe(e.At)
			s.Turns++
			turnStart, turnOpen = e.At, true
		case stream.ModelResponded:
			observe(e.At)
			s.ModelResponses++
			s.Tokens.InputTokens += e.Usage.InputTokens
			s.Tokens.CachedInputTokens += e.Usage.CachedInputTokens
			s.Tokens.CacheWriteInputTokens += e.Usage.CacheWriteInputTokens
			s.Tokens.OutputTokens += e.Usage.OutputTokens
			s.Tokens.ReasoningTokens += e.Usage.ReasoningTokens
			if turnOpen {
				model = append(model, iv{turnStart, e.At, true})
				turnOpen = false
			}
			if e.Stop != "" && e.Stop != "complete" {
				if s.StopReasons == nil {
					s.StopReasons = map[string]int{}
				}
				s.StopReasons[e.Stop]++
			}
			if e.Failure != "" {
				s.Failures = append(s.Failures, e.Failure)
			}
		case stream.ToolCalled:
			observe(e.At)
			register(e.CallID, e.Name)
		case stream.ToolStarted:
			observe(e.At)
			register(e.CallID, e.Name)
			if ops[e.OpID] == nil {
				ops[e.OpID] = &iv{start: e.At}
				opNames = append(opNames, e.OpID)
			}
		case stream.ToolFinished:
			observe(e.At)
			register(e.CallID, e.Name)
			if !e.OK {
				failed[e.CallID] = true
			}
			if op := ops[e.OpID]; op != nil && !op.closed {
				op.end, op.closed = e.At, true
			}
		case stream.AssistantMessage:
			observe(e.At)
			lastText = e.Text
			if e.Final {
				finalText = e.Text
			}
		case stream.UserMessage:
			observe(e.At)
			s.UserMessages++
		case stream.DeveloperMessage, stream.ControlInput:
			observe(e.OccurredAt())
		case stream.PreflightWarning:
			s.Warnings = append(s.Warnings, e.Message)
		case stream.RunnerError:
			s.Errors = append(s.Errors, e.Message)
		}
	}
	end := latest
	if closeAt.After(end) {
		end = closeAt
	}
	if turnOpen {
		model = append(model, iv{turnStart, end, true})
	}
	var tools []iv
	for _, id := range opNames {
		op := *ops[id]
		if !op.closed {
			op.end = end
		}
		tools = append(tools, op)
	}
	s.ToolCalls = len(callOrder)
	s.FailedToolCalls = len(failed)
	if seen {
		s.EventSpan = latest.Sub(first)
	}
	merge := func(in []iv) []iv {
		// Insertion sort by start: stable, so equal starts keep arrival order.
		ivs := append([]iv(nil), in...)
		for i := 1; i < len(ivs); i++ {
			for j := i; j > 0 && ivs[j].start.Before(ivs[j-1].start); j-- {
				ivs[j], ivs[j-1] = ivs[j-1], ivs[j]
			}
		}
		var out []iv
		for _, x := range ivs {
			if len(out) > 0 && (x.start.Before(out[len(out)-1].end) || x.start.Equal(out[len(out)-1].end)) {
				if x.end.After(out[len(out)-1].end) {
					out[len(out)-1].end = x.end
				}
				continue
			}
			out = append(out, x)
		}
		return out
	}
	sum := func(ivs []iv) (d time.Duration) {
		for _, x := range ivs {
			d += x.end.Sub(x.start)
		}
		return d
	}
	pairs := func(ivs []iv) [][2]time.Time {
		out := [][2]time.Time{}
		for _, x := range ivs {
			out = append(out, [2]time.Time{x.start, x.end})
		}
		return out
	}
	pairedModel, pairedTools := pairs(model), pairs(tools)
	mm, tm := merge(model), merge(tools)
	s.ModelTime, s.ToolBusyTime = sum(mm), sum(tm)
	for i, j := 0, 0; i < len(mm) && j < len(tm); {
		lo, hi := mm[i].start, mm[i].end
		if tm[j].start.After(lo) {
			lo = tm[j].start
		}
		if tm[j].end.Before(hi) {
			hi = tm[j].end
		}
		if d := hi.Sub(lo); d > 0 {
			s.ToolModelOverlap += d
		}
		if mm[i].end.Before(tm[j].end) {
			i++
		} else {
			j++
		}
	}
	// The sweep, quadratically: after the edges at instant x are applied
	// (ends first, then starts), the count is the starts at or before x minus
	// the ends at or before x; the peak is at a start.
	for _, x := range tools {
		n := 0
		for _, y := range tools {
			if !y.start.After(x.start) {
				n++
			}
			if !y.end.After(x.start) {
				n--
			}
		}
		s.MaxParallelTools = max(s.MaxParallelTools, n)
	}
	s.FinalAnswer = finalText != ""
	answer := finalText
	if answer == "" {
		answer = lastText
	}
	return s, answer, pairedModel, pairedTools
}
