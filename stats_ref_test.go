package stream

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The worked examples of DESIGN.md, "Stats", each after run_started at T.
func TestStatsWorkedExamples(t *testing.T) {
	T := t0
	sec := func(n int) time.Time { return T.Add(time.Duration(n) * time.Second) }
	fold := func(evs ...Event) (StatsDTO, string) {
		c := NewStatsCollector()
		c.Add(RunStarted{At: T})
		for _, e := range evs {
			c.Add(e)
		}
		c.Close(sec(20))
		return statsToDTO(c.Stats()), c.Answer()
	}
	t.Run("an empty last text is the answer", func(t *testing.T) {
		_, answer := fold(AssistantMessage{At: sec(1), Text: "partial"}, AssistantMessage{At: sec(2), Text: ""})
		assert.Equal(t, "", answer)
	})
	t.Run("an empty final clears an earlier final", func(t *testing.T) {
		s, answer := fold(AssistantMessage{At: sec(1), Text: "A", Final: true}, AssistantMessage{At: sec(2), Text: "", Final: true})
		assert.Equal(t, "", answer)
		assert.False(t, s.FinalAnswer)
	})
	t.Run("a response before its turn counts negative", func(t *testing.T) {
		s, _ := fold(TurnStarted{At: sec(10), Turn: 1}, ModelResponded{At: sec(8), Turn: 1})
		assert.Equal(t, int64(-2000), s.ModelMS)
	})
	t.Run("a finish without op_id closes op_id empty", func(t *testing.T) {
		s, _ := fold(ToolStarted{At: T, CallID: "c"}, ToolFinished{At: sec(1), CallID: "c"})
		assert.Equal(t, int64(1000), s.ToolBusyMS)
		assert.Equal(t, 1, s.MaxParallelTools)
	})
}

// refStats folds events by DESIGN.md's words, as plainly as possible and
// without the collector's code: a second implementation to compare with.
func refStats(events []Event, closeAt time.Time) (Stats, string) {
	var s Stats
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
		case TurnStarted:
			observe(e.At)
			s.Turns++
			turnStart, turnOpen = e.At, true
		case ModelResponded:
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
		case ToolCalled:
			observe(e.At)
			register(e.CallID, e.Name)
		case ToolStarted:
			observe(e.At)
			register(e.CallID, e.Name)
			if ops[e.OpID] == nil {
				ops[e.OpID] = &iv{start: e.At}
				opNames = append(opNames, e.OpID)
			}
		case ToolFinished:
			observe(e.At)
			register(e.CallID, e.Name)
			if !e.OK {
				failed[e.CallID] = true
			}
			if op := ops[e.OpID]; op != nil && !op.closed {
				op.end, op.closed = e.At, true
			}
		case AssistantMessage:
			observe(e.At)
			lastText = e.Text
			if e.Final {
				finalText = e.Text
			}
		case UserMessage:
			observe(e.At)
			s.UserMessages++
		case DeveloperMessage, ControlInput:
			observe(e.OccurredAt())
		case PreflightWarning:
			s.Warnings = append(s.Warnings, e.Message)
		case RunnerError:
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
	return s, answer
}

