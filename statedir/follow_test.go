package statedir

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"go.uber.org/goleak"
)

// A run followed while uagent writes it: the records come as their lines
// are completed (a record written in two pieces comes once whole), and
// when summary.json says the run ended, the sequence ends with
// run_finished: the same events as the finished run directory gives.
func TestFollowARunAsItIsWritten(t *testing.T) {
	defer goleak.VerifyNone(t)
	src := filepath.Join(state, "runs", "20261101-100000-5f3c2a1e")
	records, err := os.ReadFile(filepath.Join(src, EventsFile))
	require.NoError(t, err)
	final, err := stream.ReadSummaryFile(filepath.Join(src, SummaryFile))
	require.NoError(t, err)
	home := t.TempDir()
	dir := filepath.Join(home, "runs", filepath.Base(src))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	release, err := hold(home, final.SessionID) // uagent's, while the run goes on
	require.NoError(t, err)
	defer release()
	running := final
	running.Status = "running"
	require.NoError(t, running.WriteFile(filepath.Join(dir, SummaryFile)))
	events := filepath.Join(dir, EventsFile)
	half := len(records) / 2
	require.NoError(t, os.WriteFile(events, records[:half], 0o644)) // a record cut in the middle

	r, err := OpenRun(dir)
	require.NoError(t, err)
	got := make(chan stream.Event)
	go func() {
		defer close(got)
		for e := range r.Follow(context.Background(), time.Millisecond) {
			got <- e
		}
	}()
	var seen []stream.Event
	next := func() stream.Event {
		select {
		case e, ok := <-got:
			require.True(t, ok, "the sequence ended early")
			seen = append(seen, e)
			return e
		case <-time.After(5 * time.Second):
			t.Fatal("no event")
			return nil
		}
	}
	require.IsType(t, stream.RunStarted{}, next())
	f, err := os.OpenFile(events, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(records[half:])
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, final.WriteFile(filepath.Join(dir, SummaryFile)))
	for e := range got {
		seen = append(seen, e)
	}
	require.IsType(t, stream.RunFinished{}, seen[len(seen)-1])

	done, err := OpenRun(dir)
	require.NoError(t, err)
	var want []stream.Event
	for e := range done.Events() {
		want = append(want, e)
	}
	if d := cmp.Diff(want, seen); d != "" {
		t.Errorf("(-the finished run +followed):\n%s", d)
	}
	require.Empty(t, r.Problems())
}

// A run followed whose uagent dies (its session's lock let go of, its
// summary still saying running) ends there, without run_finished, with
// the records it had: stopped, as State says.
func TestFollowEndsWhenTheRunIsStopped(t *testing.T) {
	defer goleak.VerifyNone(t)
	src := filepath.Join(state, "runs", "20261101-100000-5f3c2a1e")
	final, err := stream.ReadSummaryFile(filepath.Join(src, SummaryFile))
	require.NoError(t, err)
	home := t.TempDir()
	dir := filepath.Join(home, "runs", filepath.Base(src))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	running := final
	running.Status = "running"
	require.NoError(t, running.WriteFile(filepath.Join(dir, SummaryFile)))
	records, err := os.ReadFile(filepath.Join(src, EventsFile))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, EventsFile), records, 0o644))
	release, err := hold(home, final.SessionID)
	require.NoError(t, err)
	r, err := OpenRun(dir)
	require.NoError(t, err)
	if _, known := r.Held(); !known {
		release()
		t.Skip("no flock here: a summary saying running is taken at its word")
	}
	require.Equal(t, StateRunning, r.State())
	done := make(chan []stream.Event)
	go func() {
		var got []stream.Event
		for e := range r.Follow(context.Background(), time.Millisecond) {
			got = append(got, e)
		}
		done <- got
	}()
	time.Sleep(20 * time.Millisecond) // followed while the lock is held
	release()                         // uagent dies
	var got []stream.Event
	select {
	case got = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the follower of a stopped run did not end")
	}
	require.NotEmpty(t, got)
	typ, _, _ := stream.HeaderOf(mustDTO(t, got[len(got)-1]))
	assert.NotEqual(t, "run_finished", typ)
	assert.Equal(t, StateStopped, r.State())
}

// Followed until its context ends, a run that goes on ends without
// run_finished; a finished run is its events.
func TestFollowEnds(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	r, err := OpenRun(filepath.Join(state, "runs", "20261101-110000-5f3c2a1e")) // running
	require.NoError(t, err)
	var last stream.Event
	for e := range r.Follow(ctx, time.Millisecond) {
		last = e
	}
	require.NotNil(t, last)
	typ, _, _ := stream.HeaderOf(mustDTO(t, last))
	require.NotEqual(t, "run_finished", typ)

	r, err = OpenRun(filepath.Join(state, "runs", "20261101-100000-5f3c2a1e")) // finished
	require.NoError(t, err)
	n := 0
	for e := range r.Follow(context.Background(), time.Hour) {
		last = e
		n++
	}
	require.IsType(t, stream.RunFinished{}, last)
	require.Greater(t, n, 2)
}

func mustDTO(t *testing.T, e stream.Event) any {
	dto, ok := stream.EventToDTO(e)
	require.True(t, ok)
	return dto
}
