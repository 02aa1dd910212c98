//go:build unix

package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/internal/runs"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/tablestream"
)

func runIDs(rows []tablestream.RunRow) []string {
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.RunID)
	}
	slices.Sort(ids)
	return ids
}

// A state directory exports each of its runs once, grouped into sessions
// (the sessions table, and each run's place in its session), whatever
// cannot be read of it said; a second export into the same directory adds
// nothing, and readers see every run once.
func TestExportStateDirectory(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := runCmd(t, "", "export", "--allow-errors", "-o", out, stateDir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "not-a-run: not a run directory")
	assert.Contains(t, stderr, "stray.txt: not a run directory")
	assert.Contains(t, stderr, "exported 6 runs")
	want := []string{"20261101-090000-5f3c2a1e", "20261101-100000-5f3c2a1e", "20261101-110000-5f3c2a1e",
		"20261101-120000-aaaa0000", "20261101-130000-bbbb0000", "20261101-140000-cccc0000"}
	rows := readTable[tablestream.RunRow](t, out, "runs")
	assert.Equal(t, want, runIDs(rows))
	seq := map[string]int64{}
	for _, r := range rows {
		seq[r.RunID] = r.SessionSeq
	}
	assert.Equal(t, map[string]int64{"20261101-090000-5f3c2a1e": 1, "20261101-100000-5f3c2a1e": 2, "20261101-110000-5f3c2a1e": 3,
		"20261101-120000-aaaa0000": 0, "20261101-130000-bbbb0000": 1, "20261101-140000-cccc0000": 1}, seq)
	sessions := readTable[tablestream.SessionRow](t, out, "sessions")
	require.Len(t, sessions, 3)
	s := sessions[0]
	assert.Equal(t, "5f3c2a1e-1111-4222-8333-944455556666", s.SessionID)
	assert.Equal(t, int64(3), s.Runs)
	assert.Equal(t, time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC), s.StartedAt.UTC(), "the first run's start")
	assert.Equal(t, "cut_off", s.Status, "the last run's: its summary says running, and nobody holds its session's lock")
	assert.Equal(t, int64(900+1200+1500+300), s.TokensInput, "the runs' tokens summed")

	code, _, stderr = runCmd(t, "", "export", "--allow-errors", "-o", out, stateDir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "exported 0 runs to "+out+" (6 it held already)")
	assert.Equal(t, want, runIDs(readTable[tablestream.RunRow](t, out, "runs")), "every run once, after the second export")
	assert.Len(t, readTable[tablestream.SessionRow](t, out, "sessions"), 3)
}

// A run exported while it runs is replaced once it has finished: its rows
// in every table are the finished run's, once.
func TestExportReplacesARunOnceFinished(t *testing.T) {
	state := t.TempDir()
	run := filepath.Join(state, "runs", "20261101-100000-5f3c2a1e")
	copyDir(t, runDir("20261101-100000-5f3c2a1e"), run)
	events, err := os.ReadFile(filepath.Join(run, statedir.EventsFile))
	require.NoError(t, err)
	summary, err := os.ReadFile(filepath.Join(run, statedir.SummaryFile))
	require.NoError(t, err)
	// Halfway: the first four records, and a summary that says running.
	half := strings.SplitAfterN(string(events), "\n", 5)
	require.NoError(t, os.WriteFile(filepath.Join(run, statedir.EventsFile), []byte(strings.Join(half[:4], "")), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(run, statedir.SummaryFile), []byte(strings.Replace(string(summary), `"status": "ok"`, `"status": "running"`, 1)), 0o644))
	release, err := historytest.Hold(state, "5f3c2a1e-1111-4222-8333-944455556666") // uagent's, while it runs
	require.NoError(t, err)
	defer release()
	out := t.TempDir()
	code, _, stderr := runCmd(t, "", "export", "-o", out, state)
	require.Equal(t, 0, code, "a run still going is normal: %s", stderr)
	assert.Contains(t, stderr, "20261101-100000-5f3c2a1e: still running: exported as unfinished")
	rows := readTable[tablestream.RunRow](t, out, "runs")
	require.Len(t, rows, 1)
	assert.True(t, rows[0].CutOff)
	assert.Len(t, readTable[tablestream.TurnRow](t, out, "turns"), 1, "the open turn")

	code, _, stderr = runCmd(t, "", "export", "-o", out, state)
	require.Equal(t, 0, code, "nothing exported, nothing to say: %s", stderr)
	assert.Contains(t, stderr, "exported 0 runs to "+out+" (1 it held already)", "unchanged: held, not exported again")

	require.NoError(t, os.WriteFile(filepath.Join(run, statedir.EventsFile), events, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(run, statedir.SummaryFile), summary, 0o644))
	code, _, stderr = runCmd(t, "", "export", "-o", out, state)
	require.Equal(t, 0, code, stderr)
	rows = readTable[tablestream.RunRow](t, out, "runs")
	require.Len(t, rows, 1, "the run once")
	assert.False(t, rows[0].CutOff)
	assert.Equal(t, "ok", rows[0].Status)
	assert.Len(t, readTable[tablestream.TurnRow](t, out, "turns"), 2, "the finished run's turns, once")
	assert.Len(t, readTable[tablestream.ToolCallRow](t, out, "tool_calls"), 1)
	live, _ := filepath.Glob(filepath.Join(out, "live-*"))
	assert.Empty(t, live, "the unfinished run's batch is gone")
}

