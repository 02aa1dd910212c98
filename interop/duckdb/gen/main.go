// Command gen writes a batch of random runs, one file each, for the DuckDB
// check: valid runs and runs where anything goes (reversed and zero times,
// repeated finishes, cut off), each with a run_id of its own.
//
//	go run ./interop/duckdb/gen -n 1000 -o DIR
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/runs"
)

func main() {
	n := flag.Int("n", 1000, "how many runs")
	out := flag.String("o", "batch", "write the runs to this directory")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	for i := range *n {
		day := runs.T0.Add(time.Duration(i%3) * 24 * time.Hour)
		evs := []stream.Event{stream.RunStarted{At: day, RunID: fmt.Sprintf("batch-%04d", i), Model: []string{"m-small", "m-large"}[i%2]}}
		evs = append(evs, runs.RandomFrom(r, i%2 == 0, day)...)
		if r.IntN(4) > 0 {
			end := evs[len(evs)-1].OccurredAt()
			evs = append(evs, stream.RunFinished{At: end, Result: stream.Result{Status: stream.StatusOK}})
		}
		if err := os.WriteFile(filepath.Join(*out, fmt.Sprintf("run-%04d.jsonl", i)), runs.Write(evs), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
