package icebergstream_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/uagentkit/stream/iceberg/icebergstream"
	"github.com/uagentkit/stream/parquetstream"
)

// Export a run into the tables of a SQLite catalog, its warehouse
// beside it; a second export of it adds nothing.
func Example() {
	dir, _ := os.MkdirTemp("", "lake")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	x, err := icebergstream.Open(ctx, icebergstream.Config{Catalog: "sqlite:" + filepath.Join(dir, "catalog.db")})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Close()
	srcs := parquetstream.Sources([]string{"../../testdata/run.jsonl"}, func(err error) { fmt.Println(err) })
	for range 2 {
		rep, err := x.Export(ctx, srcs, func(err error) { fmt.Println(err) })
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("appended %d, already %d, rows %v\n", rep.Appended, rep.Already, rep.Rows)
	}
	// Output:
	// appended 1, already 0, rows map[notices:1 runs:1 tool_calls:3 turns:2]
	// appended 0, already 1, rows map[]
}
