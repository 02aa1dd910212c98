package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/tablestream"
)

// The hand-written state directory of the statedir package's tests.
var stateDir = filepath.Join("..", "..", "statedir", "testdata", "state")

func runDir(id string) string { return filepath.Join(stateDir, "runs", id) }

// copyDir copies a directory tree.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	}))
}

// convert writes a run directory as the stream its test data expects;
// what could not be read is said on stderr, sanitized, with its file and
// line, and only a broken file makes it exit 1.
func TestConvert(t *testing.T) {
	for _, id := range []string{"20261101-090000-5f3c2a1e", "20261101-100000-5f3c2a1e"} {
		code, out, stderr := runCmd(t, "", "convert", runDir(id))
		want, err := os.ReadFile(filepath.Join(stateDir, "..", id+".stream.jsonl"))
		require.NoError(t, err)
		assert.Equal(t, string(want), out, id)
		assert.Equal(t, 0, code, "cut off or being written is not a failure: %s", stderr)
	}
	_, _, stderr := runCmd(t, "", "convert", runDir("20261101-090000-5f3c2a1e"))
	assert.Contains(t, stderr, "uagent-stream: stream: "+filepath.Join(runDir("20261101-090000-5f3c2a1e"), "events.jsonl")+": line 29: the last record is being written")
	code, _, stderr := runCmd(t, "", "convert", runDir("20261101-120000-aaaa0000"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, filepath.Join(runDir("20261101-120000-aaaa0000"), "summary.json")+": truncated")
	code, _, stderr = runCmd(t, "", "convert", filepath.Join(stateDir, "runs", "not-a-run"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "is not a run directory")
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, _, _ = runCmd(t, "", "convert", "-o", out, runDir("20261101-100000-5f3c2a1e"))
	assert.Equal(t, 0, code)
	_, cat, _ := runCmd(t, "", "cat", "--no-color", out)
	_, catDir, _ := runCmd(t, "", "cat", "--no-color", runDir("20261101-100000-5f3c2a1e"))
	assert.Equal(t, cat, catDir, "cat reads a run directory as its stream")
}

// stats of a run directory is the runner's summary recomputed:
// summary.json's metadata, the stats and answer recomputed from the
// records, with the open turns and tools closed at the run's end as the
// runner closes them; without summary.json, the status as if the runner
// exited 0 and the event span as the wall time. --json, uagent stats'
// flag, is accepted: the output is the same.
func TestStatsOfARunDirectory(t *testing.T) {
	code, out, stderr := runCmd(t, "", "stats", runDir("20261101-100000-5f3c2a1e"))
	require.Equal(t, 0, code, stderr)
	want, err := stream.ReadSummaryFile(filepath.Join(runDir("20261101-100000-5f3c2a1e"), "summary.json"))
	require.NoError(t, err)
	var got stream.SummaryDTO
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, want, got, "the events give what the summary says")
	code, _, _ = runCmd(t, "", "stats", "--check", runDir("20261101-100000-5f3c2a1e"))
	assert.Equal(t, 0, code)
	code, outJSON, _ := runCmd(t, "", "stats", "--json", runDir("20261101-100000-5f3c2a1e"))
	assert.Equal(t, 0, code)
	assert.Equal(t, out, outJSON, "--json changes nothing")

	code, out, stderr = runCmd(t, "", "stats", runDir("20261101-090000-5f3c2a1e"))
	require.Equal(t, 0, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "error", got.Status, "runner errors: error, as if exit 0")
	assert.Equal(t, 0, got.RunnerExitCode)
	assert.Equal(t, got.Stats.EventSpanMS, got.WallMS, "the event span as the wall time")
	assert.Equal(t, int64(9200), got.Stats.EventSpanMS, "from the first observed event (09:00:00.100) to the last (09:00:09.300)")
	assert.Equal(t, 3, got.Stats.Turns)
	assert.Equal(t, "The count is 3.", got.Answer)

	code, out, _ = runCmd(t, "", "stats", runDir("20261101-110000-5f3c2a1e"))
	require.Equal(t, 0, code)
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "running", got.Status, "a running summary's status")
}

// validate checks a run directory's stream, its summary against its events.
func TestValidateARunDirectory(t *testing.T) {
	code, out, stderr := runCmd(t, "", "validate", runDir("20261101-100000-5f3c2a1e"))
	assert.Equal(t, 0, code, out+stderr)
	code, out, _ = runCmd(t, "", "validate", runDir("20261101-140000-cccc0000"))
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "stats.turns is 2, recomputed 0 (stats)", "a summary without its events")
	code, svg, stderr := runCmd(t, "", "timeline", runDir("20261101-100000-5f3c2a1e"))
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, svg, "20261101-100000-5f3c2a1e · openai-codex gpt-6-sol", "timeline reads a run directory")
}

