package stream_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
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
