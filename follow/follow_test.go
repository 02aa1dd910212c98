package follow

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// read reads what r gives until it has n bytes, or an error.
func read(t *testing.T, r io.Reader, n int) (string, error) {
	t.Helper()
	b := make([]byte, n)
	got := 0
	for got < n {
		k, err := r.Read(b[got:])
		got += k
		if err != nil {
			return string(b[:got]), err
		}
	}
	return string(b[:got]), nil
}

// A file that does not exist yet is waited for (Waiting said once); what
// it gains is read as it gains it; Done ends the reading at the end of
// the file.
func TestFollowAGrowingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	r := NewReader(context.Background(), path)
	defer r.Close()
	r.Poll = time.Millisecond
	waited, done := 0, false
	r.Waiting = func() { waited++ }
	r.Done = func() bool { return done }
	go func() {
		time.Sleep(20 * time.Millisecond)
		os.WriteFile(path, []byte("one\n"), 0o644)
	}()
	got, err := read(t, r, 4)
	require.NoError(t, err)
	assert.Equal(t, "one\n", got)
	assert.Equal(t, 1, waited)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("two\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	got, err = read(t, r, 4)
	require.NoError(t, err)
	assert.Equal(t, "two\n", got)
	done = true
	_, err = r.Read(make([]byte, 8))
	assert.ErrorIs(t, err, io.EOF, "done: the end of the file is the end")
}

// A file replaced (a new one at the path) or truncated is said once
// (ErrReplaced), then read from its beginning; the context's end ends
// the reading.
func TestFollowAReplacedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("old line\n"), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	r := NewReader(ctx, path)
	defer r.Close()
	r.Poll = time.Millisecond
	got, err := read(t, r, 9)
	require.NoError(t, err)
	assert.Equal(t, "old line\n", got)
	tmp := path + ".new"
	require.NoError(t, os.WriteFile(tmp, []byte("new\n"), 0o644))
	require.NoError(t, os.Rename(tmp, path))
	_, err = r.Read(make([]byte, 8))
	require.True(t, errors.Is(err, ErrReplaced), "%v", err)
	got, err = read(t, r, 4)
	require.NoError(t, err)
	assert.Equal(t, "new\n", got)
	require.NoError(t, os.Truncate(path, 0))
	_, err = r.Read(make([]byte, 8))
	require.ErrorIs(t, err, ErrReplaced, "truncated")
	cancel()
	_, err = r.Read(make([]byte, 8))
	assert.ErrorIs(t, err, io.EOF, "the context ended")
}
