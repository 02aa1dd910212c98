package ssestream

import (
	"errors"
	"io"
	"os"
	"sync"
)

// spool is where a Recording keeps its events: a temporary file, written
// by one writer at its end and read at any offset by any number of
// readers; memory where no file can be made.
type spool struct {
	mu     sync.RWMutex // guards mem, closed
	f      *os.File     // nil: the spool is mem
	name   string       // the file's name while it still has one
	mem    []byte
	closed bool
}

// errClosed is what reading a closed spool gives.
var errClosed = errors.New("the recording was closed")

// newSpool makes a spool in the temporary directory. The file is removed
// at once where the system lets an open file be removed, so that it is
// gone with the process whatever happens; elsewhere, at close.
func newSpool() *spool {
	f, err := os.CreateTemp("", "uagent-stream-*.sse")
	if err != nil {
		return &spool{}
	}
	s := &spool{f: f, name: f.Name()}
	if os.Remove(s.name) == nil {
		s.name = ""
	}
	return s
}

// write appends b. It is called by one writer at a time.
func (s *spool) write(b []byte) error {
	if s.f != nil {
		_, err := s.f.Write(b)
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	s.mem = append(s.mem, b...)
	return nil
}

// ReadAt reads what was written at off.
func (s *spool) ReadAt(p []byte, off int64) (int, error) {
	if s.f != nil {
		return s.f.ReadAt(p, off)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return 0, errClosed
	}
	if off >= int64(len(s.mem)) {
		return 0, io.EOF
	}
	n := copy(p, s.mem[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (s *spool) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed, s.mem = true, nil
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if s.name != "" {
		err = errors.Join(err, os.Remove(s.name))
	}
	return err
}
