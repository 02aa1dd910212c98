package history_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/uahstream"
)

// A /review ends at the reviewer's first answer and stops what still
// runs (uah's ledger, row 139): a reviewer's run that answered and then
// ended interrupted is a review that finished ("reviewed"), not a
// failure; one interrupted before it answered stays interrupted, and so
// does an answered run interrupted outside a review.
func TestAReviewThatAnsweredFinished(t *testing.T) {
	home := t.TempDir()
	at := time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC)
	const parent, review, early, plain = "11111111-0000-4000-8000-000000000001", "subagent-22222222-0000-4000-8000-000000000002",
		"subagent-33333333-0000-4000-8000-000000000003", "44444444-0000-4000-8000-000000000004"
	run := func(id, session string, start time.Time, answer string) historytest.Run {
		return historytest.Run{Homes: []string{home}, ID: id, Session: session, Start: start, Wall: time.Minute, Status: "interrupted",
			Provider: "openai", Model: "gpt-6-sol", Prompt: "review", Answer: answer}
	}
	runs := []historytest.Run{
		{Homes: []string{home}, ID: "20261005-090000-11111111", Session: parent, Start: at, Wall: time.Minute, Provider: "openai", Model: "gpt-6-sol", Prompt: "fix", Answer: "fixed"},
		run("20261005-090100-22222222", review, at.Add(time.Minute), "No findings: the change is right."),
		run("20261005-090200-33333333", early, at.Add(2*time.Minute), ""),
		run("20261005-090300-44444444", plain, at.Add(3*time.Minute), "half an answer"),
	}
	sidecars := []historytest.Sidecar{
		{Home: home, ID: parent, Source: "tui", Created: at},
		{Home: home, ID: review, Source: "subagent", Review: true, Parent: parent, Created: at},
		{Home: home, ID: early, Source: "subagent", Review: true, Parent: parent, Created: at},
	}
	require.NoError(t, historytest.Write(runs, sidecars))
	x := history.Open(history.DefaultPrices(), home)
	assert.Equal(t, history.ReviewedStatus, x.Run(runs[1].ID).Status)
	assert.Equal(t, history.ReviewedStatus, x.Session(review).Status, "the session's last run's")
	assert.Equal(t, "interrupted", x.Run(runs[2].ID).Status, "stopped before it answered")
	assert.Equal(t, "interrupted", x.Run(runs[3].ID).Status, "not a review")
	got, err := history.Asked{Status: history.ReviewedStatus}.Filter(time.UTC, time.Now())
	require.NoError(t, err)
	assert.Len(t, x.List(got), 1, "--status reviewed finds it")
}

// A session of the history read as one stream (cat, stats, the page)
// holds its compactions as compacted lines in the runs they happened in:
// its totals count their calls, as ls --json and the page's about do from
// the same log.
func TestASessionsStreamHoldsItsCompactions(t *testing.T) {
	root := t.TempDir()
	f, err := historytest.WriteFixture(root)
	require.NoError(t, err)
	log := `{"trigger":"auto","model":"gpt-5.4","at":"2026-11-02T00:21:00Z","stats":{"call":{"InputTokens":300000,"CachedInputTokens":100000,"OutputTokens":10000}}}
{"trigger":"manual","at":"2026-11-01T23:54:00Z","stats":{"call":{"input_tokens":10000,"output_tokens":1000}}}
{"trigger":"clear","at":"2026-11-02T09:00:00Z"}
`
	require.NoError(t, os.WriteFile(filepath.Join(f.Uah, "sessions", historytest.Flaky+".compaction.jsonl"), []byte(log), 0o644))
	x := history.Open(history.DefaultPrices(), f.Dirs()...)
	s := x.Session(historytest.Flaky)
	in, err := history.Found{Session: s}.Open(nil)
	require.NoError(t, err)
	defer in.Close()
	var where []int // the run each compacted line is in (-1: between runs)
	for l := range in.Reader.Lines() {
		if _, ok := l.DTO.(uahstream.CompactedDTO); ok {
			where = append(where, l.Change.Run)
		}
	}
	assert.Equal(t, []int{0, 1, -1}, where, "23:54 in the first run (23:50 to 23:55), 00:21 in the second (00:20), 09:00 after the last")
	got := in.Reader.Session().Totals().Compaction
	assert.Equal(t, s.Compaction, got, "the stream's totals and the index's, from one log")
	assert.Equal(t, 3, got.Compactions)
	assert.Equal(t, 2, got.Calls)
}
