package stream

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatsReproduceTheRunner(t *testing.T) {
	for name, b := range onlyConformance(t) {
		t.Run(name, func(t *testing.T) {
			r, err := Summarize(bytes.NewReader(b))
			require.NoError(t, err)
			require.Zero(t, r.LineErrors)
			require.NotNil(t, r.Recorded)
			assert.False(t, r.CutOff)
			if d := cmpDiff(r.Recorded.Stats, r.Summary.Stats); d != "" {
				t.Errorf("stats (-runner +recomputed):\n%s", d)
			}
			assert.Equal(t, r.Recorded.Answer, r.Summary.Answer)
			if d := cmpDiff(*r.Recorded, r.Summary); d != "" {
				t.Errorf("summary (-runner +recomputed):\n%s", d)
			}
		})
	}
}

// ms0 is a time n milliseconds (or fractions of one) after t0.
func ms0(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Millisecond))) }

func TestStatsRules(t *testing.T) {
	tool := func(call, op string, start, end float64) []Event {
		evs := []Event{ToolStarted{At: ms0(start), CallID: call, OpID: op, Name: "Bash"}}
		if end >= 0 {
			evs = append(evs, ToolFinished{At: ms0(end), CallID: call, OpID: op, Name: "Bash", OK: true})
		}
		return evs
	}
	cat := func(parts ...[]Event) (out []Event) {
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := []struct {
		name   string
		events []Event
		close  float64
		check  func(t *testing.T, s Stats, answer string)
	}{
		{"back-to-back tools count one", cat(tool("a", "1", 0, 100), tool("b", "2", 100, 200)), 200,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, 1, s.MaxParallelTools)
				assert.Equal(t, 200*time.Millisecond, s.ToolBusyTime)
			}},
		{"overlapping tools count two", cat(tool("a", "1", 0, 100), tool("b", "2", 50, 200)), 200,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, 2, s.MaxParallelTools)
				assert.Equal(t, 200*time.Millisecond, s.ToolBusyTime)
			}},
		{"a tool that never finishes runs to the close", cat(tool("a", "1", 0, 100), tool("b", "2", 50, -1),
			[]Event{UserMessage{At: ms0(300)}}), 1000,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, time.Second, s.ToolBusyTime)
				assert.Equal(t, 300*time.Millisecond, s.EventSpan)
			}},
		{"an unfinished tool runs to the latest event when that is later than the close", cat(tool("a", "1", 0, -1),
			[]Event{UserMessage{At: ms0(500)}}), 100,
			func(t *testing.T, s Stats, _ string) { assert.Equal(t, 500*time.Millisecond, s.ToolBusyTime) }},
		{"a turn still open at the end", []Event{TurnStarted{At: ms0(0), Turn: 1}, ToolCalled{At: ms0(40)}}, 100,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, 100*time.Millisecond, s.ModelTime)
				assert.Equal(t, 1, s.Turns)
				assert.Equal(t, 0, s.ModelResponses)
			}},
		{"a second turn_started replaces the start", []Event{TurnStarted{At: ms0(0), Turn: 1}, TurnStarted{At: ms0(60), Turn: 2},
			ModelResponded{At: ms0(100), Turn: 2}}, 100,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, 40*time.Millisecond, s.ModelTime)
				assert.Equal(t, 2, s.Turns)
				assert.Equal(t, 100*time.Millisecond, s.EventSpan)
			}},
		{"a response without an open turn adds no model time", []Event{ModelResponded{At: ms0(0)}, TurnStarted{At: ms0(10)},
			ModelResponded{At: ms0(30)}, ModelResponded{At: ms0(90)}}, 90,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, 20*time.Millisecond, s.ModelTime)
				assert.Equal(t, 3, s.ModelResponses)
			}},
		{"a duplicate tool_started: the first start wins", []Event{ToolCalled{At: ms0(0), CallID: "a", Name: "Bash"},
			ToolStarted{At: ms0(10), CallID: "a", OpID: "1", Name: "Bash"}, ToolStarted{At: ms0(50), CallID: "a", OpID: "1", Name: "Other"},
			ToolFinished{At: ms0(70), CallID: "a", OpID: "1", Name: "Bash", OK: true}, ToolFinished{At: ms0(99), CallID: "a", OpID: "1", OK: false}}, 100,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, 60*time.Millisecond, s.ToolBusyTime)
				assert.Equal(t, 1, s.ToolCalls)
				assert.Equal(t, map[string]int{"Bash": 1}, s.ToolsByName)
				assert.Equal(t, 1, s.FailedToolCalls, "any ok:false fails the call")
				assert.Equal(t, 1, s.MaxParallelTools)
			}},
		{"a tool_finished without op_id", []Event{ToolCalled{At: ms0(0), CallID: "a", Name: "Bash"},
			ToolFinished{At: ms0(5), CallID: "a", Name: "Bash", OK: false, Detail: "invalid arguments"}}, 10,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, time.Duration(0), s.ToolBusyTime)
				assert.Equal(t, 0, s.MaxParallelTools)
				assert.Equal(t, 1, s.ToolCalls)
				assert.Equal(t, 1, s.FailedToolCalls)
			}},
		{"a tool_finished with an unknown op adds no interval", []Event{ToolFinished{At: ms0(5), CallID: "z", OpID: "ghost", Name: "Bash", OK: true}}, 10,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, time.Duration(0), s.ToolBusyTime)
				assert.Equal(t, map[string]int{"Bash": 1}, s.ToolsByName)
			}},
		{"an empty tool name counts as ?", []Event{ToolCalled{At: ms0(0), CallID: "a"}, ToolStarted{At: ms0(1), CallID: "a", OpID: "1", Name: "Bash"}}, 10,
			func(t *testing.T, s Stats, _ string) { assert.Equal(t, map[string]int{"?": 1}, s.ToolsByName) }},
		{"reasoning is excluded from the span", []Event{RunStarted{At: ms0(-500)}, PreflightWarning{At: ms0(-400), Message: "w"},
			ReasoningSummary{At: ms0(-300)}, UserMessage{At: ms0(0)}, ReasoningSummary{At: ms0(900)}, RunnerError{At: ms0(950), Message: "e"},
			ControlInput{At: ms0(100)}}, 1000,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, 100*time.Millisecond, s.EventSpan)
				assert.Equal(t, []string{"w"}, s.Warnings)
				assert.Equal(t, []string{"e"}, s.Errors)
			}},
		{"span is latest minus first to arrive", []Event{DeveloperMessage{At: ms0(50)}, UserMessage{At: ms0(0)}, AssistantMessage{At: ms0(80)}}, 0,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, 30*time.Millisecond, s.EventSpan)
				assert.Equal(t, 1, s.UserMessages, "developer messages are not user messages")
			}},
		{"zero times are not observed but open and close intervals", []Event{UserMessage{At: ms0(10)}, UserMessage{},
			ToolStarted{CallID: "a", OpID: "1"}, UserMessage{At: ms0(20)}, ToolFinished{At: ms0(30), CallID: "a", OpID: "1", OK: true}}, 30,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, 20*time.Millisecond, s.EventSpan)
				assert.Equal(t, 3, s.UserMessages)
				assert.Equal(t, time.Duration(math.MaxInt64), s.ToolBusyTime, "[zero, T] saturates")
				assert.Equal(t, 1, s.MaxParallelTools)
			}},
		{"nothing observed: no span", []Event{RunStarted{At: ms0(0)}, UserMessage{}, ReasoningSummary{At: ms0(5)}}, 10,
			func(t *testing.T, s Stats, _ string) { assert.Equal(t, time.Duration(0), s.EventSpan) }},
		{"a zero-time response closes the turn", []Event{TurnStarted{At: ms0(10)}, ModelResponded{}}, 10,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, time.Duration(math.MinInt64), s.ModelTime, "[T, zero] saturates negative")
			}},
		{"an open turn with a zero start runs to the end", []Event{UserMessage{At: ms0(50)}, UserMessage{At: ms0(60)},
			TurnStarted{}}, 0,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, time.Duration(math.MaxInt64), s.ModelTime, "[zero, latest 60 ms] saturates")
			}},
		{"negative intervals count in the merged sums", []Event{
			ToolStarted{At: ms0(50), CallID: "a", OpID: "1"}, ToolFinished{At: ms0(20), CallID: "a", OpID: "1", OK: true},
			ToolStarted{At: ms0(60), CallID: "b", OpID: "2"}, ToolFinished{At: ms0(70), CallID: "b", OpID: "2", OK: true}}, 70,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, -20*time.Millisecond, s.ToolBusyTime, "-30 ms + 10 ms: the second starts after the first's end")
			}},
		{"a reversed interval takes part in the sweep", []Event{
			ToolStarted{At: ms0(10), CallID: "a", OpID: "1"}, ToolFinished{At: ms0(5), CallID: "a", OpID: "1", OK: true},
			ToolStarted{At: ms0(7), CallID: "b", OpID: "2"}, ToolFinished{At: ms0(9), CallID: "b", OpID: "2", OK: true}}, 10,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, 0, s.MaxParallelTools, "the end at 5 comes before the start at 7")
			}},
		{"the empty op_id is an ordinary key", []Event{ToolStarted{At: ms0(0), CallID: "a"},
			ToolStarted{At: ms0(5), CallID: "b"}, ToolFinished{At: ms0(8), CallID: "a"}, ToolFinished{At: ms0(9), CallID: "b"}}, 9,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, 8*time.Millisecond, s.ToolBusyTime, `the second start of op "" is ignored, the first finish closes it`)
				assert.Equal(t, 1, s.MaxParallelTools)
				assert.Equal(t, 2, s.FailedToolCalls)
			}},
		{"an assistant message with empty text is the last text", []Event{AssistantMessage{At: ms0(0), Text: "draft"},
			AssistantMessage{At: ms0(1), Text: "", Final: true}}, 1,
			func(t *testing.T, s Stats, answer string) {
				assert.False(t, s.FinalAnswer)
				assert.Equal(t, "", answer)
			}},
		{"a final answer survives later non-final text", []Event{AssistantMessage{At: ms0(0), Text: "A", Final: true},
			AssistantMessage{At: ms0(1), Text: "note"}}, 1,
			func(t *testing.T, s Stats, answer string) {
				assert.True(t, s.FinalAnswer)
				assert.Equal(t, "A", answer)
			}},
		{"negative milliseconds truncate toward zero", []Event{TurnStarted{At: ms0(10)}, ModelResponded{At: ms0(8.5)}}, 10,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, -1500*time.Microsecond, s.ModelTime)
				assert.Equal(t, int64(-1), statsToDTO(s).ModelMS)
			}},
		{"the last final message wins", []Event{AssistantMessage{At: ms0(0), Text: "one", Final: true}, AssistantMessage{At: ms0(1), Text: "two", Final: true},
			AssistantMessage{At: ms0(2), Text: "after"}}, 2,
			func(t *testing.T, s Stats, answer string) {
				assert.True(t, s.FinalAnswer)
				assert.Equal(t, "two", answer)
			}},
		{"stop complete is not counted", []Event{ModelResponded{At: ms0(0), Stop: StopComplete}, ModelResponded{At: ms0(1)},
			ModelResponded{At: ms0(2), Stop: "max_tokens", Failure: "cut"}, ModelResponded{At: ms0(3), Stop: "max_tokens", Usage: Tokens{InputTokens: 5, OutputTokens: 2}}}, 3,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, map[string]int{"max_tokens": 2}, s.StopReasons)
				assert.Equal(t, []string{"cut"}, s.Failures)
				assert.Equal(t, Tokens{InputTokens: 5, OutputTokens: 2}, s.Tokens)
			}},
		{"microseconds are summed before truncation", []Event{
			TurnStarted{At: ms0(0)}, ModelResponded{At: ms0(1.6)}, TurnStarted{At: ms0(10)}, ModelResponded{At: ms0(11.6)},
			TurnStarted{At: ms0(20)}, ModelResponded{At: ms0(21.6)}}, 22,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, 4800*time.Microsecond, s.ModelTime)
				assert.Equal(t, int64(4), statsToDTO(s).ModelMS, "4.8 ms, not 1+1+1")
			}},
		{"tool and model overlap", []Event{TurnStarted{At: ms0(0)}, ToolStarted{At: ms0(50), CallID: "a", OpID: "1"},
			ModelResponded{At: ms0(100)}, ToolFinished{At: ms0(150), CallID: "a", OpID: "1", OK: true},
			TurnStarted{At: ms0(140)}, ModelResponded{At: ms0(200)}}, 200,
			func(t *testing.T, s Stats, _ string) {
				assert.Equal(t, 160*time.Millisecond, s.ModelTime)
				assert.Equal(t, 100*time.Millisecond, s.ToolBusyTime)
				assert.Equal(t, 60*time.Millisecond, s.ToolModelOverlap)
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var col Fold
			for _, e := range c.events {
				col.AddEvent(e)
			}
			col.EndAt(ms0(c.close))
			s := col.Stats()
			assert.NotNil(t, s.ToolsByName)
			c.check(t, s, col.Answer())
		})
	}
}

