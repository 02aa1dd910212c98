package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/uahstream"
)

// sinkFile writes events to a file in a temporary directory.
func sinkFile(t *testing.T, evs ...stream.Event) string {
	var buf bytes.Buffer
	s := stream.NewSink(&buf)
	for _, e := range evs {
		s.Emit(e)
	}
	require.NoError(t, s.Err())
	path := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path
}

var t1 = time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)

func TestCatHeaderAndSummary(t *testing.T) {
	path := sinkFile(t, stream.RunStarted{At: t1, RunID: "r1"},
		stream.TurnStarted{At: t1, Turn: 1},
		stream.ReasoningSummary{At: t1, Text: "pondering"},
		stream.AssistantMessage{At: t1, Text: "the answer", Final: true},
		stream.RunFinished{At: t1, Result: stream.Result{Status: stream.StatusOK, Stats: stream.Stats{Turns: 1}, Answer: "the answer"}})
	code, out, _ := runCmd(t, "", "cat", path)
	require.Equal(t, 0, code)
	assert.Equal(t, "run r1 · started 2026-09-23 12:00:00 UTC\n", strings.SplitAfter(out, "\n")[0], "empty header fields are hidden")
	assert.Contains(t, out, " · 1 turn · ")
	assert.Equal(t, 1, strings.Count(out, "the answer"), "the answer is printed once")
	assert.Contains(t, out, "pondering")
	_, out, _ = runCmd(t, "", "cat", "--no-reasoning", path)
	assert.NotContains(t, out, "pondering")

	_, out, _ = runCmd(t, "", "cat", runFile)
	assert.Contains(t, out, "session 7ef82dc2 · started 2026-09-23 12:39:18 UTC")
	assert.Contains(t, out, " · 2 turns · ")
}

func TestCatToolOutput(t *testing.T) {
	dir := t.TempDir()
	out, errp := filepath.Join(dir, "out"), filepath.Join(dir, "err")
	var lines []string
	for i := range 50 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	require.NoError(t, os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	require.NoError(t, os.WriteFile(errp, []byte("oops \x1b[31mred\n"), 0o644))
	path := sinkFile(t, stream.RunStarted{At: t1},
		stream.ToolStarted{At: t1, CallID: "c", OpID: "o", Name: "Bash", Label: "seq"},
		stream.ToolFinished{At: t1, CallID: "c", OpID: "o", Name: "Bash", Label: "seq", OK: true, Detail: "exit 0", OutPath: out, ErrPath: errp},
		stream.ToolFinished{At: t1, CallID: "d", OpID: "p", Name: "Bash", Label: "gone", OK: true, OutPath: filepath.Join(dir, "missing")})
	_, plain, _ := runCmd(t, "", "cat", path)
	assert.NotContains(t, plain, "line 49", "only when asked")
	_, got, _ := runCmd(t, "", "cat", "--tool-output", path)
	assert.Contains(t, got, "stdout │ line 45\n")
	assert.Contains(t, got, "stdout │ line 49\n")
	assert.NotContains(t, got, "line 44", "the last lines only")
	assert.Contains(t, got, `stderr │ oops \x1b[31mred`, "sanitized")
	assert.NotContains(t, got, "\x1b")
}

func TestStatsLineErrorsAndEmptyStreams(t *testing.T) {
	b, err := os.ReadFile(runFile)
	require.NoError(t, err)
	broken := append([]byte("{not json\n"), b...)
	code, stdout, stderr := runCmd(t, string(broken), "stats", "-")
	assert.Equal(t, 1, code, "a line that cannot be read fails stats")
	assert.Contains(t, stderr, "uagent-stream: -: 1 of 22 lines could not be read")
	assert.Contains(t, stdout, `"status": "ok"`, "the summary is still printed")
	code, _, _ = runCmd(t, string(broken), "stats", "--allow-errors", "-")
	assert.Equal(t, 0, code)

	code, stdout, stderr = runCmd(t, "", "stats", "-")
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout, "no summary dated year 1")
	assert.Equal(t, "uagent-stream: -: an empty stream: no line to summarize\n", stderr)
}

func TestByteOrderMark(t *testing.T) {
	b, err := os.ReadFile(runFile)
	require.NoError(t, err)
	withBOM := "\xef\xbb\xbf" + string(b)
	code, out, _ := runCmd(t, withBOM, "cat", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "✗ stream: line 1, byte 0: a byte-order mark (U+FEFF, bytes EF BB BF) at the start of the stream")
	assert.Contains(t, out, "run 20260923T123918Z-demo", "the first line is still read")
	code, out, _ = runCmd(t, withBOM, "validate", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "-:1: byte 0: a byte-order mark")
}

