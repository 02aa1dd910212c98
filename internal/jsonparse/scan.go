package jsonparse

// The scan of JSON strings: a word (eight bytes) at a time, with UTF-8
// checked as the bytes go by, unescaped into scratch memory or in place.

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// plain marks the bytes a JSON string may hold as they are: all but the
// quote, the backslash and the C0 controls. Bytes of multi-byte UTF-8
// sequences are plain; the result is checked for valid UTF-8 afterwards.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// specials flags, in the high bit of each byte of the eight-byte word w,
// the bytes a JSON string may not hold as they are: below 0x20, a quote, a
// backslash. A borrow can flag a byte only above one truly flagged, so the
// lowest flag is exact.
func specials(w uint64) uint64 {
	q, b := w^(lsb*'"'), w^(lsb*'\\')
	return (((w - lsb*0x20) &^ w) | ((q - lsb) &^ q) | ((b - lsb) &^ b)) & msb
}

// before masks the bytes of a word below the lowest byte flagged in m (a
// result of specials).
func before(m uint64) uint64 { return (m&-m)>>7 - 1 }

// utf8Words checks UTF-8 eight bytes at a time as a string's raw bytes
// are scanned, so that valid text is not read a second time. In each word
// it marks the bytes that lead a multi-byte sequence and the continuation
// bytes; the bytes the leads require to be continuations (carried into the
// next word when a sequence crosses it) must be exactly the continuation
// bytes. Its verdict is only ever "valid" or "not sure": text it is not
// sure of (an odd lead, a sequence cut by an escape, non-ASCII among the
// last bytes read one by one) is checked again whole.
type utf8Words struct {
	carry, bad uint64
	unsure     bool
}

// word checks the next raw bytes of the string; bytes of the word that
// are not the string's are zero. Small enough to be inlined, it leaves
// to add the words that have a non-ASCII byte or finish a sequence.
func (u *utf8Words) word(w uint64) {
	if w&msb|u.carry != 0 {
		u.add(w)
	}
}

func (u *utf8Words) add(w uint64) {
	hi := w & msb
	b6, b5, b4 := w<<1&msb, w<<2&msb, w<<3&msb
	lead := hi & b6
	lead3 := lead & b5
	lead4 := lead3 & b4
	u.bad |= (lead<<8 | lead3<<16 | lead4<<24 | u.carry) ^ (hi &^ b6)
	u.carry = lead>>56 | lead3>>48 | lead4>>40
	if lead != 0 && oddLeads(w, lead, lead3, lead4, b5, b4) != 0 {
		u.unsure = true
	}
}

// block adds the first n bytes of the words of a block: the bytes from
// the n-th on are zeros to u (n is at a byte the string may not hold as
// it is, an ASCII one, so no sequence goes on past it).
func (u *utf8Words) block(raw *[8]uint64, n int) {
	j := 0
	for ; j+8 <= n; j += 8 {
		u.word(raw[j/8])
	}
	if j < n {
		u.word(raw[j/8] & (1<<(8*(n-j)) - 1))
	}
}

// valid reports that the bytes added are valid UTF-8 for sure.
func (u *utf8Words) valid() bool { return u.bad|u.carry == 0 && !u.unsure }

// oddLeads flags the leads whose second byte has a narrower range than
// 80–BF (E0, ED, F0, F4) and the bytes that never lead a sequence (C0, C1,
// F5–FF), from the masks validUTF8 computes.
func oddLeads(w, lead, lead3, lead4, b5, b4 uint64) uint64 {
	// The low nibble of each byte, compared with 0, 1 and D (a nibble
	// plus 0x7f has its high bit set unless it is 0).
	nib := w & (lsb * 0x0f)
	is := func(v uint64) uint64 { return ^((nib ^ lsb*v) + lsb*0x7f) & msb }
	return lead&^b5&(is(0)|is(1)) | // C0, C1
		lead3&^b4&(is(0)|is(0xd)) | // E0, ED
		lead4&(is(0)|(nib+lsb*0x7c)&msb) // F0, F4 to FF
}

