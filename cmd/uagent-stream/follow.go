package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"
)

// pollInterval is how often a followed file is checked for growth.
var pollInterval = 100 * time.Millisecond

// errReplaced ends a followed stream whose file was replaced or truncated.
var errReplaced = errors.New("the file was replaced or truncated")

// follower reads a file that another process appends to. It waits for the
// file to appear; at the end of the file it waits for more, until done is
// set (run_finished was rendered) or ctx ends; when the file is replaced
// (a new file at the path) or truncated, it returns errReplaced once and
// starts over from the new file's beginning.
type follower struct {
	ctx     context.Context
	path    string
	done    func() bool // the stream has said all it will: stop at the end of the file
	waiting func()      // called once when the file does not exist yet

	f      *os.File
	off    int64 // bytes read from f
	waited bool
}

func (r *follower) Read(p []byte) (int, error) {
	for {
		if r.f == nil {
			f, err := os.Open(r.path)
			switch {
			case err == nil:
				r.f, r.off = f, 0
			case errors.Is(err, fs.ErrNotExist):
				if !r.waited {
					r.waited = true
					r.waiting()
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
			if r.done() {
				return 0, io.EOF
			}
			if r.replaced() {
				r.close()
				return 0, errReplaced
			}
		}
		select {
		case <-r.ctx.Done():
			return 0, io.EOF
		case <-time.After(pollInterval):
		}
	}
}

// replaced reports a new file at the path, or the file shorter than what
// was read. A removed file is waited for.
func (r *follower) replaced() bool {
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

func (r *follower) close() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
}
