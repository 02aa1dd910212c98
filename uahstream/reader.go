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
		codec *jsonparse.StructCodec
		typ   reflect.Type
	}{}
	names = map[reflect.Type]string{}
)

func register[T any](typ string) {
	t := reflect.TypeFor[T]()
	codecs[typ] = struct {
		codec *jsonparse.StructCodec
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
	register[EffortUpdatesOffDTO](TypeEffortUpdatesOff)
	register[GoalUpdatedDTO](TypeGoalUpdated)
	register[GoalContinuedDTO](TypeGoalContinued)
	register[GoalClearedDTO](TypeGoalCleared)
	register[AutoReviewedDTO](TypeAutoReviewed)
}

// Known reports whether typ is one of the harness's types this package
// decodes.
func Known(typ string) bool {
	_, ok := codecs[typ]
	return ok
}

// Opens reports a session_opened (as a Reader gives it, or as the stream
// package's Decoder does, an UnknownDTO): the stream whose first line it
// is is a session stream. It is the one test of it: a Session asks it of
// its first line.
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
// stream.HeaderOf says.
func TypeOf(dto any) string {
	if typ, ok := names[reflect.TypeOf(dto)]; ok {
		return typ
	}
	typ, _, _ := stream.HeaderOf(dto)
	return typ
}

func isBOM(err error) bool { return errors.Is(err, stream.ErrByteOrderMark) }

// Line is one line of a stream as a [Reader] read it and its [Session]
// folded it: its number (1-based, counting every line, blank ones
// included; 0 for a line that came as an event, not as bytes), its bytes
// (nil for an event; valid until the next line is read, unless the
// source says otherwise), what it decoded to (a DTO and a nil error, or
// nil and a *stream.LineError), and what it changed.
type Line struct {
	Num int
	Raw []byte
	DTO any
	Err error
	Change
}

// Reader reads a stream, whatever it holds, once, into its one
// [Session]: each line decoded once (of a session stream, the harness's
// lines as their types: SessionOpenedDTO, TextDeltaDTO, …; of a run's,
// as the stream package reads them, unknown types raw), then folded. A
// Reader is not safe for concurrent use; its Session is.
type Reader struct {
	dec     *stream.Decoder
	dtos    iter.Seq[any] // the lines, as DTOs, of a Reader of events
	s       *Session
	decided bool  // the session has decided what the stream is
	harness bool  // it is a session stream
	err     error // what ended Lines early (see Err)
}

// Err returns what ended Lines before the end of the stream: the
// source's own error (an I/O error, a read cut short), never a line's
// (those are each Line's Err, a *stream.LineError, and Lines goes on
// after them); nil when the stream was read to its end. As with
// bufio.Scanner, call it once Lines has ended.
func (r *Reader) Err() error { return r.err }

// NewReader returns a Reader of the stream r into a new Session (see
// Session.Reader).
func NewReader(r io.Reader, opts ...stream.DecoderOption) *Reader {
	return new(Session).Reader(r, opts...)
}

// ReadEvents returns a Reader of a run given as its domain events into a
// new Session (see Session.EventReader).
func ReadEvents(events iter.Seq[stream.Event]) *Reader { return new(Session).EventReader(events) }

// Reader returns a Reader of the stream r into s, which has had no line:
// r decoded with the stream package's Decoder and opts.
func (s *Session) Reader(r io.Reader, opts ...stream.DecoderOption) *Reader {
	return &Reader{dec: stream.NewDecoder(r, opts...), s: s}
}

// EventReader returns a Reader into s, which has had no line, of a run
// given as its domain events (a run directory's: see
// statedir.Run.Events), each folded as its DTO (stream.EventToDTO): a
// run's events go into the fold without being written out and read
// again. Its Lines have no bytes and no number.
func (s *Session) EventReader(events iter.Seq[stream.Event]) *Reader {
	return &Reader{dtos: dtosOf(events), s: s}
}

// RunsReader returns a Reader into s, which has had no line, of a session
// given as its runs, each as its domain events (the runs of a session of
// the history, each a run directory's: see statedir.Run.Events), after
// opened: a session stream of many runs, folded as one is (each run in a
// fold of its own, the session's totals), without being written out and
// read again. Its Lines have no bytes and no number.
func (s *Session) RunsReader(opened SessionOpenedDTO, runs iter.Seq[iter.Seq[stream.Event]]) *Reader {
	return &Reader{s: s, dtos: func(yield func(any) bool) {
		if !yield(opened) {
			return
		}
		for events := range runs {
			for dto := range dtosOf(events) {
				if !yield(dto) {
					return
				}
			}
		}
	}}
}

// LinesReader returns a Reader into s, which has had no line, of a
// stream given as its lines' DTOs (a session_opened first, for a session
// stream; the harness's DTOs and stream.EventToDTO's), folded as a
// stream of those lines is, without being written out and read again.
// Its Lines have no bytes and no number.
func (s *Session) LinesReader(lines iter.Seq[any]) *Reader { return &Reader{s: s, dtos: lines} }

// dtosOf is events as their DTOs (stream.EventToDTO).
func dtosOf(events iter.Seq[stream.Event]) iter.Seq[any] {
	return func(yield func(any) bool) {
		for e := range events {
			if dto, ok := stream.EventToDTO(e); ok && !yield(dto) {
				return
			}
		}
	}
}

// Session is the Reader's session, the fold of what was read so far.
func (r *Reader) Session() *Session { return r.s }

// Check makes the fold of every run check each of its lines by every
// rule stream.Validate checks (stream.Fold.Check), with opts: see
// Validate. Call it before the first line is read.
func (r *Reader) Check(opts ...stream.ValidateOption) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.s.check = &checks{dec: r.dec, opts: opts}
}