// randomRun makes a random event sequence. With valid, it keeps to the
// stream rules that Validate checks (turns from 1 that do not go back,
// responses to the open turn, finishes after their start, ok:false without
// op_id) and sets every time; otherwise anything goes: reversed and zero
// times, empty op_ids and names, repeated finishes.
func randomRun(r *rand.Rand, valid bool) []Event {
	n := r.IntN(40)
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	base := t0
	var evs []Event
	turn := 0
	var started []string
	when := func() time.Time {
		if !valid && r.IntN(12) == 0 {
			return time.Time{}
		}
		// Mostly forward, sometimes back, often the same instant.
		base = base.Add(time.Duration(r.IntN(7)-1) * time.Duration(pick("1", "1000", "1000000", "7000000")[0]-'0') * time.Millisecond)
		return base.Add(time.Duration(r.IntN(3)) * 500 * time.Microsecond)
	}
	for range n {
		at := when()
		switch r.IntN(13) {
		case 0:
			turn++
			if !valid && r.IntN(4) == 0 {
				turn = r.IntN(3)
			}
			evs = append(evs, TurnStarted{At: at, Turn: turn, TurnID: pick("", "t")})
		case 1:
			if valid && turn == 0 {
				continue
			}
			evs = append(evs, ModelResponded{At: at, Turn: turn, Duration: time.Duration(r.IntN(5000)) * time.Millisecond,
				Usage: Tokens{InputTokens: int64(r.IntN(900)), CachedInputTokens: int64(r.IntN(9)), OutputTokens: int64(r.IntN(90)), ReasoningTokens: int64(r.IntN(9))},
				Stop:  pick("", "complete", "complete", "max_tokens", "refused"), Failure: pick("", "", "", "boom")})
		case 2:
			evs = append(evs, ToolCalled{At: at, CallID: pick("c1", "c2", "c3", ""), Name: pick("Bash", "Read", ""), Label: "l"})
		case 3, 4:
			op := pick("o1", "o2", "o3", "o4", "")
			started = append(started, op)
			evs = append(evs, ToolStarted{At: at, CallID: pick("c1", "c2", "c3", "c4"), OpID: op, Name: pick("Bash", "Read", "")})
		case 5, 6:
			op := pick("o1", "o2", "o3", "o5", "")
			ok := r.IntN(3) > 0
			if valid {
				switch {
				case len(started) > 0 && r.IntN(4) > 0:
					op = started[r.IntN(len(started))]
				default:
					op, ok = "", false
				}
				if op == "" {
					ok = false
				}
			}
			evs = append(evs, ToolFinished{At: at, CallID: pick("c1", "c2", "c3", "c5"), OpID: op, Name: pick("Bash", "Read", ""), OK: ok, Detail: "exit 0"})
		case 7:
			evs = append(evs, AssistantMessage{At: at, Turn: max(turn, 0), Text: pick("", "partial", "answer"), Final: r.IntN(2) == 0})
		case 8:
			evs = append(evs, UserMessage{At: at, ID: "u", Text: pick("", "hi")})
		case 9:
			evs = append(evs, DeveloperMessage{At: at, ID: "d", Text: "x"}, ControlInput{At: at, ID: "c", Mode: "settings"})
		case 10:
			evs = append(evs, ReasoningSummary{At: at, Text: "r"})
		case 11:
			evs = append(evs, RunnerError{At: at, Message: pick("", "e")})
		case 12:
			evs = append(evs, PreflightWarning{At: at, Code: "w", Message: pick("", "w")})
		}
	}
	return evs
}

func TestStatsCollectorMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 10))
	for i := range 5000 {
		evs := randomRun(r, false)
		var closeAt time.Time
		switch r.IntN(3) {
		case 1:
			closeAt = t0.Add(time.Duration(r.IntN(30000)-5000) * time.Millisecond)
		case 2: // a cut-off run is closed at its last event
			if len(evs) > 0 {
				closeAt = evs[len(evs)-1].OccurredAt()
			}
		}
		c := new(StatsCollector) // the zero value is ready
		for _, e := range evs {
			c.Add(e)
		}
		if !closeAt.IsZero() || r.IntN(2) == 0 {
			c.Close(closeAt)
		}
		want, wantAnswer := refStats(evs, closeAt)
		got := c.Stats()
		if d := cmpDiff(want, got); d != "" || wantAnswer != c.Answer() {
			t.Fatalf("run %d: stats (-reference +collector):\n%s\nanswer %q, reference %q\nevents: %s", i, d, c.Answer(), wantAnswer, fmt.Sprint(evs))
		}
	}
}

// Random runs written by the Sink with the collector's own summary as
// run_finished are valid streams, strictly.
func TestRandomRunsValidate(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 11))
	for i := range 1000 {
		evs := append([]Event{RunStarted{At: t0, RunID: "r", Provider: "p", Model: "m"}}, randomRun(r, true)...)
		c := NewStatsCollector()
		for _, e := range evs {
			c.Add(e)
		}
		end := evs[len(evs)-1].OccurredAt().Add(time.Duration(r.IntN(3)) * time.Millisecond)
		c.Close(end)
		stats := c.Stats()
		res := Result{Request: Request{RunID: "r", Provider: "p", Model: "m"}, StartedAt: t0, Wall: end.Sub(t0),
			Status: Classify(NoTermination, 0, stats), Stats: stats, Answer: c.Answer()}
		evs = append(evs, RunFinished{At: end, Result: res})
		var buf bytes.Buffer
		sink := NewSink(&buf)
		for _, e := range evs {
			sink.Emit(e)
		}
		require.NoError(t, sink.Err())
		findings, err := Validate(bytes.NewReader(buf.Bytes()), WithStrict())
		require.NoError(t, err)
		if len(findings) > 0 {
			t.Fatalf("run %d: %v\n%s", i, findings, buf.Bytes())
		}
	}
}
