package history_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/history/historytest"
)

// A person's history: its sessions, the latest activity first, with what
// they would cost at API prices; a search; the usage by day.
func Example() {
	root, _ := os.MkdirTemp("", "history")
	defer os.RemoveAll(root)
	f, _ := historytest.WriteFixture(root)
	x := history.Open(history.DefaultPrices(), f.Uagent, f.Old, f.Uah)

	for _, s := range x.List(history.Filter{Until: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)}) {
		fmt.Printf("%*s%s  %d runs  %s  $%.2f  %s\n", 2*s.Depth, "", x.ShortID(s.ID), len(s.Runs), s.Model, s.Cost.USD, s.Title)
	}
	for m, err := range x.Search(context.Background(), "LINE 88", x.Runs()) {
		if err == nil {
			fmt.Println("found in", m.Run.ID, "line", m.Line, ":", m.Snippet)
		}
	}
	rows, total, _ := x.Usage(history.Filter{}, history.ByMonth, time.UTC, false)
	for _, r := range rows {
		fmt.Printf("%s  %d runs  %d tokens\n", r.Period, r.Runs, r.Total())
	}
	fmt.Printf("total  %d runs  %d tokens (%d unpriced)\n", total.Runs, total.Total(), total.Cost.UnpricedTokens)
	// Output:
	// a1f1a2b3  2 runs  gpt-5.4  $1.50  Fix the flaky test in parser_test.go
	//   subagent-c  1 runs  gpt-5.4  $0.36  Review the fix
	//   subagent-b  1 runs  gpt-5.4-mini  $0.05  Find where the cache is shared
	// d4e5f607  1 runs  claude-sonnet-4-5  $0.26  Update the footer year
	// found in 20261102-000500-b2c3d4e5 line 6 : In parser.go, line 88.
	// 2026-10  1 runs  203000 tokens
	// 2026-11  8 runs  2000610 tokens
	// total  9 runs  2203610 tokens (3110 unpriced)
}
