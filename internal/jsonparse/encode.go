package jsonparse

import (
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"
)

// AppendObject appends v, a struct of c's type, as encoding/json would.
func (c *StructCodec) AppendObject(b []byte, v reflect.Value) ([]byte, error) {
	b = append(b, '{')
	first := true
	for i := range c.Fields {
		f := &c.Fields[i]
		fv := FieldOf(v, f.Index)
		if f.OmitEmpty && isEmpty(f.Kind, fv) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, f.key...)
		var err error
		switch f.Kind {
		case KindString:
			b = appendString(b, fv.String())
		case KindInt:
			b = strconv.AppendInt(b, fv.Int(), 10)
		case KindBool:
			b = strconv.AppendBool(b, fv.Bool())
		case KindTime:
			b, err = appendTime(b, timeOf(fv))
		case KindStruct:
			b, err = f.Sub.AppendObject(b, fv)
		case KindMapInt:
			b = appendMapInt(b, fv.Interface().(map[string]int))
		case KindStrings:
			b = appendStrings(b, fv.Interface().([]string))
		default:
			err = errors.New("the writer encodes the DTOs' kinds of field only")
		}
		if err != nil {
			return b, fmt.Errorf("field %q: %w", f.Name, err)
		}
	}
	return append(b, '}'), nil
}

// timeOf returns the time.Time in v without boxing it when v is addressable.
func timeOf(v reflect.Value) time.Time {
	if v.CanAddr() {
		return *v.Addr().Interface().(*time.Time)
	}
	return v.Interface().(time.Time)
}

func isEmpty(k FieldKind, v reflect.Value) bool {
	switch k {
	case KindString:
		return v.Len() == 0
	case KindInt:
		return v.Int() == 0
	case KindBool:
		return !v.Bool()
	case KindMapInt, KindStrings:
		return v.Len() == 0
	}
	return false
}

// ErrTimeRange is what encoding/json refuses: a time RFC 3339 cannot hold.
var ErrTimeRange = errors.New("time outside RFC 3339: year must be in [0,9999] and zone hour in [0,23]")

func appendTime(b []byte, t time.Time) ([]byte, error) {
	n := len(b)
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	s := b[n+1:]
	if len(s) < 5 || s[4] != '-' {
		return b[:n], ErrTimeRange
	}
	if s[len(s)-1] != 'Z' { // as time.Time.MarshalJSON checks the zone
		c := s[len(s)-len("Z07:00")]
		if ('0' <= c && c <= '9') || (s[len(s)-5]-'0')*10+(s[len(s)-4]-'0') >= 24 {
			return b[:n], ErrTimeRange
		}
	}
	return append(b, '"'), nil
}

func appendMapInt(b []byte, m map[string]int) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(m[k]), 10)
	}
	return append(b, '}')
}

func appendStrings(b []byte, s []string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, x := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, x)
	}
	return append(b, ']')
}

// safeASCII marks the bytes that a JSON string holds as they are: printable
// ASCII other than the quote and the backslash.
var safeASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// safeRun returns the index of the first byte at or after i that is not
// printable ASCII other than the quote and the backslash: a word at a time
// (the parser's trick, with the high bit flagged too) where the next stop
// is near, and a run longer than four words at the vector scan's speed
// (scanASCII), over the string's bytes read in place.
func safeRun(s string, i int) int {
	for k := 0; i+8 <= len(s); i, k = i+8, k+1 {
		if k == 4 {
			return i + scanASCII(unsafe.Slice(unsafe.StringData(s[i:]), len(s)-i))
		}
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if m := specials(w) | w&msb; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s) && s[i] < utf8.RuneSelf && safeASCII[s[i]]; i++ {
	}
	return i
}

