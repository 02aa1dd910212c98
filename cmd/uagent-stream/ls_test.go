package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/termstream"
)

// historyHome writes the fixture's history where a person's is looked
// for (HOME, XDG_STATE_HOME, UAH_STATE_DIR) and returns it.
func historyHome(t *testing.T) historytest.Fixture {
	t.Helper()
	root := t.TempDir()
	f, err := historytest.WriteFixture(root)
	require.NoError(t, err)
	release, err := f.HoldLive() // its run goes on
	require.NoError(t, err)
	t.Cleanup(release)
	t.Setenv("HOME", root)
	t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
	t.Setenv("UAH_STATE_DIR", f.Uah)
	t.Setenv("UAGENT_STATE_DIR", "")
	t.Setenv("UAH_HOME", "")
	t.Setenv("COLUMNS", "")
	t.Setenv("LINES", "")
	return f
}

// columns splits a table's line into its cells (two spaces or more apart).
func columns(line string) []string {
	return regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
}

// ls: a line per session, the latest activity first, subagents and
// reviewers under their parent; every column the fixture's own figures
// (tokens from the summaries, costs worked out by hand in
// history_test.go); the estimate said to be one.
func TestLsSessions(t *testing.T) {
	historyHome(t)
	code, stdout, stderr := runCmd(t, "", "ls", "--timezone", "UTC")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 9, stdout)
	assert.Equal(t, []string{"LAST ACTIVITY", "SESSION", "RUNS", "STATUS", "MODEL", "TOKENS IN/OUT", "COST", "WORKSPACE", "TITLE"}, columns(lines[0]))
	assert.Equal(t, []string{"2026-11-04 08:00", "a7182930", "2", "running", "gpt-5.4", "2.0k/100", "?", "~/../../home/dev/parser"}[:4], columns(lines[1])[:4])
	assert.Equal(t, []string{"2026-11-02 00:23", "a1f1a2b3", "2", "ok", "gpt-5.4", "1.5M/30.0k", "$1.50", "/home/dev/parser", "Fix the flaky test in parser_test.go"}, columns(lines[4]))
	assert.Equal(t, []string{"2026-11-02 00:12", "↳ subagent-c (review)", "1", "ok", "gpt-5.4", "300.0k/4.0k", "$0.36", "/home/dev/parser", "Review the fix"}, columns(lines[5]))
	assert.Equal(t, []string{"2026-11-02 00:06", "↳ subagent-b", "1", "ok", "gpt-5.4-mini", "100.0k/2.0k", "$0.05", "/home/dev/parser", "Find where the cache is shared"}, columns(lines[6]))
	assert.Equal(t, []string{"2026-10-31 10:01", "d4e5f607", "1", "ok", "claude-sonnet-4-5", "200.0k/3.0k", "$0.26", "/home/dev/site", "Update the footer year"}, columns(lines[7]))
	assert.Equal(t, []string{"2026-11-03 09:00", "e5f60718", "1", "ok", "gpt-5.6-sol", "60.0k/1.5k", "$0.28", "/home/dev/notes", "Summarize the meeting notes"}, columns(lines[3]))
	assert.Contains(t, lines[8], "costs are API-price estimates")
	assert.Contains(t, lines[8], "openai-codex is billed by its ChatGPT plan, not by these figures")
	assert.Contains(t, lines[8], "3,110 tokens are unpriced")
	assert.Equal(t, 1, strings.Count(stderr, "no price for "), "one line names every unpriced model: %s", stderr)
	assert.Equal(t, 1, strings.Count(stderr, "local/llama-9"), "each unpriced model named once: %s", stderr)
	assert.Equal(t, 1, strings.Count(stderr, "?/gpt-5.4"), "a run without a summary has no provider: %s", stderr)

	// The title is cut to the terminal's width.
	t.Setenv("COLUMNS", "100")
	_, stdout, _ = runCmd(t, "", "ls", "--timezone", "UTC")
	for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		assert.LessOrEqual(t, len([]rune(l)), 100, l)
	}
	// A path under the home directory is written with ~.
	assert.Equal(t, "~/x", termstream.Tilde(filepath.Join(os.Getenv("HOME"), "x")))
}