// plainRun returns the index of the first byte at or after i that is not
// plain, and adds the bytes it passed over to u: two words at a time, with
// UTF-8 checked, where the next stop is usually near (an escape every few
// words, in real text); a run of ASCII longer than that goes on at the
// vector scan's speed (scanASCII), until a byte that is not plain or that
// begins a multi-byte sequence brings it back to the words.
func plainRun(data []byte, i int, u *utf8Words) int {
	ascii := 0 // two-word steps of ASCII in a row
	for i+16 <= len(data) {
		w, v := binary.LittleEndian.Uint64(data[i:]), binary.LittleEndian.Uint64(data[i+8:])
		if specials(w)|specials(v) != 0 {
			break
		}
		if (w|v)&msb|u.carry != 0 {
			u.add(w)
			u.add(v)
			ascii = 0
		} else if ascii++; ascii == 2 {
			j := i + 16 + scanASCII(data[i+16:])
			if j >= len(data) || data[j] < utf8.RuneSelf {
				return j // the end, or a byte that is not plain
			}
			i, ascii = j, 0 // a multi-byte sequence begins: words again
			continue
		}
		i += 16
	}
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		if m := specials(w); m != 0 {
			// UTF-8 checked as ever: the stop and what follows it are
			// zeros to u, so a sequence cut by an escape is marked bad.
			u.word(w & before(m))
			return i + bits.TrailingZeros64(m)/8
		}
		u.word(w)
	}
	for ; i < len(data) && plain[data[i]]; i++ {
		u.unsure = u.unsure || data[i] >= utf8.RuneSelf
	}
	return i
}

// unquote reads the string at p.pos (its opening quote) and returns its
// value: a slice of the line when the string has no escapes or inPlace
// asks for them to be unescaped there (inLine), else of p.scratch, valid
// until the next call. utf8OK reports that the value is valid UTF-8 for
// sure; when it is false, the caller checks (escapes write valid UTF-8, so
// only the raw bytes can be invalid).
func (p *Parser) unquote(inPlace bool) (b []byte, utf8OK, inLine bool, err *ParseError) {
	data := p.Data
	start := p.Pos + 1
	var u utf8Words
	i := plainRun(data, start, &u)
	if i < len(data) && data[i] == '"' {
		p.Pos = i + 1
		return data[start:i], u.valid(), true, nil
	}
	b, err = p.unescape(start, i, &u, inPlace)
	return b, u.valid(), inPlace, err
}

