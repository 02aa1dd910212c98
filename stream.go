// Package stream implements the uagent v1 JSONL stream contract: the line
// format that `uagent --stream` writes, one JSON object per line, and that
// programs outside uagent read.
//
// The package covers the whole life of a stream:
//
//   - write: domain events ([Event]) become wire DTOs ([EventToDTO]) and one
//     line each through a [Sink];
//   - read: a [Decoder] turns lines back into the same DTO values, surviving
//     long lines, unknown types, bad lines and cut-off endings;
//   - fold: a [Fold] takes a run's lines and answers every question about
//     the run: its stats exactly as the uagent runner computes them, its
//     turns, tool operations, calls and notices as each line changes them,
//     how it ended ([Verdict]), and where its run_finished summary
//     disagrees with its events; [Summarize] folds a whole stream;
//   - check: [Validate] reports every violation of the stream rules.
//
// Integrations are packages on top of this one: uahstream reads any
// stream (a run's, or a session stream of the harness) once into one fold
// and hands every view its Lines; execstream drives `uagent --stream`
// processes and replays recordings; termstream renders a stream for
// people, timeline draws it, ssestream serves it to browsers, otelstream
// exports it as OpenTelemetry traces, tablestream as table rows and
// parquetstream as a Parquet dataset; follow reads a file while another
// process writes it (tail -F); acpstream puts it in editors and
// a2astream before other agents; statedir reads what uagent and uah saved
// (files), history makes of them sessions, an index, prices; schema
// publishes the contract as JSON Schema. This package imports only the
// standard library.
//
// The layers, each importing only those above it: this package (the
// contract: types, Sink, Decoder, the fold) → uahstream (the one reader
// and the session fold) → statedir (the files uagent and uah save: run
// directories, their one state, sidecars) → history (sessions, titles,
// parents, the live index, prices) → the views and protocols (termstream,
// timeline, ssestream, otelstream, tablestream, parquetstream, acpstream,
// a2astream) → the command.
//
// # Wire
//
// Every line is {"v":1,"type":"…","at":"…", …fields}. at is the event's time
// in UTC, RFC 3339 with nanoseconds and trailing zeros trimmed. Writers emit
// fields in the order of the DTO structs; readers accept any key order and
// ignore unknown fields and unknown event types. A stream that has started
// ends with exactly one run_finished line.
//
// One table lists the event types (wire name, DTO type, domain type).
// Encoding, decoding, validation and the JSON Schema in schema/ all read it.
//
// # Options
//
// The functions that read a stream take the options they read: a
// [DecoderOption] ([WithMaxLineSize], [WithFoldOnly], [WithoutContent])
// for [NewDecoder] and [Summarize], a [ValidateOption] (those,
// [WithStrict], [WithExitCode]) for [Validate] and [Fold.Check]. An
// option a function does not read does not compile.
//
// # Concurrency
//
// A [Sink] is safe for concurrent use. A [Decoder] and a [Fold] are not:
// each belongs to one goroutine. The functions keep no state between
// calls.
//
// # Errors
//
// Errors are prefixed "stream: " and say where: a line that cannot be read
// is a [*LineError] with its line, byte offset, type and field, and a cause
// that errors.Is matches against ErrSyntax, ErrFieldType, ErrMissingField,
// ErrBadTime, ErrUnsupportedVersion, ErrLineTooLong or ErrTruncated.
package stream

import (
	"reflect"
	"sync"
	"time"
	"unsafe"

	"github.com/uagentkit/stream/internal/jsonparse"
)

