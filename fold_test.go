package stream_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/runs"
)

// The fold against a second implementation written from DESIGN.md's words:
// the same stats, the same answer, and the same intervals paired, on 5,000
// random runs where anything goes.
func TestStatsCollectorMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 10))
	for i := range 5000 {
		evs := runs.Random(r, false)
		var closeAt time.Time
		switch r.IntN(3) {
		case 1:
			closeAt = runs.T0.Add(time.Duration(r.IntN(30000)-5000) * time.Millisecond)
		case 2: // a cut-off run is closed at its last event
			if len(evs) > 0 {
				closeAt = evs[len(evs)-1].OccurredAt()
			}
		}
		c := new(stream.StatsCollector) // the zero value is ready
		for _, e := range evs {
			c.Add(e)
		}
		if !closeAt.IsZero() || r.IntN(2) == 0 {
			c.Close(closeAt)
		}
		want, wantAnswer, wantModel, wantTools := refStats(evs, closeAt)
		got := c.Stats()
		if d := cmp.Diff(want, got); d != "" || wantAnswer != c.Answer() {
			t.Fatalf("run %d: stats (-reference +collector):\n%s\nanswer %q, reference %q\nevents: %s", i, d, c.Answer(), wantAnswer, fmt.Sprint(evs))
		}
		gotModel, gotTools := [][2]time.Time{}, [][2]time.Time{}
		for _, iv := range c.ModelIntervals() {
			gotModel = append(gotModel, [2]time.Time{iv.Start, iv.End})
		}
		for _, iv := range c.ToolIntervals() {
			gotTools = append(gotTools, [2]time.Time{iv.Start, iv.End})
		}
		if d := cmp.Diff(wantModel, gotModel); d != "" {
			t.Fatalf("run %d: model intervals (-reference +collector):\n%s", i, d)
		}
		if d := cmp.Diff(wantTools, gotTools); d != "" {
			t.Fatalf("run %d: tool intervals (-reference +collector):\n%s", i, d)
		}
	}
}

// Random valid runs written by the Sink, with a run_finished summary the
// reference computed (not the collector), are valid streams, strictly:
// Validate, which folds through the collector, agrees with the reference.
func TestRandomRunsValidate(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 11))
	for i := range 1000 {
		evs := append([]stream.Event{stream.RunStarted{At: runs.T0, RunID: "r", Provider: "p", Model: "m"}}, runs.Random(r, true)...)
		end := evs[len(evs)-1].OccurredAt().Add(time.Duration(r.IntN(3)) * time.Millisecond)
		stats, answer, _, _ := refStats(evs, end)
		res := stream.Result{Request: stream.Request{RunID: "r", Provider: "p", Model: "m"}, StartedAt: runs.T0, Wall: end.Sub(runs.T0),
			Status: stream.Classify("", 0, stats), Stats: stats, Answer: answer}
		evs = append(evs, stream.RunFinished{At: end, Result: res})
		var buf bytes.Buffer
		sink := stream.NewSink(&buf)
		for _, e := range evs {
			sink.Emit(e)
		}
		require.NoError(t, sink.Err())
		findings, err := stream.Validate(bytes.NewReader(buf.Bytes()), stream.WithStrict())
		require.NoError(t, err)
		if len(findings) > 0 {
			t.Fatalf("run %d: %v\n%s", i, findings, buf.Bytes())
		}
	}
}

// refStats folds events by DESIGN.md's words, as plainly as possible and
// without the collector's code: a second implementation to compare with.
// Beside the stats and the answer it returns the intervals it paired: the
// model turns in the order they closed (the open one last), the tool
// operations in the order they first started.
func refStats(events []stream.Event, closeAt time.Time) (stream.Stats, string, [][2]time.Time, [][2]time.Time) {
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