// ls --json: the objects' fields, named as the tables' columns, each the
// fixture's figure; cost_usd null when unpriced; a subagent and a
// reviewer right under their parent, with its id; the schema that
// `uagent-stream schema ls` prints holds every object.
func TestLsJSON(t *testing.T) {
	f := historyHome(t)
	code, stdout, stderr := runCmd(t, "", "ls", "--json")
	require.Equal(t, 0, code, stderr)
	var got []history.SessionJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	var ids []string
	for _, s := range got {
		ids = append(ids, s.SessionID)
	}
	assert.Equal(t, []string{historytest.Live, historytest.Unpriced, historytest.Copied, historytest.Flaky, historytest.Reviewer, historytest.Sub, historytest.Old}, ids)
	flaky := got[3]
	cost, subCost := 1.5, 0.41025 // its subagent's 0.05025 and reviewer's 0.36, apart
	at := func(s string) *time.Time { v, _ := time.Parse(time.RFC3339, s); return &v }
	assert.Equal(t, history.SessionJSON{SessionID: historytest.Flaky, Title: "Fix the flaky test in parser_test.go", Source: "tui", Workspace: "/home/dev/parser",
		StartedAt: at("2026-11-01T23:50:00Z"), LastActivityAt: at("2026-11-02T00:23:00Z"), Runs: 2, Status: "ok", Provider: "openai", Model: "gpt-5.4",
		Effort: "medium", Tokens: stream.TokensDTO{Input: 1500000, CachedInput: 1200000, Output: 30000, Reasoning: 7000}, ToolCalls: 2, WallMS: 480000,
		CostUSD: &cost, Home: f.Uah, Subagents: &history.SpentJSON{Sessions: 2, Runs: 2,
			Tokens: stream.TokensDTO{Input: 400_000, CachedInput: 250_000, Output: 6_000, Reasoning: 3_000}, CostUSD: &subCost}}, flaky)
	assert.Equal(t, historytest.Flaky, got[4].ParentSessionID)
	assert.Equal(t, "review", got[4].Source)
	assert.Equal(t, "subagent", got[5].Source)
	assert.Nil(t, got[1].CostUSD, "unpriced, never zero")
	assert.Equal(t, int64(1010), got[1].UnpricedTokens)
	assert.Equal(t, f.Old, got[6].Home, "uagent's state directory under its old name")
	assert.Equal(t, f.Uagent, got[2].Home, "a run in two homes: the first's copy")
	assert.Contains(t, stdout, `\u001b]52`, "hostile bytes escaped in JSON too")
	validates(t, "ls", stdout)

	code, stdout, _ = runCmd(t, "", "ls", "--json", "--since", "2030-01-01")
	assert.Equal(t, 0, code)
	assert.Equal(t, "[]\n", stdout)
}

// validates checks every object of a JSON array against a schema that
// uagent-stream schema NAME prints.
func validates(t *testing.T, name, array string) {
	t.Helper()
	code, sch, stderr := runCmd(t, "", "schema", name)
	require.Equal(t, 0, code, stderr)
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(sch))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("s.json", doc))
	s, err := c.Compile("s.json")
	require.NoError(t, err)
	var items []any
	require.NoError(t, json.Unmarshal([]byte(array), &items))
	require.NotEmpty(t, items)
	for _, it := range items {
		assert.NoError(t, s.Validate(it))
	}
	// Every field the objects have is in the schema.
	var props struct {
		Properties map[string]any `json:"properties"`
	}
	require.NoError(t, json.Unmarshal([]byte(sch), &props))
	for _, it := range items {
		for k := range it.(map[string]any) {
			assert.Contains(t, props.Properties, k, "%s: field %s", name, k)
		}
	}
}

