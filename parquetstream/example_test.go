package parquetstream_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/uagentkit/stream/parquetstream"
)

// A Go harness exports its runs itself: every run of the inputs, once,
// as a batch published whole; a second export adds only what is new.
func Example() {
	dir, err := os.MkdirTemp("", "tables")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	export := func() {
		x, err := parquetstream.Open(dir)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer x.Close()
		say := func(err error) { fmt.Println(err) }
		srcs := parquetstream.Sources([]string{"../testdata/run.jsonl"}, say)
		if err := x.Write(context.Background(), srcs, say); err != nil {
			x.Abort() // nothing of it is published
			fmt.Println(err)
			return
		}
		if err := x.Publish(); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("exported %d, already %d\n", x.Exported(), x.Already())
	}
	export()
	export()
	runs, _ := filepath.Glob(filepath.Join(dir, "*", "runs", "part-*.parquet")) // and an empty.parquet: every table has a file
	sessions, _ := filepath.Glob(filepath.Join(dir, "*", "sessions", "*.parquet"))
	fmt.Println(len(runs), "runs part,", len(sessions), "sessions part")
	// Output:
	// exported 1, already 0
	// exported 0, already 1
	// 1 runs part, 1 sessions part
}