// The wire's own names: the schema version and the event types.
const (
	// SchemaVersion is the stream's schema version, the v of every line. It
	// is bumped only on a breaking change: a removed or renamed field, a
	// changed type, or a changed meaning. New event types and new fields
	// keep version 1.
	SchemaVersion = 1

	// The wire names of the event types, the type field of every line.
	TypeRunStarted       = "run_started"
	TypePreflightWarning = "preflight_warning"
	TypeUserMessage      = "user_message"
	TypeDeveloperMessage = "developer_message"
	TypeControlInput     = "control_input"
	TypeTurnStarted      = "turn_started"
	TypeModelResponded   = "model_responded"
	TypeToolCalled       = "tool_called"
	TypeToolStarted      = "tool_started"
	TypeToolFinished     = "tool_finished"
	TypeAssistantMessage = "assistant_message"
	TypeReasoning        = "reasoning"
	TypeRunnerError      = "runner_error"
	TypeRunFinished      = "run_finished"

	// Values the contract names for fields of the events: control input
	// modes (readers must accept others), and the stop reason of a normal
	// model response.
	ControlSettings  = "settings"
	ControlWhenIdle  = "when_idle"
	ControlHard      = "hard"
	ControlHeartbeat = "heartbeat"
	StopComplete     = "complete"

	// Exit codes of a uagent run. ExitUsage also means preflight blocked.
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitDiskLimit   = 3
	ExitTimeout     = 124
	ExitInterrupted = 130
)

// kind is one row of the event table: everything the package knows about
// one event type.
type kind struct {
	index int                    // position in kinds
	typ   string                 // wire name
	dto   reflect.Type           // DTO struct type
	event reflect.Type           // domain struct type
	codec *jsonparse.StructCodec // the DTO's fields, for encoding and decoding

	toDTO   func(e Event, at time.Time) any
	toEvent func(dto any) Event
	// zero is a zero DTO in an interface: its type word is the DTO's (see
	// ref).
	zero any
	// encode appends e's line, without the newline, as if toDTO had been
	// encoded, but without boxing the DTO.
	encode func(b []byte, e Event, at time.Time) ([]byte, error)
	// strs are the indexes of the domain event's string fields, for big.
	strs []int
}

// ref returns the DTO at p, of k's type, as an interface whose value is
// that memory, not a copy of it (a DTO is larger than a word, so an
// interface holds it through a pointer): for the Decoder that reads for
// the fold alone, whose DTOs no one keeps past their line. The DTO then
// changes as p's memory does.
func (k *kind) ref(p unsafe.Pointer) any {
	v := k.zero
	(*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1] = p
	return v
}

// big reports whether an event's strings alone would fill a small line
// buffer, so that the Sink takes a large one for it.
func (k *kind) big(e Event) bool {
	v, n := reflect.ValueOf(e), 0
	for _, i := range k.strs {
		n += v.Field(i).Len()
	}
	return n > smallLine
}

// dtoPtr is satisfied by pointers to the event DTOs.
type dtoPtr[D any] interface {
	*D
	hdr() *header
}

// def makes a table row from the two conversions of one event type.
func def[E Event, D any, P dtoPtr[D]](typ string, to func(E) D, from func(D) E) *kind {
	k := &kind{
		typ:   typ,
		dto:   reflect.TypeFor[D](),
		event: reflect.TypeFor[E](),
	}
	fill := func(d *D, e Event, at time.Time) {
		*d = to(e.(E))
		h := P(d).hdr()
		h.V, h.Type, h.At = SchemaVersion, typ, at.UTC()
	}
	// The Sink encodes through a DTO taken from a pool, so that an event
	// costs no allocation of its own.
	dtos := sync.Pool{New: func() any { return new(D) }}
	k.toDTO = func(e Event, at time.Time) any {
		var d D
		fill(&d, e, at)
		return d
	}
	k.toEvent = func(dto any) Event { return from(dto.(D)) }
	k.zero = *new(D)
	k.encode = func(b []byte, e Event, at time.Time) ([]byte, error) {
		d := dtos.Get().(*D)
		fill(d, e, at)
		b, err := k.codec.AppendObject(b, reflect.ValueOf(d).Elem())
		*d = *new(D) // let go of the event's strings
		dtos.Put(d)
		return b, err
	}
	return k
}