func TestLsRuns(t *testing.T) {
	historyHome(t)
	code, stdout, stderr := runCmd(t, "", "ls", "--runs", "--json")
	require.Equal(t, 0, code, stderr)
	var got []history.RunJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	require.Len(t, got, 9)
	r := got[4]
	assert.Equal(t, "20261102-002000-a1f1a2b3", r.RunID)
	assert.Equal(t, 2, r.SessionSeq)
	assert.Equal(t, int64(180000), r.WallMS)
	assert.Equal(t, 1, r.Turns)
	assert.Equal(t, 1, r.ToolCalls)
	require.NotNil(t, r.CostUSD)
	assert.InDelta(t, 0.50, *r.CostUSD, 1e-9)
	assert.Equal(t, "Now make it Straße-proof: ÜBER tests", r.Title)
	validates(t, "ls-runs", stdout)

	code, stdout, stderr = runCmd(t, "", "ls", "--runs", "--timezone", "UTC", "--source", "review")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 3, stdout)
	assert.Equal(t, []string{"STARTED", "RUN", "SESSION", "#", "WALL", "STATUS", "MODEL", "TURNS", "TOOLS", "TOKENS IN/OUT", "COST", "TITLE"}, columns(lines[0]))
	assert.Equal(t, []string{"2026-11-02 00:10", "20261102-001", "subagent-c", "1", "2m0s", "ok", "gpt-5.4", "1", "0", "300.0k/4.0k", "$0.36", "Review the fix"}, columns(lines[1]))
}

// Each filter of ls, and --limit.
func TestLsFilters(t *testing.T) {
	f := historyHome(t)
	ws := t.TempDir()
	require.NoError(t, historytest.Write([]historytest.Run{{Homes: []string{f.Uagent}, ID: "20261105-000000-0a0b0c0d", Session: "0a0b0c0d-0000-4000-8000-000000000009",
		Start: time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC), Provider: "openai", Model: "gpt-5.4", Workspace: ws, Prompt: "here"}}, nil))
	sessions := func(args ...string) []string {
		code, stdout, stderr := runCmd(t, "", append([]string{"ls", "--json"}, args...)...)
		require.Equal(t, 0, code, stderr)
		var got []history.SessionJSON
		require.NoError(t, json.Unmarshal([]byte(stdout), &got))
		var ids []string
		for _, s := range got {
			ids = append(ids, s.SessionID[:8])
		}
		return ids
	}
	assert.Equal(t, []string{"0a0b0c0d", "a7182930", "f6071829", "e5f60718"}, sessions("--since", "2026-11-03", "--timezone", "UTC"))
	assert.Equal(t, []string{"d4e5f607"}, sessions("--until", "2026-11-01", "--timezone", "UTC"))
	assert.Equal(t, []string{"d4e5f607"}, sessions("--until", "2026-11-01T10:00", "--timezone", "Europe/Berlin"), "11:00 in Berlin is 10:00 UTC")
	assert.Len(t, sessions("--since", "36h"), 0, "nothing in the last 36 hours")
	assert.Len(t, sessions("--since", "5000d"), 8)
	assert.Equal(t, []string{"subagent"}, sessions("--source", "subagent"))
	assert.Equal(t, []string{"subagent"}, sessions("--model", "gpt-5.4-mini"))
	assert.Equal(t, []string{"a7182930"}, sessions("--status", "running"))
	assert.Equal(t, []string{"0a0b0c0d", "a7182930"}, sessions("--limit", "2"))
	assert.Len(t, sessions("--limit", "0"), 8, "0 is all")
	t.Chdir(ws)
	assert.Equal(t, []string{"0a0b0c0d"}, sessions("--workspace", "."))

	for _, args := range [][]string{{"--since", "yesterday"}, {"--source", "cli"}, {"--timezone", "Mars/Olympus"}, {"extra"}} {
		code, _, stderr := runCmd(t, "", append([]string{"ls"}, args...)...)
		assert.Equal(t, 2, code, "%q: %s", args, stderr)
	}
}