// unescape decodes the string that starts at data[start], whose bytes up to
// data[i] are plain, and moves p.pos past its closing quote. It writes the
// value into p.scratch, or, in place, over the string's own bytes in the
// line (which the value never outgrows: an escape is never shorter than
// what it stands for). p.scratch is made once as long as the rest of the
// line plus a word, so that plain runs are copied a word at a time, each
// word stored whole before it is known how much of it is plain; in place,
// a whole word is stored only once the value is eight bytes or more behind
// its source (before that, the plain bytes of a word are moved by copy).
func (p *Parser) unescape(start, i int, u *utf8Words, inPlace bool) ([]byte, *ParseError) {
	data := p.Data
	out, o := data, i
	p.Edited = p.Edited || inPlace // from the first escape on, the line is changed
	room := data                   // what the blocks may read: with Slack, past the line
	if p.Slack && !inPlace {
		room = data[:cap(data)]
	}
	if !inPlace {
		need := len(data) - start + blockRoom
		if need > bigString { // a long line: the string's own length, found first
			at := p.Pos
			if err := p.skipString(); err != nil {
				return nil, err
			}
			need, p.Pos = p.Pos-start+blockRoom, at
		}
		// Borrowing, the scratch memory is the line's arena: the values
		// before this one keep theirs, up to len(p.Scratch).
		used := 0
		if p.Borrow {
			used = len(p.Scratch)
		}
		if cap(p.Scratch)-used < need {
			grown := need
			if p.Borrow {
				grown = max(need, 2*cap(p.Scratch), 4096)
			}
			p.Scratch, used = make([]byte, 0, grown), 0
		}
		out = p.Scratch[used:cap(p.Scratch)]
		o = copy(out, data[start:i])
	}
	for {
		// At a byte that is not plain, or the end.
		if i >= len(data) {
			p.Pos = i
			return nil, p.Syntax("the end of the string")
		}
		switch c := data[i]; {
		case c == '"':
			p.Pos = i + 1
			if inPlace {
				return data[start:o], nil
			}
			return out[:o], nil
		case c == '\\':
			for i+1 < len(data) && data[i] == '\\' { // runs of escapes, as JSON in JSON has
				r := simpleEscape[data[i+1]]
				if r == 0 {
					break
				}
				out[o] = r
				o++
				i += 2
			}
			if i < len(data) && data[i] == '\\' {
				// escape reads the whole escape before it writes, and
				// writes at most 4 bytes for the 6 or more it reads.
				b, next, err := p.escape(out[:o], i)
				if err != nil {
					return nil, err
				}
				o, i = len(b), next
			}
			continue
		case c < 0x20:
			p.Pos = i
			return nil, p.fail(ErrSyntax, "control character 0x%02x in a string", c)
		}
		// Blocks of 64 bytes, where the vector code flags every stop of a
		// block at once (see unescapeBlock). The room after o is the
		// string's rest and blockRoom; in place, the value is at least
		// 16 bytes behind its source, so that no store reaches a byte not
		// yet read.
		for blockMasks && (!inPlace || i-o >= 16) && i+80 <= len(room) {
			m, _, high := stringMasks(room[i:])
			if i+64 > len(data) { // the line ends in the block: a stop there
				m = m&(1<<(len(data)-i)-1) | 1<<(len(data)-i)
			}
			// UTF-8 is checked on the raw bytes (an escape is ASCII there,
			// and writes whole sequences, so the value is valid exactly
			// when they are), read before an in-place store reaches them:
			// for a block with a byte of 0x80 or more, or after one.
			var raw [8]uint64
			check := high || u.carry != 0
			if check {
				raw = *(*[8]uint64)(unsafe.Pointer(&room[i]))
			}
			last := min(63, len(data)-1-i) // an escape from here on is cut
			pos, w := unescapeBlock(unsafe.Pointer(&out[o]), unsafe.Pointer(&room[i]), m, last)
			if check {
				u.block(&raw, pos)
			}
			i += pos
			o += w
			if pos < 64 {
				break
			}
		}
		if blockMasks && (!inPlace || i-o >= 16) && i+80 <= len(room) && i < len(data) {
			continue // at a stop a block left
		}
		// A plain run, a word at a time, and the one-byte escapes in it.
		for i+8 <= len(data) {
			w := binary.LittleEndian.Uint64(data[i:])
			m := specials(w)
			n := 8
			if m != 0 {
				n = bits.TrailingZeros64(m) / 8
			}
			// UTF-8 checked as ever: the stop and what follows it are
			// zeros to u, so a sequence cut by an escape is marked bad.
			u.word(w & before(m))
			if !inPlace || i-o >= 8 {
				binary.LittleEndian.PutUint64(out[o:], w)
			} else {
				copy(out[o:o+n], data[i:i+n])
			}
			i += n
			o += n
			if n == 8 {
				continue
			}
			if i+1 >= len(data) || data[i] != '\\' || simpleEscape[data[i+1]] == 0 {
				break // the quote, a control byte, \u, a bad escape or the end
			}
			out[o] = simpleEscape[data[i+1]]
			o++
			i += 2
			if blockMasks && inPlace && i-o == 16 && i+80 <= len(data) {
				break // in place, the value is 16 bytes behind its source now: the blocks
			}
		}
		if i+8 > len(data) {
			for ; i < len(data) && plain[data[i]]; i++ {
				u.unsure = u.unsure || data[i] >= utf8.RuneSelf
				out[o] = data[i]
				o++
			}
		}
	}
}

// StringBytes parses a string at p.pos (a quote) and returns its contents,
// unescaped, with invalid UTF-8 replaced by U+FFFD byte by byte, as
// encoding/json does. The result aliases p.data or p.scratch: it is valid
// until the next call.
func (p *Parser) StringBytes() ([]byte, *ParseError) {
	b, utf8OK, _, err := p.unquote(false)
	if err != nil || utf8OK || validUTF8(b) {
		return b, err
	}
	return fixUTF8(b), nil
}