// manyTurns writes a run of n turns to a file.
func manyTurns(t *testing.T, dir string, i, n int) string {
	evs := []stream.Event{stream.RunStarted{At: runs.T0, RunID: "big-" + itoa(i)}}
	at := runs.T0
	for k := range n {
		evs = append(evs, stream.TurnStarted{At: at, Turn: k + 1}, stream.ModelResponded{At: at.Add(time.Millisecond), Turn: k + 1})
		at = at.Add(2 * time.Millisecond)
	}
	evs = append(evs, stream.RunFinished{At: at, Result: stream.Result{Status: stream.StatusOK}})
	p := filepath.Join(dir, "big-"+itoa(i)+".jsonl")
	require.NoError(t, os.WriteFile(p, runs.Write(evs), 0o644))
	return p
}

// An export killed as soon as its first part is written (kill -9), or
// interrupted (SIGINT), leaves readers nothing of it: no part where they
// look, and the interrupted one no file of its own at all; it says so and
// exits 130. The next export finds the killed one's leavings and removes
// them.
func TestExportInterruptedPublishesNothing(t *testing.T) {
	in := t.TempDir()
	for i := range 12 {
		manyTurns(t, in, i, 20000)
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			out := t.TempDir()
			cmd := exec.Command(self(t), "export", "-o", out, in)
			var stderr syncBuffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			require.Eventually(t, func() bool {
				parts, _ := filepath.Glob(filepath.Join(out, ".staging", "*", "*", "*", "*.parquet"))
				return len(parts) > 0
			}, 30*time.Second, time.Millisecond, "a part is being written")
			require.NoError(t, cmd.Process.Signal(sig))
			code := waitExit(t, cmd)
			for _, table := range []string{"runs", "turns", "tool_calls", "notices", "messages", "sessions"} {
				parts, _ := filepath.Glob(filepath.Join(out, "*", table, "*.parquet"))
				assert.Empty(t, parts, "%s: nothing where readers look", table)
			}
			if sig == syscall.SIGINT {
				assert.Equal(t, 130, code)
				assert.Contains(t, stderr.String(), "export interrupted: nothing of it was published")
				left, _ := filepath.Glob(filepath.Join(out, ".*", "*"))
				assert.Empty(t, left, "no leavings")
				return
			}
			code, _, errs := runCmd(t, "", "export", "-o", out, in)
			require.Equal(t, 0, code, errs)
			left, _ := filepath.Glob(filepath.Join(out, ".staging", "*"))
			assert.Empty(t, left, "the killed export's staging is removed")
			assert.Len(t, readTable[tablestream.RunRow](t, out, "runs"), 12)
			assert.Len(t, readTable[tablestream.TurnRow](t, out, "turns"), 12*20000)
		})
	}
}

