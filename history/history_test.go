package history_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/history/historytest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func fixture(t *testing.T) (historytest.Fixture, *history.Index) {
	t.Helper()
	f, err := historytest.WriteFixture(t.TempDir())
	require.NoError(t, err)
	release, err := f.HoldLive() // its run goes on
	require.NoError(t, err)
	t.Cleanup(release)
	return f, history.Open(history.DefaultPrices(), f.Dirs()...)
}

// The costs of the fixture's runs, worked out by hand from prices.json's
// rows (USD per million tokens; uncached input = input − cached − cache
// writes; reasoning is in output).
var costs = map[string]float64{
	// gpt-5.4 (2.50, 0.25, –, 15): 200,000×2.50 + 800,000×0.25 + 20,000×15
	"20261101-235000-a1f1a2b3": 0.50 + 0.20 + 0.30,
	// 100,000×2.50 + 400,000×0.25 + 10,000×15
	"20261102-002000-a1f1a2b3": 0.25 + 0.10 + 0.15,
	// gpt-5.4-mini (0.75, 0.075, –, 4.50): 50,000×0.75 + 50,000×0.075 + 2,000×4.50
	"20261102-000500-b2c3d4e5": 0.0375 + 0.00375 + 0.009,
	// gpt-5.4: 100,000×2.50 + 200,000×0.25 + 4,000×15
	"20261102-001000-c3d4e5f6": 0.25 + 0.05 + 0.06,
	// claude-sonnet-4-5 (3, 0.30, 3.75, 15): 30,000×3 + 150,000×0.30 + 20,000×3.75 + 3,000×15
	"20261031-100000-d4e5f607": 0.09 + 0.045 + 0.075 + 0.045,
	// gpt-5.6-sol of openai-codex, from 2026-08-21 (4, 0.40, 5, 20): 50,000×4 + 10,000×5 + 1,500×20
	"20261103-090000-e5f60718": 0.20 + 0.05 + 0.03,
	// running, no tokens yet
	"20261104-080000-a7182930": 0,
}

// unpricedRuns have no price: a model no table has, and a run without a
// summary, whose provider its request does not say.
var unpricedRuns = []string{"20261103-120000-f6071829", "20261104-070000-a7182930"}

func TestRunsAreTheSummariesFigures(t *testing.T) {
	f, x := fixture(t)
	require.Empty(t, x.Problems())
	runs := x.Runs()
	require.Len(t, runs, len(f.Runs), "each run once, the one in two homes too")
	for _, want := range f.Runs {
		r := x.Run(want.ID)
		require.NotNil(t, r, want.ID)
		assert.Equal(t, want.Session, r.SessionID)
		assert.Equal(t, want.Model, r.Model)
		assert.Equal(t, want.Prompt, r.Title)
		if !want.NoSummary && want.Status != "running" { // a run not finished: its figures so far, from its events
			assert.Equal(t, want.Provider, r.Provider)
			assert.Equal(t, want.Tokens, r.Tokens, want.ID)
			assert.Equal(t, want.Wall.Milliseconds(), r.WallMS)
		}
		c := costs[want.ID]
		assert.Equal(t, !slices.Contains(unpricedRuns, want.ID), r.Cost.Priced, want.ID)
		assert.InDelta(t, c, r.Cost.USD, 1e-9, want.ID)
	}
	nosum := x.Run("20261104-070000-a7182930")
	assert.Equal(t, stream.TokensDTO{Input: 2000, Output: 100}, nosum.Tokens, "recomputed from its events")
	assert.Equal(t, "cut_off", nosum.Status, "no summary, and its session's lock is its later run's: stopped")
	assert.Empty(t, nosum.Provider, "a request does not say the provider")
	assert.Equal(t, "ChatGPT", x.Run("20261103-090000-e5f60718").Cost.Plan)
	assert.Equal(t, 2, x.Run("20261102-002000-a1f1a2b3").Seq)
	// Runs are in the order they started.
	assert.True(t, slices.IsSortedFunc(runs, func(a, b *history.Run) int { return a.StartedAt.Compare(b.StartedAt) }))
}

