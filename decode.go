package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"reflect"
	"sync"
	"time"

	"github.com/uagentkit/stream/internal/jsonparse"
)

// Decoder reads a uagent v1 stream line by line. Each known line becomes the
// DTO value EventToDTO would return for it (RunStartedDTO, …); a line of an
// unknown type becomes an [UnknownDTO]. Key order does not matter, unknown
// fields are ignored, "\r\n" endings and blank lines are accepted, and
// U+2028/U+2029 are not line breaks. Values decode as encoding/json decodes
// them (invalid UTF-8 becomes U+FFFD, null leaves a field zero, the last of
// duplicate keys wins), except that keys match exactly, not ignoring case,
// and that v, type and at are required.
//
// A Decoder is not safe for concurrent use. It reads 64 KiB at a time, and
// holds at most one line (up to the limit of [WithMaxLineSize]) plus one
// read and 4 MiB of spare chunks, so its memory does not grow with the
// stream. A line longer than 64 KiB is read in chunks and joined once into
// memory of its exact size, which its DTO then owns: decoding it peaks at
// twice the line plus a chunk. With [WithBorrowedStrings] (or
// [WithFoldOnly]), the memory a long line is joined into is the
// Decoder's, and kept, up to 16 MiB, for the next long line.
//
// A DTO's strings are never written over by a later Decode, unless
// [WithBorrowedStrings] says they may be. The strings of 256 bytes or more
// of a line longer than 64 KiB are that line's memory (unescaped in
// place), so keeping one keeps the line alive; a string shorter than 128
// bytes is copied into a slab (of 512 bytes to 8 KiB) that the strings of
// the lines around it share, so keeping one keeps its slab alive: use
// strings.Clone for one kept much longer than the rest. Every other
// string has memory of its own. A Decoder made with [WithFoldOnly] builds
// no slab.
type Decoder struct {
	r   io.Reader
	max int

	buf        []byte
	start, end int      // unread bytes are buf[start:end]
	scanned    int      // bytes of buf[start:end] known to hold no '\n'
	leanLine   []byte   // a long line joined, for a lean Decoder (see take)
	base       int64    // stream offset of buf[0]
	rerr       error    // the reader's error, io.EOF included; sticky
	spare      [][]byte // chunks of an earlier long line, to read into again
	chunk      int      // longChunk; smaller in tests
	chunks     [][]byte // the start of a line longer than a chunk, as read
	long       int      // the bytes in chunks

	line    int    // number of the last line read
	lineOff int64  // stream offset of that line
	raw     []byte // that line, without its ending
	// A line joined from chunks is its DTO's: its strings are unescaped in
	// place. rawParts then keeps the line as read, for Raw, until the next
	// line; rawSkip and rawCut are the byte-order mark and the line ending
	// to leave off.
	rawParts        [][]byte
	rawSkip, rawCut int

	p        jsonparse.Parser
	ref      bool            // DTOs are the scratch ones, not copies (see kind.ref): leanDecoder's
	released bool            // its memory was given back (see recycle)
	scratch  []reflect.Value // one DTO per kind, decoded into and copied out
	afterBOM []byte          // line 1 without its byte-order mark, still to decode
	pending  []pendingField
	ls       lineState // the line being decoded
}

// pendingField is a field that came before type: where its key and value
// are, and the value itself when it is a string, decoded on the first pass
// (so that the long texts of lines with sorted keys are read once).
type pendingField struct {
	key, val int
	name     []byte // the key as it is in the line, when it has no escapes
	str      string
	isStr    bool
}

// decoderMems is the memory of the Decoders that read for the fold alone
// (WithFoldOnly: Summarize, Validate, a session's stats): the read buffer,
// spare chunks, the joined long line, the scratch DTOs. Such a Decoder
// copies every string it builds, so that no DTO holds its memory, and
// gives the memory back at the end of its stream, for the next: a
// command that summarizes many runs allocates it once per core, not once
// per run.
var decoderMems sync.Pool

// decoderMem is what a Decoder gives back.
type decoderMem struct {
	buf, leanLine []byte
	spare         [][]byte
	scratch       []reflect.Value
	pending       []pendingField
	pscratch      []byte
}

// leanDecoder returns a Decoder for the fold alone; call recycle when
// done (if the stream was not read to its end).
func leanDecoder(r io.Reader, o decoderOptions) *Decoder {
	o.foldOnly = true
	o.borrow = true // nothing but the fold reads the DTOs, and it keeps copies
	d := newDecoder(r, o)
	d.ref = true // nor does it keep a DTO past its line
	return d
}