// A write that fails (here a file size limit, as a full disk would) ends
// the export, names the input whose rows it was writing, and publishes
// nothing.
func TestExportFailedWriteNamesItsInput(t *testing.T) {
	in := t.TempDir()
	big := manyTurns(t, in, 0, 20000)
	out := t.TempDir()
	cmd := exec.Command("sh", "-c", `ulimit -f 64 && exec "$0" export -o "$1" "$2"`, self(t), out, big)
	b, _ := cmd.CombinedOutput()
	assert.NotEqual(t, 0, cmd.ProcessState.ExitCode(), "%s", b)
	assert.Contains(t, string(b), "of "+big+":", "the input named")
	assert.Contains(t, string(b), "nothing of this export was published")
	parts, _ := filepath.Glob(filepath.Join(out, "*", "*", "*.parquet"))
	assert.Empty(t, parts)
	left, _ := filepath.Glob(filepath.Join(out, ".staging", "*"))
	assert.Empty(t, left)
}

// A missing FILE and a FIFO among the inputs are said and left out; the
// rest is exported (exit 1, or 0 with --allow-errors), and nothing hangs
// on the FIFO. (A directory that cannot be listed: parquetstream's
// TestSourcesLeaveOutWhatTheyCannotRead.)
func TestExportLeavesOutWhatItCannotRead(t *testing.T) {
	in := t.TempDir()
	manyTurns(t, in, 1, 2)
	require.NoError(t, syscall.Mkfifo(filepath.Join(in, "pipe.jsonl"), 0o644))

	out := t.TempDir()
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		defer close(done)
		code, _, stderr = runCmd(t, "", "export", "-o", out, in, filepath.Join(in, "missing.jsonl"))
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("export hangs on the FIFO")
	}
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "pipe.jsonl: not a regular file (left out)")
	assert.Contains(t, stderr, "missing.jsonl")
	assert.Contains(t, stderr, "exported 1 runs")
	assert.Len(t, readTable[tablestream.RunRow](t, out, "runs"), 1)
}

// A run directory whose name is not valid UTF-8 (uagent cuts a session id
// to 8 bytes, in the middle of a character) is exported once, by its run
// id, and every string column is valid UTF-8: the name is written with
// its bad bytes escaped, and export says so.
func TestExportANameThatIsNotUTF8(t *testing.T) {
	state := t.TempDir()
	name := "20261101-100000-日本\xe8\xaa"
	copyDir(t, runDir("20261101-100000-5f3c2a1e"), filepath.Join(state, "runs", name))
	require.NoError(t, os.Remove(filepath.Join(state, "runs", name, statedir.SummaryFile))) // the run id is the directory's name
	out := t.TempDir()
	for i := range 2 {
		code, _, stderr := runCmd(t, "", "export", "--allow-errors", "-o", out, state)
		require.Equal(t, 0, code, stderr)
		if i == 0 {
			assert.Contains(t, stderr, "exported 1 runs")
			assert.Contains(t, stderr, `not valid UTF-8: written with its bad bytes escaped as \xNN`)
		} else {
			assert.Contains(t, stderr, "exported 0 runs to "+out+" (1 it held already)", "not exported again")
		}
	}
	rows := readTable[tablestream.RunRow](t, out, "runs")
	require.Len(t, rows, 1)
	assert.Equal(t, `20261101-100000-日本\xe8\xaa`, rows[0].RunID)
	assert.True(t, utf8.ValidString(rows[0].File))
	assert.Contains(t, rows[0].File, `日本\xe8\xaa`)
	for _, r := range readTable[tablestream.TurnRow](t, out, "turns") {
		assert.Equal(t, rows[0].RunID, r.RunID)
	}
}

