package acpstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// MaxRequest is the longest request line the agent passes to the SDK,
// which reads no longer one: 10 MiB. A longer request is answered with an
// invalid-request error naming its size, without being held in memory, and
// the connection goes on.
const MaxRequest = 10 << 20

// lockedWriter makes every Write whole: the SDK writes each message with
// one Write, and so do the answers of filterRequests, so that the two never
// interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// filterRequests reads request lines from in and passes on those the SDK
// can read; it answers itself, on out, a line that is not JSON (a parse
// error, id null, as JSON-RPC 2.0 says), a JSON value that is not an
// object (an invalid request, id null) and a line longer than MaxRequest
// (an invalid request, with the line's id when it has one at its top
// level). logf reports each. Every line it passes on goes through pass
// first (which stamps a prompt with its place: Agent.arrived), in the
// order the lines were read. The reader it returns ends when in does; it
// reads in as it is read, one line at a time.
func filterRequests(in io.Reader, out io.Writer, logf func(string, ...any), pass func([]byte) []byte) io.Reader {
	return &requestFilter{br: bufio.NewReaderSize(in, 64<<10), out: out, logf: logf, pass: pass}
}

// requestFilter is the reader filterRequests returns.
type requestFilter struct {
	br      *bufio.Reader
	out     io.Writer
	logf    func(string, ...any)
	pass    func([]byte) []byte
	pending []byte // a request passed on, not read yet
	err     error  // in's error, once every line before it was passed on
}

func (f *requestFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, long, err := readRequest(f.br)
		switch {
		case long != nil:
			f.logf("acp: a request of %d bytes is longer than the %d the agent reads: answered with an error", long.size, MaxRequest)
			if long.hasID { // a notification gets no answer
				answer(f.out, long.id, acp.NewInvalidRequest(map[string]any{
					"error": fmt.Sprintf("the request is %d bytes; the agent reads requests of at most %d bytes", long.size, MaxRequest)}))
			}
		case len(bytes.TrimSpace(line)) == 0:
		case !json.Valid(line):
			f.logf("acp: a request line that is not JSON (%d bytes): answered with a parse error", len(line))
			answer(f.out, nil, acp.NewParseError(map[string]any{"error": "the line is not JSON"}))
		case bytes.TrimLeft(line, " \t\r")[0] != '{':
			f.logf("acp: a request that is not a JSON object: answered with an invalid-request error")
			answer(f.out, nil, acp.NewInvalidRequest(map[string]any{"error": "a request is a JSON object"}))
		default:
			f.pending = append(f.pass(line), '\n')
		}
		f.err = err
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// answer writes a JSON-RPC error response; id nil is null.
func answer(out io.Writer, id json.RawMessage, e *acp.RequestError) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string            `json:"jsonrpc"`
		ID      json.RawMessage   `json:"id"`
		Error   *acp.RequestError `json:"error"`
	}{"2.0", id, e})
	if err == nil {
		out.Write(append(b, '\n'))
	}
}

// overlong is what is known of a request line longer than MaxRequest: its
// size and its top-level id (hasID: it has one; id nil: it is not a short
// string or number).
type overlong struct {
	size  int64
	hasID bool
	id    json.RawMessage
}

// readRequest reads one line, without its newline. A line longer than
// MaxRequest is read to its end in pieces and returned as an overlong. err
// is the reader's (io.EOF at the end), after the last line.
func readRequest(br *bufio.Reader) (line []byte, long *overlong, err error) {
	var buf []byte
	for {
		piece, err := br.ReadSlice('\n')
		buf = append(buf, piece...)
		if len(buf) > MaxRequest && !bytes.HasSuffix(buf, []byte("\n")) || len(buf) > MaxRequest+1 {
			return nil, skipLong(buf, br), nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(buf, []byte("\n")), nil, err
	}
}

// skipLong reads the rest of an overlong line, scanning it for its
// top-level id as it goes.
func skipLong(start []byte, br *bufio.Reader) *overlong {
	var s idScan
	long := &overlong{}
	feed := func(p []byte) bool {
		end := bytes.IndexByte(p, '\n')
		if end >= 0 {
			p = p[:end]
		}
		long.size += int64(len(p))
		s.feed(p)
		return end >= 0
	}
	done := feed(start)
	for !done {
		piece, err := br.ReadSlice('\n')
		done = feed(piece) || err != nil && !errors.Is(err, bufio.ErrBufferFull)
	}
	long.hasID, long.id = s.found, s.value()
	return long
}

// idScan finds the value of the top-level "id" member of a JSON object
// fed to it in pieces, keeping only what it needs: up to 256 bytes of the
// id's value. A key with escapes is not taken for "id".
type idScan struct {
	depth            int
	inStr, esc       bool
	isKey, keyBad    bool // the string being read is a top-level key; not "id"
	key              []byte
	expectKey        bool // at the top level, the next string is a key
	capturing, found bool
	done, over       bool
	val              []byte
}

func (s *idScan) feed(p []byte) {
	for _, c := range p {
		if s.inStr {
			s.keep(c)
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc, s.keyBad = true, true
			case c == '"':
				s.inStr = false
			case s.isKey && len(s.key) < 3:
				s.key = append(s.key, c)
			case s.isKey:
				s.keyBad = true
			}
			continue
		}
		switch {
		case c == '"':
			s.inStr = true
			s.isKey = s.depth == 1 && s.expectKey
			if s.isKey {
				s.key, s.keyBad = s.key[:0], false
			}
		case c == ':' && s.depth == 1:
			s.expectKey = false
			if !s.keyBad && string(s.key) == "id" && !s.found {
				s.found, s.capturing = true, true
			}
			continue
		case c == '{' || c == '[':
			s.depth++
			s.expectKey = s.expectKey || s.depth == 1
		case (c == ',' || c == '}') && s.depth == 1:
			if s.capturing {
				s.capturing, s.done = false, true
			}
			s.expectKey = true
			if c == '}' {
				s.depth--
			}
			continue
		case c == '}' || c == ']':
			s.depth--
		}
		s.keep(c)
	}
}

// keep adds c to the id's value while it is being read.
func (s *idScan) keep(c byte) {
	if !s.capturing {
		return
	}
	if len(s.val) == 256 {
		s.over = true
		return
	}
	s.val = append(s.val, c)
}

// value is the id's value, when it is a string or a number.
func (s *idScan) value() json.RawMessage {
	v := bytes.TrimSpace(s.val)
	if !s.done || s.over || len(v) == 0 || !json.Valid(v) || v[0] != '"' && v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		return nil
	}
	return v
}
