package icebergstream

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/parquetstream"
)

// BenchmarkExport1000 exports 1,000 runs (historytest.Many: run directories
// in sessions of five, a short events.jsonl each) into fresh Iceberg
// tables, on a file warehouse and on S3 (gofakes3 in the process), beside
// the local Parquet export of the same runs: BENCHMARKS.md has the
// figures.
func BenchmarkExport1000(b *testing.B) {
	homes, err := historytest.Many(filepath.Join(b.TempDir(), "h"), 1000)
	if err != nil {
		b.Fatal(err)
	}
	srcs := parquetstream.Sources(homes, func(err error) { b.Fatal(err) })
	b.Run("local", func(b *testing.B) {
		for b.Loop() {
			x, err := parquetstream.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			if err := x.Write(context.Background(), srcs, func(error) {}); err != nil {
				b.Fatal(err)
			}
			if err := x.Publish(); err != nil {
				b.Fatal(err)
			}
			x.Close()
		}
	})
	for _, wh := range []string{"file", "s3"} {
		b.Run("iceberg-"+wh, func(b *testing.B) {
			warehouse := ""
			if wh == "s3" {
				fakeS3B(b)
			}
			n := 0
			for b.Loop() {
				n++
				dir := b.TempDir()
				if wh == "s3" {
					warehouse = fmt.Sprintf("s3://lake/bench%d", n)
				}
				x, err := Open(context.Background(), Config{Catalog: "sqlite:" + filepath.Join(dir, "cat.db"), Warehouse: warehouse})
				if err != nil {
					b.Fatal(err)
				}
				rep, err := x.Export(context.Background(), srcs, func(error) {})
				if err != nil || rep.Appended != 1000 {
					b.Fatal(rep, err)
				}
				x.Close()
			}
		})
	}
}