func TestSessionsAreListedUnderTheirParents(t *testing.T) {
	_, x := fixture(t)
	type row struct {
		ID, Source, Title, Status string
		Depth, Runs               int
	}
	var got []row
	for _, l := range x.List(history.Filter{}) {
		got = append(got, row{l.ID, l.Source, l.Title, l.Status, l.Depth, len(l.Runs)})
	}
	want := []row{
		{historytest.Live, "", "Start the long job", "running", 0, 2},
		{historytest.Unpriced, "", "Say hi " + historytest.Hostile, "ok", 0, 1},
		{historytest.Copied, "run", "Summarize the meeting notes", "ok", 0, 1},
		{historytest.Flaky, "tui", "Fix the flaky test in parser_test.go", "ok", 0, 2},
		{historytest.Reviewer, "review", "Review the fix", "ok", 1, 1},
		{historytest.Sub, "subagent", "Find where the cache is shared", "ok", 1, 1},
		{historytest.Old, "", "Update the footer year", "ok", 0, 1},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sessions (-want +got):\n%s", d)
	}
	flaky := x.Session(historytest.Flaky)
	assert.Equal(t, time.Date(2026, 11, 2, 0, 23, 0, 0, time.UTC), flaky.LastActivity, "the last run's end")
	assert.Equal(t, time.Date(2026, 11, 1, 23, 50, 0, 0, time.UTC), flaky.StartedAt)
	assert.Equal(t, stream.TokensDTO{Input: 1500000, CachedInput: 1200000, Output: 30000, Reasoning: 7000}, flaky.Tokens, "its own runs, not its subagents'")
	assert.InDelta(t, 1.50, flaky.Cost.USD, 1e-9)
	assert.Nil(t, x.Session(historytest.Unpriced).Cost.USDOrNil(), "unpriced, never zero")
	assert.Equal(t, []string{"local/llama-9" + historytest.Hostile}, x.Session(historytest.Unpriced).Cost.Unpriced)
	assert.Equal(t, int64(1010), x.Session(historytest.Unpriced).Cost.UnpricedTokens)
}

func TestFilters(t *testing.T) {
	_, x := fixture(t)
	ids := func(f history.Filter) []string {
		var out []string
		for _, l := range x.List(f) {
			out = append(out, l.ID)
		}
		return out
	}
	runIDs := func(f history.Filter) []string {
		var out []string
		for _, r := range x.ListRuns(f) {
			out = append(out, r.ID)
		}
		return out
	}
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	assert.Equal(t, []string{historytest.Live, historytest.Unpriced, historytest.Copied}, ids(history.Filter{Since: day("2026-11-03")}))
	assert.Equal(t, []string{historytest.Old}, ids(history.Filter{Until: day("2026-11-01")}))
	assert.Equal(t, []string{historytest.Live, historytest.Flaky, historytest.Reviewer, historytest.Sub}, ids(history.Filter{Workspace: "/home/dev/parser/"}))
	assert.Equal(t, []string{historytest.Sub}, ids(history.Filter{Model: "gpt-5.4-mini"}), "a subagent whose parent is not listed is at the top")
	assert.Equal(t, []string{historytest.Live}, ids(history.Filter{Status: "running"}))
	assert.Equal(t, []string{historytest.Reviewer}, ids(history.Filter{Source: "review"}))
	assert.Equal(t, []string{historytest.Sub}, ids(history.Filter{Source: "subagent"}))
	assert.Equal(t, []string{historytest.Copied}, ids(history.Filter{Source: "run"}))
	assert.Equal(t, []string{"20261102-002000-a1f1a2b3", "20261102-001000-c3d4e5f6", "20261102-000500-b2c3d4e5"},
		runIDs(history.Filter{Since: day("2026-11-02"), Until: day("2026-11-03")}))
	assert.Equal(t, []string{"20261102-001000-c3d4e5f6"}, runIDs(history.Filter{Source: "review"}))
}

