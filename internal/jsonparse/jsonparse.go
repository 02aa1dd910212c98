// Package jsonparse hands the stream package's JSON parser to the
// module's other packages, which read other lines than the contract's (the
// runner's records of a run directory, the harness's session events)
// through the same machinery instead of a second parser. The stream
// package sets Codec and Parse when it is initialized; a package that
// imports the stream package (directly or not) can use them from its own
// initialization on.
package jsonparse

import (
	"errors"
	"reflect"
	"strconv"
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

// A Codec is the field table of a struct type, by its json tags: strings,
// integers, booleans, RFC 3339 times, nested structs, pointers to structs
// (nil for null), slices of structs, []string, map[string]int and Raw.
type Codec any

// NewCodec returns the field table of the struct type t. Build codecs
// once, in a package variable: building one is not safe for concurrent
// use.
var NewCodec func(t reflect.Type) Codec

// NewStrictCodec is NewCodec, for a reader that must read as
// encoding/json does, and reads a line another way where the parser might
// not: Parse fails, with ErrSyntax, where encoding/json would read
// otherwise than the parser (a key that matches a field only ignoring
// case, as encoding/json matches keys; a field's key twice in one object,
// whose values encoding/json merges; a time string with an escape, which
// time.Time.UnmarshalJSON does not unescape). Its types have at most 64
// fields a struct.
var NewStrictCodec func(t reflect.Type) Codec

// Parse decodes the JSON object text into the struct v points to, whose
// type's codec c is, as the stream package's Decoder decodes a line:
// unknown keys skipped, the last of duplicate keys winning, keys matched
// exactly, invalid UTF-8 made U+FFFD, null leaving a field as it is. A
// value of the wrong type does not stop the object: the rest is read, and
// the first such fault is returned, an *Error wrapping ErrFieldType (or
// ErrBadTime). Text that is not one JSON object gives an *Error wrapping
// ErrSyntax. Parse is safe for concurrent use.
var Parse func(c Codec, text []byte, v any) error

// Unquote decodes the text of one JSON string, quotes included, as Parse
// decodes a string value. It is safe for concurrent use.
var Unquote func(text []byte) (string, error)

// The causes of an *Error; the stream package's errors of the same name.
var ErrSyntax, ErrFieldType, ErrBadTime error

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
