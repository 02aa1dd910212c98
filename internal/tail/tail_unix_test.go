//go:build unix

package tail

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tool's out_path that is a FIFO (nobody writing it) gives no lines, at
// once: opening it would wait for a writer forever.
func TestLinesOfAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "out")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	done := make(chan []string, 1)
	go func() { done <- Lines(fifo) }()
	select {
	case got := <-done:
		assert.Nil(t, got)
	case <-time.After(5 * time.Second):
		f, _ := os.OpenFile(fifo, os.O_WRONLY, 0) // let the reader go, so the test ends
		f.Close()
		t.Fatal("Lines waited on a FIFO")
	}
}

// A regular file gives its last lines.
func TestLinesOfAFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out")
	require.NoError(t, os.WriteFile(p, []byte("a\nb\nc\nd\ne\nf\ng\n"), 0o600))
	assert.Equal(t, []string{"c", "d", "e", "f", "g"}, Lines(p))
}