// ls --search: case-insensitive by Unicode simple folding, a hit in a
// prompt, an answer and a tool argument; each hit under its session with
// its run and the time of its line.
func TestLsSearch(t *testing.T) {
	historyHome(t)
	code, stdout, stderr := runCmd(t, "", "ls", "--search", "STRAẞE-PROOF: über", "--timezone", "UTC")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 4, stdout)
	assert.Equal(t, "a1f1a2b3", columns(lines[1])[1])
	assert.Equal(t, "    ⌕ 20261102-002 2026-11-02 00:20  Now make it Straße-proof: ÜBER tests", lines[2])

	code, stdout, stderr = runCmd(t, "", "ls", "--json", "--search", "LINE 88")
	require.Equal(t, 0, code, stderr)
	var got []history.SessionJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	require.Len(t, got, 1)
	require.Len(t, got[0].Matches, 1)
	m := got[0].Matches[0]
	assert.Equal(t, "20261102-000500-b2c3d4e5", m.RunID)
	assert.Equal(t, "In parser.go, line 88.", m.Snippet)
	assert.Equal(t, 6, m.Line, "run_started, user_message, turn_started, model_responded, tool_called, assistant_message")

	code, stdout, stderr = runCmd(t, "", "ls", "--runs", "--json", "--search", `"command":"grep -n`)
	require.Equal(t, 0, code, stderr)
	var runs []history.RunJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &runs))
	require.Len(t, runs, 1, "a hit in a tool argument")
	assert.Equal(t, "20261102-000500-b2c3d4e5", runs[0].RunID)
	validates(t, "ls-runs", stdout)
}

