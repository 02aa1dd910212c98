package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/runs"
	"github.com/uagentkit/stream/tablestream"
)

// readTable reads every part of a table, in every batch, as readers glob
// them ('*/runs/*.parquet').
func readTable[T any](t *testing.T, dir, table string) []T {
	t.Helper()
	parts, err := filepath.Glob(filepath.Join(dir, "*", table, "*.parquet"))
	require.NoError(t, err)
	var out []T
	for _, p := range parts {
		rows, err := parquet.ReadFile[T](p)
		require.NoError(t, err, p)
		out = append(out, rows...)
	}
	return out
}

// exportCases writes the bundled, conformance, edge and n random runs as
// files and returns them. A run is known by its run id: the edge cases,
// which share one ("edge"), each get one of their own.
func exportCases(t *testing.T, n int) []string {
	cases, err := runs.Cases("../..", n)
	require.NoError(t, err)
	dir := t.TempDir()
	var files []string
	for name, b := range cases {
		file := strings.NewReplacer(" ", "_", ":", "").Replace(name)
		b = bytes.ReplaceAll(b, []byte(`"run_id":"edge"`), []byte(`"run_id":"edge-`+file+`"`))
		p := filepath.Join(dir, file+".jsonl")
		require.NoError(t, os.WriteFile(p, b, 0o644))
		files = append(files, p)
	}
	slices.Sort(files)
	return files
}

// What export writes is what tablestream reads, row for row, through a
// Parquet reader: every run, none dropped.
func TestExportWritesTheTables(t *testing.T) {
	files := exportCases(t, 300)
	out := t.TempDir()
	code, _, stderr := runCmd(t, "", append([]string{"export", "--allow-errors", "--content", "-o", out}, files...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "exported "+itoa(len(files))+" runs to ")

	var want tablestream.Tables
	for _, f := range files {
		r, err := os.Open(f)
		require.NoError(t, err)
		tbs, err := tablestream.Read(r, tablestream.WithContent(), tablestream.WithFile(f))
		r.Close()
		require.NoError(t, err)
		require.Len(t, tbs, 1)
		tb := tbs[0]
		want.Run = tb.Run
		want.Turns = append(want.Turns, tb.Turns...)
		want.ToolCalls = append(want.ToolCalls, tb.ToolCalls...)
		want.Notices = append(want.Notices, tb.Notices...)
		want.Messages = append(want.Messages, tb.Messages...)
	}
	gotRuns := readTable[tablestream.RunRow](t, out, "runs")
	require.Len(t, gotRuns, len(files), "one row per run")
	byFile := func(a, b tablestream.RunRow) int { return strings.Compare(a.File, b.File) }
	slices.SortFunc(gotRuns, byFile)
	for i, f := range files {
		r, _ := os.Open(f)
		tbs, err := tablestream.Read(r, tablestream.WithContent(), tablestream.WithFile(f))
		r.Close()
		require.NoError(t, err)
		if d := cmp.Diff(norm(tbs[0].Run), norm(gotRuns[i])); d != "" {
			t.Fatalf("%s: the runs row (-read +exported):\n%s", f, d)
		}
	}
	for name, n := range map[string][2]int{
		"turns":      {len(want.Turns), len(readTable[tablestream.TurnRow](t, out, "turns"))},
		"tool_calls": {len(want.ToolCalls), len(readTable[tablestream.ToolCallRow](t, out, "tool_calls"))},
		"notices":    {len(want.Notices), len(readTable[tablestream.NoticeRow](t, out, "notices"))},
		"messages":   {len(want.Messages), len(readTable[tablestream.MessageRow](t, out, "messages"))},
	} {
		assert.Equal(t, n[0], n[1], "%s: every row", name)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "b-*", "turns", "*.parquet"))
	assert.Len(t, parts, min(runtime.GOMAXPROCS(0), len(files)), "a part from each core")
}

// norm makes a row comparable after a Parquet round trip: times in UTC at
// microseconds, empty maps and lists as nil; and leaves out its place in
// its session, which only an export knows.
func norm(r tablestream.RunRow) tablestream.RunRow {
	r.SessionSeq = 0
	if r.StartedAt != nil {
		t := r.StartedAt.UTC().Truncate(time.Microsecond)
		r.StartedAt = &t
	}
	if len(r.ToolsByName) == 0 {
		r.ToolsByName = nil
	}
	if len(r.StopReasons) == 0 {
		r.StopReasons = nil
	}
	for _, l := range []*[]string{&r.Failures, &r.Errors, &r.Warnings} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	return r
}

func itoa(n int) string { return strconv.Itoa(n) }

// Bad input is exported as what it is and named on stderr; the export
// exits 1 unless --allow-errors.
func TestExportBadInput(t *testing.T) {
	dir := t.TempDir()
	notStream := filepath.Join(dir, "notes\x1b[31m.jsonl")
	require.NoError(t, os.WriteFile(notStream, []byte("hello\nworld\n"), 0o644))
	cut := filepath.Join(dir, "cut.jsonl")
	require.NoError(t, os.WriteFile(cut, runs.Write(runs.Edges()["cut off"]), 0o644))
	out := t.TempDir()
	code, _, stderr := runCmd(t, "", "export", "-o", out, dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "cut.jsonl: cut off: no run_finished (exported as such)")
	assert.Contains(t, stderr, "not a stream")
	assert.Contains(t, stderr, "2 of 2 lines could not be read")
	assert.NotContains(t, stderr, "\x1b", "file names are sanitized")
	assert.Len(t, readTable[tablestream.RunRow](t, out, "runs"), 2, "no run dropped")
	code, _, _ = runCmd(t, "", "export", "--allow-errors", "-o", t.TempDir(), dir)
	assert.Equal(t, 0, code)
	code, _, stderr = runCmd(t, "", "export", "-o", t.TempDir(), filepath.Join(dir, "missing.jsonl"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "missing.jsonl")
	t.Setenv("UAGENT_STATE_DIR", filepath.Join(dir, "no-such-state"))
	code, _, stderr = runCmd(t, "", "export", "-o", t.TempDir())
	assert.Equal(t, 1, code, "with no input, the state directory, which is not there")
	assert.Contains(t, stderr, "no-such-state")
}
