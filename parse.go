package stream

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"
	"unsafe"

	"github.com/uagentkit/stream/internal/jsonparse"
)

// The parser reads one JSON object per line straight into a DTO struct,
// driven by the field table (fields.go), in a single pass. Values decode as
// encoding/json decodes them.

// maxDepth bounds the nesting of skipped values, as encoding/json does.
const maxDepth = 10000

// parseError is a fault at a byte of the line, in a field.
type parseError struct {
	pos   int
	field string
	err   error
}

// parser reads one JSON text from data. scratch is reused between lines.
type parser struct {
	data    []byte
	pos     int
	scratch []byte
	// own tells that data is the parser's to keep and write: string values
	// are unescaped in place, and the long ones share it (see aliasMin);
	// edited records that a value was unescaped.
	own, edited bool
	// lean leaves the strings the fold does not read (field.unread) empty,
	// checked but not built: for Summarize and Validate, whose answers are
	// the fold's.
	lean bool
	// present has, for each codec, a bit per field the line has: what
	// Validate checks required fields with, from the same parse.
	present [maxCodecs]uint64
}

func (p *parser) fail(cause error, format string, args ...any) *parseError {
	return &parseError{pos: p.pos, err: fmt.Errorf("%w: "+format, append([]any{cause}, args...)...)}
}

func (p *parser) syntax(what string) *parseError {
	if p.pos >= len(p.data) {
		return &parseError{pos: p.pos, err: fmt.Errorf("%w: unexpected end of line, want %s", ErrSyntax, what)}
	}
	return p.fail(ErrSyntax, "unexpected %s, want %s", quoteByte(p.data[p.pos]), what)
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *parser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\r', '\n':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (p *parser) peek() byte {
	p.ws()
	if p.pos < len(p.data) {
		return p.data[p.pos]
	}
	return 0
}

func (p *parser) expect(c byte, what string) *parseError {
	if p.peek() != c {
		return p.syntax(what)
	}
	p.pos++
	return nil
}

// more reads what follows a member of an object or an element of an
// array: a comma (true: another comes) or the closer (false).
func (p *parser) more(closer byte) (bool, *parseError) {
	switch p.peek() {
	case ',':
		p.pos++
		return true, nil
	case closer:
		p.pos++
		return false, nil
	}
	return false, p.syntax("',' or '" + string(closer) + "'")
}

// members reads the members of the object at p.pos (its '{'): for each,
// once its colon is read, member gets its key (as stringBytes returns it,
// valid until the value is read; nil with skipKeys, for an object whose
// keys nobody reads) and where the key's string began and ended, and
// reads the value. The first field fault member returns (a
// wrong type, a bad time: see keepFault) is kept and the object read on
// to its end; it is returned then. Any other error ends the object.
func (p *parser) members(skipKeys bool, member func(key []byte, keyStart, keyEnd int) *parseError) *parseError {
	p.pos++ // '{'
	if p.peek() == '}' {
		p.pos++
		return nil
	}
	var fault *parseError
	for {
		if p.peek() != '"' {
			return p.syntax("a string key")
		}
		keyStart := p.pos
		var key []byte
		var err *parseError
		if skipKeys {
			err = p.skipString()
		} else {
			key, err = p.stringBytes()
		}
		if err != nil {
			return err
		}
		keyEnd := p.pos
		if err := p.expect(':', "':'"); err != nil {
			return err
		}
		if err := keepFault(&fault, member(key, keyStart, keyEnd)); err != nil {
			return err
		}
		if more, err := p.more('}'); err != nil {
			return err
		} else if !more {
			return fault
		}
	}
}

// keepFault keeps a field fault (a value of the wrong type, a bad time) in
// *fault, the first one, so that the rest of the object is still read, and
// returns any other error.
func keepFault(fault **parseError, err *parseError) *parseError {
	if err == nil || !errors.Is(err.err, ErrFieldType) && !errors.Is(err.err, ErrBadTime) {
		return err
	}
	if *fault == nil {
		*fault = err
	}
	return nil
}

// literal consumes one of true, false, null.
func (p *parser) literal(lit string) *parseError {
	if len(p.data)-p.pos < len(lit) || string(p.data[p.pos:p.pos+len(lit)]) != lit {
		if n := len(p.data) - p.pos; n < len(lit) && string(p.data[p.pos:]) == lit[:n] {
			p.pos = len(p.data)
		}
		return p.syntax("a value")
	}
	p.pos += len(lit)
	return nil
}