func TestResolve(t *testing.T) {
	_, x := fixture(t)
	got, err := x.Resolve("latest")
	require.NoError(t, err)
	assert.Equal(t, "20261104-080000-a7182930", got.Run.ID)
	got, err = x.Resolve("20261031-100000-d4e5f607")
	require.NoError(t, err)
	assert.Equal(t, "20261031-100000-d4e5f607", got.Run.ID)
	got, err = x.Resolve(historytest.Flaky)
	require.NoError(t, err)
	assert.Equal(t, historytest.Flaky, got.Session.ID)
	got, err = x.Resolve("a1f1")
	require.NoError(t, err)
	assert.Equal(t, historytest.Flaky, got.Session.ID, "a unique prefix")
	got, err = x.Resolve("20261031")
	require.NoError(t, err)
	assert.Equal(t, "20261031-100000-d4e5f607", got.Run.ID)
	_, err = x.Resolve("subagent-")
	var amb *history.AmbiguousError
	require.ErrorAs(t, err, &amb)
	assert.Equal(t, []string{historytest.Sub, historytest.Reviewer}, amb.Candidates)
	_, err = x.Resolve("nothing-like-it")
	assert.ErrorIs(t, err, history.ErrNotFound)

	assert.Equal(t, "a1f1a2b3", x.ShortID(historytest.Flaky), "at least 8")
	assert.Equal(t, "subagent-b", x.ShortID(historytest.Sub), "as long as it takes to be unique")
	assert.Equal(t, "20261102-001", x.ShortID("20261102-001000-c3d4e5f6"))
	for _, r := range x.Runs() {
		got, err := x.Resolve(x.ShortID(r.ID))
		require.NoError(t, err, r.ID)
		assert.Equal(t, r, got.Run, "a short id resolves to its run")
	}
}

func TestSearch(t *testing.T) {
	_, x := fixture(t)
	search := func(text string) []string {
		var out []string
		for m, err := range x.Search(context.Background(), text, x.Runs()) {
			require.NoError(t, err)
			out = append(out, m.Run.ID+" "+m.Snippet)
		}
		return out
	}
	assert.Equal(t, []string{"20261101-235000-a1f1a2b3 Fix the flaky test in parser_test.go"}, search("FLAKY TEST"), "case folded")
	assert.Equal(t, []string{"20261102-002000-a1f1a2b3 Now make it Straße-proof: ÜBER tests"}, search("STRAẞE-PROOF: über"), "Unicode simple folding")
	assert.Equal(t, []string{"20261102-000500-b2c3d4e5 In parser.go, line 88."}, search("LINE 88"), "an answer, from the events")
	assert.Equal(t, []string{`20261101-235000-a1f1a2b3 {"command":"go test -run TestFlaky -count 50 ./parser"}`}, search(`"command":"go test -run testflaky`),
		"a tool argument")
	assert.Equal(t, []string{"20261101-235000-a1f1a2b3 go test -run TestFlaky -count 50 ./parser"}, search("-count 50"), "a tool label")
	assert.Empty(t, search("nowhere at all"))
	assert.Empty(t, search(""))

	var lines []int
	for m, err := range x.Search(context.Background(), "lock covers", x.Runs()) {
		require.NoError(t, err)
		lines = append(lines, m.Line)
		assert.Equal(t, time.Date(2026, 11, 2, 0, 10, 0, 300_000_000, time.UTC), m.At, "the time of its line")
	}
	assert.Equal(t, []int{5}, lines, "run_started, user_message, turn_started, model_responded, assistant_message")
}