// Lines returns the lines as they are read and folded, then one more:
// the session's End (a Line with no DTO and no error whose Change.End is
// set, and Ended the run still open, if any). An error of the underlying
// reader ends the sequence, after the End, as a Line whose Err is that
// error (not a *stream.LineError) and whose Change is zero. Stopping early
// ends nothing: the Session is as far as it was read.
func (r *Reader) Lines() iter.Seq[Line] {
	if r.dtos != nil {
		return r.eventLines()
	}
	return func(yield func(Line) bool) {
		var l Line
		for {
			dto, err := r.dec.Decode()
			if err == io.EOF {
				yield(Line{Change: r.s.End()})
				return
			}
			if err != nil {
				if _, ok := errors.AsType[*stream.LineError](err); !ok {
					r.err = err // the source's, not a line's: Err says it
					yield(Line{Change: r.s.End()})
					return
				}
			}
			if err == nil && r.isHarness(dto) {
				dto, err = r.typed(dto)
			}
			l.Num, l.Raw, l.DTO, l.Err = r.dec.Line(), r.dec.Raw(), dto, err
			r.s.addTo(&l.Change, dto, err)
			if !yield(l) {
				return
			}
		}
	}
}

func (r *Reader) eventLines() iter.Seq[Line] {
	return func(yield func(Line) bool) {
		for dto := range r.dtos {
			if !yield(Line{DTO: dto, Change: r.s.Add(dto, nil)}) {
				return
			}
		}
		yield(Line{Change: r.s.End()})
	}
}

// harness reports whether dto is a line of a session stream: at the
// first line, what the Session will decide of it.
func (r *Reader) isHarness(dto any) bool {
	if r.decided {
		return r.harness
	}
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.decided {
		return Opens(dto)
	}
	r.decided, r.harness = true, s.harness
	return s.harness
}

// typed turns a line of a harness type into its DTO. A field of the wrong
// JSON type is a *stream.LineError that names the line, the byte and the
// field.
func (r *Reader) typed(dto any) (any, error) {
	u, ok := dto.(stream.UnknownDTO)
	if !ok {
		return dto, nil
	}
	c, ok := codecs[u.Type]
	if !ok {
		return u, nil
	}
	v := reflect.New(c.typ)
	err := jsonparse.Parse(c.codec, u.Raw, v.Interface())
	if err == nil {
		return v.Elem().Interface(), nil
	}
	// The stream's own line endings are not known here: a line ending
	// "\r\n" is taken as one ending "\n", one byte later.
	le := &stream.LineError{Line: r.dec.Line(), Type: u.Type, Offset: max(0, r.dec.InputOffset()-int64(len(u.Raw))-1), Err: err}
	if pe, ok := errors.AsType[*jsonparse.Error](err); ok {
		le.Offset += int64(pe.Pos)
		le.Field, le.Err = pe.Field, pe.Err
	}
	return nil, le
}
