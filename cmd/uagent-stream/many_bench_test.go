package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uagentkit/stream/history/historytest"
)

// BenchmarkStatsManyFiles runs stats on the files of $MANY (a directory
// of runs, as bench/split writes), for profiling what many runs cost.
func BenchmarkStatsManyFiles(b *testing.B) {
	dir := os.Getenv("MANY")
	if dir == "" {
		b.Skip("MANY is not set")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	cmd := os.Getenv("MANY_CMD")
	if cmd == "" {
		cmd = "stats"
	}
	for b.Loop() {
		if code := run(append([]string{cmd}, files...), strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}

// BenchmarkCatByName renders one run of uagent's home of a history of
// 10,000 runs (historytest.Many: 6,000 of them in that home,
// $UAGENT_STATE_DIR) named by its directory (dir) and by its id (id:
// history.Locate, a stat of the id), its unique prefix (prefix: a listing
// of the names) and latest: naming a run costs its directory's names, not
// the history.
func BenchmarkCatByName(b *testing.B) {
	dirs, err := historytest.Many(b.TempDir(), 10000)
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("UAGENT_STATE_DIR", dirs[0])
	const id = "20260904-112000-000003e8" // run 5,000 (historytest.Many: a run a minute from 2026-09-01, five a session; in both homes)
	for _, c := range []struct{ name, arg string }{
		{"dir", filepath.Join(dirs[0], "runs", id)},
		{"id", id},
		{"prefix", id[:14]},
		{"latest", "latest"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				args := []string{"cat", "--no-color", c.arg}
				if code := run(args, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
					b.Fatal(code)
				}
			}
		})
	}
}