func TestSearchSnippetIsCut(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("lorem ipsum ", 20) + "NEEDLE" + strings.Repeat(" dolor sit", 20)
	require.NoError(t, historytest.Write([]historytest.Run{{Homes: []string{dir}, ID: "20261101-000000-00000001", Session: "00000001-0000-4000-8000-000000000000",
		Start: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Prompt: "x", Answer: long}}, nil))
	x := history.Open(history.DefaultPrices(), dir)
	for m, err := range x.Search(context.Background(), "needle", x.Runs()) {
		require.NoError(t, err)
		assert.Equal(t, "…sum lorem ipsum lorem ipsum lorem ipsum NEEDLE dolor sit dolor sit dolor sit dolor sit…", m.Snippet)
	}
}

// A search stops when its context does, and leaves no worker behind
// (goleak, in TestMain).
func TestSearchStops(t *testing.T) {
	_, x := fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, err := range x.Search(ctx, "flaky", x.Runs()) {
		if err != nil {
			assert.ErrorIs(t, err, context.Canceled)
		}
	}
	n := 0
	for range x.Search(context.Background(), "a", x.Runs()) {
		n++
		break
	}
	assert.Equal(t, 1, n)
}

func TestUsage(t *testing.T) {
	_, x := fixture(t)
	type row struct {
		Period                    string
		Sessions, Runs, Subagents int
		Total                     int64
		USD                       float64
		Unpriced                  int64
	}
	rowsOf := func(by string, loc *time.Location) ([]row, row) {
		rows, total, err := x.Usage(history.Filter{}, by, loc, false)
		require.NoError(t, err)
		var out []row
		conv := func(u history.UsageRow) row {
			return row{u.Period, u.Sessions, u.Runs, u.Subagents, u.Total(), float64(int64(u.Cost.USD*1e9+0.5)) / 1e9, u.Cost.UnpricedTokens}
		}
		for _, u := range rows {
			out = append(out, conv(u))
		}
		return out, conv(total)
	}
	c := func(ids ...string) float64 {
		s := 0.0
		for _, id := range ids {
			s += costs[id]
		}
		return float64(int64(s*1e9+0.5)) / 1e9
	}
	rows, total := rowsOf(history.ByDay, time.UTC)
	want := []row{
		{"2026-10-31", 1, 1, 0, 203000, c("20261031-100000-d4e5f607"), 0},
		{"2026-11-01", 1, 1, 0, 1020000, c("20261101-235000-a1f1a2b3"), 0},
		{"2026-11-02", 3, 3, 0, 916000, c("20261102-000500-b2c3d4e5", "20261102-001000-c3d4e5f6", "20261102-002000-a1f1a2b3"), 0},
		{"2026-11-03", 2, 2, 0, 61500 + 1010, c("20261103-090000-e5f60718"), 1010},
		{"2026-11-04", 1, 2, 0, 2100, 0, 2100},
	}
	if d := cmp.Diff(want, rows); d != "" {
		t.Errorf("by day, UTC (-want +got):\n%s", d)
	}
	assert.Equal(t, row{"total", 7, 9, 0, 203000 + 1020000 + 916000 + 62510 + 2100, c(keys(costs)...), 1010 + 2100}, total, "each run once")

	ny, err := time.LoadLocation("America/New_York")
	if err == nil {
		rows, _ = rowsOf(history.ByDay, ny)
		assert.Equal(t, "2026-11-01", rows[1].Period)
		assert.Equal(t, 4, rows[1].Runs, "23:50 and 00:05, 00:10, 00:20 UTC are the evening of Nov 1 in New York")
	}
	rows, _ = rowsOf(history.ByMonth, time.UTC)
	assert.Equal(t, []string{"2026-10", "2026-11"}, []string{rows[0].Period, rows[1].Period})
	rows, _ = rowsOf(history.ByWeek, time.UTC)
	assert.Equal(t, []string{"2026-W44", "2026-W45"}, []string{rows[0].Period, rows[1].Period})

	rows, total = rowsOf(history.BySession, time.UTC)
	var flaky row
	for _, r := range rows {
		if r.Period == historytest.Flaky {
			flaky = r
		}
		assert.NotEqual(t, historytest.Sub, r.Period, "a subagent's runs count in its root session")
	}
	assert.Equal(t, row{historytest.Flaky, 1, 4, 2, 1020000 + 916000,
		c("20261101-235000-a1f1a2b3", "20261102-000500-b2c3d4e5", "20261102-001000-c3d4e5f6", "20261102-002000-a1f1a2b3"), 0}, flaky)
	assert.Equal(t, 9, total.Runs)
	assert.Len(t, rows, 5)
	assert.Equal(t, [2]int{5, 2}, [2]int{total.Sessions, total.Subagents}, "the total of the rows: five root sessions, two subagents")

	byModel, _, err := x.Usage(history.Filter{}, history.ByModel, time.UTC, false)
	require.NoError(t, err)
	assert.Equal(t, "openai/gpt-5.4", byModel[0].Period, "the most tokens first")

	broken, _, err := x.Usage(history.Filter{}, history.ByDay, time.UTC, true)
	require.NoError(t, err)
	var models []string
	for _, m := range broken[2].Models {
		models = append(models, m.Period)
	}
	assert.Equal(t, []string{"openai/gpt-5.4", "openai/gpt-5.4-mini"}, models)
	assert.Equal(t, 2, broken[2].Models[0].Runs)

	_, _, err = x.Usage(history.Filter{}, "year", time.UTC, false)
	assert.ErrorContains(t, err, `usage by "year"`)
}

