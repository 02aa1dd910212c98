//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/internal/corpus"
	"github.com/uagentkit/stream/internal/runs"
	"github.com/uagentkit/stream/internal/sessions"
	"github.com/uagentkit/stream/internal/testenv"
)

// stats and validate of one long real-shaped run (180 MB, lines up to
// 4 MB: corpus.LongRun) peak under 64 MiB of resident memory, the whole
// process: the fold keeps times, counts, names and the ids it must pair,
// not the run's texts. (Before the fold kept no text, they peaked at 238
// and 222 MiB.) Not under -race, whose memory is another's.
func TestLongRunMemoryIsBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("-race changes what memory is")
	}
	path := filepath.Join(t.TempDir(), "run.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	require.NoError(t, corpus.Write(w, corpus.LongRun(180<<20)))
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	for _, command := range []string{"stats", "validate"} {
		peak, out := testenv.PeakRSS(t, self(t), command, path)
		t.Logf("%s: peak RSS %d MiB", command, peak>>20)
		require.Less(t, peak, int64(64<<20), "%s of a 180 MB run", command)
		if command == "validate" {
			require.Empty(t, out, "the run is valid")
		}
	}
}

// writeFile writes what write writes to a file under t.TempDir.
func writeFile(t *testing.T, name string, write func(w *bufio.Writer)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	write(w)
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	return path
}

// stats and cat of a session stream of 20,000 short runs peak under 64
// MiB: a run that has ended is reduced to what the session still needs
// (its totals), and what is said of it is said when it ends. (They
// peaked at 715 and 335 MB for 100,000 runs when every run's fold was
// kept to the end.)
func TestManyRunsMemoryIsFlat(t *testing.T) {
	if raceEnabled {
		t.Skip("-race changes what memory is")
	}
	runs := make([]sessions.Run, 20000)
	for i := range runs {
		runs[i] = sessions.Run{Message: "go on", Answer: "Done.", Calls: 1}
	}
	path := writeFile(t, "session.jsonl", func(w *bufio.Writer) { w.Write(sessions.Write(sessions.Options{Runs: runs})) })
	for _, command := range []string{"stats", "cat"} {
		peak, _ := testenv.PeakRSS(t, self(t), command, path)
		t.Logf("%s: peak RSS %d MiB", command, peak>>20)
		assert.Less(t, peak, int64(64<<20), "%s of a session of 20,000 runs", command)
	}
}

// cat of one run with 250,000 tool operations peaks under 112 MiB: what
// the transcript keeps of an operation is what is still open, not what
// has closed. (It peaked at 658 MB for 1.19 M operations, about 138 MB
// for as many as here; it measures 83 to 97 MiB from run to run, the
// most on a CI machine busy with other tests.)
func TestManyOperationsMemoryIsBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("-race changes what memory is")
	}
	path := writeFile(t, "run.jsonl", func(w *bufio.Writer) {
		sink := stream.NewSink(w)
		at := runs.T0
		sink.Emit(stream.RunStarted{At: at, RunID: "r", SessionID: "s", Provider: "p", Model: "m"})
		for i := range 250000 {
			id := fmt.Sprintf("call_%07d", i)
			at = at.Add(time.Millisecond)
			sink.Emit(stream.ToolCalled{At: at, CallID: id, Name: "Bash", Label: "ls -la /tmp", Arguments: `{"command":"ls -la /tmp"}`})
			sink.Emit(stream.ToolStarted{At: at, CallID: id, OpID: "op_" + id, Name: "Bash", Label: "ls -la /tmp", OpType: "shell"})
			sink.Emit(stream.ToolFinished{At: at.Add(time.Millisecond), CallID: id, OpID: "op_" + id, Name: "Bash", Label: "ls -la /tmp",
				OK: true, Detail: "exit 0", Duration: time.Millisecond, OpType: "shell"})
		}
		sink.Emit(stream.ToolStarted{At: at, CallID: "last", OpID: "op_last", Name: "Bash", Label: "sleep 1", OpType: "shell"})
		require.NoError(t, sink.Err())
	})
	peak, out := testenv.PeakRSS(t, self(t), "cat", "--no-color", path)
	t.Logf("cat: peak RSS %d MiB", peak>>20)
	require.Less(t, peak, int64(112<<20), "cat of a run of 250,000 operations")
	require.Contains(t, string(out), "sleep 1 · still running", "the open operation is said at the end")
}

