package stream

import (
	"reflect"
	"time"
)

// header holds the fields every line starts with. Each event DTO embeds it
// first, so V, Type and At are promoted and written first.
//
// A field tagged stream:"id" is an identity field: a line cannot be read
// without it, so even the compatible mode of [Validate] requires it. The
// other fields that are not omitempty are required only in strict mode.
type header struct {
	V    int       `json:"v" stream:"id"`
	Type string    `json:"type" stream:"id"`
	At   time.Time `json:"at" stream:"id"`
}

func (h *header) hdr() *header { return h }

func (h header) at() time.Time { return h.At }

// HeaderOf returns what every line says first, of a line's DTO as the
// [Decoder] returns it (an [UnknownDTO]'s too): its wire type, and its at
// (what [DTOToEvent](dto).OccurredAt() says, without making the event).
// ok is false, and typ "", for any other value.
func HeaderOf(dto any) (typ string, at time.Time, ok bool) {
	switch d := dto.(type) {
	case UnknownDTO:
		return d.Type, d.At, true
	case interface{ at() time.Time }:
		return typeOf(dto), d.at(), true
	}
	return "", time.Time{}, false
}

// RunStartedDTO is the wire form of [RunStarted].
type RunStartedDTO struct {
	header
	RunID     string `json:"run_id"`
	SessionID string `json:"session_id"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	Effort    string `json:"effort"`
	Workspace string `json:"workspace"`
}

// PreflightWarningDTO is the wire form of [PreflightWarning].
type PreflightWarningDTO struct {
	header
	Code    string `json:"code"`
	Message string `json:"message"`
}

// UserMessageDTO is the wire form of [UserMessage].
type UserMessageDTO struct {
	header
	ID   string `json:"id"`
	Text string `json:"text"`
}

// DeveloperMessageDTO is the wire form of [DeveloperMessage].
type DeveloperMessageDTO struct {
	header
	ID   string `json:"id"`
	Text string `json:"text"`
}

// ControlInputDTO is the wire form of [ControlInput].
type ControlInputDTO struct {
	header
	ID     string `json:"id"`
	Mode   string `json:"mode"`
	Effort string `json:"effort,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// TurnStartedDTO is the wire form of [TurnStarted].
type TurnStartedDTO struct {
	header
	Turn   int    `json:"turn" stream:"id"`
	TurnID string `json:"turn_id,omitempty"`
}

// ModelRespondedDTO is the wire form of [ModelResponded].
type ModelRespondedDTO struct {
	header
	Turn       int       `json:"turn"`
	TurnID     string    `json:"turn_id,omitempty"`
	DurationMS int64     `json:"duration_ms"`
	Usage      TokensDTO `json:"usage"`
	Stop       string    `json:"stop,omitempty"`
	Failure    string    `json:"failure,omitempty"`
}

// ToolCalledDTO is the wire form of [ToolCalled].
type ToolCalledDTO struct {
	header
	CallID    string `json:"call_id" stream:"id"`
	Name      string `json:"name"`
	Label     string `json:"label"`
	Arguments string `json:"arguments,omitempty"`
}

// ToolStartedDTO is the wire form of [ToolStarted].
type ToolStartedDTO struct {
	header
	CallID  string `json:"call_id" stream:"id"`
	OpID    string `json:"op_id" stream:"id"`
	Name    string `json:"name"`
	Label   string `json:"label"`
	OpType  string `json:"op_type,omitempty"`
	OutPath string `json:"out_path,omitempty"`
	ErrPath string `json:"err_path,omitempty"`
}

// ToolFinishedDTO is the wire form of [ToolFinished].
type ToolFinishedDTO struct {
	header
	CallID     string `json:"call_id" stream:"id"`
	OpID       string `json:"op_id,omitempty"`
	Name       string `json:"name"`
	Label      string `json:"label"`
	OK         bool   `json:"ok"`
	Detail     string `json:"detail"`
	DurationMS int64  `json:"duration_ms"`
	OpType     string `json:"op_type,omitempty"`
	OutPath    string `json:"out_path,omitempty"`
	ErrPath    string `json:"err_path,omitempty"`
}

// AssistantMessageDTO is the wire form of [AssistantMessage].
type AssistantMessageDTO struct {
	header
	Turn  int    `json:"turn,omitempty"`
	Text  string `json:"text"`
	Final bool   `json:"final"`
}

// ReasoningDTO is the wire form of [ReasoningSummary].
type ReasoningDTO struct {
	header
	Turn int    `json:"turn,omitempty"`
	Text string `json:"text"`
}

// RunnerErrorDTO is the wire form of [RunnerError].
type RunnerErrorDTO struct {
	header
	Message string `json:"message"`
}

// RunFinishedDTO is the wire form of [RunFinished]. Summary has the shape of
// summary.json. A RunFinishedDTO that a [Decoder] returns also records which
// of the summary's stats fields and answer its line lacks, so that
// [Fold.Recomputed] compares only those it has.
type RunFinishedDTO struct {
	header
	Summary SummaryDTO    `json:"summary" stream:"id"`
	absent  uint64        // bit i: stats field i is absent; answerAbsent: the answer is
	within  time.Duration // RunFinished.EndWithin: the end is known to within this
}

// EventToDTO maps a domain event to its wire form, a value of one of the
// event DTO types (RunStartedDTO, …, RunFinishedDTO). It accepts the event
// structs and non-nil pointers to them; ok is false for nil and for events
// this package does not know. V is SchemaVersion, At is the event's time in
// UTC, and durations become milliseconds by truncation.
func EventToDTO(event Event) (dto any, ok bool) {
	k, e := kindOf(event)
	if k == nil {
		return nil, false
	}
	return k.toDTO(e, e.OccurredAt()), true
}

// DTOToEvent maps a wire DTO, as [EventToDTO] or the [Decoder] return it, back
// to its domain event. ok is false for an [UnknownDTO] and any other value.
// DTOToEvent(EventToDTO(e)) gives back e up to UTC and millisecond
// truncation, but for a run_finished's stats: its summary maps through
// [SummaryFromDTO], which does not restore them (they are recomputed from
// the events; the DTO keeps them as written).
func DTOToEvent(dto any) (event Event, ok bool) {
	if dto == nil {
		return nil, false
	}
	k, found := kindByDTO[reflect.TypeOf(dto)]
	if !found {
		return nil, false
	}
	return k.toEvent(dto), true
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
