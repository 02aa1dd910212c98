package history_test

import (
	"math"
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
)

// cents rounds to a billionth of a dollar, for sums of float rates.
func cents(v float64) float64 { return math.Round(v*1e9) / 1e9 }

// The models people run are in the table: the GPT-6 family of both
// OpenAI providers, with the long-context rule of the GPT-6 and GPT-5.6
// families as OpenAI states it (above 272,000 prompt tokens: 2× input,
// cached and cache-write, 1.5× output), and Anthropic's rows with their
// hour-long cache writes (2× input).
func TestPricesOfWhatPeopleRun(t *testing.T) {
	p := history.DefaultPrices()
	for _, provider := range []string{"openai", "openai-codex"} {
		for _, m := range []string{"gpt-6-sol", "gpt-6.1-sol", "gpt-6-luna", "gpt-6-astra", "gpt-5.6-sol", "gpt-5.6-luna", "gpt-5.6-terra"} {
			row, ok := p.Lookup(provider, m)
			require.True(t, ok, "%s/%s", provider, m)
			lc := row.LongContext
			require.NotNil(t, lc, "%s/%s has the long-context rule", provider, m)
			assert.Equal(t, int64(272000), lc.Above)
			assert.Equal(t, cents(2**row.Input), cents(*lc.Input), m)
			assert.Equal(t, cents(2**row.CachedInput), cents(*lc.CachedInput), m)
			assert.Equal(t, cents(2**row.CacheWriteInput), cents(*lc.CacheWriteInput), m)
			assert.Equal(t, cents(1.5**row.Output), cents(*lc.Output), m)
		}
	}
	sol, _ := p.Lookup("openai", "gpt-6-sol")
	assert.Equal(t, []float64{2, 0.2, 2.5, 10}, []float64{*sol.Input, *sol.CachedInput, *sol.CacheWriteInput, *sol.Output})
	luna, _ := p.Lookup("openai", "gpt-6-luna")
	assert.Equal(t, []float64{0.1, 0.01, 0.125, 0.5}, []float64{*luna.Input, *luna.CachedInput, *luna.CacheWriteInput, *luna.Output})
	astra, _ := p.Lookup("openai-codex", "gpt-6-astra")
	assert.Equal(t, []float64{10, 1, 12.5, 50}, []float64{*astra.Input, *astra.CachedInput, *astra.CacheWriteInput, *astra.Output})
	for _, r := range p.Rows() {
		if r.Provider == "anthropic" {
			require.NotNil(t, r.CacheWrite1hInput, r.Model)
			assert.Equal(t, 2**r.Input, *r.CacheWrite1hInput, r.Model)
		}
		if r.Since != "" {
			_, err := time.Parse(time.DateOnly, r.Since)
			assert.NoError(t, err, "%s/%s since %q", r.Provider, r.Model, r.Since)
		}
	}
}

// A run is priced at the rate in force when it started: gpt-5.6-sol
// was $5/$30 before 2026-08-21 (UTC) and $4/$20 (cached 0.40, write 5)
// since.
func TestPriceInForceWhenTheRunStarted(t *testing.T) {
	p := history.DefaultPrices()
	tok := stream.TokensDTO{Input: 1_000_000, CachedInput: 200_000, CacheWriteInput: 100_000, Output: 100_000}
	before := p.Cost("openai", "gpt-5.6-sol", time.Date(2026, 8, 20, 23, 59, 59, 0, time.UTC), tok)
	// 700,000×5 + 200,000×0.50 + 100,000×6.25 + 100,000×30
	assert.Equal(t, cents(3.5+0.1+0.625+3), cents(before.USD))
	since := p.Cost("openai", "gpt-5.6-sol", time.Date(2026, 8, 21, 0, 0, 0, 0, time.UTC), tok)
	// 700,000×4 + 200,000×0.40 + 100,000×5 + 100,000×20
	assert.Equal(t, cents(2.8+0.08+0.5+2), cents(since.USD))
	// 2026-08-21 01:00 in Tokyo is still the 20th in UTC
	tokyo := time.FixedZone("JST", 9*3600)
	assert.Equal(t, cents(before.USD), cents(p.Cost("openai", "gpt-5.6-sol", time.Date(2026, 8, 21, 1, 0, 0, 0, tokyo), tok).USD))

	// a model priced only from a day is unpriced before it
	only, err := history.ParsePrices(strings.NewReader(`[{"provider": "x", "model": "m", "since": "2026-05-01", "input": 1, "cached_input": null, "cache_write_input": null, "output": 1}]`))
	require.NoError(t, err)
	assert.False(t, only.Cost("x", "m", time.Date(2026, 4, 30, 0, 0, 0, 0, time.UTC), stream.TokensDTO{Input: 1}).Priced)
	assert.True(t, only.Cost("x", "m", time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), stream.TokensDTO{Input: 1}).Priced)
}