// bigString is the length from which the scratch buffer of an unescaped
// string is sized by the string's own length, found first, not by the
// rest of the line.
const bigString = 64 << 10

// aliasMin is the length from which a string value shares the memory of a
// line the parser owns. A shorter one is copied, so that keeping an id
// does not keep a long line alive.
const aliasMin = 256

// slabMax is the length below which a string value is copied, with
// Slabs, into a slab shared with the values around it (512 bytes at
// first, then twice the last, up to slabSize), instead of an allocation of
// its own.
const (
	slabMax  = 128
	slabSize = 8 << 10
)

// Str parses a string value into a Go string: its own memory, a slab's
// (see slabMax), a slice of a line the parser owns (see Own), or, with
// Borrow, the line's or Scratch's.
func (p *Parser) Str() (string, *ParseError) {
	b, utf8OK, inLine, err := p.unquote(p.Own || p.Write)
	if err != nil {
		return "", err
	}
	if !utf8OK && !validUTF8(b) {
		b = fixUTF8(b) // new: nothing else refers to it
		return unsafe.String(unsafe.SliceData(b), len(b)), nil
	}
	switch {
	case p.Borrow:
		if !inLine { // unescaped after the line's other values: kept
			p.Scratch = p.Scratch[:len(p.Scratch)+len(b)]
		}
		return unsafe.String(unsafe.SliceData(b), len(b)), nil
	case p.Own && inLine && len(b) >= aliasMin:
		return unsafe.String(unsafe.SliceData(b), len(b)), nil
	case p.Slabs && len(b) < slabMax && len(b) > 0:
		if cap(p.slab)-len(p.slab) < len(b) {
			// From small to slabSize, so that a reader that keeps a
			// few strings of a short stream keeps little else.
			p.slab = make([]byte, 0, min(max(2*cap(p.slab), 512), slabSize))
		}
		n := len(p.slab)
		p.slab = append(p.slab, b...)
		return unsafe.String(&p.slab[n], len(b)), nil
	}
	return string(b), nil
}

// blockRoom is the room unescapeBlock needs after a value's bytes.
const blockRoom = 24

// unescapeBlock unescapes the 64 bytes at src, whose stops m flags (one
// at the line's end, if it is in the block), to dst: the plain bytes
// between stops stored 16 bytes, then a word, at a time, each one-byte
// escape written from its flag. It returns the bytes read (64, or where
// it stopped: a quote, a control byte, \u, a bad escape, an escape at or
// after last, which the block's end or the line's cuts) and written. It
// reads up to 80 bytes at src and stores up to 24 bytes past what it
// writes at dst, never past a byte of src it has not read when dst is 16
// bytes or more behind src.
func unescapeBlock(dst, src unsafe.Pointer, m uint64, last int) (pos, w int) {
	for ; m != 0; m &= ^uint64(0) << pos {
		k := bits.TrailingZeros64(m)
		n := k - pos
		s, d := unsafe.Add(src, pos), unsafe.Add(dst, w)
		*(*[2]uint64)(d) = *(*[2]uint64)(s)
		for j := 16; j < n; j += 8 {
			*(*uint64)(unsafe.Add(d, j)) = *(*uint64)(unsafe.Add(s, j))
		}
		w += n
		if k >= last || *(*byte)(unsafe.Add(src, k)) != '\\' {
			return k, w
		}
		r := simpleEscape[*(*byte)(unsafe.Add(src, k+1))]
		if r == 0 {
			return k, w
		}
		*(*byte)(unsafe.Add(dst, w)) = r
		w++
		pos = k + 2
	}
	s, d := unsafe.Add(src, pos), unsafe.Add(dst, w)
	for j := 0; j < 64-pos; j += 8 {
		*(*uint64)(unsafe.Add(d, j)) = *(*uint64)(unsafe.Add(s, j))
	}
	return 64, w + 64 - pos
}

