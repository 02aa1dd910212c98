//go:build unix

package parquetstream

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A directory that cannot be listed, a missing FILE and a FIFO among the
// inputs are said, each once, and left out; the rest is listed.
func TestSourcesLeaveOutWhatTheyCannotRead(t *testing.T) {
	in := t.TempDir()
	good := filepath.Join(in, "good.jsonl")
	require.NoError(t, os.WriteFile(good, []byte("{}\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(in, "locked"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(in, "pipe.jsonl"), 0o644))
	walk := func(root string, fn fs.WalkDirFunc) error { // a directory whose listing fails, whoever runs the test
		return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if d != nil && d.IsDir() && d.Name() == "locked" {
				return fn(p, d, fs.ErrPermission)
			}
			return fn(p, d, err)
		})
	}
	var said []string
	srcs := sourcesWalking([]string{in, filepath.Join(in, "missing.jsonl")}, func(err error) { said = append(said, err.Error()) }, walk)
	require.Len(t, srcs, 1)
	assert.Equal(t, good, srcs[0].Path)
	require.Len(t, said, 3, "%q", said)
	assert.Contains(t, strings.Join(said, "\n"), "locked")
	assert.Contains(t, strings.Join(said, "\n"), "pipe.jsonl: not a regular file")
	assert.Contains(t, strings.Join(said, "\n"), "missing.jsonl")
}