// cat -f of a run directory shows the run as uagent writes it, and stops
// when summary.json says it ended: the same transcript as cat of the
// finished run.
func TestCatFollowARunDirectory(t *testing.T) {
	old := pollInterval
	pollInterval = 5 * time.Millisecond
	t.Cleanup(func() { pollInterval = old })
	src := runDir("20261101-100000-5f3c2a1e")
	records, err := os.ReadFile(filepath.Join(src, statedir.EventsFile))
	require.NoError(t, err)
	final, err := stream.ReadSummaryFile(filepath.Join(src, statedir.SummaryFile))
	require.NoError(t, err)
	home := t.TempDir()
	dir := filepath.Join(home, "runs", filepath.Base(src))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	release, err := historytest.Hold(home, final.SessionID) // uagent's, while the run goes on
	require.NoError(t, err)
	defer release()
	running := final
	running.Status = "running"
	require.NoError(t, running.WriteFile(filepath.Join(dir, statedir.SummaryFile)))
	require.NoError(t, os.WriteFile(filepath.Join(dir, statedir.EventsFile), records[:len(records)/3], 0o644))
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := runCmd(t, "", "cat", "-f", "--no-color", dir)
		done <- result{code, stdout, stderr}
	}()
	time.Sleep(50 * time.Millisecond)
	require.NoError(t, os.WriteFile(filepath.Join(dir, statedir.EventsFile), records, 0o644))
	time.Sleep(50 * time.Millisecond)
	require.NoError(t, final.WriteFile(filepath.Join(dir, statedir.SummaryFile)))
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("cat -f did not stop when the run ended")
	}
	require.Equal(t, 0, r.code, r.stderr)
	_, want, _ := runCmd(t, "", "cat", "--no-color", src)
	require.Equal(t, want, r.stdout)
	require.Contains(t, r.stdout, "── ok · exit 0")
}

// A run that timed out with a turn and a tool still open: the runner
// closed them at its end, 09:00:01.0009, and saved wall_ms 1000 (the
// millisecond truncated), with model_ms, tool_busy_ms and
// tool_model_overlap_ms of 1000, as worked out by hand: the open turn
// from .0003 and the tool from .0002 to 1.0009. The rebuilt run_finished
// is at 09:00:01, where they would be 999: no command says the summary
// disagrees with its events.
func TestAFaithfulRunDirectoryIsNotFlagged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs", "20261101-090000-5f3c2a1e")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	records := `{"Sequence":1,"RecordedAt":"2026-11-01T09:00:00.0001Z","Kind":"turn","Data":{"ID":"t1"}}
{"Sequence":2,"RecordedAt":"2026-11-01T09:00:00.00015Z","Kind":"model_response","Data":{"TurnID":"t1","Response":{"Stop":"tool_use","Output":[{"Type":"tool_call","Data":{"CallID":"c1","Name":"Bash","Arguments":"{\"command\":\"sleep 9\"}"}}],"Usage":{},"Failure":null}}}
{"Sequence":3,"RecordedAt":"2026-11-01T09:00:00.0002Z","Kind":"tool_call_status","Data":{"CallID":"c1","Status":{},"Operations":[{"ID":"o1","Type":"shell","Status":"running","State":{"ProcessGroupID":7}}]}}
{"Sequence":4,"RecordedAt":"2026-11-01T09:00:00.0003Z","Kind":"turn","Data":{"ID":"t2"}}
`
	summary := `{"v":1,"run_id":"20261101-090000-5f3c2a1e","session_id":"5f3c2a1e-1111","provider":"p","model":"m","effort":"","workspace":"/w",
"started_at":"2026-11-01T09:00:00Z","status":"timeout","runner_exit_code":-1,"wall_ms":1000,
"stats":{"event_span_ms":0,"model_ms":1000,"tool_busy_ms":1000,"tool_model_overlap_ms":1000,"turns":2,"user_messages":0,
"model_responses":1,"tool_calls":1,"failed_tool_calls":0,"max_parallel_tools":1,"tools_by_name":{"Bash":1},
"tokens":{"input":0,"cached_input":0,"cache_write_input":0,"output":0,"reasoning":0},"stop_reasons":{"tool_use":1},
"failures":[],"errors":[],"warnings":[],"final_answer":false},"answer":""}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(records), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "summary.json"), []byte(summary), 0o600))

	code, out, stderr := runCmd(t, "", "validate", dir)
	assert.Equal(t, 0, code, "validate: %s%s", out, stderr)
	code, out, stderr = runCmd(t, "", "stats", "--check", dir)
	assert.Equal(t, 0, code, "stats --check: %s%s", out, stderr)
	_, out, _ = runCmd(t, "", "stats", dir)
	var got stream.SummaryDTO
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, [3]int64{1000, 1000, 1000}, [3]int64{got.Stats.ModelMS, got.Stats.ToolBusyMS, got.Stats.ToolModelOverlapMS},
		"stats gives the runner's figures")
	_, out, _ = runCmd(t, "", "cat", "--no-color", dir)
	assert.NotContains(t, out, "disagree")
	tables := t.TempDir()
	code, _, stderr = runCmd(t, "", "export", "-o", tables, filepath.Dir(filepath.Dir(dir)))
	require.Equal(t, 0, code, stderr)
	rows := readTable[tablestream.RunRow](t, tables, "runs")
	require.Len(t, rows, 1)
	assert.False(t, rows[0].SummaryDiffers, "export's summary_differs")

	// The same summary a millisecond off is a difference.
	wrong := strings.Replace(summary, `"tool_busy_ms":1000`, `"tool_busy_ms":1001`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "summary.json"), []byte(wrong), 0o600))
	code, out, _ = runCmd(t, "", "stats", "--check", dir)
	assert.Equal(t, 1, code, out)
	// So is a summary that no single end gives, though each figure is
	// one some end gives: the model's time of an end after .00025 (the
	// open turn's 999.75 ms reach 1000), the tool's of one before .0002.
	wrong = strings.NewReplacer(`"tool_busy_ms":1000`, `"tool_busy_ms":999`, `"tool_model_overlap_ms":1000`, `"tool_model_overlap_ms":999`).Replace(summary)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "summary.json"), []byte(wrong), 0o600))
	code, out, _ = runCmd(t, "", "stats", "--check", dir)
	assert.Equal(t, 1, code, out)
}