// JSON outputs write the characters a terminal may act on, or that hide
// text, as \u escapes: the same JSON values.
func TestJSONOutputsEscapeTerminalControls(t *testing.T) {
	tricky := "a\u0085b\u009bc\u007fd\u202ee\u200bf\u00adg\U000E0041h"
	path := sinkFile(t, stream.RunStarted{At: t1, Model: tricky}, stream.RunnerError{At: t1, Message: tricky},
		stream.RunFinished{At: t1, Result: stream.Result{Status: stream.StatusError, Answer: tricky}})
	_, stats, _ := runCmd(t, "", "stats", path)
	_, findings, _ := runCmd(t, "", "validate", "--json", path)
	for name, out := range map[string]string{"stats": stats, "validate --json": findings} {
		require.NotEmpty(t, out, name)
		for _, r := range tricky {
			if r > 'z' {
				assert.NotContains(t, out, string(r), "%s: %U raw", name, r)
			}
		}
	}
	assert.Contains(t, stats, `a\u0085b\u009bc\u007fd\u202ee\u200bf\u00adg\udb40\udc41h`)
	var s stream.SummaryDTO
	require.NoError(t, jsonUnmarshal([]byte(stats), &s))
	assert.Equal(t, tricky, s.Model, "the same JSON value")
}

// cat -f waits for a file that does not exist yet, and starts over, with a
// visible separator, when the file is replaced or truncated.
func TestCatFollowWaitsAndStartsOver(t *testing.T) {
	old := pollInterval
	pollInterval = 5 * time.Millisecond
	t.Cleanup(func() { pollInterval = old })
	full, err := os.ReadFile(runFile)
	require.NoError(t, err)
	head := bytes.Join(bytes.SplitAfter(full, []byte("\n"))[:5], nil)
	for _, how := range []string{"replaced", "truncated"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "live.jsonl")
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, stdout, stderr := runCmd(t, "", "cat", "-f", path)
				done <- result{code, stdout, stderr}
			}()
			time.Sleep(50 * time.Millisecond) // cat -f is waiting for the file
			require.NoError(t, os.WriteFile(path, head, 0o644))
			time.Sleep(100 * time.Millisecond) // cat -f has read the first run's lines
			if how == "replaced" {
				tmp := filepath.Join(dir, "new.jsonl")
				require.NoError(t, os.WriteFile(tmp, full, 0o644))
				require.NoError(t, os.Rename(tmp, path))
			} else {
				require.NoError(t, os.Truncate(path, 0))
				time.Sleep(100 * time.Millisecond) // cat -f sees the shorter file
				require.NoError(t, os.WriteFile(path, full, 0o644))
			}
			var r result
			select {
			case r = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("cat -f did not stop after the new run's run_finished")
			}
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stderr, "uagent-stream: waiting for "+path+" to appear")
			first, second, ok := strings.Cut(r.stdout, "── "+path+" was replaced or truncated: a new run starts ──\n")
			require.True(t, ok, r.stdout)
			assert.Contains(t, first, "user: List the files", "the first run as far as it went")
			_, want, _ := runCmd(t, "", "cat", runFile)
			assert.Equal(t, want, second, "the new run from its start")
		})
	}
}

// Repeated notices print once, as the serve page shows them (the fold's
// rule for both: a warning by its code and message, an error by its
// message), and the summary counts them. A warning of another code is
// another notice even with the same message.
func TestCatCoalescesRepeatedNotices(t *testing.T) {
	evs := []stream.Event{stream.RunStarted{At: t1}}
	for range 3 {
		evs = append(evs, stream.PreflightWarning{At: t1, Code: "auth", Message: "expiring"}, stream.RunnerError{At: t1, Message: "flaky"})
	}
	evs = append(evs, stream.PreflightWarning{At: t1, Code: "auth", Message: "expired"},
		stream.PreflightWarning{At: t1, Code: "disk", Message: "expiring"},
		stream.RunFinished{At: t1, Result: stream.Result{Status: stream.StatusError, Stats: stream.Stats{
			Warnings: []string{"expiring", "expiring", "expiring", "expired", "expiring"}, Errors: []string{"flaky", "flaky", "flaky"}}}})
	code, out, _ := runCmd(t, "", "cat", sinkFile(t, evs...))
	require.Equal(t, 0, code)
	assert.Equal(t, 1, strings.Count(out, "! warning auth: expiring"), out)
	assert.Equal(t, 1, strings.Count(out, "✗ runner error: flaky"), out)
	assert.Equal(t, 1, strings.Count(out, "! warning auth: expired"), "another message is another notice")
	assert.Contains(t, out, "   warning auth: expiring (×3)\n")
	assert.Contains(t, out, "   warning auth: expired\n")
	assert.Contains(t, out, "   warning disk: expiring\n", "another code, another notice")
	assert.Contains(t, out, "   runner error: flaky (×3)\n")
	assert.NotContains(t, out, "disagrees", "the summary's warnings and errors are the events'")
}

