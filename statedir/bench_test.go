package statedir

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/corpus"
)

// BenchmarkRecords reads a run directory of 20 MB of real-shaped records
// (internal/corpus.WriteRecords); bench/records measures the same beside
// uagent's own reader.
func BenchmarkRecords(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "20260923-120000-7ef82dc2")
	require.NoError(b, os.MkdirAll(dir, 0o755))
	var rec bytes.Buffer
	require.NoError(b, corpus.WriteRecords(&rec, corpus.Real(20<<20)))
	require.NoError(b, os.WriteFile(filepath.Join(dir, EventsFile), rec.Bytes(), 0o644))
	b.SetBytes(int64(rec.Len()))
	for b.Loop() {
		r, err := OpenRun(dir)
		require.NoError(b, err)
		n := 0
		for e := range r.Events() {
			if _, ok := e.(stream.ToolFinished); ok {
				n++
			}
		}
		require.Positive(b, n)
	}
}
