package jsonparse

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"
	"unsafe"
)

// The parser reads one JSON object per line straight into a DTO struct,
// driven by the field table (fields.go), in a single pass. Values decode as
// encoding/json decodes them.

// MaxDepth bounds the nesting of skipped values, as encoding/json does.
const MaxDepth = 10000

// ParseError is a fault at a byte of the line, in a field.
type ParseError struct {
	Pos   int
	Field string
	Err   error
}

// Parser reads one JSON text from data. scratch is reused between lines.
type Parser struct {
	Data    []byte
	Pos     int
	Scratch []byte
	// Own tells that data is the parser's to keep and write: string values
	// are unescaped in place, and the long ones share it (see aliasMin);
	// Edited records that a value was unescaped.
	Own, Edited bool
	// Write tells that data is the parser's to write, not to keep: string
	// values are unescaped in place, and copied.
	Write bool
	// Lean leaves the strings the fold does not read (field.unread) empty,
	// checked but not built: for Summarize and Validate, whose answers are
	// the fold's.
	Lean bool
	// SkipContent leaves the strings people and models wrote
	// (Field.Content) empty, checked but not built: for an export without
	// content.
	SkipContent bool
	// Borrow makes string values the line's memory or the parser's, valid
	// until the next line: a value without escapes is a slice of the line,
	// one with escapes is unescaped after the line's other values in
	// Scratch, which the caller empties (Scratch[:0]) before each line.
	Borrow bool
	// Slack tells that the memory after data, up to its capacity, may be
	// read (never written, never taken as the line's): the unescape's
	// 64-byte blocks then reach the end of the line.
	Slack bool
	// Slabs copies short string values, many to an allocation, into
	// slab (see slabMax), when they are not borrowed: for a reader whose
	// values are kept together, as a stream's DTOs are, and not one
	// that keeps a few strings of much it reads.
	Slabs bool
	slab  []byte
	rune  [4]byte // an escape decoded only to be checked
	// Present has, for each codec, a bit per field the line has: what
	// Validate checks required fields with, from the same parse.
	Present [maxCodecs]uint64
}

func (p *Parser) fail(cause error, format string, args ...any) *ParseError {
	return &ParseError{Pos: p.Pos, Err: fmt.Errorf("%w: "+format, append([]any{cause}, args...)...)}
}

func (p *Parser) Syntax(what string) *ParseError {
	if p.Pos >= len(p.Data) {
		return &ParseError{Pos: p.Pos, Err: fmt.Errorf("%w: unexpected end of line, want %s", ErrSyntax, what)}
	}
	return p.fail(ErrSyntax, "unexpected %s, want %s", quoteByte(p.Data[p.Pos]), what)
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *Parser) ws() {
	for p.Pos < len(p.Data) {
		switch p.Data[p.Pos] {
		case ' ', '\t', '\r', '\n':
			p.Pos++
		default:
			return
		}
	}
}

// Peek returns the next non-space byte, or 0 at the end.
func (p *Parser) Peek() byte {
	p.ws()
	if p.Pos < len(p.Data) {
		return p.Data[p.Pos]
	}
	return 0
}

func (p *Parser) Expect(c byte, what string) *ParseError {
	if p.Peek() != c {
		return p.Syntax(what)
	}
	p.Pos++
	return nil
}

// more reads what follows a member of an object or an element of an
// array: a comma (true: another comes) or the closer (false).
func (p *Parser) more(closer byte) (bool, *ParseError) {
	switch p.Peek() {
	case ',':
		p.Pos++
		return true, nil
	case closer:
		p.Pos++
		return false, nil
	}
	return false, p.Syntax("',' or '" + string(closer) + "'")
}

