package parquetstream

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A folder of streams with a summary.json beside them is a folder of
// streams; a directory is a run directory when it holds events.jsonl.
func TestAFolderWithASummaryIsAFolderOfStreams(t *testing.T) {
	in := t.TempDir()
	for _, f := range []string{"a.jsonl", "b.jsonl", "summary.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(in, f), []byte("{}\n"), 0o644))
	}
	run := filepath.Join(in, "20261201-100000-0a0b0c0d")
	require.NoError(t, os.MkdirAll(run, 0o755))
	for _, f := range []string{"events.jsonl", "summary.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(run, f), []byte("{}\n"), 0o644))
	}
	var said []error
	srcs := Sources([]string{in}, func(err error) { said = append(said, err) })
	var paths []string
	runs := 0
	for _, s := range srcs {
		if s.Run != nil {
			runs++
			continue
		}
		paths = append(paths, s.Path)
	}
	assert.Equal(t, []string{filepath.Join(in, "a.jsonl"), filepath.Join(in, "b.jsonl")}, paths)
	assert.Equal(t, 1, runs, "the run directory under it")
}

// Every table has a file, empty where no run has rows of it: the SQL
// over a table's glob runs on an export of runs without tool calls or
// notices.
func TestEveryTableHasAFile(t *testing.T) {
	dir := t.TempDir()
	x, err := Open(dir, WithContent())
	require.NoError(t, err)
	defer x.Close()
	require.NoError(t, x.Write(context.Background(), Sources([]string{"../testdata/finished-empty.jsonl"}, func(err error) { t.Error(err) }), func(err error) { t.Error(err) }))
	require.NoError(t, x.Publish())
	for _, table := range []string{"runs", "turns", "tool_calls", "notices", "messages", "sessions"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*", table, "*.parquet"))
		assert.NotEmpty(t, files, table)
	}
}