// The long-context rule prices each request on its own: one request of
// 300,000 prompt tokens is over 272,000 and costs 2× and 1.5×; two of
// 150,000, the same totals, are not. From its totals alone a run could
// not apply the rule, and says so.
func TestLongContextRulePerRequest(t *testing.T) {
	p := history.DefaultPrices()
	at := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	big := stream.TokensDTO{Input: 300_000, CachedInput: 100_000, Output: 10_000}
	half := stream.TokensDTO{Input: 150_000, CachedInput: 50_000, Output: 5_000}

	one := p.CostRequests("openai", "gpt-6-sol", at, []stream.TokensDTO{big})
	// gpt-6-sol above 272k (4, 0.40, 5, 15): 200,000×4 + 100,000×0.40 + 10,000×15
	assert.Equal(t, cents(0.8+0.04+0.15), cents(one.USD))
	assert.Equal(t, 1, one.LongRequests)
	assert.False(t, one.Unapplied)

	two := p.CostRequests("openai", "gpt-6-sol", at, []stream.TokensDTO{half, half})
	// (2, 0.20, 2.5, 10): 2 × (100,000×2 + 50,000×0.20 + 5,000×10)
	assert.Equal(t, cents(2*(0.2+0.01+0.05)), cents(two.USD))
	assert.Zero(t, two.LongRequests)

	totals := p.Cost("openai", "gpt-6-sol", at, big)
	assert.Equal(t, cents(two.USD), cents(totals.USD), "from the totals, the base rates")
	assert.True(t, totals.Unapplied, "the totals could hide a request over 272,000")
	assert.False(t, p.Cost("openai", "gpt-6-sol", at, half).Unapplied, "no request of 150,000 in all can be over")
	assert.False(t, p.Cost("openai", "gpt-5.4", at, big).Unapplied, "a model without the rule")

	exact := stream.TokensDTO{Input: 272_000, Output: 1}
	assert.Zero(t, p.CostRequests("openai", "gpt-6-sol", at, []stream.TokensDTO{exact}).LongRequests, "above 272,000, not at it")
}

// The history applies the rule from each run's records, and a run whose
// records are gone is priced from its summary and said to be.
func TestHistoryPricesEachRequest(t *testing.T) {
	home := t.TempDir()
	start := time.Date(2026, 10, 2, 9, 0, 0, 0, time.UTC)
	big := stream.TokensDTO{Input: 300_000, CachedInput: 100_000, Output: 10_000}
	half := stream.TokensDTO{Input: 150_000, CachedInput: 50_000, Output: 5_000}
	runs := []historytest.Run{
		{Homes: []string{home}, ID: "20261002-090000-11111111", Session: "11111111-0000-4000-8000-000000000001", Start: start, Wall: time.Minute,
			Provider: "openai-codex", Model: "gpt-6.1-sol", Prompt: "one big", Answer: "ok", Tokens: big, Requests: []stream.TokensDTO{big}},
		{Homes: []string{home}, ID: "20261002-100000-22222222", Session: "22222222-0000-4000-8000-000000000002", Start: start.Add(time.Hour), Wall: time.Minute,
			Provider: "openai-codex", Model: "gpt-6.1-sol", Prompt: "two halves", Answer: "ok", Tokens: big, Requests: []stream.TokensDTO{half, half}},
		{Homes: []string{home}, ID: "20261002-110000-33333333", Session: "33333333-0000-4000-8000-000000000003", Start: start.Add(2 * time.Hour), Wall: time.Minute,
			Provider: "openai-codex", Model: "gpt-6.1-sol", Prompt: "records gone", Answer: "ok", Tokens: big, Requests: []stream.TokensDTO{big}},
	}
	require.NoError(t, historytest.Write(runs, nil))
	require.NoError(t, os.Remove(filepath.Join(home, "runs", runs[2].ID, "events.jsonl")))
	x := history.Open(history.DefaultPrices(), home)
	// gpt-6.1-sol (2, 0.20, 2.5, 10), above 272k (4, 0.40, 5, 15)
	assert.Equal(t, cents(0.8+0.04+0.15), cents(x.Run(runs[0].ID).Cost.USD))
	assert.Equal(t, 1, x.Run(runs[0].ID).Cost.LongRequests)
	assert.Equal(t, cents(2*(0.2+0.01+0.05)), cents(x.Run(runs[1].ID).Cost.USD))
	gone := x.Run(runs[2].ID).Cost
	assert.True(t, gone.Priced)
	assert.True(t, gone.Unapplied)
	assert.Equal(t, cents(0.4+0.02+0.1), cents(gone.USD))
	var e history.Estimate
	for _, r := range x.Runs() {
		e.Add(r)
	}
	assert.Contains(t, e.Note(), "1 run is priced from totals alone, without the long-context rule")
	assert.Equal(t, "2026-10-06", gone.Checked, "the day its row was checked")
}

