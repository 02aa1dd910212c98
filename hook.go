package stream

import (
	"errors"
	"reflect"
	"sync"

	"github.com/uagentkit/stream/internal/jsonparse"
)

// The parser, handed to the module's other packages (see jsonparse): the
// one JSON parser of the module, for the runner's records and the
// harness's events as for the contract's lines.
func init() {
	jsonparse.NewCodec = func(t reflect.Type) jsonparse.Codec { return newCodec(t, false) }
	jsonparse.NewStrictCodec = func(t reflect.Type) jsonparse.Codec {
		c := newCodec(t, false)
		c.makeStrict()
		return c
	}
	jsonparse.Parse = parseText
	jsonparse.Unquote = unquoteText
	jsonparse.ErrSyntax, jsonparse.ErrFieldType, jsonparse.ErrBadTime = ErrSyntax, ErrFieldType, ErrBadTime
}

// parsers are the parsers parseText borrows.
var parsers = sync.Pool{New: func() any { return new(parser) }}

// errNotItsCodec is a programming error: a value parsed with another
// type's codec.
var errNotItsCodec = errors.New("stream: jsonparse.Parse: the value is not a pointer to the codec's type")

// parseText decodes one JSON object into the struct v points to, with the
// codec of its type (see jsonparse.Parse).
func parseText(c jsonparse.Codec, text []byte, v any) error {
	codec, ok := c.(*structCodec)
	rv := reflect.ValueOf(v)
	if !ok || rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Type() != codec.typ {
		return errNotItsCodec
	}
	p := parsers.Get().(*parser)
	defer func() {
		p.data = nil // let go of the text
		parsers.Put(p)
	}()
	p.data, p.pos, p.own, p.edited = text, 0, false, false
	var err *parseError
	switch {
	case p.peek() != '{':
		err = p.syntax("'{'")
	default:
		err = p.object(codec, rv.UnsafePointer(), 1)
		if err == nil || !errors.Is(err.err, ErrSyntax) {
			if p.peek() != 0 {
				err = p.syntax("the end of the line")
			}
		}
	}
	if err == nil {
		return nil
	}
	return &jsonparse.Error{Pos: err.pos, Field: err.field, Err: err.err}
}

// unquoteText decodes a JSON string's text (with its quotes) as the
// Decoder decodes a string value.
func unquoteText(text []byte) (string, error) {
	p := parsers.Get().(*parser)
	defer func() {
		p.data = nil
		parsers.Put(p)
	}()
	p.data, p.pos, p.own, p.edited = text, 0, false, false
	var err *parseError
	var s string
	switch {
	case p.peek() != '"':
		err = p.syntax("a string")
	default:
		if s, err = p.str(); err == nil && p.peek() != 0 {
			err = p.syntax("the end of the string")
		}
	}
	if err != nil {
		return "", &jsonparse.Error{Pos: err.pos, Err: err.err}
	}
	return s, nil
}
