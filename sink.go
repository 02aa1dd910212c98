package stream

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Sink writes each event as one JSON line: the uagent --stream writer.
//
// Guarantees:
//   - A Sink is safe for concurrent use. Each event is encoded into a line of
//     its own and written with exactly one Write call while a mutex is held,
//     so concurrent Emits never interleave or tear lines.
//   - The bytes of a line equal what encoding/json's Encoder with
//     SetEscapeHTML(false) writes for the event's DTO (see [EventToDTO]).
//   - The first error is kept: a failed or short write, or an event that
//     cannot be encoded (a time outside years 0–9999). From then on Emit
//     writes nothing, and [Sink.Err] returns that error; errors.Is finds the
//     writer's own error in it. Lines written before the error stay whole.
//   - At most one run_finished line is written, and nothing after it.
//   - An event whose At is zero is stamped with the Sink's clock.
//   - Nil events and events this package does not know are skipped.
//
// The Sink does not buffer: each line reaches the writer during its Emit.
// Emit allocates nothing of its own for any event but run_finished: the
// line buffer and the DTO it encodes through are pooled, large lines in
// large buffers.
type Sink struct {
	now func() time.Time // the clock for events without a time

	mu       sync.Mutex // guards the fields below and every Write to w
	w        io.Writer
	err      error
	finished bool // run_finished was written
}

// NewSink returns a Sink writing to w. With a nil w, Err reports an error
// and Emit writes nothing.
func NewSink(w io.Writer) *Sink {
	s := &Sink{w: w, now: time.Now}
	if w == nil {
		s.err = errors.New("stream: nil writer")
	}
	return s
}

// lineBufs recycles the Sink's small line buffers, and bigBufs those that
// grew past smallLine: a large event takes a large buffer back instead of
// growing a small one again, so that events of megabytes cost what small
// ones do, per byte. Buffers larger than maxPooled are not kept.
var (
	lineBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}
	bigBufs  sync.Pool
)

const (
	smallLine = 64 << 10
	maxPooled = 16 << 20
)

// Emit writes event as one line. It never panics and reports nothing:
// errors are kept for [Sink.Err].
func (s *Sink) Emit(event Event) {
	k, e := kindOf(event)
	if k == nil {
		return
	}
	at := e.OccurredAt()
	if at.IsZero() {
		at = s.now()
	}
	bp := lineBufs.Get().(*[]byte)
	if k.big(e) {
		if big, ok := bigBufs.Get().(*[]byte); ok {
			lineBufs.Put(bp)
			bp = big
		}
	}
	line, encErr := k.encode((*bp)[:0], e, at)
	line = append(line, '\n')

	s.mu.Lock()
	switch {
	case s.err != nil || s.finished:
	case encErr != nil:
		s.err = fmt.Errorf("stream: encode %s: %w", k.typ, encErr)
	default:
		n, err := s.w.Write(line)
		if err == nil && n < len(line) {
			err = io.ErrShortWrite
		}
		if err != nil {
			s.err = fmt.Errorf("stream: write %s line (%d of %d bytes written): %w", k.typ, n, len(line), err)
		}
		s.finished = k.typ == TypeRunFinished
	}
	s.mu.Unlock()

	switch *bp = line; {
	case cap(line) <= smallLine:
		lineBufs.Put(bp)
	case cap(line) <= maxPooled:
		bigBufs.Put(bp)
	}
}

// AppendEvent appends to dst the line a [Sink] writes for event, without
// its newline, and returns the extended buffer; but a zero At is written
// as it is (0001-01-01T00:00:00Z), not stamped: for a line whose time is
// unknown, as uagent writes a runner record that has none. The error is
// for an event this package does not know (a nil one included) or that
// cannot be encoded (a time outside years 0–9999); dst is then returned
// unchanged. It is safe for concurrent use.
func AppendEvent(dst []byte, event Event) ([]byte, error) {
	k, e := kindOf(event)
	if k == nil {
		return dst, fmt.Errorf("stream: encode %T: not an event of the contract", event)
	}
	line, err := k.encode(dst, e, e.OccurredAt())
	if err != nil {
		return dst, fmt.Errorf("stream: encode %s: %w", k.typ, err)
	}
	return line, nil
}

// Err returns the first error of the Sink, or nil. It is safe to call
// concurrently with Emit.
func (s *Sink) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