// usage: the rows and the total, each run once; a subagent's runs in its
// root session's row; --json the same numbers; --prices adds a row and a
// malformed table names its line and field.
func TestUsageCommand(t *testing.T) {
	historyHome(t)
	code, stdout, stderr := runCmd(t, "", "usage", "--timezone", "UTC")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 8, stdout)
	assert.Equal(t, []string{"DAY", "SESSIONS", "RUNS", "INPUT (UNCACHED)", "CACHED", "CACHE WRITES", "OUTPUT (REASONING)", "TOTAL", "COST"}, columns(lines[0]))
	assert.Equal(t, []string{"2026-11-02", "3", "3", "250,000", "650,000", "0", "16,000 (5,000)", "916,000", "$0.91"}, columns(lines[3]))
	assert.Equal(t, []string{"2026-11-03", "2", "2", "51,000", "0", "10,000", "1,510 (500)", "62,510", "≥$0.28"}, columns(lines[4]))
	assert.Equal(t, []string{"total", "7", "9", "533,000", "1,600,000", "30,000", "40,610 (11,500)", "2,203,610", "≥$2.45"}, columns(lines[6]))
	assert.Contains(t, lines[7], "API-price estimates")

	code, stdout, stderr = runCmd(t, "", "usage", "--by", "session", "--json")
	require.Equal(t, 0, code, stderr)
	var got struct {
		By       string              `json:"by"`
		Estimate string              `json:"estimate"`
		Rows     []history.UsageJSON `json:"rows"`
		Total    history.UsageJSON   `json:"total"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, "session", got.By)
	require.Len(t, got.Rows, 5)
	var flaky history.UsageJSON
	for _, r := range got.Rows {
		if r.Period == historytest.Flaky {
			flaky = r
		}
	}
	assert.Equal(t, 4, flaky.Runs)
	assert.Equal(t, 2, flaky.Subagents)
	require.NotNil(t, flaky.CostUSD)
	assert.InDelta(t, 1.0+0.5+0.05025+0.36, *flaky.CostUSD, 1e-9)
	assert.Equal(t, 9, got.Total.Runs)
	assert.Equal(t, int64(2203610), got.Total.TotalTokens)
	assert.Equal(t, int64(3110), got.Total.UnpricedTokens)
	rows, _ := json.Marshal(got.Rows)
	validates(t, "usage", string(rows))

	prices := filepath.Join(t.TempDir(), "prices.json")
	require.NoError(t, os.WriteFile(prices, []byte(`[
  {"provider": "local", "model": "llama-9`+strings.ReplaceAll(jsonString(historytest.Hostile), `"`, ``)+`", "input": 1, "cached_input": 0.1, "cache_write_input": null, "output": 2}
]`), 0o644))
	code, stdout, stderr = runCmd(t, "", "usage", "--json", "--prices", prices, "--by", "model")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	for _, r := range got.Rows {
		if strings.HasPrefix(r.Period, "local/") {
			require.NotNil(t, r.CostUSD, "priced by --prices")
			assert.InDelta(t, 0.001+0.00002, *r.CostUSD, 1e-9)
		}
	}
	assert.NotContains(t, stderr, "no price for local")

	require.NoError(t, os.WriteFile(prices, []byte("[\n  {\"provider\": \"a\", \"model\": \"b\", \"output\": \"2\"}\n]"), 0o644))
	code, _, stderr = runCmd(t, "", "usage", "--prices", prices)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "prices.json: stream: prices: line 2: field output: a JSON string where a number or null belongs")
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Any FILE argument that is no path names a run or a session of the
// history: cat, stats, validate, timeline, convert and export take a run
// id, a session id, a unique prefix of one, or latest; an ambiguous
// prefix lists the candidates (exit 1); a path that exists wins.
func TestOpenByID(t *testing.T) {
	historyHome(t)
	code, stdout, stderr := runCmd(t, "", "cat", "--no-color", "latest")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "Keep going")

	code, stdout, stderr = runCmd(t, "", "stats", "20261101-235000")
	require.Equal(t, 0, code, stderr)
	var sum stream.SummaryDTO
	require.NoError(t, json.Unmarshal([]byte(stdout), &sum))
	assert.Equal(t, "20261101-235000-a1f1a2b3", sum.RunID)

	// A session: its runs in order, as one session.
	code, stdout, stderr = runCmd(t, "", "cat", "--no-color", "a1f1")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "session "+historytest.Flaky)
	first, second := strings.Index(stdout, "Fix the flaky test"), strings.Index(stdout, "Straße-proof")
	assert.True(t, first >= 0 && second > first, "in order:\n%s", stdout)
	assert.Contains(t, stdout, "══ session "+historytest.Flaky+": 2 runs · 2 turns · 2 tool calls")

	code, stdout, stderr = runCmd(t, "", "stats", historytest.Flaky)
	require.Equal(t, 0, code, stderr)
	var ss struct {
		SessionID string `json:"session_id"`
		Runs      []struct {
			RunID  string `json:"run_id"`
			Status string `json:"status"`
		} `json:"runs"`
		Totals map[string]any `json:"totals"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &ss))
	assert.Equal(t, historytest.Flaky, ss.SessionID)
	require.Len(t, ss.Runs, 2)
	assert.Equal(t, "20261102-002000-a1f1a2b3", ss.Runs[1].RunID, "summary.json's metadata kept")
	assert.Equal(t, 2.0, ss.Totals["runs"])

	for _, args := range [][]string{{"validate", "a1f1"}, {"timeline", "latest"}, {"convert", "20261031"}} {
		code, _, stderr := runCmd(t, "", args...)
		assert.Equal(t, 0, code, "%q: %s", args, stderr)
	}
	code, _, stderr = runCmd(t, "", "convert", "a1f1")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "is a session: convert writes one run; its runs are 20261101-235000-a1f1a2b3, 20261102-002000-a1f1a2b3")

	out := t.TempDir()
	code, _, stderr = runCmd(t, "", "export", "-o", out, "a1f1", "20261031")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "exported 3 runs")

	code, _, stderr = runCmd(t, "", "cat", "2026110")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "uagent-stream: 2026110 is the beginning of 8 ids of the history; say which:")
	assert.Contains(t, stderr, "20261102-001000-c3d4e5f6 (run of 2026-11-02 00:10)")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line, with every candidate: %s", stderr)

	code, _, stderr = runCmd(t, "", "stats", "nothing-here")
	assert.Equal(t, 1, code)
	assert.Regexp(t, `nothing-here: (?i:no such file or directory) \(nor is it the id of a run or session of the history`, stderr)

	// A path that exists wins over an id.
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("latest", []byte(`{"v":1,"type":"run_started","at":"2026-11-01T00:00:00Z","run_id":"file"}`+"\n"), 0o644))
	_, stdout, _ = runCmd(t, "", "cat", "--no-color", "latest")
	assert.Contains(t, stdout, "file")
	assert.NotContains(t, stdout, "Keep going")
}

