package stream

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"iter"
	"reflect"
	"sync"
	"time"
	"unsafe"
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
// twice the line plus a chunk.
//
// A DTO's strings are never written over by a later Decode. The strings of
// 256 bytes or more of a line longer than 64 KiB are that line's memory
// (unescaped in place), so keeping one keeps the line alive: use
// strings.Clone for one kept much longer than the rest of its line. Every
// other string has memory of its own.
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

	p        parser
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
	return newDecoder(r, o)
}

// recycle gives the memory of a Decoder for the fold alone back, for the
// next stream (at the end of the stream, Decode does): nothing it decoded
// may be read from it after, and it decodes nothing more.
func (d *Decoder) recycle() {
	if !d.p.lean || d.released {
		return
	}
	d.released = true
	if d.rerr == nil {
		d.rerr = io.EOF
	}
	m := &decoderMem{buf: d.buf, leanLine: d.leanLine[:0], spare: d.spare, scratch: d.scratch, pending: d.pending[:0], pscratch: d.p.scratch}
	if cap(m.leanLine) > 4<<20 {
		m.leanLine = nil // a long line's memory is not kept
	}
	d.base += int64(d.start)
	d.buf, d.leanLine, d.spare, d.scratch, d.pending, d.p.scratch = nil, nil, nil, nil, nil, nil
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
	if o.foldOnly {
		d.p.lean = true
		if m, _ := decoderMems.Get().(*decoderMem); m != nil {
			d.buf, d.leanLine, d.spare, d.scratch, d.pending, d.p.scratch = m.buf, m.leanLine, m.spare, m.scratch, m.pending, m.pscratch
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
			var le *LineError
			if err != nil && !errors.As(err, &le) {
				return
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
	if d.p.edited {
		raw := bytes.Join(d.rawParts, nil)
		d.raw, d.rawParts, d.p.edited = raw[d.rawSkip:len(raw)-d.rawCut], nil, false
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
	d.raw, d.rawParts, d.p.own, d.p.edited = nil, nil, false, false
	for {
		if i := bytes.IndexByte(d.buf[d.start+d.scanned:d.end], '\n'); i >= 0 {
			n := d.scanned + i
			return d.take(n, n+1), nil
		}
		d.scanned = d.end - d.start
		if d.long+d.scanned > d.max {
			return nil, d.skipLong()
		}
		if d.rerr != nil {
			if d.end > d.start || d.long > 0 {
				n := d.end - d.start
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
	case d.long > 0 && d.p.lean:
		// For the fold alone (Summarize, Validate), whose Decoder copies
		// every string it builds: the line is joined into memory the
		// Decoder keeps for the next long line (and the next stream: see
		// leanDecoder).
		d.rawParts = append(d.chunks, line)
		if cap(d.leanLine) < d.long+len(line) {
			d.leanLine = make([]byte, 0, d.long+len(line))
		}
		d.leanLine = d.leanLine[:0]
		for _, part := range d.rawParts {
			d.leanLine = append(d.leanLine, part...)
		}
		line = d.leanLine
		if cap(d.leanLine) > 1<<20 {
			d.leanLine = nil // the memory of a line over 1 MiB is not kept
		}
		d.chunks, d.long = nil, 0
	case d.long > 0:
		// One exact-size copy, which the line's DTO then owns; the chunks
		// are kept until the next line in case Raw is asked for after
		// strings were unescaped in place.
		d.rawParts = append(d.chunks, line)
		line = bytes.Join(d.rawParts, nil)
		d.chunks, d.long, d.p.own = nil, 0, true
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
	return &LineError{Line: d.line, Offset: d.lineOff,
		Err: fmt.Errorf("%w: %d bytes, the limit is %d", ErrLineTooLong, size, d.max)}
}

// lineState is what decoding one line has found so far: the header
// fields, the kind and its scratch DTO, and the first field fault, kept
// while the rest of the line is read.
type lineState struct {
	line                 []byte
	hasV, hasType, hasAt bool
	vPos, end            int // where the value of v is, where the object ends (its '}')
	v                    int64
	typ                  string
	at                   time.Time
	k                    *kind // nil until a known type is read
	dv                   reflect.Value
	base                 unsafe.Pointer // dv's address
	fault                *parseError    // the first wrong-typed field or bad time
}

// decodeLine decodes one non-blank line: its members, then the members
// that came before its type, then the verdict.
func (d *Decoder) decodeLine(line []byte) (any, error) {
	p := &d.p
	p.data, p.pos = line, 0
	ls := &d.ls
	*ls = lineState{line: line}
	d.pending = d.pending[:0]
	clear(p.present[:codecs])
	return d.decodeMembers()
}

func (d *Decoder) decodeMembers() (any, error) {
	p, ls := &d.p, &d.ls
	if p.peek() != '{' {
		return nil, d.lineErr(p.syntax("'{'"))
	}
	fault := p.members(false, d.member)
	if err := keepFault(&ls.fault, fault); err != nil {
		return nil, d.lineErr(err)
	}
	ls.end = p.pos - 1
	if p.peek() != 0 {
		return nil, d.lineErr(p.syntax("the end of the line"))
	}
	if err := d.fillPending(); err != nil {
		return nil, d.lineErr(err)
	}
	if err := ls.verdict(); err != nil {
		return nil, d.lineErr(err)
	}
	if ls.k == nil {
		raw := ls.line
		switch {
		case p.edited: // strings before the type were unescaped in place: the line as read, joined again
			raw = d.Raw()
		case !p.own:
			raw = bytes.Clone(raw)
		}
		return UnknownDTO{V: int(ls.v), Type: ls.typ, At: ls.at, Raw: raw}, nil
	}
	*(*header)(ls.base) = header{V: int(ls.v), Type: ls.k.typ, At: ls.at} // every DTO starts with it
	if ls.k == finished.kind {
		(*RunFinishedDTO)(ls.base).absent = p.summaryAbsent()
	}
	return ls.dv.Interface(), nil
}

// lineErr makes the LineError of a fault of the line; a syntax error at
// the end of the stream's last line is a truncated line.
func (d *Decoder) lineErr(e *parseError) error {
	ls := &d.ls
	le := &LineError{Line: d.line, Offset: d.lineOff + int64(e.pos), Type: ls.typ, Field: e.field, Err: e.err}
	if errors.Is(e.err, ErrSyntax) && e.pos >= len(ls.line) && d.atEOF() {
		le.Err = fmt.Errorf("%w: the stream ends inside the line (%d bytes)", ErrTruncated, len(ls.line))
	}
	return le
}

// member reads the value of one member of the line: a header field, a
// field of the DTO once the type is known, kept for later before it,
// skipped for an unknown type. When the key is the line's own bytes (it
// had no escapes), a kept member keeps them instead of reading it again.
func (d *Decoder) member(key []byte, keyPos, keyEnd int) *parseError {
	p, ls := &d.p, &d.ls
	valPos := p.pos
	keyInLine := len(key) == keyEnd-keyPos-2
	switch string(key) {
	case "v":
		ls.vPos = valPos
		err := d.headerV()
		ls.hasV = ls.hasV || err == nil
		return err
	case "type":
		if ls.hasType {
			err := &parseError{pos: valPos, field: "type", err: fmt.Errorf("%w: type given twice", ErrFieldType)}
			return cmp.Or(p.skip(1), err)
		}
		ls.hasType = true
		err := d.headerType() // sets ls.k for a known type
		if ls.k != nil {
			ls.dv = d.dto(ls.k)
			ls.base = ls.dv.Addr().UnsafePointer()
		}
		return err
	case "at":
		err := d.headerAt()
		ls.hasAt = ls.hasAt || err == nil
		return err
	}
	switch {
	case ls.k != nil:
		return d.field(ls.k.codec, key, ls.base)
	case !ls.hasType: // before the type: decoded once it is known
		pf := pendingField{key: keyPos, val: valPos}
		if keyInLine {
			pf.name = key
		}
		var err *parseError
		if p.peek() == '"' && p.lean { // read again once the type is known, built only if the fold reads it
			if end, ok := skipStringValid(p.data, p.pos); ok {
				p.pos = end
				d.pending = append(d.pending, pf)
				return nil
			}
		}
		if p.peek() == '"' { // decoded once: pendingString sets it
			pf.str, err = p.str()
			pf.isStr = err == nil
		} else {
			err = p.skip(1)
		}
		d.pending = append(d.pending, pf)
		return err
	}
	return p.skip(1)
}

// fillPending decodes the members that came before the type into the DTO
// (strings decoded in the first pass are set as they are).
func (d *Decoder) fillPending() *parseError {
	p, ls := &d.p, &d.ls
	if ls.k == nil {
		return nil
	}
	end := p.pos
	c := ls.k.codec
	for _, pf := range d.pending {
		key := pf.name
		if key == nil {
			p.pos = pf.key
			key, _ = p.stringBytes() // checked in the first pass
		}
		if pf.isStr {
			if err := keepFault(&ls.fault, d.pendingString(c, key, pf)); err != nil {
				return err
			}
			continue
		}
		p.pos = pf.val
		if err := keepFault(&ls.fault, d.field(c, key, ls.base)); err != nil {
			return err
		}
	}
	clear(d.pending) // let go of the strings
	p.pos = end
	return nil
}

// pendingString sets the DTO field named key to a string value decoded in
// the first pass, without reading it again (in a line unescaped in place,
// its bytes are no longer the string): what field would do with it.
func (d *Decoder) pendingString(c *structCodec, key []byte, pf pendingField) *parseError {
	i, ok := c.find(key)
	if !ok {
		return nil
	}
	f := &c.fields[i]
	d.p.present[c.id] |= 1 << i
	fp := unsafe.Add(d.ls.base, f.offset)
	switch f.kind {
	case kindString:
		*(*string)(fp) = pf.str
		return nil
	case kindTime:
		t, ok := parseTime([]byte(pf.str))
		if !ok {
			return &parseError{pos: pf.val, field: f.name, err: fmt.Errorf("%w: %q is not RFC 3339", ErrBadTime, pf.str)}
		}
		*(*time.Time)(fp) = t
		return nil
	}
	return &parseError{pos: pf.val, field: f.name, err: fmt.Errorf("%w: want %s, got string", ErrFieldType, kindNames[f.kind])}
}

// verdict is the line's error, if any, in the order of what matters most:
// another version, a broken v or type, a missing type or v, a field fault,
// a missing at. Each points at its field: at its value, or, for a field
// that is missing, at the end of the object.
func (ls *lineState) verdict() *parseError {
	switch {
	case ls.hasV && ls.v != SchemaVersion:
		return &parseError{pos: ls.vPos, field: "v", err: fmt.Errorf("%w: v is %d, this reader knows %d", ErrUnsupportedVersion, ls.v, SchemaVersion)}
	case ls.fault != nil && (ls.fault.field == "type" || ls.fault.field == "v"):
		return ls.fault
	case !ls.hasType: // where it is missing: at the end of the object
		return &parseError{pos: ls.end, field: "type", err: fmt.Errorf("%w: every line has a type", ErrMissingField)}
	case !ls.hasV:
		return &parseError{pos: ls.end, field: "v", err: fmt.Errorf("%w: every line has a v", ErrMissingField)}
	case ls.fault != nil:
		return ls.fault
	case !ls.hasAt:
		return &parseError{pos: ls.end, field: "at", err: fmt.Errorf("%w: every line has an at", ErrMissingField)}
	}
	return nil
}

// dto returns the zeroed scratch DTO of kind k.
func (d *Decoder) dto(k *kind) reflect.Value {
	i := k.index
	if !d.scratch[i].IsValid() {
		d.scratch[i] = reflect.New(k.dto).Elem()
	} else {
		d.scratch[i].SetZero()
	}
	return d.scratch[i]
}

// field decodes the value at p.pos into the DTO field named key, or skips it
// when the DTO has no such field.
func (d *Decoder) field(c *structCodec, key []byte, base unsafe.Pointer) *parseError {
	p := &d.p
	i, ok := c.find(key)
	if !ok {
		return p.skip(1)
	}
	f := &c.fields[i]
	p.present[c.id] |= 1 << i
	if err := p.value(f, unsafe.Add(base, f.offset), 1); err != nil {
		return withField(err, f.name)
	}
	return nil
}

// finished is where run_finished's summary is in the field table: the
// codecs of its summary and of the summary's stats, and their indexes. The
// event table's init sets it.
var finished struct {
	kind                    *kind
	summary, stats          *structCodec
	statsField, answerField int
}

func initFinished() {
	f := &finished
	f.kind = kindByType[TypeRunFinished]
	f.summary = f.kind.codec.fields[f.kind.codec.byName["summary"]].sub
	f.statsField, f.answerField = f.summary.byName["stats"], f.summary.byName["answer"]
	f.stats = f.summary.fields[f.statsField].sub
}

// summaryAbsent returns the bits of RunFinishedDTO.absent for the line just
// parsed: the stats fields and the answer its summary lacks.
func (p *parser) summaryAbsent() uint64 {
	has := p.present[finished.summary.id]
	var absent uint64
	if has&(1<<finished.answerField) == 0 {
		absent |= answerAbsent
	}
	stats := uint64(0)
	if has&(1<<finished.statsField) != 0 {
		stats = p.present[finished.stats.id]
	}
	return absent | ^stats&(1<<len(finished.stats.fields)-1)
}

// missing returns the dotted paths of the required fields that the line
// last decoded (a DTO of kind k) does not have, nested objects included
// when they are present: its identity fields, and in strict mode every
// field that is not omitempty. It reads the presence the parse recorded.
func (d *Decoder) missing(k *kind, strict bool) []string {
	return d.p.missing(k.codec, "", strict)
}

func (p *parser) missing(c *structCodec, prefix string, strict bool) []string {
	var out []string
	for i, f := range c.fields {
		switch {
		case len(f.index) == 2 && f.index[0] == 0: // v, type, at: the Decoder requires them
		case p.present[c.id]&(1<<i) == 0:
			if f.identity || (strict && !f.omitEmpty) {
				out = append(out, prefix+f.name)
			}
		case f.kind == kindStruct:
			out = append(out, p.missing(f.sub, prefix+f.name+".", strict)...)
		}
	}
	return out
}

// headerV decodes v, an integer.
func (d *Decoder) headerV() *parseError {
	p := &d.p
	start := p.pos
	if c := p.peek(); c != '-' && (c < '0' || c > '9') {
		return d.wrongType(start, "v", "integer")
	}
	span, integer, err := p.number()
	if err != nil {
		return err
	}
	n, ok := int64(0), false
	if integer {
		n, ok = parseInt(span, 64)
	}
	if !ok {
		return &parseError{pos: start, field: "v", err: fmt.Errorf("%w: v is %s, want an integer", ErrFieldType, span)}
	}
	d.ls.v = n
	return nil
}

// headerType decodes type, a string, and finds its kind when the type is
// known.
func (d *Decoder) headerType() *parseError {
	p := &d.p
	if p.peek() != '"' {
		return d.wrongType(p.pos, "type", "string")
	}
	b, err := p.stringBytes()
	if err != nil {
		return err
	}
	if k, ok := kindByType[string(b)]; ok {
		d.ls.typ, d.ls.k = k.typ, k
	} else {
		d.ls.typ = string(b)
	}
	return nil
}

// headerAt decodes at, an RFC 3339 time in UTC.
func (d *Decoder) headerAt() *parseError {
	p := &d.p
	start := p.pos
	if p.peek() != '"' {
		return d.wrongType(start, "at", "string")
	}
	b, err := p.stringBytes()
	if err != nil {
		return err
	}
	t, ok := parseAt(b)
	if !ok {
		return &parseError{pos: start, field: "at", err: fmt.Errorf("%w: %q is not an RFC 3339 time in UTC", ErrBadTime, b)}
	}
	d.ls.at = t
	return nil
}

// parseUTC reads the one form uagent writes, "2006-01-02T15:04:05Z" with
// an optional fraction of 1 to 9 digits, as time.Time.UnmarshalText would
// and in UTC. It reports false for anything else, valid or not, which
// UnmarshalText then reads.
func parseUTC(b []byte) (time.Time, bool) {
	n := len(b)
	if n < 20 || n > 30 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[n-1] != 'Z' {
		return time.Time{}, false
	}
	num := func(i, w int) int {
		v := 0
		for _, c := range b[i : i+w] {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec := num(11, 2), num(14, 2), num(17, 2)
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	if day > 28 && day > time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		return time.Time{}, false
	}
	ns := 0
	if n > 20 {
		digits := n - 21
		if b[19] != '.' || digits < 1 || digits > 9 {
			return time.Time{}, false
		}
		if ns = num(20, digits); ns < 0 {
			return time.Time{}, false
		}
		for range 9 - digits {
			ns *= 10
		}
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, ns, time.UTC), true
}

func (d *Decoder) wrongType(start int, name, want string) *parseError {
	p := &d.p
	got := p.jsonKind()
	if err := p.skip(1); err != nil {
		return err
	}
	return &parseError{pos: start, field: name, err: fmt.Errorf("%w: want %s, got %s", ErrFieldType, want, got)}
}

// parseTime parses an RFC 3339 time as time.Time.UnmarshalText does,
// uagent's own form without it.
func parseTime(b []byte) (time.Time, bool) {
	t, ok := parseUTC(b)
	if !ok {
		ok = t.UnmarshalText(b) == nil
	}
	return t, ok
}

// parseAt parses an RFC 3339 time whose offset is zero and returns it in UTC.
func parseAt(b []byte) (time.Time, bool) {
	t, ok := parseTime(b)
	if _, off := t.Zone(); !ok || off != 0 {
		return time.Time{}, false
	}
	return t.UTC(), true
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
