package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