// textRun returns the end of the run of s from i of valid multi-byte
// sequences (but U+2028 and U+2029) and the printable ASCII between them:
// what a JSON string holds as it is, read a sequence at a time inline
// (a word at a time where eight ASCII bytes are safe), as prose is. It
// stops at an ASCII byte to escape, and at the lead of a sequence that is
// invalid, cut short, or U+2028 or U+2029, for appendString to take.
func textRun(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c < utf8.RuneSelf:
			if i+8 <= len(s) {
				w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
					uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
				if specials(w)|w&msb == 0 {
					i += 8
					continue
				}
			}
			if !safeASCII[c] {
				return i
			}
			i++
		case c < 0xc2: // a continuation, or C0 and C1, which never lead
			return i
		case c < 0xe0:
			if i+1 >= len(s) || s[i+1]&0xc0 != 0x80 {
				return i
			}
			i += 2
		case c < 0xf0:
			if i+2 >= len(s) {
				return i
			}
			c1, c2 := s[i+1], s[i+2]
			lo, hi := byte(0x80), byte(0xbf)
			switch c {
			case 0xe0:
				lo = 0xa0 // no overlong forms
			case 0xed:
				hi = 0x9f // no surrogates
			case 0xe2:
				if c1 == 0x80 && c2&^1 == 0xa8 { // U+2028, U+2029: escaped
					return i
				}
			}
			if c1 < lo || c1 > hi || c2&0xc0 != 0x80 {
				return i
			}
			i += 3
		case c < 0xf5:
			if i+3 >= len(s) {
				return i
			}
			c1 := s[i+1]
			lo, hi := byte(0x80), byte(0xbf)
			switch c {
			case 0xf0:
				lo = 0x90 // no overlong forms
			case 0xf4:
				hi = 0x8f // nothing above U+10FFFF
			}
			if c1 < lo || c1 > hi || s[i+2]&0xc0 != 0x80 || s[i+3]&0xc0 != 0x80 {
				return i
			}
			i += 4
		default: // F5–FF never lead
			return i
		}
	}
	return i
}

// appendString appends s as a JSON string exactly as encoding/json does with
// HTML escaping off: invalid UTF-8 becomes \ufffd, U+2028 and U+2029 are
// escaped, and so are the C0 controls. Where the vector code is, ASCII is
// written 64 bytes a step (escapeBlock), a plain run whole; a block with
// other bytes, and the rest, a run at a time (appendText).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		for blockMasks && i+80 <= len(s) {
			src := unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i)
			m, _, high := stringMasks(unsafe.Slice((*byte)(src), 64))
			if high {
				break
			}
			if m == 0 { // plain ASCII: the run to its end, at the scan's speed, in one copy
				j := safeRun(s, i+64)
				b, i = append(b, s[i:j]...), j
				continue
			}
			b = slices.Grow(b, escapeRoom)
			w := escapeBlock(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), len(b)), src, m)
			b = b[:len(b)+w]
			i += 64
		}
		end := len(s)
		if blockMasks && i+80 <= len(s) {
			end = i + 64 // a block with non-ASCII bytes, then blocks again
		}
		b, i = appendText(b, s, i, end)
	}
	return append(b, '"')
}

// escapeRoom is the room escapeBlock needs: a block's bytes, each written
// as six, and the stores past them.
const escapeRoom = 64*6 + 24

// escapes holds, for each ASCII byte JSON escapes, its escape (little
// endian) and, in the top byte, its length.
var escapes = func() (t [128]uint64) {
	for c := range 0x20 {
		t[c] = uint64('\\') | uint64('u')<<8 | uint64('0')<<16 | uint64('0')<<24 |
			uint64(hexDigits[c>>4])<<32 | uint64(hexDigits[c&0xf])<<40 | 6<<56
	}
	for c, e := range map[byte]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'} {
		t[c] = uint64('\\') | uint64(e)<<8 | 2<<56
	}
	return t
}()

// escapeBlock writes the 64 ASCII bytes at src, whose bytes to escape m
// flags, to dst: the runs between them 16 bytes, then a word, at a time,
// each escape in one store. It returns the bytes written. It reads up to
// 80 bytes at src, and stores up to 24 bytes past what it writes.
func escapeBlock(dst, src unsafe.Pointer, m uint64) (w int) {
	pos := 0
	for ; m != 0; m &= m - 1 {
		k := bits.TrailingZeros64(m)
		n := k - pos
		s, d := unsafe.Add(src, pos), unsafe.Add(dst, w)
		*(*[2]uint64)(d) = *(*[2]uint64)(s)
		for j := 16; j < n; j += 8 {
			*(*uint64)(unsafe.Add(d, j)) = *(*uint64)(unsafe.Add(s, j))
		}
		w += n
		e := escapes[*(*byte)(unsafe.Add(src, k))]
		*(*uint64)(unsafe.Add(dst, w)) = e
		w += int(e >> 56)
		pos = k + 1
	}
	s, d := unsafe.Add(src, pos), unsafe.Add(dst, w)
	for j := 0; j < 64-pos; j += 8 {
		*(*uint64)(unsafe.Add(d, j)) = *(*uint64)(unsafe.Add(s, j))
	}
	return w + 64 - pos
}

// appendText appends s[i:] as appendString does, run by run, until it
// reaches end or passes it (a run of text may go on past it), and
// returns where it stopped.
func appendText(b []byte, s string, i, end int) ([]byte, int) {
	start := i
	for i < end {
		i = safeRun(s, i)
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if safeASCII[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		if j := textRun(s, i); j > i { // copied with the run it is part of
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	i = min(i, len(s))
	return append(b, s[start:i]...), i
}
