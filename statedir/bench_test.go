package statedir

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// BenchmarkOpenHistory reads a state directory of 10,000 runs (2,000
// sessions of five), each run with its request.json, summary.json and a
// short events.jsonl: what an index of the history reads first.
func BenchmarkOpenHistory(b *testing.B) {
	dir := b.TempDir()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10000 {
		session := fmt.Sprintf("%08x-0000-4000-8000-%012x", i/5, i/5)
		id := at.Add(time.Duration(i)*time.Minute).Format("20060102-150405-") + session[:8]
		run := filepath.Join(dir, "runs", id)
		require.NoError(b, os.MkdirAll(run, 0o755))
		req := fmt.Sprintf(`{"prompt":"task %d: make the decoder faster","session_id":%q,"thinking_level":"high"}`, i, session)
		require.NoError(b, os.WriteFile(filepath.Join(run, RequestFile), []byte(req), 0o644))
		require.NoError(b, os.WriteFile(filepath.Join(run, EventsFile), []byte(`{"Sequence":1,"RecordedAt":"2026-11-01T00:00:00Z","Kind":"turn","Data":{"ID":"t"}}`+"\n"), 0o644))
		require.NoError(b, stream.SummaryDTO{V: 1, Status: "ok", RunID: id,
			SessionID: session, Workspace: "/home/dev/demo", StartedAt: at.Add(time.Duration(i) * time.Minute), WallMS: 30000}.WriteFile(filepath.Join(run, SummaryFile)))
	}
	for b.Loop() {
		h := OpenHistory(dir)
		require.Len(b, h.Runs(), 10000)
		require.Empty(b, h.Problems())
	}
}