// Members reads the Members of the object at p.pos (its '{'): for each,
// once its colon is read, member gets its key (as stringBytes returns it,
// valid until the value is read; nil with skipKeys, for an object whose
// keys nobody reads) and where the key's string began and ended, and
// reads the value. The first field fault member returns (a
// wrong type, a bad time: see keepFault) is kept and the object read on
// to its end; it is returned then. Any other error ends the object.
func (p *Parser) Members(skipKeys bool, member func(key []byte, keyStart, keyEnd int) *ParseError) *ParseError {
	p.Pos++ // '{'
	if p.Peek() == '}' {
		p.Pos++
		return nil
	}
	var fault *ParseError
	for {
		if p.Peek() != '"' {
			return p.Syntax("a string key")
		}
		keyStart := p.Pos
		var key []byte
		var err *ParseError
		if skipKeys {
			err = p.skipString()
		} else {
			key, err = p.StringBytes()
		}
		if err != nil {
			return err
		}
		keyEnd := p.Pos
		if err := p.Expect(':', "':'"); err != nil {
			return err
		}
		if err := KeepFault(&fault, member(key, keyStart, keyEnd)); err != nil {
			return err
		}
		if more, err := p.more('}'); err != nil {
			return err
		} else if !more {
			return fault
		}
	}
}

// KeepFault keeps a field fault (a value of the wrong type, a bad time) in
// *fault, the first one, so that the rest of the object is still read, and
// returns any other error.
func KeepFault(fault **ParseError, err *ParseError) *ParseError {
	if err == nil || !errors.Is(err.Err, ErrFieldType) && !errors.Is(err.Err, ErrBadTime) {
		return err
	}
	if *fault == nil {
		*fault = err
	}
	return nil
}

// literal consumes one of true, false, null.
func (p *Parser) literal(lit string) *ParseError {
	if len(p.Data)-p.Pos < len(lit) || string(p.Data[p.Pos:p.Pos+len(lit)]) != lit {
		if n := len(p.Data) - p.Pos; n < len(lit) && string(p.Data[p.Pos:]) == lit[:n] {
			p.Pos = len(p.Data)
		}
		return p.Syntax("a value")
	}
	p.Pos += len(lit)
	return nil
}