// A run given as its run directory and as the v1 stream of it is in the
// tables once, known by its run id, whichever came first and whether
// they come in one export or two: one runs row, its session counted once.
func TestExportARunOnceWhateverItCameFrom(t *testing.T) {
	dir := runDir("20261101-100000-5f3c2a1e")
	file := filepath.Join(t.TempDir(), "run.jsonl")
	code, _, stderr := runCmd(t, "", "convert", "-o", file, dir)
	require.Equal(t, 0, code, stderr)
	for _, order := range [][]string{{dir, file}, {file, dir}} {
		for _, together := range []bool{true, false} {
			out := t.TempDir()
			if together {
				code, _, stderr = runCmd(t, "", append([]string{"export", "-o", out}, order...)...)
				require.Equal(t, 0, code, stderr)
			} else {
				for _, in := range order {
					code, _, stderr = runCmd(t, "", "export", "-o", out, in)
					require.Equal(t, 0, code, stderr)
				}
			}
			rows := readTable[tablestream.RunRow](t, out, "runs")
			require.Len(t, rows, 1, "%v, together %v", order, together)
			ss := readTable[tablestream.SessionRow](t, out, "sessions")
			require.Len(t, ss, 1)
			assert.Equal(t, int64(1), ss[0].Runs)
			assert.Equal(t, rows[0].TokensInput, ss[0].TokensInput, "tokens counted once")
			assert.Equal(t, int64(1), rows[0].SessionSeq)
		}
	}
}

// Every export leaves a sessions table that agrees with the runs it
// holds: one that is gone (an export killed between its renames, a batch
// removed by hand) comes back with the next export, even one that has no
// run to add.
func TestExportBringsTheSessionsTableBack(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := runCmd(t, "", "export", "--allow-errors", "-o", out, stateDir)
	require.Equal(t, 0, code, stderr)
	want := readTable[tablestream.SessionRow](t, out, "sessions")
	require.NotEmpty(t, want)
	batches, err := filepath.Glob(filepath.Join(out, "s-*"))
	require.NoError(t, err)
	require.Len(t, batches, 1)
	require.NoError(t, os.RemoveAll(batches[0]))
	code, _, stderr = runCmd(t, "", "export", "--allow-errors", "-o", out, stateDir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "exported 0 runs")
	assert.Equal(t, want, readTable[tablestream.SessionRow](t, out, "sessions"), "the sessions table is back, as it was")
}

// The runs and sessions tables say what each run would cost at API
// prices (the fixture's hand-checked figures), with the day its price
// row was checked: null for a model with no price.
func TestExportCosts(t *testing.T) {
	f := historyHome(t)
	out := t.TempDir()
	code, _, stderr := runCmd(t, "", "export", "--allow-errors", "-o", out, f.Uagent, f.Old, f.Uah)
	require.Equal(t, 0, code, stderr)
	cost := map[string]*float64{}
	checked := map[string]string{}
	for _, r := range readTable[tablestream.RunRow](t, out, "runs") {
		cost[r.RunID], checked[r.RunID] = r.CostUSD, r.PricesChecked
	}
	cents := func(v *float64) float64 { require.NotNil(t, v); return math.Round(*v*1e6) / 1e6 }
	// gpt-5.6-sol of openai-codex, from 2026-08-21 (4, 0.40, 5, 20): 50,000×4 + 10,000×5 + 1,500×20
	assert.Equal(t, 0.28, cents(cost["20261103-090000-e5f60718"]))
	assert.Equal(t, "2026-10-06", checked["20261103-090000-e5f60718"])
	// gpt-5.4 (2.50, 0.25, –, 15): 200,000×2.50 + 800,000×0.25 + 20,000×15
	assert.Equal(t, 1.0, cents(cost["20261101-235000-a1f1a2b3"]))
	assert.Nil(t, cost["20261103-120000-f6071829"], "a model no table has: null, never 0")
	assert.Empty(t, checked["20261103-120000-f6071829"])
	for _, s := range readTable[tablestream.SessionRow](t, out, "sessions") {
		switch s.SessionID {
		case historytest.Flaky: // 1.00 + (100,000×2.50 + 400,000×0.25 + 10,000×15)
			assert.Equal(t, 1.5, cents(s.CostUSD))
		case historytest.Unpriced:
			assert.Nil(t, s.CostUSD)
		}
	}
}
