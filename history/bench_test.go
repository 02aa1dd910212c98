package history_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/internal/corpus"
)

func manyRuns(tb testing.TB, n int) []string {
	tb.Helper()
	dirs, err := historytest.Many(tb.TempDir(), n)
	require.NoError(tb, err)
	return dirs
}

// BenchmarkList opens a history of 10,000 runs (both homes) and lists
// it, as ls does: each run's summary and request, not its records.
func BenchmarkList(b *testing.B) {
	dirs := manyRuns(b, 10000)
	for b.Loop() {
		x := history.Open(history.DefaultPrices(), dirs...)
		if n := len(x.List(history.Filter{})); n != 2000 {
			b.Fatalf("%d sessions", n)
		}
	}
}

// BenchmarkUsage opens the same history and adds it up by day, as usage
// does.
func BenchmarkUsage(b *testing.B) {
	dirs := manyRuns(b, 10000)
	for b.Loop() {
		x := history.Open(history.DefaultPrices(), dirs...)
		_, total, err := x.Usage(history.Filter{}, history.ByDay, time.UTC, false)
		require.NoError(b, err)
		if total.Runs != 10000 {
			b.Fatalf("%d runs", total.Runs)
		}
	}
}

// bigHistory is a history of records shaped like long real runs
// (internal/corpus.WriteRecords), about size bytes in runs of 5 MB, one
// run in a hundred with an answer holding "Xyzzy Found": in
// $UAGENT_BENCH_HISTORY when set (kept between runs), else in a
// temporary directory.
func bigHistory(b *testing.B, size int) string {
	dir := os.Getenv("UAGENT_BENCH_HISTORY")
	if dir == "" {
		dir = b.TempDir()
	}
	runs := size / (5 << 20)
	if _, err := os.Stat(filepath.Join(dir, "done-"+strconv.Itoa(runs))); err == nil {
		return dir
	}
	at := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	for i := range runs {
		id := at.Add(time.Duration(i)*time.Hour).Format("20060102-150405-") + fmt.Sprintf("%08x", i)
		run := filepath.Join(dir, "runs", id)
		require.NoError(b, os.MkdirAll(run, 0o755))
		var rec bytes.Buffer
		o := corpus.Real(5 << 20)
		o.Seed = uint64(i + 1)
		require.NoError(b, corpus.WriteRecords(&rec, o))
		if i%100 == 50 {
			fmt.Fprintf(&rec, `{"Sequence":999999,"RecordedAt":"2026-09-23T12:00:00Z","Kind":"model_response","Data":{"TurnID":"t","Response":{"Stop":"complete","Output":[{"Type":"message","Data":{"Role":"assistant","Text":"Xyzzy Found it","Phase":"final_answer"}}]}}}`+"\n")
		}
		require.NoError(b, os.WriteFile(filepath.Join(run, "events.jsonl"), rec.Bytes(), 0o644))
		require.NoError(b, os.WriteFile(filepath.Join(run, "request.json"), []byte(`{"prompt":"make it faster","session_id":"s`+strconv.Itoa(i)+`"}`), 0o644))
		require.NoError(b, stream.SummaryDTO{V: 1, Status: "ok", RunID: id,
			SessionID: "s" + strconv.Itoa(i), StartedAt: at.Add(time.Duration(i) * time.Hour), WallMS: 1000}.WriteFile(filepath.Join(run, "summary.json")))
	}
	require.NoError(b, os.WriteFile(filepath.Join(dir, "done-"+strconv.Itoa(runs)), nil, 0o644))
	return dir
}

// BenchmarkSearch searches a history of records shaped like real runs
// (UAGENT_BENCH_SEARCH_MB, default 256 MB; BENCHMARKS.md has 1 GB) for a
// text in one run in a hundred ("xyzzy found") and for one in none,
// beside grep -rilF over the same files.
func BenchmarkSearch(b *testing.B) {
	mb := 256
	if v, err := strconv.Atoi(os.Getenv("UAGENT_BENCH_SEARCH_MB")); err == nil {
		mb = v
	}
	dir := bigHistory(b, mb<<20)
	x := history.Open(history.DefaultPrices(), dir)
	runs := x.Runs()
	for _, text := range []string{"xyzzy found", "not there at all"} {
		b.Run("history/"+text, func(b *testing.B) {
			b.SetBytes(int64(mb) << 20)
			for b.Loop() {
				n := 0
				for _, err := range x.Search(context.Background(), text, runs) {
					require.NoError(b, err)
					n++
				}
				if text == "xyzzy found" && n != len(runs)/100 {
					b.Fatalf("%d matches of %d runs", n, len(runs))
				}
			}
		})
		b.Run("grep/"+text, func(b *testing.B) {
			if _, err := exec.LookPath("grep"); err != nil {
				b.Skip("no grep")
			}
			b.SetBytes(int64(mb) << 20)
			for b.Loop() {
				out, _ := exec.Command("grep", "-rilF", text, filepath.Join(dir, "runs")).Output()
				_ = out
			}
		})
	}
}

// longContextRuns writes n runs of gpt-6-sol, each of 40 requests of
// 100,000 prompt tokens (4,000,000 in all, so its totals cannot rule the
// long-context rule out) and an answer of 2 KB a request: the shape of a
// long agent run, whose records the history reads to price each request.
func longContextRuns(tb testing.TB, n int) string {
	tb.Helper()
	home := tb.TempDir()
	at := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	req := stream.TokensDTO{Input: 100_000, CachedInput: 90_000, Output: 2_000}
	var runs []historytest.Run
	for i := range n {
		reqs := make([]stream.TokensDTO, 40)
		for j := range reqs {
			reqs[j] = req
		}
		runs = append(runs, historytest.Run{Homes: []string{home}, ID: at.Add(time.Duration(i)*time.Minute).Format("20060102-150405-") + fmt.Sprintf("%08x", i),
			Session: fmt.Sprintf("%08x-0000-4000-8000-000000000000", i), Start: at.Add(time.Duration(i) * time.Minute), Wall: time.Minute,
			Provider: "openai", Model: "gpt-6-sol", Prompt: "go", Answer: string(bytes.Repeat([]byte("all work and no play "), 100)),
			Tokens: stream.TokensDTO{Input: 4_000_000, CachedInput: 3_600_000, Output: 80_000}, Requests: reqs})
	}
	require.NoError(tb, historytest.Write(runs, nil))
	return home
}

// BenchmarkOpenLongContext opens a history of 500 such runs: priced by
// the built-in table, each run's records are read for its requests (the
// long-context rule); priced by a table without the rule ("totals"), from
// its summary alone, as every run was before the rule.
func BenchmarkOpenLongContext(b *testing.B) {
	home := longContextRuns(b, 500)
	var records int64 // the runs' events.jsonl, for MB/s
	events, err := filepath.Glob(filepath.Join(home, "runs", "*", "events.jsonl"))
	require.NoError(b, err)
	for _, f := range events {
		info, err := os.Stat(f)
		require.NoError(b, err)
		records += info.Size()
	}
	noRule, err := history.ParsePrices(bytes.NewReader([]byte(`[{"provider": "openai", "model": "gpt-6-sol", "input": 2, "cached_input": 0.2, "cache_write_input": 2.5, "output": 10}]`)))
	require.NoError(b, err)
	for _, c := range []struct {
		name   string
		prices history.Prices
	}{{"per-request", history.DefaultPrices()}, {"totals", noRule}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(records)
			for b.Loop() {
				x := history.Open(c.prices, home)
				if n := len(x.Runs()); n != 500 {
					b.Fatalf("%d runs", n)
				}
			}
		})
	}
}