// stats reads many files on all cores and prints them in argument order.
func TestStatsManyFiles(t *testing.T) {
	a := sinkFile(t, stream.RunStarted{At: t1, RunID: "first"}, stream.RunFinished{At: t1, Result: stream.Result{Status: stream.StatusOK}})
	b := sinkFile(t, stream.RunStarted{At: t1, RunID: "second"}, stream.RunFinished{At: t1, Result: stream.Result{Status: stream.StatusOK}})
	args := []string{"stats"}
	for range 5 {
		args = append(args, a, b)
	}
	code, out, stderr := runCmd(t, "", args...)
	require.Equal(t, 0, code, stderr)
	dec := json.NewDecoder(strings.NewReader(out))
	var ids []string
	for dec.More() {
		var s stream.SummaryDTO
		require.NoError(t, dec.Decode(&s))
		ids = append(ids, s.RunID)
	}
	assert.Equal(t, []string{"first", "second", "first", "second", "first", "second", "first", "second", "first", "second"}, ids)

	code, out, _ = runCmd(t, "", "stats", "--check", runFile, "../../testdata/invalid/stats.jsonl")
	assert.Equal(t, 1, code)
	assert.Equal(t, "../../testdata/invalid/stats.jsonl: stats.model_ms is 5356, recomputed 5355\n", out, "with several files, differences name theirs")
}

// A run_finished summary the events contradict: cat shows it, says that
// it disagrees, and shows what the events say, field by field; a summary
// that agrees gets no such line.
func TestCatFlagsALyingSummary(t *testing.T) {
	ms := func(n int) time.Time { return t1.Add(time.Duration(n) * time.Millisecond) }
	evs := []stream.Event{stream.RunStarted{At: t1, RunID: "r"},
		stream.TurnStarted{At: ms(0), Turn: 1}, stream.ModelResponded{At: ms(2000), Turn: 1},
		stream.TurnStarted{At: ms(2000), Turn: 2}, stream.ModelResponded{At: ms(5355), Turn: 2}}
	honest := stream.Stats{Turns: 2, ModelResponses: 2, ModelTime: 5355 * time.Millisecond, EventSpan: 5355 * time.Millisecond}
	lying := honest
	lying.Turns, lying.ModelTime = 7, 99*time.Millisecond
	code, out, _ := runCmd(t, "", "cat", "--no-color", sinkFile(t, append(evs, stream.RunFinished{At: ms(5400), Result: stream.Result{Status: stream.StatusOK, Stats: lying}})...))
	require.Equal(t, 0, code)
	assert.Contains(t, out, "7 turns · model 99ms", "the summary as recorded")
	assert.Contains(t, out, "✗ the summary disagrees with the events; they say:\n"+
		"     stats.model_ms: 5355 (the summary says 99)\n"+
		"     stats.turns: 2 (the summary says 7)\n")

	_, out, _ = runCmd(t, "", "cat", "--no-color", sinkFile(t, append(evs, stream.RunFinished{At: ms(5400), Result: stream.Result{Status: stream.StatusOK, Stats: honest}})...))
	assert.NotContains(t, out, "disagrees")
}