// Number scans a JSON Number and reports whether it is an integer.
func (p *Parser) Number() (span []byte, integer bool, err *ParseError) {
	data, start := p.Data, p.Pos
	i := start
	if i < len(data) && data[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(data) && '0' <= data[i] && data[i] <= '9' {
			i++
		}
		return i > j
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case !digits():
		p.Pos = i
		return nil, false, p.Syntax("a digit")
	}
	integer = true
	if i < len(data) && data[i] == '.' {
		i++
		integer = false
		if !digits() {
			p.Pos = i
			return nil, false, p.Syntax("a digit")
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		integer = false
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !digits() {
			p.Pos = i
			return nil, false, p.Syntax("a digit")
		}
	}
	p.Pos = i
	return data[start:i], integer, nil
}

// ParseInt converts an integer span to a value of the given bit size.
func ParseInt(span []byte, bits int) (int64, bool) {
	neg := span[0] == '-'
	if neg {
		span = span[1:]
	}
	var u uint64
	for _, c := range span {
		d := uint64(c - '0')
		if u > (1<<63)/10 || u*10 > 1<<63-d {
			return 0, false
		}
		u = u*10 + d
	}
	limit := uint64(1) << (bits - 1)
	if neg {
		return -int64(u), u <= limit
	}
	return int64(u), u < limit
}

// Skip consumes one value of any kind, checking its syntax. depth is the
// nesting depth of the object or array the value is in (the line's object is
// 1): an object or array deeper than maxDepth is an error, as in
// encoding/json.
func (p *Parser) Skip(depth int) *ParseError {
	if p.skipValid(depth) {
		return nil
	}
	return p.skipChecked(depth)
}

// skipChecked is skip, value by value, saying what is wrong and where:
// what skip does when skipValid did not skip. It does not try skipValid
// again below, so that a bad value is read twice at most, however deep.
func (p *Parser) skipChecked(depth int) *ParseError {
	if c := p.Peek(); (c == '{' || c == '[') && depth+1 > MaxDepth {
		return p.fail(ErrSyntax, "nesting deeper than %d", MaxDepth)
	}
	switch p.Peek() {
	case '"':
		err := p.skipString()
		return err
	case '{':
		return p.Members(true, func([]byte, int, int) *ParseError { return p.skipChecked(depth + 1) })
	case '[':
		p.Pos++
		if p.Peek() == ']' {
			p.Pos++
			return nil
		}
		for {
			if err := p.skipChecked(depth + 1); err != nil {
				return err
			}
			if more, err := p.more(']'); err != nil {
				return err
			} else if !more {
				return nil
			}
		}
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		_, _, err := p.Number()
		return err
	}
	return p.Syntax("a value")
}

// JSONKind names the JSON type of the value at p.pos, for error messages.
func (p *Parser) JSONKind() string {
	switch p.Peek() {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// Value decodes the Value at p.pos into the field f at fp, which points to a
// Value of the field's Go type (the field table checked it). A Value of the
// wrong type is skipped and reported as an ErrFieldType fault after it has
// been checked for syntax, so that the caller can go on.
func (p *Parser) Value(f *Field, fp unsafe.Pointer, depth int) *ParseError {
	start := p.Pos
	c := p.Peek()
	if f.Kind == KindRaw { // any value, null included, as its text
		start = p.Pos
		if err := p.Skip(depth); err != nil {
			return err
		}
		*(*Raw)(fp) = Raw(p.Data[start:p.Pos])
		return nil
	}
	if c == 'n' {
		if err := p.literal("null"); err != nil {
			return err
		}
		switch f.Kind {
		case KindMapInt:
			*(*map[string]int)(fp) = nil
		case KindStrings:
			*(*[]string)(fp) = nil
		case KindPtr:
			*(*unsafe.Pointer)(fp) = nil
		}
		return nil
	}
	var fault *ParseError
	switch f.Kind {
	case KindString:
		if c != '"' {
			break
		}
		if f.Unread && p.Lean || f.Content && p.SkipContent {
			if end, ok := SkipStringValid(p.Data, p.Pos); ok {
				p.Pos = end
				return nil
			}
		}
		s, err := p.Str()
		if err != nil {
			return err
		}
		*(*string)(fp) = s
		return nil
	case KindInt:
		if c != '-' && (c < '0' || c > '9') {
			break
		}
		span, integer, err := p.Number()
		if err != nil {
			return err
		}
		n, ok := int64(0), false
		if integer {
			n, ok = ParseInt(span, f.bits)
		}
		if !ok {
			return &ParseError{Pos: start, Field: f.Name,
				Err: fmt.Errorf("%w: %s is not a %d-bit integer", ErrFieldType, span, f.bits)}
		}
		if f.bits == 32 {
			*(*int32)(fp) = int32(n)
		} else {
			*(*int64)(fp) = n
		}
		return nil
	case KindBool:
		switch c {
		case 't':
			*(*bool)(fp) = true
			return p.literal("true")
		case 'f':
			*(*bool)(fp) = false
			return p.literal("false")
		}
	case KindTime:
		if c != '"' {
			break
		}
		b, err := p.StringBytes()
		if err != nil {
			return err
		}
		if f.strict && bytes.IndexByte(p.Data[start:p.Pos], '\\') >= 0 {
			return p.fail(ErrSyntax, "a time with an escape")
		}
		t, ok := ParseTime(b)
		if !ok {
			return &ParseError{Pos: start, Field: f.Name,
				Err: fmt.Errorf("%w: %q is not RFC 3339", ErrBadTime, b)}
		}
		*(*time.Time)(fp) = t
		return nil
	case KindStruct:
		if c != '{' {
			break
		}
		return p.Object(f.Sub, fp, depth+1)
	case KindMapInt:
		if c != '{' {
			break
		}
		return p.mapInt((*map[string]int)(fp), depth+1)
	case KindStrings:
		if c != '[' {
			break
		}
		return p.strings((*[]string)(fp), depth+1)
	case KindStructs:
		if c != '[' {
			break
		}
		return p.structs(f, reflect.NewAt(reflect.SliceOf(f.elem), fp).Elem(), depth+1)
	case KindPtr:
		if c != '{' {
			break
		}
		v := reflect.New(f.elem)
		*(*unsafe.Pointer)(fp) = v.UnsafePointer()
		return p.Object(f.Sub, v.UnsafePointer(), depth+1)
	}
	fault = &ParseError{Pos: start, Field: f.Name,
		Err: fmt.Errorf("%w: want %s, got %s", ErrFieldType, KindNames[f.Kind], p.JSONKind())}
	if err := p.Skip(depth); err != nil {
		return err
	}
	return fault
}

// Object decodes an Object into the struct of c's type at v. Unknown keys
// are skipped; a field fault is kept and returned after the Object was read.
func (p *Parser) Object(c *StructCodec, v unsafe.Pointer, depth int) *ParseError {
	if depth > MaxDepth {
		return p.fail(ErrSyntax, "nesting deeper than %d", MaxDepth)
	}
	var seen uint64 // the fields read, for a strict codec
	return p.Members(false, func(key []byte, _, _ int) *ParseError {
		i, known := c.Find(key)
		if !known {
			if c.strict && c.folds(key) {
				return p.fail(ErrSyntax, "the key %q matches a field ignoring case", key)
			}
			return p.Skip(depth)
		}
		f := &c.Fields[i]
		if c.strict {
			if seen&(1<<i) != 0 {
				return p.fail(ErrSyntax, "the key %q twice", key)
			}
			seen |= 1 << i
		}
		if c.ID >= 0 {
			p.Present[c.ID] |= 1 << i
		}
		if err := p.Value(f, unsafe.Add(v, f.Offset), depth); err != nil {
			return WithField(err, f.Name)
		}
		return nil
	})
}

// WithField prefixes the fault's field path with name.
func WithField(e *ParseError, name string) *ParseError {
	if e.Field == "" || e.Field == name {
		e.Field = name
	} else {
		e.Field = name + "." + e.Field
	}
	return e
}

// mapInt decodes an object of integers into the map at mp; a value that is
// not an integer is a fault, kept, and its key left out.
func (p *Parser) mapInt(mp *map[string]int, depth int) *ParseError {
	m := *mp
	if m == nil {
		m = map[string]int{}
		*mp = m
	}
	return p.Members(false, func(key []byte, _, _ int) *ParseError {
		k := string(key)
		var n int
		if err := p.Value(&Field{Name: k, Kind: KindInt, bits: strconv.IntSize}, unsafe.Pointer(&n), depth); err != nil {
			return err
		}
		m[k] = n
		return nil
	})
}

// structs decodes an array of objects into the slice v, as encoding/json
// does: from length zero, a null element a zero one; an element that is not
// an object is a fault, kept, and left zero.
func (p *Parser) structs(f *Field, v reflect.Value, depth int) *ParseError {
	p.Pos++ // '['
	v.SetLen(0)
	if p.Peek() == ']' {
		p.Pos++
		if v.IsNil() {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		}
		return nil
	}
	var fault *ParseError
	zero := reflect.Zero(f.elem)
	for {
		v.Set(reflect.Append(v, zero))
		el := v.Index(v.Len() - 1).Addr().UnsafePointer()
		switch c := p.Peek(); c {
		case '{':
			if err := KeepFault(&fault, p.Object(f.Sub, el, depth+1)); err != nil {
				return err
			}
		case 'n':
			if err := p.literal("null"); err != nil {
				return err
			}
		default:
			start, kind := p.Pos, p.JSONKind()
			if err := p.Skip(depth); err != nil {
				return err
			}
			fault = cmp.Or(fault, &ParseError{Pos: start, Err: fmt.Errorf("%w: want object, got %s", ErrFieldType, kind)})
		}
		if more, err := p.more(']'); err != nil {
			return err
		} else if !more {
			return fault
		}
	}
}

func (p *Parser) strings(sp *[]string, depth int) *ParseError {
	p.Pos++ // '['
	out := []string{}
	var fault *ParseError
	if p.Peek() == ']' {
		p.Pos++
		*sp = out
		return nil
	}
	for {
		switch p.Peek() {
		case '"':
			s, err := p.Str()
			if err != nil {
				return err
			}
			out = append(out, s)
		case 'n':
			if err := p.literal("null"); err != nil {
				return err
			}
			out = append(out, "")
		default:
			start := p.Pos
			kind := p.JSONKind()
			if err := p.Skip(depth); err != nil {
				return err
			}
			fault = cmp.Or(fault, &ParseError{Pos: start,
				Err: fmt.Errorf("%w: want string, got %s", ErrFieldType, kind)})
		}
		if more, err := p.more(']'); err != nil {
			return err
		} else if !more {
			if fault == nil {
				*sp = out
			}
			return fault
		}
	}
}
