package stream_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/runs"
)

// The fold against a second implementation written from DESIGN.md's words:
// the same stats, the same answer, and the same intervals paired, on 5,000
// random runs where anything goes.
func TestFoldMatchesReference(t *testing.T) {
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
		var c stream.Fold // the zero value is ready
		for _, e := range evs {
			c.AddEvent(e)
		}
		c.EndAt(closeAt)
		want, wantAnswer, wantModel, wantTools := runs.Reference(evs, closeAt)
		got := c.Stats()
		if d := cmp.Diff(want, got); d != "" || wantAnswer != c.Answer() {
			t.Fatalf("run %d: stats (-reference +collector):\n%s\nanswer %q, reference %q\nevents: %s", i, d, c.Answer(), wantAnswer, fmt.Sprint(evs))
		}
		gotModel, gotTools := [][2]time.Time{}, [][2]time.Time{}
		for _, iv := range c.Turns() {
			gotModel = append(gotModel, [2]time.Time{iv.Start, iv.End})
		}
		for _, iv := range c.Tools() {
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
		stats, answer, _, _ := runs.Reference(evs, end)
		res := stream.Result{Request: stream.Request{RunID: "r", Provider: "p", Model: "m"}, StartedAt: runs.T0, Wall: max(0, end.Sub(runs.T0)), // a monotonic clock's
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
		// Times the generator sent backwards, past the run's start, are
		// what a clock that stepped back writes: a warning, not a finding.
		findings = slices.DeleteFunc(findings, stream.Finding.Warning)
		if len(findings) > 0 {
			t.Fatalf("run %d: %v\n%s", i, findings, buf.Bytes())
		}
	}
}

// The stats are the caller's own: a tool name in ToolsByName does not
// share the fold's memory (whose 64 KiB blocks it would keep alive: an
// export of 1,000 runs kept 53 MB of them in its runs rows).
func TestStatsDoNotShareTheFoldsMemory(t *testing.T) {
	var f stream.Fold
	f.AddEvent(stream.ToolCalled{At: time.Unix(1, 0), CallID: "c1", Name: "Bash"})
	var name string
	for k := range f.Stats().ToolsByName {
		name = k
	}
	require.Equal(t, "Bash", name)
	require.NotSame(t, unsafe.StringData(f.Call(0).Name), unsafe.StringData(name))
}

// A run whose run_finished knows its end only to the millisecond (a run
// rebuilt from its directory) agrees with the summary the runner computed
// at its exact end, on 3,000 random runs: the reference's stats at an end
// with nanoseconds, run_finished at that end truncated. A summary that no
// end of the millisecond gives still differs.
func TestARunEndKnownToTheMillisecond(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	settled, flagged := 0, 0
	for range 3000 {
		evs := runs.Random(r, true)
		if len(evs) == 0 {
			continue
		}
		if _, ok := evs[len(evs)-1].(stream.RunFinished); ok {
			evs = evs[:len(evs)-1]
		}
		start := evs[0].OccurredAt()
		last := start
		for _, e := range evs {
			if at := e.OccurredAt(); at.After(last) {
				last = at
			}
		}
		end := last.Add(time.Duration(r.Int64N(5_000_000_000)))
		stats, answer, _, _ := runs.Reference(evs, end)
		rebuilt := start.Add(end.Sub(start).Truncate(time.Millisecond))
		fin := stream.RunFinished{At: rebuilt, Result: stream.Result{Stats: stats, Answer: answer}, EndWithin: time.Millisecond}
		fold := func(fin stream.RunFinished) stream.Recomputed {
			var f stream.Fold
			for _, e := range evs {
				f.AddEvent(e)
			}
			f.AddEvent(fin)
			return f.Recomputed()
		}
		require.Empty(t, fold(fin).Diff, "a summary at the exact end %s agrees", end)
		if exact := fold(stream.RunFinished{At: rebuilt, Result: fin.Result}); len(exact.Diff) > 0 {
			settled++
		}
		wrong := fin
		wrong.Result.Stats.ToolBusyTime += 2 * time.Millisecond // the tools' time grows less than the end does
		if fin.Result.Stats.ToolBusyTime > 0 {
			require.NotEmpty(t, fold(wrong).Diff, "more time of tools than any end gives")
			flagged++
		}
	}
	t.Logf("%d runs differ at run_finished's time and agree within its millisecond; %d flagged", settled, flagged)
	require.Positive(t, settled)
	require.Positive(t, flagged)
}