// recycle gives the memory of a Decoder for the fold alone back, for the
// next stream (at the end of the stream, Decode does): nothing it decoded
// may be read from it after, and it decodes nothing more.
func (d *Decoder) recycle() {
	if !d.p.Lean || d.released {
		return
	}
	d.released = true
	if d.rerr == nil {
		d.rerr = io.EOF
	}
	m := &decoderMem{buf: d.buf, leanLine: d.leanLine[:0], spare: d.spare, scratch: d.scratch, pending: d.pending[:0], pscratch: d.p.Scratch}
	if cap(m.leanLine) > maxLeanLine {
		m.leanLine = nil // a longer line's memory is not kept
	}
	d.base += int64(d.start)
	d.buf, d.leanLine, d.spare, d.scratch, d.pending, d.p.Scratch = nil, nil, nil, nil, nil, nil
	d.start, d.end, d.scanned, d.raw, d.rawParts, d.chunks, d.long = 0, 0, 0, nil, nil, nil, 0
	decoderMems.Put(m)
}

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader, opts ...DecoderOption) *Decoder {
	o := decoderOptions{maxLine: DefaultMaxLineSize}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return newDecoder(r, o)
}

func newDecoder(r io.Reader, o decoderOptions) *Decoder {
	d := &Decoder{r: r, max: o.maxLine, chunk: longChunk}
	d.p.SkipContent = o.noContent
	d.p.Borrow = o.borrow
	d.p.Slack = true // a line is a slice of the Decoder's own buffer
	d.p.Slabs = !o.foldOnly
	if o.foldOnly {
		d.p.Lean = true
		if m, _ := decoderMems.Get().(*decoderMem); m != nil {
			d.buf, d.leanLine, d.spare, d.scratch, d.pending, d.p.Scratch = m.buf, m.leanLine, m.spare, m.scratch, m.pending, m.pscratch
			return d
		}
	}
	d.scratch = make([]reflect.Value, len(kinds))
	return d
}

// Decode returns the DTO of the next line. At the end of the stream it
// returns nil, io.EOF (never wrapped). A line that cannot be decoded gives a
// *LineError, and the next call goes on with the next line. An error of the
// underlying reader is returned wrapped, after every complete line before it
// (and a truncated last one), and again on every later call.
//
// A stream that starts with a UTF-8 byte-order mark (which uagent never
// writes) gives a *LineError for line 1 wrapping ErrByteOrderMark; the next
// call decodes line 1 without the mark.
func (d *Decoder) Decode() (any, error) {
	if d.afterBOM != nil {
		line := d.afterBOM
		d.afterBOM = nil
		if !isBlank(line) {
			return d.decodeLine(line)
		}
	}
	for {
		line, err := d.next()
		if err != nil {
			if err == io.EOF {
				d.recycle() // for the fold alone: its memory, for the next stream
			}
			return nil, err
		}
		if d.line == 1 && d.lineOff == 0 && bytes.HasPrefix(line, byteOrderMark) {
			d.afterBOM = line[len(byteOrderMark):]
			d.raw, d.rawSkip = d.afterBOM, len(byteOrderMark)
			return nil, &LineError{Line: 1, Err: fmt.Errorf("%w (U+FEFF, bytes EF BB BF) at the start of the stream: uagent streams are UTF-8 without one; the line is read without it", ErrByteOrderMark)}
		}
		if isBlank(line) {
			continue
		}
		return d.decodeLine(line)
	}
}

var byteOrderMark = []byte{0xef, 0xbb, 0xbf}

// All returns an iterator over the stream's lines, for range loops: each
// step yields a DTO and a nil error, or nil and a *LineError, after which
// iteration goes on with the next line. It ends at the end of the stream, or
// after yielding the reader's error.
//
//	for dto, err := range dec.All() {
//		if err != nil { log.Print(err); continue }
//		…
//	}
func (d *Decoder) All() iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for {
			v, err := d.Decode()
			if err == io.EOF {
				return
			}
			if !yield(v, err) {
				return
			}
			if err != nil {
				if _, ok := errors.AsType[*LineError](err); !ok {
					return
				}
			}
		}
	}
}

// Line returns the 1-based number of the line last read.
func (d *Decoder) Line() int { return d.line }

