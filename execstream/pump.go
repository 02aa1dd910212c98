package execstream

import (
	"errors"
	"io"
	"os"
	"sync"
)

// pumpHold is how many bytes a pump holds for its reader while the process
// runs: past it, the pump stops reading and the process's writes wait, as
// they would on the pipe alone.
const pumpHold = 256 << 10

// pump reads a process's stdout in a goroutine of its own, so that whether
// the pipe has reached its end is known apart from how fast the stream is
// decoded and delivered. While the process runs it holds at most pumpHold
// bytes (the reader's pace holds the writer back, as a pipe does); once
// unbound is called (the process has exited, or is being stopped), it reads
// the pipe to its end at once and holds what the reader has not taken yet,
// however much: a slow reader then loses nothing, and the pipe's end is
// seen without waiting for it.
type pump struct {
	mu     sync.Mutex
	cond   sync.Cond // signalled on every change of the fields below
	buf    []byte    // read from the pipe, not yet taken: buf[off:]
	off    int
	err    error // the pipe's end: io.EOF, or the read error
	free   bool  // read without bound
	closed bool  // the reader is gone: discard
	eof    chan struct{}
}

// newPump starts reading src. forced reports whether an error of src is
// the end that Run caused by closing it.
func newPump(src *os.File, forced func() bool) *pump {
	p := &pump{eof: make(chan struct{})}
	p.cond.L = &p.mu
	go p.fill(src, forced)
	return p
}

func (p *pump) fill(src *os.File, forced func() bool) {
	defer close(p.eof)
	defer src.Close()
	scratch := make([]byte, 64<<10)
	for {
		p.mu.Lock()
		for !p.free && !p.closed && len(p.buf)-p.off >= pumpHold {
			p.cond.Wait()
		}
		p.mu.Unlock()
		n, err := src.Read(scratch)
		p.mu.Lock()
		if !p.closed {
			if p.off > 0 && p.off >= len(p.buf)/2 { // reuse the front
				p.buf = append(p.buf[:0], p.buf[p.off:]...)
				p.off = 0
			}
			p.buf = append(p.buf, scratch[:n]...)
		}
		if err != nil {
			if err == io.EOF || errors.Is(err, os.ErrClosed) && forced() {
				err = io.EOF
			}
			p.err = err
		}
		p.cond.Broadcast()
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// unbound makes the pump read the pipe to its end without waiting for the
// reader.
func (p *pump) unbound() {
	p.mu.Lock()
	p.free = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// Read takes what the pump holds, waiting for it; after the pipe's end it
// returns the pipe's error.
func (p *pump) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.off == len(p.buf) && p.err == nil {
		p.cond.Wait()
	}
	if p.off == len(p.buf) {
		return 0, p.err
	}
	n := copy(b, p.buf[p.off:])
	p.off += n
	if p.off == len(p.buf) {
		p.buf, p.off = p.buf[:0], 0
	}
	p.cond.Broadcast()
	return n, nil
}

// Close drops what the pump holds and makes it discard the rest of the
// pipe, so that the process never blocks on its stdout.
func (p *pump) Close() error {
	p.mu.Lock()
	p.closed, p.buf, p.off = true, nil, 0
	p.cond.Broadcast()
	p.mu.Unlock()
	return nil
}
