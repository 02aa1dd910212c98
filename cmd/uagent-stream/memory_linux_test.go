//go:build linux

package main

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/corpus"
	"github.com/uagentkit/stream/internal/testenv"
)

// stats and validate of one long real-shaped run (180 MB, lines up to
// 4 MB: corpus.LongRun) peak under 64 MiB of resident memory, the whole
// process: the fold keeps times, counts, names and the ids it must pair,
// not the run's texts. (Before the fold kept no text, they peaked at 238
// and 222 MiB.) Not under -race, whose memory is another's.
func TestLongRunMemoryIsBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("-race changes what memory is")
	}
	path := filepath.Join(t.TempDir(), "run.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	require.NoError(t, corpus.Write(w, corpus.LongRun(180<<20)))
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	for _, command := range []string{"stats", "validate"} {
		peak, out := testenv.PeakRSS(t, self(t), command, path)
		t.Logf("%s: peak RSS %d MiB", command, peak>>20)
		require.Less(t, peak, int64(64<<20), "%s of a 180 MB run", command)
		if command == "validate" {
			require.Empty(t, out, "the run is valid")
		}
	}
}