// kinds is the event table: the one place that lists the event types.
var kinds = []*kind{
	def(TypeRunStarted,
		func(e RunStarted) RunStartedDTO {
			return RunStartedDTO{RunID: e.RunID, SessionID: e.SessionID, Provider: e.Provider,
				Model: e.Model, Effort: e.Effort, Workspace: e.Workspace}
		},
		func(d RunStartedDTO) RunStarted {
			return RunStarted{At: d.At, RunID: d.RunID, SessionID: d.SessionID, Provider: d.Provider,
				Model: d.Model, Effort: d.Effort, Workspace: d.Workspace}
		}),
	def(TypePreflightWarning,
		func(e PreflightWarning) PreflightWarningDTO {
			return PreflightWarningDTO{Code: e.Code, Message: e.Message}
		},
		func(d PreflightWarningDTO) PreflightWarning {
			return PreflightWarning{At: d.At, Code: d.Code, Message: d.Message}
		}),
	def(TypeUserMessage,
		func(e UserMessage) UserMessageDTO { return UserMessageDTO{ID: e.ID, Text: e.Text} },
		func(d UserMessageDTO) UserMessage { return UserMessage{At: d.At, ID: d.ID, Text: d.Text} }),
	def(TypeDeveloperMessage,
		func(e DeveloperMessage) DeveloperMessageDTO { return DeveloperMessageDTO{ID: e.ID, Text: e.Text} },
		func(d DeveloperMessageDTO) DeveloperMessage {
			return DeveloperMessage{At: d.At, ID: d.ID, Text: d.Text}
		}),
	def(TypeControlInput,
		func(e ControlInput) ControlInputDTO {
			return ControlInputDTO{ID: e.ID, Mode: e.Mode, Effort: e.Effort, Reason: e.Reason}
		},
		func(d ControlInputDTO) ControlInput {
			return ControlInput{At: d.At, ID: d.ID, Mode: d.Mode, Effort: d.Effort, Reason: d.Reason}
		}),
	def(TypeTurnStarted,
		func(e TurnStarted) TurnStartedDTO { return TurnStartedDTO{Turn: e.Turn, TurnID: e.TurnID} },
		func(d TurnStartedDTO) TurnStarted { return TurnStarted{At: d.At, Turn: d.Turn, TurnID: d.TurnID} }),
	def(TypeModelResponded,
		func(e ModelResponded) ModelRespondedDTO {
			return ModelRespondedDTO{Turn: e.Turn, TurnID: e.TurnID, DurationMS: e.Duration.Milliseconds(),
				Usage: e.Usage.DTO(), Stop: e.Stop, Failure: e.Failure}
		},
		func(d ModelRespondedDTO) ModelResponded {
			return ModelResponded{At: d.At, Turn: d.Turn, TurnID: d.TurnID, Duration: ms(d.DurationMS),
				Usage: d.Usage.Tokens(), Stop: d.Stop, Failure: d.Failure}
		}),
	def(TypeToolCalled,
		func(e ToolCalled) ToolCalledDTO {
			return ToolCalledDTO{CallID: e.CallID, Name: e.Name, Label: e.Label, Arguments: e.Arguments}
		},
		func(d ToolCalledDTO) ToolCalled {
			return ToolCalled{At: d.At, CallID: d.CallID, Name: d.Name, Label: d.Label, Arguments: d.Arguments}
		}),
	def(TypeToolStarted,
		func(e ToolStarted) ToolStartedDTO {
			return ToolStartedDTO{CallID: e.CallID, OpID: e.OpID, Name: e.Name, Label: e.Label,
				OpType: e.OpType, OutPath: e.OutPath, ErrPath: e.ErrPath}
		},
		func(d ToolStartedDTO) ToolStarted {
			return ToolStarted{At: d.At, CallID: d.CallID, OpID: d.OpID, Name: d.Name, Label: d.Label,
				OpType: d.OpType, OutPath: d.OutPath, ErrPath: d.ErrPath}
		}),
	def(TypeToolFinished,
		func(e ToolFinished) ToolFinishedDTO {
			return ToolFinishedDTO{CallID: e.CallID, OpID: e.OpID, Name: e.Name, Label: e.Label, OK: e.OK,
				Detail: e.Detail, DurationMS: e.Duration.Milliseconds(), OpType: e.OpType,
				OutPath: e.OutPath, ErrPath: e.ErrPath}
		},
		func(d ToolFinishedDTO) ToolFinished {
			return ToolFinished{At: d.At, CallID: d.CallID, OpID: d.OpID, Name: d.Name, Label: d.Label, OK: d.OK,
				Detail: d.Detail, Duration: ms(d.DurationMS), OpType: d.OpType,
				OutPath: d.OutPath, ErrPath: d.ErrPath}
		}),
	def(TypeAssistantMessage,
		func(e AssistantMessage) AssistantMessageDTO {
			return AssistantMessageDTO{Turn: e.Turn, Text: e.Text, Final: e.Final}
		},
		func(d AssistantMessageDTO) AssistantMessage {
			return AssistantMessage{At: d.At, Turn: d.Turn, Text: d.Text, Final: d.Final}
		}),
	def(TypeReasoning,
		func(e ReasoningSummary) ReasoningDTO { return ReasoningDTO{Turn: e.Turn, Text: e.Text} },
		func(d ReasoningDTO) ReasoningSummary { return ReasoningSummary{At: d.At, Turn: d.Turn, Text: d.Text} }),
	def(TypeRunnerError,
		func(e RunnerError) RunnerErrorDTO { return RunnerErrorDTO{Message: e.Message} },
		func(d RunnerErrorDTO) RunnerError { return RunnerError{At: d.At, Message: d.Message} }),
	def(TypeRunFinished,
		func(e RunFinished) RunFinishedDTO {
			return RunFinishedDTO{Summary: SummaryToDTO(e.Result), within: max(e.EndWithin, 0)}
		},
		func(d RunFinishedDTO) RunFinished {
			return RunFinished{At: d.At, Result: SummaryFromDTO(d.Summary), EndWithin: d.within}
		}),
}