// --prices is bounded as every file of a history is: a table over
// history.MaxPricesFile is refused after reading that much, /dev/zero and
// a FIFO are no tables (each exit 1, at once, naming the file).
func TestPricesFileIsBounded(t *testing.T) {
	historyHome(t)
	big := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(history.MaxPricesFile+1<<20)) // a sparse file of NULs
	require.NoError(t, f.Close())
	for _, file := range []string{big, "/dev/zero"} {
		if _, err := os.Stat(file); err != nil {
			continue
		}
		code, _, stderr := runCmd(t, "", "ls", "--prices", file)
		assert.Equal(t, 1, code, file)
		assert.NotEmpty(t, stderr, file)
	}
	_, _, stderr := runCmd(t, "", "ls", "--prices", big)
	assert.Contains(t, stderr, "larger than a price table can be")
}

// Tables are laid out by display columns: a Chinese title or workspace
// (each character two columns) neither pushes a line past the terminal's
// width nor misaligns the columns after it, at 80 to 260 columns (the
// fixture's hostile model name is wide: the title shows from about 200).
func TestLsCJKFitsTheTerminal(t *testing.T) {
	f := historyHome(t)
	require.NoError(t, historytest.Write([]historytest.Run{{Homes: []string{f.Uagent}, ID: "20261105-000000-c1c1c1c1",
		Session: "c1c1c1c1-0000-4000-8000-000000000000", Start: time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC), Wall: time.Second,
		Provider: "openai", Model: "gpt-5.4", Workspace: "/home/开发者/项目",
		Prompt: "修复解析器中不稳定的测试并解释原因，然后把修复提交到主分支上去，再写一份说明文档", Answer: "好"}}, nil))
	for _, w := range []int{80, 100, 120, 200, 260} {
		t.Setenv("COLUMNS", strconv.Itoa(w))
		for _, args := range [][]string{{"ls", "--timezone", "UTC"}, {"ls", "--runs", "--timezone", "UTC"}} {
			code, stdout, stderr := runCmd(t, "", args...)
			require.Equal(t, 0, code, stderr)
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			for _, l := range lines {
				assert.LessOrEqual(t, termstream.Width(l), w, "%v at %d: %s", args, w, l)
			}
			// The title starts at one display column in the header and in
			// the row whose workspace (before it) is Chinese.
			var row string
			for _, l := range lines {
				if strings.Contains(l, "修") {
					row = l
				}
			}
			if h, r := strings.Index(lines[0], "TITLE"), strings.Index(row, "修"); h >= 0 && r >= 0 {
				assert.Equal(t, termstream.Width(lines[0][:h]), termstream.Width(row[:r]), "%v at %d:\n%s\n%s", args, w, lines[0], row)
			}
		}
	}
}

// --status takes only the words a run's status can be (statedir.Statuses):
// another is a usage error naming them, not an empty listing.
func TestLsStatusIsOneThereIs(t *testing.T) {
	historyHome(t)
	for _, s := range []string{"failed", "bogus", "timed_out"} {
		code, stdout, stderr := runCmd(t, "", "ls", "--status", s)
		assert.Equal(t, 2, code, s)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, "--status wants one of ok, error, timeout, interrupted, disk_limit, running, cut_off, reviewed", s)
	}
	code, stdout, stderr := runCmd(t, "", "ls", "--runs", "--status", "cut_off", "--json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "20261104-070000-a7182930", "the fixture's run uagent never ended")
}