// manyRuns is a history of 10,000 runs in two homes (a tenth in both),
// written once per test binary (its files take seconds to create) and
// removed when the tests end: the tests only read it.
var manyRuns = sync.OnceValues(func() ([]string, error) {
	root, err := os.MkdirTemp("", "uagent-stream-many-")
	if err != nil {
		return nil, err
	}
	cleanupMany = func() { os.RemoveAll(root) }
	return historytest.Many(root, 10000)
})

// ls and usage of a history of 10,000 runs in two homes (a tenth in
// both) peak under 64 MiB: they read each run's summary and request, not
// its records, and keep a run's figures, not its files. (BenchmarkList
// and BenchmarkUsage in history measure the time.)
func TestHistoryListsInBoundedMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("-race changes what memory is")
	}
	dirs, err := manyRuns()
	require.NoError(t, err)
	for _, command := range [][]string{{"ls", "--limit", "0"}, {"usage"}, {"ls", "--runs", "--json"}} {
		args := append(append([]string{self(t)}, command...), "--state-dir", dirs[0], "--state-dir", dirs[1])
		peak, _ := testenv.PeakRSS(t, args...)
		t.Logf("%s: peak RSS %d MiB", command, peak>>20)
		assert.Less(t, peak, int64(64<<20), "%s of a history of 10,000 runs", command)
	}
}

// serve of a history of 10,000 runs stays under 128 MiB of resident
// memory after serving the index, ten session pages (each page's routes:
// events, session, intervals, children) and the usage page; and it
// follows the history (Reopen every second) without reading it all again.
// BenchmarkHistoryIndex in ssestream measures the index's time.
func TestServeHistoryMemoryIsBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("-race changes what memory is")
	}
	dirs, err := manyRuns()
	require.NoError(t, err)
	url, cmd, stderr := served(t, nil, "--state-dir", dirs[0], "--state-dir", dirs[1])
	getBody := func(path string) []byte {
		res, err := http.Get(url + path)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", path, b)
		return b
	}
	var sessions []struct {
		SessionID string `json:"session_id"`
	}
	require.NoError(t, json.Unmarshal(getBody("/api/sessions"), &sessions))
	require.Len(t, sessions, 100, "a page of the 2,000 sessions")
	getBody("/")
	for _, s := range sessions[:10] {
		for _, r := range []string{"", "events", "session", "intervals", "children"} {
			getBody("/sessions/" + s.SessionID + "/" + r)
		}
	}
	getBody("/usage")
	getBody("/api/usage")
	time.Sleep(2 * time.Second) // a Reopen or two
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	require.NoError(t, err)
	var peak int64
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			fmt.Sscanf(strings.TrimSpace(v), "%d", &peak)
		}
	}
	t.Logf("serve of 10,000 runs: peak RSS %d MiB", peak>>10)
	assert.Less(t, peak<<10, int64(128<<20), "peak RSS; stderr: %s", stderr.String())
}

// ls of 500 runs whose request.json is 2 MB each (a long conversation's
// messages) peaks under 64 MiB: the index keeps of a request only its
// title, never the request.
func TestHistoryOfLargeRequestsListsInBoundedMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("-race changes what memory is")
	}
	dirs, err := historytest.Many(t.TempDir(), 500)
	require.NoError(t, err)
	big := strings.Repeat("the output of a long command, pasted in. ", 2<<20/40)
	for _, d := range dirs {
		runs, err := os.ReadDir(filepath.Join(d, "runs"))
		require.NoError(t, err)
		for _, r := range runs {
			req, err := json.Marshal(map[string]any{"prompt": "task " + r.Name(), "session_id": "s-" + r.Name(),
				"messages": []map[string]string{{"role": "user", "content": big}}})
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(d, "runs", r.Name(), "request.json"), req, 0o644))
		}
	}
	args := []string{self(t), "ls", "--runs", "--limit", "0", "--state-dir", dirs[0], "--state-dir", dirs[1]}
	peak, out := testenv.PeakRSS(t, args...)
	t.Logf("ls of 500 runs of 2 MB requests: peak RSS %d MiB", peak>>20)
	assert.Less(t, peak, int64(64<<20))
	assert.Contains(t, string(out), "task 2026", "their titles")
}