func TestSummarizeCutOffStream(t *testing.T) {
	full := write(t, realisticRun())
	ls := lines(full)
	cut := bytes.Join(ls[:len(ls)-3], []byte("\n")) // through the second turn_started, then a cut-off line
	cut = append(cut, []byte("\n{\"v\":1,\"type\":\"tool_fin")...)
	r, err := Summarize(bytes.NewReader(cut))
	require.NoError(t, err)
	assert.True(t, r.CutOff)
	assert.Nil(t, r.Recorded)
	assert.Equal(t, 1, r.LineErrors)
	assert.ErrorIs(t, r.FirstErrors[0], ErrTruncated)
	s := r.Summary
	assert.Equal(t, -1, s.RunnerExitCode)
	assert.Equal(t, string(StatusError), s.Status)
	assert.Equal(t, "20260923T123918Z-demo", s.RunID)
	assert.Equal(t, t0, s.StartedAt)
	assert.Equal(t, int64(2845), s.WallMS, "from run_started to the last event")
	assert.Equal(t, 2, s.Stats.Turns)
	assert.Equal(t, int64(2686), s.Stats.ModelMS, "the open turn closes at the last event")
	assert.Equal(t, 3, s.Stats.ToolCalls)

	r, err = Summarize(strings.NewReader(""))
	require.NoError(t, err)
	assert.True(t, r.CutOff)
	assert.Equal(t, 0, r.Lines)
}