func keys(m map[string]float64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Every row of the price table names the page it came from and the date
// it was checked.
func TestEveryPriceHasItsSource(t *testing.T) {
	rows := history.DefaultPrices().Rows()
	require.NotEmpty(t, rows)
	for _, r := range rows {
		assert.True(t, strings.HasPrefix(r.Source, "https://"), "%s/%s: source %q", r.Provider, r.Model, r.Source)
		_, err := time.Parse(time.DateOnly, r.Checked)
		assert.NoError(t, err, "%s/%s: checked %q", r.Provider, r.Model, r.Checked)
	}
	for _, r := range rows {
		if r.Provider == "openai-codex" {
			assert.Equal(t, "ChatGPT", r.Plan, "openai-codex is billed by a ChatGPT plan")
		}
	}
}

func TestParsePrices(t *testing.T) {
	p, err := history.ParsePrices(strings.NewReader(`[
  {"provider": "local", "model": "llama-9", "input": 1, "cached_input": null, "cache_write_input": null, "output": 2}
]`))
	require.NoError(t, err)
	c := p.Cost("local", "llama-9", time.Time{}, stream.TokensDTO{Input: 1e6, Output: 1e6})
	assert.Equal(t, history.Cost{USD: 3, Priced: true}, c)
	assert.False(t, p.Cost("local", "llama-9", time.Time{}, stream.TokensDTO{Input: 1e6, CachedInput: 1}).Priced, "a class without a rate is unpriced")
	assert.False(t, p.Cost("local", "other", time.Time{}, stream.TokensDTO{Input: 1}).Priced)
	assert.True(t, p.Cost("local", "other", time.Time{}, stream.TokensDTO{}).Priced, "no tokens cost nothing")
	unknown := history.DefaultPrices().Cost("openai-codex", "gpt-9-unknown", time.Time{}, stream.TokensDTO{Input: 1})
	assert.Equal(t, history.Cost{Plan: "ChatGPT"}, unknown, "unpriced, and still billed by its provider's plan")
	with := history.DefaultPrices().With(p)
	assert.True(t, with.Cost("local", "llama-9", time.Time{}, stream.TokensDTO{Input: 1}).Priced)
	assert.True(t, with.Cost("openai", "gpt-5.4", time.Time{}, stream.TokensDTO{Input: 1}).Priced)

	for in, want := range map[string]string{
		"[\n  {\"provider\": \"a\", \"model\": \"b\", \"input\": \"1\"}\n]":      `stream: prices: line 2: field input: a JSON string where a number or null belongs`,
		"[\n  {\"provider\": \"a\", \"model\": \"b\"},\n  {\"model\": \"c\"}\n]": `stream: prices: line 3: field provider: missing`,
		"[\n  {\"provider\": \"a\", \"model\": \"b\", \"output\": -1}\n]":        `stream: prices: line 2: field output: a negative rate`,
		"[\n  {\"provider\": \"a\", \"model\": \"b\", \"rate\": 1}\n]":           `stream: prices: line 2: field rate: not a field of a price row`,
		"[\n  {\"provider\": \"a\", \"model\": \"b\", \"checked\": \"May\"}\n]":  `stream: prices: line 2: field checked: not a date (YYYY-MM-DD)`,
		"[\n  {\"provider\": \"a\",\n":                                           `stream: prices: line 3: not JSON: unexpected end of JSON input`,
		`"rows"`:                                                                 `stream: prices: line 1: not a JSON array of rows, nor LiteLLM's object of models`,
		"[\n  {\"provider\": \"a\", \"model\": \"b\", \"since\": \"2026-01-01\"},\n  {\"provider\": \"a\", \"model\": \"b\", \"since\": \"2026-01-01\"}\n]": `stream: prices: line 3: field since: a second row of a/b from the same day`,
		"[\n  {\"provider\": \"a\", \"model\": \"b\", \"long_context\": {\"above\": 0}}\n]":                                                                 `stream: prices: line 2: field long_context.above: not a number of tokens above 0`,
	} {
		_, err := history.ParsePrices(strings.NewReader(in))
		var pe *history.PricesError
		require.True(t, errors.As(err, &pe), in)
		assert.Equal(t, want, err.Error(), in)
	}
}

// The two copies of a run uah copied are one run; a history whose homes
// are missing says so and lists what it has.
func TestMissingHome(t *testing.T) {
	f, err := historytest.WriteFixture(t.TempDir())
	require.NoError(t, err)
	x := history.Open(history.DefaultPrices(), f.Uagent, filepath.Join(f.Uagent, "nope"))
	require.Len(t, x.Problems(), 1)
	assert.ErrorIs(t, x.Problems()[0], os.ErrNotExist)
	assert.Len(t, x.Runs(), 4)
}

// A Bash label decodes the command its arguments spell: arguments that
// write é as \u00e9 (so the record's bytes hold "\\u00e9") still find
// "CAFÉ" in the label; a file whose escapes are of other runes is not
// decoded for it, and one without the text is not a match.
func TestSearchFindsEscapedLabels(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "runs", "20261101-000000-00000001")
	require.NoError(t, os.MkdirAll(run, 0o755))
	records := `{"Sequence":1,"RecordedAt":"2026-11-01T00:00:00Z","Kind":"turn","Data":{"ID":"t1"}}
{"Sequence":2,"RecordedAt":"2026-11-01T00:00:01Z","Kind":"model_response","Data":{"TurnID":"t1","Response":{"Stop":"complete","Output":[{"Type":"tool_call","Data":{"CallID":"c1","Name":"Bash","Arguments":"{\"command\":\"echo caf\\u00e9 \\u00fc\"}"}}]}}}
`
	require.NoError(t, os.WriteFile(filepath.Join(run, "events.jsonl"), []byte(records), 0o644))
	x := history.Open(history.DefaultPrices(), dir)
	found := func(text string) []string {
		var out []string
		for m, err := range x.Search(context.Background(), text, x.Runs()) {
			require.NoError(t, err)
			out = append(out, m.Snippet)
		}
		return out
	}
	assert.Equal(t, []string{"echo café ü"}, found("CAFÉ"), "the label, decoded")
	assert.Equal(t, []string{`{"command":"echo caf\u00e9 \u00fc"}`}, found(`caf\u00e9`), "the arguments, as written")
	assert.Empty(t, found("cafe"))
	assert.Equal(t, []string{"echo café ü"}, found("É Ü"), "a needle whose anchor is not its first rune")
}

