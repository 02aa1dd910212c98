package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/sessions"
	"github.com/uagentkit/stream/tablestream"
)

var aSession = sessions.Options{Runs: []sessions.Run{
	{Message: "Run ls twice", Answer: "DONE", Calls: 2, Queued: true},
	{Message: "And again?", Answer: "Again", Calls: 1, Reset: true},
	{Message: "x", CannotStart: true},
}}

func sessionFile(t *testing.T, o sessions.Options) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(path, sessions.Write(o), 0o644))
	return path
}

// runsOf writes each run of a session stream to a file of its own: the
// lines from its run_started to its run_finished.
func runsOf(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var files []string
	var cur []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if bytes.Contains(l, []byte(`"type":"run_started"`)) {
			cur = nil
		}
		cur = append(cur, l...)
		if bytes.Contains(l, []byte(`"type":"run_finished"`)) {
			f := filepath.Join(t.TempDir(), "run.jsonl")
			require.NoError(t, os.WriteFile(f, cur, 0o644))
			files = append(files, f)
		}
	}
	return files
}

// validate of a valid session says nothing; of a broken one, each finding
// with its run.
func TestValidateASession(t *testing.T) {
	path := sessionFile(t, aSession)
	code, stdout, stderr := runCmd(t, "", "validate", "--strict", path)
	assert.Equal(t, 0, code, stdout+stderr)
	assert.Empty(t, stdout)

	b, _ := os.ReadFile(path)
	broken := filepath.Join(t.TempDir(), "broken.jsonl")
	require.NoError(t, os.WriteFile(broken, bytes.Replace(b, []byte(`"turns":2`), []byte(`"turns":9`), 1), 0o644))
	code, stdout, _ = runCmd(t, "", "validate", broken)
	assert.Equal(t, 1, code)
	assert.Regexp(t, `^`+regexpQuote(broken)+`:\d+: stats.turns is 9, recomputed 2 \(stats\) \[run 1 20261001-215705-294542e3\]\n$`, stdout)
	code, stdout, _ = runCmd(t, "", "validate", "--json", broken)
	assert.Equal(t, 1, code)
	var f struct {
		File, Rule string
		RunID      string `json:"run_id"`
		Run        int
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &f))
	assert.Equal(t, 1, f.Run)
	assert.Equal(t, "20261001-215705-294542e3", f.RunID)
}

func regexpQuote(s string) string { return strings.NewReplacer(".", `\.`, "/", `\/`).Replace(s) }