// unreadFields are the strings of each type that the fold does not read:
// Summarize and Validate check them (their JSON type, their escapes) and
// do not build them (see internal/jsonparse). What the fold reads (ids, names,
// the assistant's text, the notices' and failures' messages, stops,
// statuses) is built.
var unreadFields = map[string][]string{
	TypeUserMessage:      {"text"},
	TypeDeveloperMessage: {"text"},
	TypeControlInput:     {"reason"},
	TypeReasoning:        {"text"},
	TypeToolCalled:       {"label", "arguments"},
	TypeToolStarted:      {"label", "out_path", "err_path"},
	TypeToolFinished:     {"label", "detail", "out_path", "err_path"},
}

// contentFields are the strings of each type that people and models
// wrote, but the assistant's text (which the fold reads): what
// WithoutContent checks and does not build.
var contentFields = map[string][]string{
	TypeUserMessage:      {"text"},
	TypeDeveloperMessage: {"text"},
	TypeControlInput:     {"reason"},
	TypeReasoning:        {"text"},
	TypeToolCalled:       {"arguments"},
}

// Indexes over the event table, built once.
var (
	kindByType  = map[string]*kind{}
	kindByEvent = map[reflect.Type]*kind{}
	kindByDTO   = map[reflect.Type]*kind{}
)

func init() {
	for i, k := range kinds {
		k.index = i
		k.codec = jsonparse.CodecFor(k.dto)
		for _, name := range unreadFields[k.typ] {
			k.codec.Fields[k.codec.ByName[name]].Unread = true
		}
		for _, name := range contentFields[k.typ] {
			k.codec.Fields[k.codec.ByName[name]].Content = true
		}
		for i := range k.event.NumField() {
			if k.event.Field(i).Type.Kind() == reflect.String {
				k.strs = append(k.strs, i)
			}
		}
		kindByType[k.typ] = k
		kindByEvent[k.event] = k
		kindByDTO[k.dto] = k
	}
	initFinished()
}

// kindOf returns the table row of a domain event, accepting a struct or a
// non-nil pointer to one.
func kindOf(e Event) (*kind, Event) {
	if e == nil {
		return nil, nil
	}
	t := reflect.TypeOf(e)
	if k, ok := kindByEvent[t]; ok {
		return k, e
	}
	if t.Kind() == reflect.Pointer {
		if k, ok := kindByEvent[t.Elem()]; ok {
			v := reflect.ValueOf(e)
			if v.IsNil() {
				return nil, nil
			}
			return k, v.Elem().Interface().(Event)
		}
	}
	return nil, nil
}

// typeOf returns the wire type of a DTO value: the type its Go type
// stands for, or the Type of an [UnknownDTO]; "" for a value that is not a
// DTO.
func typeOf(dto any) string {
	if u, ok := dto.(UnknownDTO); ok {
		return u.Type
	}
	if dto == nil {
		return ""
	}
	if k, ok := kindByDTO[reflect.TypeOf(dto)]; ok {
		return k.typ
	}
	return ""
}