// A LiteLLM table (model_prices_and_context_window.json) reads as the
// community keeps it: per-token costs, litellm_provider, cache read and
// creation costs, the costs above a number of tokens; an entry without
// costs is no row, and what it lacks stays unpriced, never free.
func TestLiteLLMPrices(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model_prices_and_context_window.json")
	require.NoError(t, os.WriteFile(path, []byte(`{
  "sample_spec": {"litellm_provider": "one of https://docs.litellm.ai/docs/providers", "input_cost_per_token": 0.0, "output_cost_per_token": 0.0},
  "gpt-6-sol": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 1.5e-06, "output_cost_per_token": 8e-06,
    "cache_read_input_token_cost": 1.5e-07, "input_cost_per_token_above_272k_tokens": 3e-06, "output_cost_per_token_above_272k_tokens": 1.2e-05,
    "cache_read_input_token_cost_above_272k_tokens": 3e-07},
  "anthropic/claude-opus-9": {"litellm_provider": "anthropic", "input_cost_per_token": 1e-05, "output_cost_per_token": 5e-05,
    "cache_read_input_token_cost": 1e-06, "cache_creation_input_token_cost": 1.25e-05, "cache_creation_input_token_cost_above_1hr": 2e-05},
  "dall-e-9": {"litellm_provider": "openai", "mode": "image_generation", "output_cost_per_image": 0.04}
}`), 0o644))
	more, err := history.ReadPrices(path)
	require.NoError(t, err)
	p := history.DefaultPrices().With(more)
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

	sol, ok := p.Lookup("openai", "gpt-6-sol")
	require.True(t, ok)
	assert.Equal(t, []float64{1.5, 0.15, 8}, []float64{*sol.Input, *sol.CachedInput, *sol.Output})
	assert.Nil(t, sol.CacheWriteInput, "no cache creation cost: none")
	assert.Equal(t, path, sol.Source, "a row that says nothing of its source is the file's")
	assert.Equal(t, time.Now().UTC().Format(time.DateOnly), sol.Checked, "as of the day the file was written")
	codex, ok := p.Lookup("openai-codex", "gpt-6-sol")
	require.True(t, ok, "OpenAI's rows price openai-codex")
	assert.Equal(t, 1.5, *codex.Input)
	assert.Equal(t, "ChatGPT", p.Cost("openai-codex", "gpt-6-sol", at, stream.TokensDTO{Input: 1}).Plan, "still billed by its plan")

	// 1,000,000×1.50 + 100,000×8; above 272k: 400,000×3 + 100,000×0.30 + 10,000×12
	assert.Equal(t, cents(1.5+0.8), cents(p.Cost("openai", "gpt-6-sol", at, stream.TokensDTO{Input: 1_000_000, Output: 100_000}).USD))
	long := p.CostRequests("openai", "gpt-6-sol", at, []stream.TokensDTO{{Input: 500_000, CachedInput: 100_000, Output: 10_000}})
	assert.Equal(t, cents(1.2+0.03+0.12), cents(long.USD))

	opus, ok := p.Lookup("anthropic", "claude-opus-9")
	require.True(t, ok, "the provider's prefix is not the model's")
	assert.Equal(t, []float64{10, 1, 12.5, 20, 50}, []float64{*opus.Input, *opus.CachedInput, *opus.CacheWriteInput, *opus.CacheWrite1hInput, *opus.Output})
	_, ok = p.Lookup("openai", "dall-e-9")
	assert.False(t, ok, "an entry without token costs is no row")
	assert.False(t, p.Cost("openai", "dall-e-9", at, stream.TokensDTO{Input: 1}).Priced, "unpriced, never free")
	assert.True(t, p.Cost("openai", "gpt-5.4", at, stream.TokensDTO{Input: 1}).Priced, "the built-in rows it lacks stay")

	_, err = history.ParsePrices(strings.NewReader("{\n  \"m\": {\"litellm_provider\": \"x\", \"input_cost_per_token\": \"cheap\"}\n}"))
	var pe *history.PricesError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 2, pe.Line)
	assert.Contains(t, err.Error(), "field m: not a LiteLLM model entry")
}

