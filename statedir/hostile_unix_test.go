//go:build unix

package statedir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/regular"
)

// A home whose files are not regular ones, or too large, is read without
// blocking: a FIFO where a sidecar, a summary.json, a request.json or an
// events.jsonl should be, a sidecar that is a link to /dev/zero, and a
// sidecar over MaxSidecarFile are each named as a problem and left out;
// the rest of the history is read.
func TestHostileFilesInAHome(t *testing.T) {
	home := t.TempDir()
	sessions := filepath.Join(home, "sessions")
	require.NoError(t, os.MkdirAll(sessions, 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(sessions, "fifo.uah.json"), 0o644))
	if err := os.Symlink("/dev/zero", filepath.Join(sessions, "zero.uah.json")); err != nil {
		t.Fatal(err)
	}
	require.NoError(t, os.WriteFile(filepath.Join(sessions, "big.uah.json"), []byte(`{"source":"tui","first_prompt":"`+strings.Repeat("x", MaxSidecarFile)+`"}`), 0o644))
	good := filepath.Join(home, "runs", "20261101-090000-5f3c2a1e")
	require.NoError(t, os.MkdirAll(good, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(good, RequestFile), []byte(`{"prompt":"fine","session_id":"5f3c2a1e"}`), 0o644))
	bad := filepath.Join(home, "runs", "20261101-100000-6f3c2a1e")
	require.NoError(t, os.MkdirAll(bad, 0o755))
	for _, f := range []string{SummaryFile, RequestFile, EventsFile} {
		require.NoError(t, syscall.Mkfifo(filepath.Join(bad, f), 0o644))
	}

	done := make(chan *History, 1)
	go func() { done <- OpenHistory(home) }()
	var h *History
	select {
	case h = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("reading the history blocked on a file that is not a regular one")
	}
	problems := append(h.Problems(), h.runs[len(h.runs)-1].Problems()...)
	for _, r := range h.Runs() {
		problems = append(problems, r.Problems()...)
	}
	var notRegular, tooLarge int
	for _, p := range problems {
		switch {
		case errors.Is(p, regular.ErrNotRegular):
			notRegular++
		case errors.Is(p, regular.ErrTooLarge):
			tooLarge++
		}
	}
	assert.GreaterOrEqual(t, notRegular, 4, "the FIFO sidecar, /dev/zero, the FIFO summary and request: %v", problems)
	assert.Equal(t, 1, tooLarge, "%v", problems)
	assert.Len(t, h.Runs(), 2)
	assert.Nil(t, h.Sidecar("fifo"))

	events := make(chan int, 1)
	go func() {
		r, err := OpenRun(bad)
		require.NoError(t, err)
		n := 0
		for range r.Events() {
			n++
		}
		events <- n
	}()
	select {
	case n := <-events:
		assert.Equal(t, 1, n, "run_started: its summary and records left out, it is read as cut off")
	case <-time.After(20 * time.Second):
		t.Fatal("reading a run blocked on a FIFO events.jsonl")
	}
}