// Reopen reads the runs that are new or were going on, not the runs that
// had ended: a finished run's files are not read again (here its summary,
// broken after Open, still gives its figures), a new run and a run that
// ended since are read.
func TestReopenReadsWhatChanged(t *testing.T) {
	f, x := fixture(t)
	finished := filepath.Join(f.Old, "runs", "20261031-100000-d4e5f607", "summary.json")
	require.NoError(t, os.WriteFile(finished, []byte("not json"), 0o644))
	live := x.Run("20261104-080000-a7182930")
	require.Equal(t, "running", live.Status)
	require.NoError(t, stream.SummaryDTO{V: 1, Status: "ok",
		RunID: live.ID, SessionID: live.SessionID, StartedAt: live.StartedAt, WallMS: 5000}.WriteFile(filepath.Join(live.Dir, "summary.json")))
	require.NoError(t, historytest.Write([]historytest.Run{{Homes: []string{f.Uagent}, ID: "20261105-000000-b0b0b0b0", Session: "b0b0b0b0-0000-4000-8000-000000000000",
		Start: time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC), Provider: "openai", Model: "gpt-5.4", Prompt: "new"}}, nil))

	y := x.Reopen()
	assert.Equal(t, "ok", y.Run("20261104-080000-a7182930").Status, "read again: it was going on")
	assert.NotNil(t, y.Run("20261105-000000-b0b0b0b0"), "a new run")
	assert.Equal(t, "anthropic", y.Run("20261031-100000-d4e5f607").Provider, "not read again: it had ended")
	assert.Len(t, y.Runs(), len(x.Runs())+1)
	assert.Empty(t, history.Open(history.DefaultPrices(), f.Dirs()...).Run("20261031-100000-d4e5f607").Provider,
		"read from scratch, the broken summary gives no provider")
}

