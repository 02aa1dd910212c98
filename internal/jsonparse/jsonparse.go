// Package jsonparse is the module's one JSON parser: a single pass over a
// line, straight into a struct, driven by the struct's field table (a
// Codec, built once by reflection), and the writer of the same field
// tables (Codec.AppendObject). The stream package reads and writes the
// contract's lines with it; statedir reads the runner's records and
// uahstream the harness's session events through the same machinery,
// instead of a second parser. It is internal: its names serve those
// packages, and are not an API.
//
// Values decode as encoding/json decodes them (see Parse for what a field
// of each kind takes); strings are scanned a word at a time, and, where
// the machine has them, 16 or 32 bytes an instruction (scan_*.s).
package jsonparse

import (
	"errors"
	"reflect"
	"strconv"
	"sync"
)

// Raw is a JSON value kept as its text, exactly as the line has it: a field
// of this type takes any JSON value (null as "null").
type Raw string

// UnmarshalJSON keeps the value's text, as json.RawMessage does: a Raw
// reads alike through encoding/json and the parser.
func (r *Raw) UnmarshalJSON(text []byte) error {
	*r = Raw(text)
	return nil
}

// The causes of the parser's faults; the stream package's errors of the
// same names are these.
var (
	// ErrSyntax: the text is not one well-formed JSON object.
	ErrSyntax = errors.New("invalid JSON")
	// ErrFieldType: a field has the wrong JSON type or an out-of-range value.
	ErrFieldType = errors.New("wrong JSON type")
	// ErrBadTime: a time is not RFC 3339, or at is not in UTC.
	ErrBadTime = errors.New("invalid time")
)

// Error is a fault at a byte of the text, in a field.
type Error struct {
	Pos   int    // the byte of the text
	Field string // the field's dotted path, when there is one
	Err   error
}

func (e *Error) Error() string {
	s := "byte " + strconv.Itoa(e.Pos) + ": "
	if e.Field != "" {
		s += "field " + strconv.Quote(e.Field) + ": "
	}
	return s + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// IsFault reports an error that a value of the wrong type or a bad time
// caused, as opposed to text that is not JSON.
func IsFault(err error) bool { return errors.Is(err, ErrFieldType) || errors.Is(err, ErrBadTime) }

// NewCodec returns the field table of the struct type t, by its json tags:
// strings, integers, booleans, RFC 3339 times, nested structs, pointers to
// structs (nil for null), slices of structs, []string, map[string]int and
// Raw. Build codecs once, in a package variable: building one is not safe
// for concurrent use.
func NewCodec(t reflect.Type) *StructCodec { return newCodec(t, false) }

// NewStrictCodec is NewCodec, for a reader that must read as
// encoding/json does, and reads a line another way where the parser might
// not: Parse fails, with ErrSyntax, where encoding/json would read
// otherwise than the parser (a key that matches a field only ignoring
// case, as encoding/json matches keys; a field's key twice in one object,
// whose values encoding/json merges; a time string with an escape, which
// time.Time.UnmarshalJSON does not unescape). Its types have at most 64
// fields a struct.
func NewStrictCodec(t reflect.Type) *StructCodec {
	c := newCodec(t, false)
	c.makeStrict()
	return c
}

// parsers are the parsers Parse and Unquote borrow.
var parsers = sync.Pool{New: func() any { return new(Parser) }}

// errNotItsCodec is a programming error: a value parsed with another
// type's codec.
var errNotItsCodec = errors.New("jsonparse.Parse: the value is not a pointer to the codec's type")

// Parse decodes the JSON object text into the struct v points to, whose
// type's codec c is: unknown keys skipped, the last of duplicate keys
// winning, keys matched exactly, invalid UTF-8 made U+FFFD, null leaving a
// field as it is. A value of the wrong type does not stop the object: the
// rest is read, and the first such fault is returned, an *Error wrapping
// ErrFieldType (or ErrBadTime). Text that is not one JSON object gives an
// *Error wrapping ErrSyntax. Parse is safe for concurrent use.
func Parse(c *StructCodec, text []byte, v any) error {
	rv := reflect.ValueOf(v)
	if c == nil || rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Type() != c.Type {
		return errNotItsCodec
	}
	p := parsers.Get().(*Parser)
	defer func() {
		p.Data = nil // let go of the text
		parsers.Put(p)
	}()
	p.Data, p.Pos, p.Own, p.Edited = text, 0, false, false
	var err *ParseError
	switch {
	case p.Peek() != '{':
		err = p.Syntax("'{'")
	default:
		err = p.Object(c, rv.UnsafePointer(), 1)
		if err == nil || !errors.Is(err.Err, ErrSyntax) {
			if p.Peek() != 0 {
				err = p.Syntax("the end of the line")
			}
		}
	}
	if err == nil {
		return nil
	}
	return &Error{Pos: err.Pos, Field: err.Field, Err: err.Err}
}

// Unquote decodes the text of one JSON string, quotes included, as Parse
// decodes a string value. It is safe for concurrent use.
func Unquote(text []byte) (string, error) {
	p := parsers.Get().(*Parser)
	defer func() {
		p.Data = nil
		parsers.Put(p)
	}()
	p.Data, p.Pos, p.Own, p.Edited = text, 0, false, false
	var err *ParseError
	var s string
	switch {
	case p.Peek() != '"':
		err = p.Syntax("a string")
	default:
		if s, err = p.Str(); err == nil && p.Peek() != 0 {
			err = p.Syntax("the end of the string")
		}
	}
	if err != nil {
		return "", &Error{Pos: err.Pos, Err: err.Err}
	}
	return s, nil
}