// What a session spent outside its runs: its compactions' own model
// calls (uah's compaction log, stats.call, in the runner's field names or
// snake_case; a record without stats is a compaction with no call, a line
// that does not decode is skipped as uah skips it), priced each as one
// request; and its subagents' and reviewer's runs, counted in the
// session at the top as usage --by session counts them.
func TestWhatASessionSpentApartFromItsRuns(t *testing.T) {
	root := t.TempDir()
	f, err := historytest.WriteFixture(root)
	require.NoError(t, err)
	log := `{"covered":10,"trigger":"auto","model":"gpt-5.4","at":"2026-11-01T23:55:00Z","stats":{"strategy":"local","call":{"InputTokens":300000,"CachedInputTokens":100000,"OutputTokens":10000}}}
not json
{"covered":12,"trigger":"manual","at":"2026-11-02T00:21:00Z","stats":{"strategy":"local","call":{"input_tokens":10000,"output_tokens":1000}}}
{"covered":14,"trigger":"clear","at":"2026-11-02T00:22:00Z"}
`
	require.NoError(t, os.WriteFile(filepath.Join(f.Uah, "sessions", historytest.Flaky+".compaction.jsonl"), []byte(log), 0o644))
	x := history.Open(history.DefaultPrices(), f.Dirs()...)
	s := x.Session(historytest.Flaky)
	require.NotNil(t, s)
	assert.Equal(t, 3, s.Compaction.Compactions)
	assert.Equal(t, 2, s.Compaction.Calls)
	assert.Equal(t, stream.TokensDTO{Input: 310000, CachedInput: 100000, Output: 11000}, s.Compaction.Tokens)
	// gpt-5.4 (2.50, 0.25, –, 15), no long-context row: 200,000×2.50 + 100,000×0.25 + 10,000×15;
	// the second names no model, so the session's (gpt-5.4): 10,000×2.50 + 1,000×15
	assert.Equal(t, cents(0.5+0.025+0.15+0.025+0.015), cents(s.CompactionCost.USD))
	assert.Equal(t, stream.TokensDTO{Input: 1_500_000, CachedInput: 1_200_000, Output: 30_000, Reasoning: 7_000}, s.Tokens, "the runs' own, without them")

	// the subagent (gpt-5.4-mini: 0.05025) and the reviewer (gpt-5.4: 0.36)
	assert.Equal(t, 2, s.Subagents.Sessions)
	assert.Equal(t, 2, s.Subagents.Runs)
	assert.Equal(t, stream.TokensDTO{Input: 400_000, CachedInput: 250_000, Output: 6_000, Reasoning: 3_000}, s.Subagents.Tokens)
	assert.Equal(t, cents(0.05025+0.36), cents(s.Subagents.Cost.USD))
	assert.Zero(t, x.Session(historytest.Sub).Subagents.Sessions, "a subagent's spending is its root's")
	rows, _, err := x.Usage(history.Filter{}, history.BySession, time.UTC, false)
	require.NoError(t, err)
	for _, r := range rows {
		if r.Period == historytest.Flaky {
			assert.Equal(t, cents(s.Cost.USD+s.Subagents.Cost.USD), cents(r.Cost.USD), "one rule with usage --by session")
		}
	}
	j := s.JSON()
	require.NotNil(t, j.Compaction)
	require.NotNil(t, j.Subagents)
	assert.Equal(t, 2, j.Subagents.Sessions)
	assert.Nil(t, x.Session(historytest.Old).JSON().Compaction, "none without a log")
}
