package termstream

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// NewLineWriter returns a LineWriter to w that holds at most max bytes of
// a line, calling long with the number of a line longer than that.
func NewLineWriter(w io.Writer, max int, long func(line int)) *LineWriter {
	return &LineWriter{w: w, max: max, long: long}
}

// LineWriter passes whole lines to w, so that w sees no character cut in
// two, holding at most max bytes of a line: a longer line is reported (its
// number to long) and passed on as it comes, cut only between characters.
// Each byte written is looked at once, whatever is held: the cost of a
// write is its own length. Flush writes what is left. A LineWriter is
// not safe for concurrent use.
type LineWriter struct {
	w        io.Writer
	max      int
	long     func(line int)
	buf      []byte // the line not ended yet, as far as it is held
	line     int    // lines ended so far
	cur      int    // bytes of the line not ended yet
	overlong bool   // that line is longer than max (and was reported)
	// index finds a byte in the bytes written; bytes.IndexByte, and a
	// counting one in a test.
	index func([]byte, byte) int
}

// Write passes on the lines p ends, and holds the rest (see LineWriter);
// it never fails but for w.
func (l *LineWriter) Write(p []byte) (int, error) {
	index := l.index
	if index == nil {
		index = bytes.IndexByte
	}
	ends := -1 // the end of the last whole line in l.buf once p is appended
	for rest := p; len(rest) > 0; {
		seg, ended := rest, false
		if i := index(rest, '\n'); i >= 0 {
			seg, ended = rest[:i+1], true
			ends = len(l.buf) + len(p) - len(rest) + i + 1
		}
		rest = rest[len(seg):]
		if l.cur += len(seg); ended {
			l.cur--
		}
		if !l.overlong && l.cur > l.max {
			l.overlong = true
			l.long(l.line + 1)
		}
		if ended {
			l.line, l.cur, l.overlong = l.line+1, 0, false
		}
	}
	l.buf = append(l.buf, p...)
	out := max(ends, 0) // whole lines
	if l.overlong {     // and the overlong line's bytes as they come, but never half a character
		out = len(l.buf) - partialRune(l.buf)
	}
	if out > 0 {
		if _, err := l.w.Write(l.buf[:out]); err != nil {
			return 0, err
		}
		l.buf = append(l.buf[:0], l.buf[out:]...)
	}
	return len(p), nil
}

// partialRune is how many bytes at the end of b are the start of a UTF-8
// sequence that is not complete yet.
func partialRune(b []byte) int {
	for n := 1; n <= min(3, len(b)); n++ {
		c := b[len(b)-n]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}

// Flush writes what is held of a line not ended yet.
func (l *LineWriter) Flush() {
	if len(l.buf) > 0 {
		l.w.Write(l.buf)
		l.buf = l.buf[:0]
	}
}