// number scans a JSON number and reports whether it is an integer.
func (p *parser) number() (span []byte, integer bool, err *parseError) {
	data, start := p.data, p.pos
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
		p.pos = i
		return nil, false, p.syntax("a digit")
	}
	integer = true
	if i < len(data) && data[i] == '.' {
		i++
		integer = false
		if !digits() {
			p.pos = i
			return nil, false, p.syntax("a digit")
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		integer = false
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !digits() {
			p.pos = i
			return nil, false, p.syntax("a digit")
		}
	}
	p.pos = i
	return data[start:i], integer, nil
}

// parseInt converts an integer span to a value of the given bit size.
func parseInt(span []byte, bits int) (int64, bool) {
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

// skip consumes one value of any kind, checking its syntax. depth is the
// nesting depth of the object or array the value is in (the line's object is
// 1): an object or array deeper than maxDepth is an error, as in
// encoding/json.
func (p *parser) skip(depth int) *parseError {
	if p.skipValid(depth) {
		return nil
	}
	return p.skipChecked(depth)
}

// skipChecked is skip, value by value, saying what is wrong and where:
// what skip does when skipValid did not skip. It does not try skipValid
// again below, so that a bad value is read twice at most, however deep.
func (p *parser) skipChecked(depth int) *parseError {
	if c := p.peek(); (c == '{' || c == '[') && depth+1 > maxDepth {
		return p.fail(ErrSyntax, "nesting deeper than %d", maxDepth)
	}
	switch p.peek() {
	case '"':
		err := p.skipString()
		return err
	case '{':
		return p.members(true, func([]byte, int, int) *parseError { return p.skipChecked(depth + 1) })
	case '[':
		p.pos++
		if p.peek() == ']' {
			p.pos++
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
		_, _, err := p.number()
		return err
	}
	return p.syntax("a value")
}

// jsonKind names the JSON type of the value at p.pos, for error messages.
func (p *parser) jsonKind() string {
	switch p.peek() {
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

// value decodes the value at p.pos into the field f at fp, which points to a
// value of the field's Go type (the field table checked it). A value of the
// wrong type is skipped and reported as an ErrFieldType fault after it has
// been checked for syntax, so that the caller can go on.
func (p *parser) value(f *field, fp unsafe.Pointer, depth int) *parseError {
	start := p.pos
	c := p.peek()
	if f.kind == kindRaw { // any value, null included, as its text
		start = p.pos
		if err := p.skip(depth); err != nil {
			return err
		}
		*(*jsonparse.Raw)(fp) = jsonparse.Raw(p.data[start:p.pos])
		return nil
	}
	if c == 'n' {
		if err := p.literal("null"); err != nil {
			return err
		}
		switch f.kind {
		case kindMapInt:
			*(*map[string]int)(fp) = nil
		case kindStrings:
			*(*[]string)(fp) = nil
		case kindPtr:
			*(*unsafe.Pointer)(fp) = nil
		}
		return nil
	}
	var fault *parseError
	switch f.kind {
	case kindString:
		if c != '"' {
			break
		}
		if f.unread && p.lean {
			if end, ok := skipStringValid(p.data, p.pos); ok {
				p.pos = end
				return nil
			}
		}
		s, err := p.str()
		if err != nil {
			return err
		}
		*(*string)(fp) = s
		return nil
	case kindInt:
		if c != '-' && (c < '0' || c > '9') {
			break
		}
		span, integer, err := p.number()
		if err != nil {
			return err
		}
		n, ok := int64(0), false
		if integer {
			n, ok = parseInt(span, f.bits)
		}
		if !ok {
			return &parseError{pos: start, field: f.name,
				err: fmt.Errorf("%w: %s is not a %d-bit integer", ErrFieldType, span, f.bits)}
		}
		if f.bits == 32 {
			*(*int32)(fp) = int32(n)
		} else {
			*(*int64)(fp) = n
		}
		return nil
	case kindBool:
		switch c {
		case 't':
			*(*bool)(fp) = true
			return p.literal("true")
		case 'f':
			*(*bool)(fp) = false
			return p.literal("false")
		}
	case kindTime:
		if c != '"' {
			break
		}
		b, err := p.stringBytes()
		if err != nil {
			return err
		}
		if f.strict && bytes.IndexByte(p.data[start:p.pos], '\\') >= 0 {
			return p.fail(ErrSyntax, "a time with an escape")
		}
		t, ok := parseTime(b)
		if !ok {
			return &parseError{pos: start, field: f.name,
				err: fmt.Errorf("%w: %q is not RFC 3339", ErrBadTime, b)}
		}
		*(*time.Time)(fp) = t
		return nil
	case kindStruct:
		if c != '{' {
			break
		}
		return p.object(f.sub, fp, depth+1)
	case kindMapInt:
		if c != '{' {
			break
		}
		return p.mapInt((*map[string]int)(fp), depth+1)
	case kindStrings:
		if c != '[' {
			break
		}
		return p.strings((*[]string)(fp), depth+1)
	case kindStructs:
		if c != '[' {
			break
		}
		return p.structs(f, reflect.NewAt(reflect.SliceOf(f.elem), fp).Elem(), depth+1)
	case kindPtr:
		if c != '{' {
			break
		}
		v := reflect.New(f.elem)
		*(*unsafe.Pointer)(fp) = v.UnsafePointer()
		return p.object(f.sub, v.UnsafePointer(), depth+1)
	}
	fault = &parseError{pos: start, field: f.name,
		err: fmt.Errorf("%w: want %s, got %s", ErrFieldType, kindNames[f.kind], p.jsonKind())}
	if err := p.skip(depth); err != nil {
		return err
	}
	return fault
}

// object decodes an object into the struct of c's type at v. Unknown keys
// are skipped; a field fault is kept and returned after the object was read.
func (p *parser) object(c *structCodec, v unsafe.Pointer, depth int) *parseError {
	if depth > maxDepth {
		return p.fail(ErrSyntax, "nesting deeper than %d", maxDepth)
	}
	var seen uint64 // the fields read, for a strict codec
	return p.members(false, func(key []byte, _, _ int) *parseError {
		i, known := c.find(key)
		if !known {
			if c.strict && c.folds(key) {
				return p.fail(ErrSyntax, "the key %q matches a field ignoring case", key)
			}
			return p.skip(depth)
		}
		f := &c.fields[i]
		if c.strict {
			if seen&(1<<i) != 0 {
				return p.fail(ErrSyntax, "the key %q twice", key)
			}
			seen |= 1 << i
		}
		if c.id >= 0 {
			p.present[c.id] |= 1 << i
		}
		if err := p.value(f, unsafe.Add(v, f.offset), depth); err != nil {
			return withField(err, f.name)
		}
		return nil
	})
}

// withField prefixes the fault's field path with name.
func withField(e *parseError, name string) *parseError {
	if e.field == "" || e.field == name {
		e.field = name
	} else {
		e.field = name + "." + e.field
	}
	return e
}

// mapInt decodes an object of integers into the map at mp; a value that is
// not an integer is a fault, kept, and its key left out.
func (p *parser) mapInt(mp *map[string]int, depth int) *parseError {
	m := *mp
	if m == nil {
		m = map[string]int{}
		*mp = m
	}
	return p.members(false, func(key []byte, _, _ int) *parseError {
		k := string(key)
		var n int
		if err := p.value(&field{name: k, kind: kindInt, bits: strconv.IntSize}, unsafe.Pointer(&n), depth); err != nil {
			return err
		}
		m[k] = n
		return nil
	})
}

// structs decodes an array of objects into the slice v, as encoding/json
// does: from length zero, a null element a zero one; an element that is not
// an object is a fault, kept, and left zero.
func (p *parser) structs(f *field, v reflect.Value, depth int) *parseError {
	p.pos++ // '['
	v.SetLen(0)
	if p.peek() == ']' {
		p.pos++
		if v.IsNil() {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		}
		return nil
	}
	var fault *parseError
	zero := reflect.Zero(f.elem)
	for {
		v.Set(reflect.Append(v, zero))
		el := v.Index(v.Len() - 1).Addr().UnsafePointer()
		switch c := p.peek(); c {
		case '{':
			if err := keepFault(&fault, p.object(f.sub, el, depth+1)); err != nil {
				return err
			}
		case 'n':
			if err := p.literal("null"); err != nil {
				return err
			}
		default:
			start, kind := p.pos, p.jsonKind()
			if err := p.skip(depth); err != nil {
				return err
			}
			fault = cmp.Or(fault, &parseError{pos: start, err: fmt.Errorf("%w: want object, got %s", ErrFieldType, kind)})
		}
		if more, err := p.more(']'); err != nil {
			return err
		} else if !more {
			return fault
		}
	}
}

func (p *parser) strings(sp *[]string, depth int) *parseError {
	p.pos++ // '['
	out := []string{}
	var fault *parseError
	if p.peek() == ']' {
		p.pos++
		*sp = out
		return nil
	}
	for {
		switch p.peek() {
		case '"':
			s, err := p.str()
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
			start := p.pos
			kind := p.jsonKind()
			if err := p.skip(depth); err != nil {
				return err
			}
			fault = cmp.Or(fault, &parseError{pos: start,
				err: fmt.Errorf("%w: want string, got %s", ErrFieldType, kind)})
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