// The history in two homes (testdata/history: its README says what it
// holds): export with no FILE reads uagent's state directory and uah's
// home, each run once; the sessions table has uah's titles, sources and
// parents; the broken sidecar is said once, and the rest exported.
func TestExportTheHistoryOfBothHomes(t *testing.T) {
	history, err := filepath.Abs(filepath.Join("..", "..", "testdata", "history"))
	require.NoError(t, err)
	xdg := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(xdg, "unreal-agent"), os.DirFS(filepath.Join(history, "uagent"))))
	t.Setenv("XDG_STATE_HOME", xdg)
	t.Setenv("UAH_STATE_DIR", filepath.Join(history, "uah"))
	for _, content := range []bool{true, false} {
		out := t.TempDir()
		args := []string{"export", "-o", out}
		if content {
			args = append(args, "--content")
		}
		code, _, stderr := runCmd(t, "", args...)
		assert.Equal(t, 1, code, "a broken sidecar is a fault: %s", stderr)
		assert.Equal(t, 1, strings.Count(stderr, "0badc0de"), stderr)
		assert.Contains(t, stderr, "uah's session sidecar cannot be read")
		assert.Contains(t, stderr, "exported 5 runs")
		type row struct {
			ID, Title, Source, Parent string
			Runs                      int64
		}
		var got []row
		for _, s := range readTable[tablestream.SessionRow](t, out, "sessions") {
			title := "<null>"
			if s.Title != nil {
				title = *s.Title
			}
			got = append(got, row{s.SessionID, title, s.Source, s.ParentSessionID, s.Runs})
		}
		title := func(s string) string {
			if !content {
				return "<null>"
			}
			return s
		}
		assert.Equal(t, []row{
			{"5f3c2a1e-1111-4222-8333-944455556666", title("Now list b.txt."), "", "", 1},
			{"7a1b2c3d-0000-4000-8000-000000000001", title("Make the tests pass, then tell me why they failed"), "tui", "", 1},
			{"subagent-9e8f7a6b-0000-4000-8000-000000000002", title("Find the failing test."), "subagent", "7a1b2c3d-0000-4000-8000-000000000001", 1},
			{"4d5e6f70-0000-4000-8000-000000000003", title("Summarize the log."), "run", "", 2},
		}, got)
	}
	// --state-dir, twice, is the same history.
	out := t.TempDir()
	code, _, stderr := runCmd(t, "", "export", "--allow-errors", "-o", out, "--state-dir", filepath.Join(history, "uagent"), "--state-dir", filepath.Join(history, "uah"))
	assert.Equal(t, 0, code, stderr)
	assert.Len(t, readTable[tablestream.RunRow](t, out, "runs"), 5)
}

// -o never overwrites a file of the history (a run's events.jsonl, its
// summary), and -o - is standard output, not a file named "-".
func TestOutputIsNeverTheHistory(t *testing.T) {
	state := t.TempDir()
	run := filepath.Join(state, "runs", "20261101-100000-5f3c2a1e")
	copyDir(t, runDir("20261101-100000-5f3c2a1e"), run)
	events := filepath.Join(run, statedir.EventsFile)
	before, err := os.ReadFile(events)
	require.NoError(t, err)
	for _, args := range [][]string{{"html", "-o", events, run}, {"convert", "-o", events, run}, {"html", "-o", filepath.Join(run, statedir.SummaryFile), run}} {
		code, _, stderr := runCmd(t, "", args...)
		assert.Equal(t, 1, code, "%v", args)
		assert.Contains(t, stderr, "a file of the history", "%v", args)
	}
	after, err := os.ReadFile(events)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the run's records untouched")

	dir := t.TempDir()
	t.Chdir(dir)
	code, stdout, stderr := runCmd(t, "", "html", "-o", "-", run)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "<!doctype html>")
	_, err = os.Stat(filepath.Join(dir, "-"))
	assert.ErrorIs(t, err, os.ErrNotExist, "no file named -")
}