func TestSummarizeIgnoresLinesAfterRunFinished(t *testing.T) {
	b := append(write(t, realisticRun()), write(t, []Event{UserMessage{At: t0.Add(time.Hour)}})...)
	r, err := Summarize(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Equal(t, r.Recorded.Stats, r.Summary.Stats)
}

var errCrash = errors.New("crash")

// manyEvents is a realistic mix of n events: runs of turns with parallel
// tool calls, thousands of calls per run.
func manyEvents(n int) []Event {
	evs := make([]Event, 0, n)
	for i := 0; len(evs) < n; i++ {
		base := ms0(float64(i) * 1000)
		call := fmt.Sprint("call_", i)
		evs = append(evs,
			TurnStarted{At: base, Turn: i + 1},
			ModelResponded{At: base.Add(300 * time.Millisecond), Turn: i + 1, Usage: Tokens{InputTokens: 1000, OutputTokens: 50}, Stop: StopComplete},
			ToolCalled{At: base.Add(300 * time.Millisecond), CallID: call + "a", Name: "Bash"},
			ToolCalled{At: base.Add(300 * time.Millisecond), CallID: call + "b", Name: "Read"},
			ToolStarted{At: base.Add(301 * time.Millisecond), CallID: call + "a", OpID: call + "a", Name: "Bash"},
			ToolStarted{At: base.Add(302 * time.Millisecond), CallID: call + "b", OpID: call + "b", Name: "Read"},
			ToolFinished{At: base.Add(500 * time.Millisecond), CallID: call + "a", OpID: call + "a", Name: "Bash", OK: i%7 != 0},
			ToolFinished{At: base.Add(900 * time.Millisecond), CallID: call + "b", OpID: call + "b", Name: "Read", OK: true},
			AssistantMessage{At: base.Add(950 * time.Millisecond), Text: "progress"},
			ReasoningSummary{At: base.Add(960 * time.Millisecond), Text: "thinking"},
		)
	}
	return evs[:n]
}

// BenchmarkStats folds a realistic mix of events: one run of n/10 turns,
// each with two parallel tool calls. Time per event should grow only with
// log n (the final sort), and memory with the calls and intervals.
func BenchmarkStats(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			evs := manyEvents(n)
			b.ReportAllocs()
			for b.Loop() {
				var c Fold
				for _, e := range evs {
					c.AddEvent(e)
				}
				c.EndAt(evs[n-1].OccurredAt())
				_ = c.Stats()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/event")
		})
	}
}

// The worked examples of DESIGN.md, "Stats", each after run_started at T.
func TestStatsWorkedExamples(t *testing.T) {
	T := t0
	sec := func(n int) time.Time { return T.Add(time.Duration(n) * time.Second) }
	fold := func(evs ...Event) (StatsDTO, string) {
		var c Fold
		c.AddEvent(RunStarted{At: T})
		for _, e := range evs {
			c.AddEvent(e)
		}
		c.EndAt(sec(20))
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