// A run without a summary is recomputed from its records once for
// records as they are: Reopen folds them again only when they changed
// (their size or time), not every time the history is read again.
func TestReopenRecomputesOnlyChangedRecords(t *testing.T) {
	_, x := fixture(t)
	const id = "20261104-070000-a7182930" // no summary
	events := filepath.Join(x.Run(id).Dir, "events.jsonl")
	info, err := os.Stat(events)
	require.NoError(t, err)
	// The same size and time, other bytes: not read again.
	require.NoError(t, os.WriteFile(events, bytes.Repeat([]byte("x"), int(info.Size())), 0o644))
	require.NoError(t, os.Chtimes(events, info.ModTime(), info.ModTime()))
	y := x.Reopen()
	assert.Equal(t, int64(2000), y.Run(id).Tokens.Input, "the records' figures, kept")
	// Changed: read again.
	require.NoError(t, os.WriteFile(events, []byte(`{"Sequence":1,"RecordedAt":"2026-11-04T07:00:01Z","Kind":"turn","Data":{"ID":"t1"}}`+"\n"), 0o644))
	z := y.Reopen()
	assert.Equal(t, int64(0), z.Run(id).Tokens.Input, "recomputed from the records as they are now")
}

// Sums never wrap: two runs of 5e18 input tokens add up to the most an
// int64 holds, not a negative number, in a session, in usage and in its
// JSON; a cost that is not a finite number (a rate so large) is no figure
// (nil, null in JSON) and the estimate's note says so.
func TestSumsSaturate(t *testing.T) {
	home := t.TempDir()
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	var runs []historytest.Run
	for i := range 2 {
		runs = append(runs, historytest.Run{Homes: []string{home}, ID: fmt.Sprintf("20261101-09000%d-aaaaaaaa", i), Session: "aaaaaaaa-1",
			Start: at.Add(time.Duration(i) * time.Second), Wall: time.Second, Provider: "big", Model: "huge", Prompt: "p", Answer: "a",
			Tokens: stream.TokensDTO{Input: 5e18, Output: 5e18}})
	}
	require.NoError(t, historytest.Write(runs, nil))
	prices, err := history.ParsePrices(strings.NewReader(`[{"provider":"big","model":"huge","input":1e308,"output":1e308,"source":"a test","checked":"2026-12-06"}]`))
	require.NoError(t, err)
	x := history.Open(prices, home)
	s := x.Session("aaaaaaaa-1")
	require.NotNil(t, s)
	assert.Equal(t, int64(math.MaxInt64), s.Tokens.Input)
	assert.Equal(t, int64(math.MaxInt64), s.Tokens.Output)
	j := s.JSON()
	assert.Nil(t, j.CostUSD, "not a finite number: no figure")
	assert.Contains(t, s.Cost.Note(), "not a finite number")
	rows, total, err := x.Usage(history.Filter{}, history.ByDay, time.UTC, false)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Equal(t, int64(math.MaxInt64), total.Total())
	assert.GreaterOrEqual(t, total.UncachedInput(), int64(0))
	assert.Nil(t, total.JSON().CostUSD)
}