// simpleEscape maps the byte after a backslash to what it stands for, for
// the one-character escapes.
var simpleEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// validUTF8 is utf8.Valid, eight bytes at a time (see utf8Words). Text
// with a lead the word check leaves open goes to utf8.Valid.
func validUTF8(p []byte) bool {
	var u utf8Words
	i := 0
	for ; i+8 <= len(p); i += 8 {
		if u.word(binary.LittleEndian.Uint64(p[i:])); u.unsure {
			return utf8.Valid(p)
		}
	}
	if u.bad != 0 {
		return false
	}
	// The last bytes, and a sequence the last word left open.
	for j := i - 1; j >= max(i-3, 0) && u.carry != 0; j-- {
		if p[j] >= 0xc0 {
			return utf8.Valid(p[j:])
		}
	}
	return utf8.Valid(p[i:])
}

// fixUTF8 replaces each byte that is not part of a valid UTF-8 sequence
// with U+FFFD.
func fixUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// escape decodes the escape sequence at data[i] (a backslash) into buf.
func (p *Parser) escape(buf []byte, i int) ([]byte, int, *ParseError) {
	data := p.Data
	if i+1 >= len(data) {
		p.Pos = len(data)
		return buf, i, p.Syntax("an escape sequence")
	}
	if r := simpleEscape[data[i+1]]; r != 0 {
		return append(buf, r), i + 2, nil
	}
	switch c := data[i+1]; c {
	case 'u':
		r, ok := hex4(data, i+2)
		if !ok {
			p.Pos = min(i+2, len(data))
			return buf, i, p.bad4(i)
		}
		i += 6
		if utf16IsSurrogate(r) {
			r2, ok2 := rune(-1), false
			if i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' {
				r2, ok2 = hex4(data, i+2)
				if !ok2 {
					p.Pos = min(i+2, len(data))
					return buf, i, p.bad4(i)
				}
			}
			if dec := utf16Decode(r, r2); ok2 && dec != utf8.RuneError {
				return utf8.AppendRune(buf, dec), i + 6, nil
			}
			return utf8.AppendRune(buf, utf8.RuneError), i, nil
		}
		return utf8.AppendRune(buf, r), i, nil
	default:
		p.Pos = i
		return buf, i, p.fail(ErrSyntax, "invalid escape: %s after a backslash", quoteByte(c))
	}
}

func (p *Parser) bad4(i int) *ParseError {
	if i+6 > len(p.Data) {
		p.Pos = len(p.Data)
		return p.Syntax("4 hex digits")
	}
	p.Pos = i
	return p.fail(ErrSyntax, "invalid \\u escape")
}

func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func utf16IsSurrogate(r rune) bool { return 0xd800 <= r && r < 0xe000 }

func utf16Decode(r1, r2 rune) rune {
	if 0xd800 <= r1 && r1 < 0xdc00 && 0xdc00 <= r2 && r2 < 0xe000 {
		return (r1-0xd800)<<10 | (r2 - 0xdc00) + 0x10000
	}
	return utf8.RuneError
}

// skipString consumes a string, checking its escapes: SkipStringValid's
// blocks for a valid one, and a string it refuses read again to say what
// is wrong and where.
func (p *Parser) skipString() *ParseError {
	if end, ok := SkipStringValid(p.Data, p.Pos); ok {
		p.Pos = end
		return nil
	}
	return p.skipStringChecked()
}

// skipStringChecked is skipString stop by stop, in Go.
func (p *Parser) skipStringChecked() *ParseError {
	data := p.Data
	i := p.Pos + 1
	var u utf8Words
	for {
		i = plainRun(data, i, &u)
		if i >= len(data) {
			p.Pos = i
			return p.Syntax("the end of the string")
		}
		switch c := data[i]; {
		case c == '"':
			p.Pos = i + 1
			return nil
		case c == '\\':
			if i+1 < len(data) && simpleEscape[data[i+1]] != 0 {
				i += 2
				break
			}
			var perr *ParseError
			if _, i, perr = p.escape(p.rune[:0], i); perr != nil {
				return perr
			}
		default:
			p.Pos = i
			return p.fail(ErrSyntax, "control character 0x%02x in a string", c)
		}
	}
}
