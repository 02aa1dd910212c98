// Package follow reads a file that another process is writing, as
// tail -F does: it waits for the file to appear, reads what it gains as
// it gains it, and starts over when the file is replaced or truncated. A
// program that renders or serves a stream while uagent writes it (cat -f,
// serve FILE) reads through it.
package follow

import (
	"cmp"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"
)

// DefaultPoll is how often a Reader looks at its file for more when Poll
// is 0.
const DefaultPoll = 100 * time.Millisecond

// ErrReplaced is what Read returns, once, when the file was replaced (a
// new file at the path) or truncated: what Read returns after it is the
// new file's, from its beginning.
var ErrReplaced = errors.New("follow: the file was replaced or truncated")

// Reader reads the file at a path that another process appends to. At the
// end of the file it waits for more, until Done reports that what was
// read says all it will (then io.EOF) or its context ends (io.EOF); a file
// not there yet is waited for. It is an io.Reader, not safe for concurrent
// use; Close closes the file it holds.
type Reader struct {
	// Done, when set, reports that the stream read so far has said all
	// it will (a run_finished came): Read returns io.EOF at the end of the
	// file instead of waiting for more.
	Done func() bool
	// Waiting, when set, is called once when the file does not exist yet.
	Waiting func()
	// Poll is how often the file is looked at for more (DefaultPoll when
	// 0).
	Poll time.Duration

	ctx    context.Context
	path   string
	f      *os.File
	off    int64 // bytes read from f
	waited bool
}

// NewReader returns a Reader of the file at path, which stops when ctx
// ends.
func NewReader(ctx context.Context, path string) *Reader { return &Reader{ctx: ctx, path: path} }

// Read reads what the file holds past what was read, waiting for more as
// Reader says.
func (r *Reader) Read(p []byte) (int, error) {
	for {
		if r.f == nil {
			f, err := os.Open(r.path)
			switch {
			case err == nil:
				r.f, r.off = f, 0
			case errors.Is(err, fs.ErrNotExist):
				if !r.waited {
					r.waited = true
					if r.Waiting != nil {
						r.Waiting()
					}
				}
			default:
				return 0, err
			}
		}
		if r.f != nil {
			n, err := r.f.Read(p)
			r.off += int64(n)
			if n > 0 || err != io.EOF {
				return n, err
			}
			if r.Done != nil && r.Done() {
				return 0, io.EOF
			}
			if r.replaced() {
				r.close()
				return 0, ErrReplaced
			}
		}
		select {
		case <-r.ctx.Done():
			return 0, io.EOF
		case <-time.After(cmp.Or(r.Poll, DefaultPoll)):
		}
	}
}

// replaced reports a new file at the path, or the file shorter than what
// was read. A removed file is waited for.
func (r *Reader) replaced() bool {
	st, err := os.Stat(r.path)
	if err != nil {
		return false
	}
	cur, err := r.f.Stat()
	if err != nil {
		return false
	}
	return !os.SameFile(st, cur) || st.Size() < r.off
}

func (r *Reader) close() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
}

// Close closes the file the Reader holds, if any.
func (r *Reader) Close() error {
	r.close()
	return nil
}