// cat ends with one line of what the runs would cost, priced as the
// history prices them (gpt-5.6-sol from 2026-08-21: 50,000×4 + 10,000×5 +
// 1,500×20 = $0.28), or why there is none, the model's name escaped; a
// LiteLLM table given with --prices prices it.
func TestCatSaysTheCost(t *testing.T) {
	historyHome(t)
	code, stdout, _ := runCmd(t, "", "cat", "--no-color", "e5f60718")
	require.Equal(t, 0, code)
	assert.True(t, strings.HasSuffix(stdout, "cost: $0.28 (costs are API-price estimates (prices.json and --prices), not bills; openai-codex is billed by its ChatGPT plan, not by these figures)\n"), stdout)

	code, stdout, _ = runCmd(t, "", "cat", "--no-color", "f6071829")
	require.Equal(t, 0, code)
	last := stdout[strings.LastIndex(strings.TrimSuffix(stdout, "\n"), "\n")+1:]
	assert.Equal(t, `cost: ? (no price for local/llama-9\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\u202e\u200b\x00<script>&; --prices adds a row)`+"\n", last)

	litellm := filepath.Join(t.TempDir(), "prices.json")
	require.NoError(t, os.WriteFile(litellm, []byte(`{"gpt-6-sol": {"litellm_provider": "openai", "input_cost_per_token": 1e-06, "output_cost_per_token": 1e-05, "cache_read_input_token_cost": 1e-07}}`), 0o644))
	code, stdout, _ = runCmd(t, "", "cat", "--no-color", "--prices", litellm, runFile)
	require.Equal(t, 0, code)
	// testdata/run.jsonl: in 1,355 (cached 512), out 80: 843×1 + 512×0.10 + 80×10 per million
	assert.Contains(t, stdout, "\ncost: $0.0017 (")
	code, stdout, _ = runCmd(t, "", "cat", "--no-color", runFile)
	require.Equal(t, 0, code)
	// at the built-in gpt-6-sol (2, 0.20, –, 10): 843×2 + 512×0.20 + 80×10
	assert.Contains(t, stdout, "\ncost: $0.0026 (")
}

// cat of a run directory says how its model attempts ended, as the
// runner's stderr.log says (retries, failures), after its cost.
func TestCatSaysTheModelAttempts(t *testing.T) {
	f := historyHome(t)
	for _, home := range []string{f.Uagent, f.Uah} {
		require.NoError(t, os.WriteFile(filepath.Join(home, "runs", "20261103-090000-e5f60718", "stderr.log"),
			[]byte(`{"diag":"model_attempt","result":"retry"}`+"\nsome words\n"+`{"diag":"model_attempt","result":"ok"}`+"\n"), 0o644))
	}
	code, stdout, _ := runCmd(t, "", "cat", "--no-color", "20261103-090000-e5f60718")
	require.Equal(t, 0, code)
	assert.True(t, strings.HasSuffix(stdout, "\n2 model attempts: 1 ok, 1 retried (stderr.log)\n"), stdout)
	code, stdout, _ = runCmd(t, "", "cat", "--no-color", "20261101-235000-a1f1a2b3")
	require.Equal(t, 0, code)
	assert.NotContains(t, stdout, "model attempts", "none said")
}

// stats and cat of a history session show its compactions' own calls
// (uah's compaction log) apart from its runs' tokens; stats also what its
// subagents spent.
func TestStatsOfASessionShowsItsCompactions(t *testing.T) {
	f := historyHome(t)
	require.NoError(t, os.WriteFile(filepath.Join(f.Uah, "sessions", historytest.Flaky+".compaction.jsonl"),
		[]byte(`{"trigger":"auto","at":"2026-11-02T00:21:00Z","stats":{"call":{"InputTokens":300000,"CachedInputTokens":100000,"OutputTokens":10000}}}`+"\n"), 0o644))
	code, stdout, stderr := runCmd(t, "", "stats", "--json", historytest.Flaky)
	require.Equal(t, 0, code, stderr)
	var got struct {
		Totals    uahstream.Totals   `json:"totals"`
		Subagents *history.SpentJSON `json:"subagents"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	require.NotNil(t, got.Subagents, "what its subagent and reviewer spent, apart")
	assert.Equal(t, 2, got.Subagents.Sessions)
	assert.Equal(t, int64(400_000), got.Subagents.Tokens.Input)
	assert.Equal(t, uahstream.Compaction{Compactions: 1, Calls: 1, Tokens: stream.TokensDTO{Input: 300000, CachedInput: 100000, Output: 10000}}, got.Totals.Compaction)
	assert.Equal(t, int64(1_500_000), got.Totals.Tokens.Input, "the runs' own")
	code, stdout, _ = runCmd(t, "", "cat", "--no-color", historytest.Flaky)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "compacted (auto)")
	assert.Contains(t, stdout, "   compactions (apart from the runs): 1 compaction · 1 model call · tokens in 300000 (cached 100000")
}
