package stream

import (
	"errors"
	"github.com/uagentkit/stream/internal/jsonparse"
	"strconv"
)

// LineError is a line the [Decoder] could not decode. The Decoder goes on
// with the next line: nothing after a bad line is lost.
//
// Err is the cause; errors.Is tests it against ErrSyntax, ErrFieldType,
// ErrMissingField, ErrBadTime, ErrUnsupportedVersion, ErrLineTooLong,
// ErrTruncated and ErrByteOrderMark.
type LineError struct {
	Line   int    // 1-based line number
	Offset int64  // byte offset in the stream where the fault was found
	Type   string // the line's type, when it was read
	Field  string // the field at fault, as a dotted path, when there is one
	Err    error
}

// Error formats the fault as "stream: line N, byte B: TYPE: field F: cause".
// TYPE is quoted when it holds characters that are not printable.
func (e *LineError) Error() string {
	b := []byte("stream: line ")
	b = strconv.AppendInt(b, int64(e.Line), 10)
	b = append(b, ", "...)
	return string(e.appendDetail(b))
}

// detail formats the fault without its line: "byte B: TYPE: field F: cause".
func (e *LineError) detail() string { return string(e.appendDetail(nil)) }

func (e *LineError) appendDetail(b []byte) []byte {
	b = append(b, "byte "...)
	b = strconv.AppendInt(b, e.Offset, 10)
	b = append(b, ": "...)
	if e.Type != "" {
		// The type is the stream's text: quoted when it holds anything a
		// terminal could act on or a reader could not see.
		b = append(b, printable(e.Type)...)
		b = append(b, ": "...)
	}
	if e.Field != "" {
		b = append(b, "field "...)
		b = strconv.AppendQuote(b, e.Field)
		b = append(b, ": "...)
	}
	if e.Err != nil {
		b = append(b, e.Err.Error()...)
	}
	return b
}

// Unwrap returns the cause.
func (e *LineError) Unwrap() error { return e.Err }

// The errors callers branch on, with errors.Is: the causes of a
// [LineError], and ErrNotDurable.
var (
	// ErrSyntax: the line is not one well-formed JSON object.
	ErrSyntax = jsonparse.ErrSyntax
	// ErrFieldType: a field has the wrong JSON type or an out-of-range value.
	ErrFieldType = jsonparse.ErrFieldType
	// ErrBadTime: a time is not RFC 3339, or at is not in UTC.
	ErrBadTime = jsonparse.ErrBadTime
	// ErrMissingField: a field every line must have (v, type, at) is absent.
	ErrMissingField = errors.New("missing field")
	// ErrUnsupportedVersion: the line's v is not SchemaVersion.
	ErrUnsupportedVersion = errors.New("unsupported version")
	// ErrLineTooLong: the line is longer than the Decoder's limit.
	ErrLineTooLong = errors.New("line too long")
	// ErrTruncated: the stream ends in the middle of a line, as a killed
	// writer leaves it.
	ErrTruncated = errors.New("truncated line")
	// ErrByteOrderMark: the stream starts with a byte-order mark. The
	// Decoder reports it, then reads line 1 without it.
	ErrByteOrderMark = errors.New("a byte-order mark")

	// ErrNotDurable is wrapped by the error of a [SummaryDTO.WriteFile] that
	// did replace the file but could not sync its directory: readers see
	// the new summary, but a crash may still bring the old one back.
	ErrNotDurable = errors.New("the new summary is in place but may not be durable")
)
