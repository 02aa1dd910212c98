package uahstream

import (
	"errors"
	"io"
	"iter"
	"reflect"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/jsonparse"
)

// Raw is a JSON value kept as its text, exactly as the line has it.
type Raw = jsonparse.Raw

// codecs are the harness's types, by type, each decoded by the stream
// package's parser; names are their types' names.
var (
	codecs = map[string]struct {
		codec jsonparse.Codec
		typ   reflect.Type
	}{}
	names = map[reflect.Type]string{}
)

func register[T any](typ string) {
	t := reflect.TypeFor[T]()
	codecs[typ] = struct {
		codec jsonparse.Codec
		typ   reflect.Type
	}{jsonparse.NewCodec(t), t}
	names[t] = typ
}

func init() {
	register[SessionOpenedDTO](TypeSessionOpened)
	register[InstructionsLoadedDTO](TypeInstructionsLoaded)
	register[InputQueuedDTO](TypeInputQueued)
	register[InputSentDTO](TypeInputSent)
	register[InputDeliveredDTO](TypeInputDelivered)
	register[InputFailedDTO](TypeInputFailed)
	register[InputWithdrawnDTO](TypeInputWithdrawn)
	register[SettingsChangedDTO](TypeSettingsChanged)
	register[IdleDTO](TypeIdle)
	register[NoticeDTO](TypeNotice)
	register[TextDeltaDTO](TypeTextDelta)
	register[ReasoningDeltaDTO](TypeReasoningDelta)
	register[StreamResetDTO](TypeStreamReset)
	register[ReconnectingDTO](TypeReconnecting)
	register[ReconnectEndedDTO](TypeReconnectEnded)
	register[CompactionStartedDTO](TypeCompactionStarted)
	register[CompactedDTO](TypeCompacted)
	register[WebSearchDTO](TypeWebSearch)
	register[RewoundDTO](TypeRewound)
}

// Known reports whether typ is one of the harness's types this package
// decodes.
func Known(typ string) bool {
	_, ok := codecs[typ]
	return ok
}

// Opens reports a session_opened (as this package's Decoder gives it, or
// as the stream package's does, an UnknownDTO): a stream whose first line
// it is is a session stream.
func Opens(dto any) bool {
	switch d := dto.(type) {
	case SessionOpenedDTO:
		return true
	case stream.UnknownDTO:
		return d.Type == TypeSessionOpened
	}
	return false
}

// TypeOf returns the type of a DTO: a harness type's, or what
// stream.TypeOf says.
func TypeOf(dto any) string {
	if typ, ok := names[reflect.TypeOf(dto)]; ok {
		return typ
	}
	return stream.TypeOf(dto)
}

// Decoder reads a session stream (or any v1 stream): a stream.Decoder
// whose lines of the harness's types become their DTOs
// (SessionOpenedDTO, TextDeltaDTO, …). The stream package's Decoder
// reads every line and its header (v, type, at) and gives the harness's
// lines as stream.UnknownDTO; this Decoder decodes their Raw with the
// same parser. Everything the stream.Decoder guarantees holds (buffer
// lifetimes, bounded memory, errors that leave the next line readable).
// A harness line with a field of the wrong JSON type is a
// *stream.LineError wrapping stream.ErrFieldType, naming the line, the
// byte and the field; the next line decodes. A Decoder is not safe for
// concurrent use.
type Decoder struct {
	*stream.Decoder
}

// NewDecoder returns a Decoder reading r, with the stream package's
// options.
func NewDecoder(r io.Reader, opts ...stream.Option) *Decoder {
	return &Decoder{stream.NewDecoder(r, opts...)}
}

// Decode returns the next line's DTO, as stream.Decoder.Decode does, a
// harness type's decoded.
func (d *Decoder) Decode() (any, error) {
	dto, err := d.Decoder.Decode()
	if err != nil {
		return dto, err
	}
	u, ok := dto.(stream.UnknownDTO)
	if !ok {
		return dto, nil
	}
	out, err := decodeUnknown(u)
	if err != nil {
		var pe *jsonparse.Error
		le := &stream.LineError{Line: d.Line(), Type: u.Type, Offset: d.lineStart(len(u.Raw)), Err: err}
		if errors.As(err, &pe) {
			le.Offset += int64(pe.Pos)
			le.Field, le.Err = pe.Field, pe.Err
		}
		return nil, le
	}
	return out, nil
}

// lineStart is the offset of the line last read, whose raw bytes are n.
// The stream's own line endings are not known here: a line ending "\r\n"
// is taken as one ending "\n", one byte later.
func (d *Decoder) lineStart(n int) int64 {
	return max(0, d.InputOffset()-int64(n)-1)
}

// All returns the lines as Decode returns them, until the end.
func (d *Decoder) All() iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for {
			dto, err := d.Decode()
			if err == io.EOF {
				return
			}
			if !yield(dto, err) {
				return
			}
		}
	}
}

// Decode turns a stream.UnknownDTO of one of the harness's types into its
// DTO; any other value is returned as it is. A field of the wrong JSON
// type is an error wrapping stream.ErrFieldType (the value is then
// returned unchanged), for a caller that reads with the stream package's
// Decoder.
func Decode(dto any) (any, error) {
	u, ok := dto.(stream.UnknownDTO)
	if !ok {
		return dto, nil
	}
	out, err := decodeUnknown(u)
	if err != nil {
		return dto, err
	}
	return out, nil
}

func decodeUnknown(u stream.UnknownDTO) (any, error) {
	c, ok := codecs[u.Type]
	if !ok {
		return u, nil
	}
	v := reflect.New(c.typ)
	if err := jsonparse.Parse(c.codec, u.Raw, v.Interface()); err != nil {
		return nil, err
	}
	return v.Elem().Interface(), nil
}