// Raw returns the bytes of the line last read, without its line ending. The
// slice aliases the Decoder's buffer: it is valid only until the next call
// to Decode, and must not be modified. It is empty after a line that was too
// long. For a line longer than 64 KiB whose strings had escapes (unescaped
// in place), the first call joins the line again from the chunks it was
// read in: it then costs a copy of the line.
func (d *Decoder) Raw() []byte {
	if d.p.Edited {
		raw := bytes.Join(d.rawParts, nil)
		d.raw, d.rawParts, d.p.Edited = raw[d.rawSkip:len(raw)-d.rawCut], nil, false
	}
	return d.raw
}

// InputOffset returns the number of bytes of the stream consumed so far.
func (d *Decoder) InputOffset() int64 { return d.base + int64(d.start) }

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// next returns the next line without its ending; a last line without a
// newline is returned too (atEOF then reports true).
func (d *Decoder) next() ([]byte, error) {
	if n := len(d.rawParts); n > 0 { // the chunks, not the buffer the line ended in
		keep := min(n-1, maxSpare-len(d.spare))
		d.spare = append(d.spare, d.rawParts[:keep]...)
	}
	d.raw, d.rawParts, d.p.Own, d.p.Write, d.p.Edited = nil, nil, false, false, false
	for {
		if i := bytes.IndexByte(d.buf[d.start+d.scanned:d.end], '\n'); i >= 0 {
			n := d.scanned + i
			if d.overLimit(n) {
				return nil, d.dropLine(n, n+1)
			}
			return d.take(n, n+1), nil
		}
		d.scanned = d.end - d.start
		if d.overLimit(d.scanned) { // what is read of it already is
			return nil, d.skipLong()
		}
		if d.rerr != nil {
			if d.end > d.start || d.long > 0 {
				n := d.end - d.start
				if d.overLimit(n) {
					return nil, d.dropLine(n, n)
				}
				return d.take(n, n), nil
			}
			return nil, d.readErr()
		}
		d.fill()
	}
}

// take returns the line of n bytes at d.start (after the chunks of a long
// line) and consumes adv bytes.
func (d *Decoder) take(n, adv int) []byte {
	d.line++
	d.lineOff = d.base + int64(d.start) - int64(d.long)
	line := d.buf[d.start : d.start+n]
	switch {
	case d.long > 0 && (d.p.Lean || d.p.Borrow):
		// For the fold alone (Summarize, Validate), whose Decoder copies
		// every string it builds, and for borrowed strings, valid until
		// the next line: the line is joined into memory the Decoder keeps
		// for the next long line (and, for the fold, the next stream: see
		// leanDecoder).
		d.rawParts = append(d.chunks, line)
		if cap(d.leanLine) < d.long+len(line) {
			d.leanLine = bytes.Join(d.rawParts, nil) // memory not cleared first
		} else {
			d.leanLine = d.leanLine[:0]
			for _, part := range d.rawParts {
				d.leanLine = append(d.leanLine, part...)
			}
		}
		line = d.leanLine
		// Strings are unescaped in place, and copied unless borrowed
		// (the line is theirs until the next).
		d.p.Own, d.p.Write = d.p.Borrow, true
		if cap(d.leanLine) > maxLeanLine {
			d.leanLine = nil // the memory of a longer line is not kept
		}
		d.chunks, d.long = nil, 0
	case d.long > 0:
		// One exact-size copy, which the line's DTO then owns; the chunks
		// are kept until the next line in case Raw is asked for after
		// strings were unescaped in place.
		d.rawParts = append(d.chunks, line)
		line = bytes.Join(d.rawParts, nil)
		d.chunks, d.long, d.p.Own = nil, 0, true
	}
	d.start += adv
	d.scanned = 0
	d.rawSkip, d.rawCut = 0, 0
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
		d.rawCut = 1
	}
	d.raw = line
	return line
}

func (d *Decoder) readErr() error {
	if d.rerr == io.EOF {
		return io.EOF
	}
	return fmt.Errorf("stream: read after line %d, byte %d: %w", d.line, d.InputOffset(), d.rerr)
}

// atEOF reports whether the line last taken was the stream's last bytes and
// had no newline.
func (d *Decoder) atEOF() bool {
	return d.rerr != nil && d.start == d.end && (d.end == 0 || d.buf[d.end-1] != '\n')
}