// A breakdown is a row per model under each group; by model, each row is
// one already, and none is repeated under itself.
func TestUsageBreakdownWithoutRepeats(t *testing.T) {
	_, x := fixture(t)
	rows, _, err := x.Usage(history.Filter{}, history.ByDay, time.UTC, true)
	require.NoError(t, err)
	assert.NotEmpty(t, rows[0].Models)
	rows, _, err = x.Usage(history.Filter{}, history.ByModel, time.UTC, true)
	require.NoError(t, err)
	for _, r := range rows {
		assert.Empty(t, r.Models, r.Period)
	}
}

// A filter as written is read one way wherever it comes from: the
// command's flags, the page's address, an agent's call.
func TestAskedFilter(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	f, err := history.Asked{Since: "7d", Until: "2026-12-06", Status: "cut_off", Source: "review", Model: "m", Workspace: "/w"}.Filter(time.UTC, now)
	require.NoError(t, err)
	assert.Equal(t, history.Filter{Since: now.AddDate(0, 0, -7), Until: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC), Status: "cut_off", Source: "review", Model: "m", Workspace: "/w"}, f)
	for field, a := range map[string]history.Asked{"since": {Since: "yesterday"}, "until": {Until: "soon"}, "status": {Status: "failed"}, "source": {Source: "cli"}} {
		_, err := a.Filter(time.UTC, now)
		fe, ok := errors.AsType[*history.FilterError](err)
		require.True(t, ok, field)
		assert.Equal(t, field, fe.Field)
	}
	_, err = history.Asked{Since: "yesterday"}.Filter(time.UTC, now)
	assert.ErrorIs(t, err, history.ErrWhen)
	assert.Equal(t, "status wants one of ok, error, timeout, interrupted, disk_limit, running, cut_off, reviewed", func() string {
		_, err := history.Asked{Status: "failed"}.Filter(time.UTC, now)
		return err.Error()
	}())
}

// The periods between two are named as Usage names its rows, across a
// year's end and an ISO week 53.
func TestPeriods(t *testing.T) {
	assert.Equal(t, []string{"2026-10-30", "2026-10-31", "2026-11-01"}, history.Periods(history.ByDay, "2026-10-30", "2026-11-01"))
	assert.Equal(t, []string{"2026-W52", "2026-W53", "2027-W01"}, history.Periods(history.ByWeek, "2026-W52", "2027-W01"))
	assert.Equal(t, []string{"2026-11", "2026-12", "2027-01"}, history.Periods(history.ByMonth, "2026-11", "2027-01"))
	assert.Equal(t, []string{"2026-11"}, history.Periods(history.ByMonth, "2026-11", "2026-11"))
	assert.Nil(t, history.Periods(history.ByModel, "a", "b"))
	assert.Nil(t, history.Periods(history.ByDay, "2026-11-02", "2026-11-01"), "last before first: none")
	assert.Nil(t, history.Periods(history.ByWeek, "2026-W99", "2027-W01"))
	assert.Nil(t, history.Periods(history.ByDay, "yesterday", "2026-11-01"))
}