// stats of a session: every run's summary exactly as stats prints the run
// alone, and the totals (hand-pinned: four responses of 12873 in, 3712
// cached, 65 out; three calls).
func TestStatsOfASession(t *testing.T) {
	path := sessionFile(t, aSession)
	code, stdout, stderr := runCmd(t, "", "stats", path)
	require.Equal(t, 0, code, stderr)
	var got struct {
		SessionID string            `json:"session_id"`
		Runs      []json.RawMessage `json:"runs"`
		Totals    map[string]any    `json:"totals"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, sessions.ID, got.SessionID)
	alone := runsOf(t, path)
	require.Len(t, got.Runs, len(alone))
	for i, f := range alone {
		_, want, _ := runCmd(t, "", "stats", f)
		assert.JSONEq(t, want, string(got.Runs[i]), "run %d", i+1)
	}
	assert.Equal(t, float64(2), got.Totals["runs"])
	assert.Equal(t, float64(3), got.Totals["tool_calls"])
	assert.Equal(t, map[string]any{"input": 4 * 12873.0, "cached_input": 4 * 3712.0, "cache_write_input": 0.0, "output": 4 * 65.0, "reasoning": 0.0}, got.Totals["tokens"])
	assert.Equal(t, map[string]any{"reviews": 0.0, "duration_ms": 0.0, "tokens": map[string]any{"input": 0.0, "cached_input": 0.0, "cache_write_input": 0.0, "output": 0.0, "reasoning": 0.0}},
		got.Totals["auto_review"])

	code, stdout, _ = runCmd(t, "", "stats", "--check", path)
	assert.Equal(t, 0, code)
	assert.Empty(t, stdout)
}

// cat shows every session event as what it is, each text once: a whole
// stream shows each response's own text, not what streamed before it.
func TestCatASession(t *testing.T) {
	path := sessionFile(t, aSession)
	code, stdout, stderr := runCmd(t, "", "cat", "--no-color", path)
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{
		"session " + sessions.ID + " · engine embedded · openai-codex gpt-6.1-sol · effort low · /tmp/ab/repo",
		"instructions: /home/dev/.codex/AGENTS.md (74 bytes)", "queued m1: Run ls twice", "sent m1", "✓ delivered m1",
		"══ run 1", "══ run 2", "queued m2: and then?", "⟳ reconnecting (attempt 1 of 5, in 500ms): stream error", "⟳ reconnected",
		"✗ not delivered m3: the runner could not start", "! error: uagent exited 1 before run_started", "── idle",
		"══ session " + sessions.ID + ": 2 runs · 4 turns · 3 tool calls", "message m3 failed: the runner could not start",
	} {
		assert.Contains(t, stdout, want)
	}
	assert.NotContains(t, stdout, "unknown type")
	assert.NotContains(t, stdout, "A first try", "voided text is dropped")
	assert.Equal(t, 2, strings.Count(stdout, "assistant: I'll run the commands."), "once a run")
	assert.Equal(t, 1, strings.Count(stdout, "answer: DONE"))
}

// export of a session stream: a runs row for each run, with the session's
// id and the run's place in it, the same rows as each run exported alone;
// the sessions table; a second export adds nothing, and a session that
// grew adds only its new run.
func TestExportASession(t *testing.T) {
	path := sessionFile(t, aSession)
	out := t.TempDir()
	code, _, stderr := runCmd(t, "", "export", "-o", out, path)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "exported 2 runs")
	rows := readTable[tablestream.RunRow](t, out, "runs")
	require.Len(t, rows, 2)
	slices.SortFunc(rows, func(a, b tablestream.RunRow) int { return strings.Compare(a.RunID, b.RunID) })
	for i, r := range rows {
		assert.Equal(t, sessions.ID, r.SessionID)
		assert.Equal(t, int64(i+1), r.SessionSeq)
	}
	alone := t.TempDir()
	code, _, stderr = runCmd(t, "", append([]string{"export", "-o", alone}, runsOf(t, path)...)...)
	require.Equal(t, 0, code, stderr)
	want := readTable[tablestream.RunRow](t, alone, "runs")
	slices.SortFunc(want, func(a, b tablestream.RunRow) int { return strings.Compare(a.RunID, b.RunID) })
	for i := range want {
		want[i].File = path
		assert.Equal(t, norm(want[i]), norm(rows[i]), "run %d as exported alone", i+1)
	}
	assert.Len(t, readTable[tablestream.ToolCallRow](t, out, "tool_calls"), 3)
	ss := readTable[tablestream.SessionRow](t, out, "sessions")
	require.Len(t, ss, 1)
	assert.Equal(t, int64(2), ss[0].Runs)

	code, _, stderr = runCmd(t, "", "export", "-o", out, path)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "exported 0 runs to "+out+" (2 it held already)")

	grown := append(sessions.Write(aSession), sessions.Write(sessions.Options{Runs: []sessions.Run{{}, {}, {Message: "three", Answer: "3"}}})...)
	require.NoError(t, os.WriteFile(path, grown, 0o644))
	code, _, stderr = runCmd(t, "", "export", "-o", out, path)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "exported 1 runs to "+out+" (4 it held already)")
	assert.Len(t, readTable[tablestream.RunRow](t, out, "runs"), 3)
}

// uah's goal and its refusal of effort updates, shown by name in cat.
func TestCatShowsTheGoal(t *testing.T) {
	path := sessionFile(t, sessions.Options{Runs: []sessions.Run{{Message: "go on", Answer: "done", Goal: true}}})
	code, out, stderr := runCmd(t, "", "cat", "--no-color", path)
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{
		"goal_updated (set by user): active · Make the tests pass",
		"goal_continued: Make the tests pass (continuation 1)",
		"! effort_updates_off: the effort changes with the next run: 400 unsupported",
		"goal_updated (status by model): complete · Make the tests pass · done",
		"goal_cleared",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "unknown type")
}

// uah's auto-reviewer's verdicts (auto_reviewed) in a session stream, in
// every command that reads one: validate takes them; stats keeps their
// tokens apart from the runs' (hand-pinned: three reviews of 900 in, 800
// cached, 40 out, 1,200 ms; the runs' tokens as without them); cat shows
// each (its command, outcome, risk and reason, duration and tokens) and
// the reviewer's totals; export and timeline read the stream as without
// them. A review with a field of the wrong type is a line error, as any
// harness line of the wrong types is.
func TestAutoReviewedInEveryCommand(t *testing.T) {
	reviewed := sessions.Options{Runs: []sessions.Run{
		{Message: "Run ls twice", Answer: "DONE", Calls: 2, AutoReview: true},
		{Message: "And again?", Answer: "Again", Calls: 1, AutoReview: true},
	}}
	path := sessionFile(t, reviewed)
	code, stdout, stderr := runCmd(t, "", "validate", "--strict", path)
	assert.Equal(t, 0, code, stdout+stderr)

	code, stdout, stderr = runCmd(t, "", "stats", path)
	require.Equal(t, 0, code, stderr)
	var got struct {
		Totals map[string]any `json:"totals"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, map[string]any{"input": 4 * 12873.0, "cached_input": 4 * 3712.0, "cache_write_input": 0.0, "output": 4 * 65.0, "reasoning": 0.0}, got.Totals["tokens"],
		"the runs' tokens, without the reviewer's")
	assert.Equal(t, map[string]any{"reviews": 3.0, "duration_ms": 3600.0,
		"tokens": map[string]any{"input": 2700.0, "cached_input": 2400.0, "cache_write_input": 0.0, "output": 120.0, "reasoning": 0.0}}, got.Totals["auto_review"])

	code, stdout, stderr = runCmd(t, "", "cat", "--no-color", path)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 3, strings.Count(stdout, "⚖ auto-reviewed ls: allow · risk low: reads the directory · 1.2s · 900 in (800 cached) / 40 out tokens"), stdout)
	assert.Contains(t, stdout, "auto-reviewer (apart from the runs): 3 reviews · 3.6s · tokens in 2700 (cached 2400, written 0) · out 120")
	assert.NotContains(t, stdout, "unknown type")

	plain := sessionFile(t, sessions.Options{Runs: []sessions.Run{
		{Message: "Run ls twice", Answer: "DONE", Calls: 2}, {Message: "And again?", Answer: "Again", Calls: 1}}})
	for _, args := range [][]string{{"timeline"}, {"stats", "--check"}} {
		_, withReviews, _ := runCmd(t, "", append(args, path)...)
		_, without, _ := runCmd(t, "", append(args, plain)...)
		if args[0] == "timeline" {
			assert.Equal(t, strings.Count(without, "<rect"), strings.Count(withReviews, "<rect"), "the timeline of the runs is the same")
		} else {
			assert.Equal(t, without, withReviews)
		}
	}
	out := t.TempDir()
	code, _, stderr = runCmd(t, "", "export", "-o", out, path)
	require.Equal(t, 0, code, stderr)
	runs := readTable[tablestream.RunRow](t, out, "runs")
	require.Len(t, runs, 2)
	assert.Equal(t, 4*12873, int(runs[0].TokensInput+runs[1].TokensInput), "the runs' tokens, without the reviewer's")
	ss := readTable[tablestream.SessionRow](t, out, "sessions")
	require.Len(t, ss, 1)
	assert.Equal(t, tablestream.AutoReview{AutoReviews: 3, AutoReviewMS: 3600, AutoReviewTokensInput: 2700, AutoReviewTokensCachedInput: 2400, AutoReviewTokensOutput: 120},
		ss[0].AutoReview, "the session's figures keep the reviewer's apart")

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	bad := bytes.Replace(b, []byte(`"input_tokens":900`), []byte(`"input_tokens":"900"`), 1)
	code, stdout, _ = runCmd(t, "", "validate", sessionFileBytes(t, bad))
	assert.Equal(t, 1, code)
	assert.Regexp(t, `: auto_reviewed: field "input_tokens": wrong JSON type: want integer, got string`, stdout)
}

func sessionFileBytes(t *testing.T, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}