// fill reads more bytes, compacting or growing the buffer first.
func (d *Decoder) fill() {
	if d.start > 0 && (d.end == len(d.buf) || d.start == d.end) {
		d.base += int64(d.start)
		d.end = copy(d.buf, d.buf[d.start:d.end])
		d.start = 0
	}
	if d.end == len(d.buf) && len(d.buf) >= d.chunk && d.start == 0 {
		// The line is longer than a chunk: it is read in chunks, then
		// joined once into memory of its exact size.
		d.chunks = append(d.chunks, d.buf[:d.end])
		d.long += d.end
		d.base += int64(d.end)
		d.buf = d.newChunk()
		d.start, d.end, d.scanned = 0, 0, 0
	}
	if d.end == len(d.buf) {
		size := max(d.minBuf(), 2*len(d.buf))
		size = min(size, d.max+1)
		if size <= len(d.buf) {
			size = len(d.buf) + 4096
		}
		nb := make([]byte, size)
		copy(nb, d.buf[d.start:d.end])
		d.base += int64(d.start)
		d.end -= d.start
		d.start = 0
		d.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := d.r.Read(d.buf[d.end:])
		d.end += n
		if err != nil {
			d.rerr = err
			return
		}
		if n > 0 {
			return
		}
	}
	d.rerr = io.ErrNoProgress
}

// longChunk is the size up to which the buffer grows for a long line;
// a longer line is read in chunks of this size.
const longChunk = 64 << 10

// maxLeanLine bounds the memory kept for the next long line joined by a
// Decoder for the fold alone or with borrowed strings: kept, it is written
// again without a page fault, which costs more than the copy itself.
const maxLeanLine = 16 << 20

// maxSpare bounds the chunks kept for the next long line (4 MiB).
const maxSpare = 64

// newChunk returns a chunk to read a long line into: a spare one, or new.
func (d *Decoder) newChunk() []byte {
	for len(d.spare) > 0 {
		c := d.spare[len(d.spare)-1]
		d.spare[len(d.spare)-1] = nil
		d.spare = d.spare[:len(d.spare)-1]
		if cap(c) == d.chunk {
			return c[:cap(c)]
		}
	}
	return make([]byte, d.chunk)
}

// minBuf is the buffer's first size.
func (d *Decoder) minBuf() int { return min(64<<10, d.chunk) }

// skipLong discards the rest of a line longer than the limit, reading in
// place, and returns its error.
func (d *Decoder) skipLong() error {
	d.line++
	d.lineOff = d.base + int64(d.start) - int64(d.long)
	size := int64(d.long + d.end - d.start)
	d.chunks, d.long = nil, 0
	for {
		d.base += int64(d.end)
		d.start, d.end = 0, 0
		if d.rerr != nil {
			break
		}
		d.fill()
		if i := bytes.IndexByte(d.buf[:d.end], '\n'); i >= 0 {
			size += int64(i)
			d.start = i + 1
			break
		}
		size += int64(d.end)
	}
	d.scanned = 0
	return d.tooLong(size)
}

// overLimit reports that the line of n bytes at d.start (after the chunks
// of a long line) is longer than the limit, which does not count a final
// '\r' (the line ending's, or, at the end of what is read, perhaps).
func (d *Decoder) overLimit(n int) bool {
	size := d.long + n
	return size > d.max && (size-1 > d.max || !d.endsInCR(n))
}

// endsInCR reports that the line of n bytes at d.start (after the chunks
// of a long line) ends in '\r'.
func (d *Decoder) endsInCR(n int) bool {
	if n > 0 {
		return d.buf[d.start+n-1] == '\r'
	}
	if k := len(d.chunks); k > 0 {
		c := d.chunks[k-1]
		return len(c) > 0 && c[len(c)-1] == '\r'
	}
	return false
}

// dropLine discards the line of n bytes at d.start (after the chunks of a
// long line), all of it read but longer than the limit, and consumes adv
// bytes.
func (d *Decoder) dropLine(n, adv int) error {
	d.line++
	d.lineOff = d.base + int64(d.start) - int64(d.long)
	size := int64(d.long + n)
	d.chunks, d.long = nil, 0
	d.start += adv
	d.scanned = 0
	return d.tooLong(size)
}

// tooLong is the error of the line just counted, of size bytes.
func (d *Decoder) tooLong(size int64) error {
	return &LineError{Line: d.line, Offset: d.lineOff,
		Err: fmt.Errorf("%w: %d bytes, the limit is %d", ErrLineTooLong, size, d.max)}
}

// UnknownDTO is a line whose type this package does not know. The [Decoder]
// returns it instead of an error, so that additive changes to the contract
// do not break readers. Raw is the whole line without its line ending; it is
// owned by the UnknownDTO.
type UnknownDTO struct {
	V    int
	Type string
	At   time.Time
	Raw  []byte
}
