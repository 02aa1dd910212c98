// Package harness reads the runner's records as uagent's own reader does
// (its package of that name): with encoding/json, into typed structs, in
// one pass into the union of every kind's shape and, when a line does not
// fit it, again kind by kind, leniently. Its types that encoding/json
// names in an error that becomes an event's text are named as uagent's
// are, in a package of the same name, so that the texts are the same.
//
// A line is read first by the stream package's parser, with a strict
// codec that fails wherever encoding/json might read it otherwise; a
// line the parser does not read is read by encoding/json. The two
// readings give the same record (FuzzRead holds them to it).
package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/uagentkit/stream/internal/jsonparse"
)

// Line is a record: {"Sequence","RecordedAt","Kind","Data"}, or
// {"type":"error","message":…}. Every typed field is here, those the
// events do not use included: a value of another type in any of them
// fails the first reading, as it does uagent's.
type Line struct {
	Sequence   int64     `json:"Sequence"`
	RecordedAt time.Time `json:"RecordedAt"`
	Kind       string    `json:"Kind"`
	Data       Data      `json:"Data"`
	Type       string    `json:"type"`
	Message    string    `json:"message"`
}

// Data is the union of the Data of every kind: input (ID, Kind, Payload;
// a turn's ID too), model_response (TurnID, Response), tool_call_status
// (TurnID, CallID, Status, Operations).
type Data struct {
	ID         string        `json:"ID"`
	Kind       string        `json:"Kind"`
	Payload    jsonparse.Raw `json:"Payload"`
	TurnID     string        `json:"TurnID"`
	Response   Response      `json:"Response"`
	CallID     string        `json:"CallID"`
	Status     CallStatus    `json:"Status"`
	Operations []Operation   `json:"Operations"`
}

// Response is a model response.
type Response struct {
	Stop    string   `json:"Stop"`
	Output  []Output `json:"Output"`
	Usage   Usage    `json:"Usage"`
	Failure *Failure `json:"Failure"`
}

// Failure is a response's failure, Usage its tokens, CallStatus a tool
// call's status: aliases of types named as uagent's, whose names are in
// encoding/json's messages.
type (
	Failure    = failureDTO
	Usage      = usageDTO
	CallStatus = callStatusDTO
)

type failureDTO struct {
	Code    string `json:"Code"`
	Message string `json:"Message"`
}

type usageDTO struct {
	InputTokens           int64 `json:"InputTokens"`
	CachedInputTokens     int64 `json:"CachedInputTokens"`
	CacheWriteInputTokens int64 `json:"CacheWriteInputTokens"`
	OutputTokens          int64 `json:"OutputTokens"`
	ReasoningTokens       int64 `json:"ReasoningTokens"`
}

type callStatusDTO struct {
	Error string `json:"Error"`
}

// Output is an output of a response; Data is the union of a tool call's, a
// message's and a reasoning summary's.
type Output struct {
	Type string     `json:"Type"`
	Data OutputData `json:"Data"`
}

// OutputData is the union of the Data of every output type.
type OutputData struct {
	CallID    string   `json:"CallID"`
	Name      string   `json:"Name"`
	Arguments string   `json:"Arguments"`
	Role      string   `json:"Role"`
	Text      string   `json:"Text"`
	Phase     string   `json:"Phase"`
	Summary   []string `json:"Summary"`
}

// Operation is an operation of a tool call, its State read as a shell
// operation's.
type Operation struct {
	ID     string     `json:"ID"`
	Type   string     `json:"Type"`
	Status string     `json:"Status"`
	State  ShellState `json:"State"`
}

// ShellState is the State of a shell operation.
type ShellState struct {
	ProcessGroupID int     `json:"ProcessGroupID"`
	Result         *Result `json:"Result"`
	TerminalError  string  `json:"TerminalError"`
	OutPath        string  `json:"OutPath"`
	ErrPath        string  `json:"ErrPath"`
}

// Result is a shell operation's result.
type Result struct {
	ExitCode int `json:"ExitCode"`
}

// What a line is, as Read reads it.
type Outcome int

const (
	// Blank: a line of white space, nothing.
	Blank Outcome = iota
	// Record: the Line holds a record (one whose Kind is none, as a null
	// line's, gives nothing).
	Record
	// ErrorRecord: {"type":"error"}: the Line's Message.
	ErrorRecord
	// Unparseable: not a record (not JSON, or not one of the envelope's
	// shape): uagent's "unparseable runner output".
	Unparseable
	// Failed: the Data of the record's kind does not decode: the Line's
	// RecordedAt is the record's, the message says why.
	Failed
)

// Reader reads records. Its Line, and the memory of its slices, serve the
// next line: what a caller keeps of one, it copies. A Reader is not safe
// for concurrent use.
type Reader struct {
	line Line
	// slow reads every line with encoding/json alone: the model the fast
	// reading is held to.
	slow bool
}

// lineCodec is the parser's strict field table of a Line.
var lineCodec = jsonparse.NewStrictCodec(reflect.TypeFor[Line]())

// Read reads a line of events.jsonl (without its newline). The Line is
// valid until the next Read; with Failed, the string is the message of the
// runner_error uagent makes of the line.
func (r *Reader) Read(text []byte) (*Line, Outcome, string) {
	if len(bytes.TrimSpace(text)) == 0 {
		return nil, Blank, ""
	}
	l := &r.line
	outs, ops := l.Data.Response.Output[:0], l.Data.Operations[:0]
	*l = Line{}
	l.Data.Response.Output, l.Data.Operations = outs, ops
	err := errSlow
	if !r.slow {
		err = jsonparse.Parse(lineCodec, text, l)
	}
	if err != nil {
		// A value of another type in a field the parser read is one in
		// encoding/json's reading too: the first reading fails.
		if !jsonparse.IsFault(err) {
			*l = Line{}
			if json.Unmarshal(text, l) == nil {
				return r.outcome(l)
			}
		}
		*l = Line{}
		outcome, failure := r.byKind(text, l)
		return l, outcome, failure
	}
	return r.outcome(l)
}

var errSlow = errors.New("read by encoding/json alone")

func (r *Reader) outcome(l *Line) (*Line, Outcome, string) {
	if l.Type == "error" {
		return l, ErrorRecord, ""
	}
	return l, Record, ""
}

// decode is json.Unmarshal(text, v) for the strict codec c of v's type:
// the parser's reading where it reads text, else encoding/json's.
func (r *Reader) decode(c *jsonparse.StructCodec, text jsonparse.Raw, v any) error {
	if !r.slow && jsonparse.Parse(c, []byte(text), v) == nil {
		return nil
	}
	reflect.ValueOf(v).Elem().SetZero()
	return json.Unmarshal([]byte(text), v)
}

// byKind is uagent's second reading of a line that does not fit Line: the
// envelope with Data as its text, then Data by its kind, each output by its
// type (one that does not decode is left out), each shell operation's
// state (one that does not decode is empty).
func (r *Reader) byKind(text []byte, l *Line) (Outcome, string) {
	var item itemDTO
	if r.decode(itemCodec, jsonparse.Raw(text), &item) != nil {
		return Unparseable, ""
	}
	l.Sequence, l.RecordedAt, l.Kind, l.Type, l.Message = item.Sequence, item.RecordedAt, item.Kind, item.Type, item.Message
	if item.Type == "error" {
		return ErrorRecord, ""
	}
	fail := func(what string, err error) (Outcome, string) {
		return Failed, fmt.Sprintf("failed to decode %s: %v", what, err)
	}
	d := &l.Data
	switch item.Kind {
	case "input":
		var in inputDTO
		if err := r.decode(inputCodec, item.Data, &in); err != nil {
			return fail("input", err)
		}
		d.ID, d.Kind, d.Payload = in.ID, in.Kind, in.Payload
	case "turn":
		var t turnDTO
		_ = r.decode(turnCodec, item.Data, &t) // an ID of another type leaves it empty
		d.ID = t.ID
	case "model_response":
		var m modelResponseDTO
		if err := r.decode(responseCodec, item.Data, &m); err != nil {
			return fail("model_response", err)
		}
		d.TurnID = m.TurnID
		d.Response = Response{Stop: m.Response.Stop, Usage: m.Response.Usage, Failure: m.Response.Failure}
		for _, o := range m.Response.Output {
			out := Output{Type: o.Type}
			var err error
			switch o.Type {
			case "tool_call":
				var c toolCallDTO
				err = r.decode(toolCallCodec, o.Data, &c)
				out.Data.CallID, out.Data.Name, out.Data.Arguments = c.CallID, c.Name, c.Arguments
			case "message":
				var m messageDTO
				err = r.decode(messageCodec, o.Data, &m)
				out.Data.Role, out.Data.Text, out.Data.Phase = m.Role, m.Text, m.Phase
			case "reasoning":
				var s reasoningDTO
				err = r.decode(reasoningCodec, o.Data, &s)
				out.Data.Summary = s.Summary
			}
			if err == nil {
				d.Response.Output = append(d.Response.Output, out)
			}
		}
	case "tool_call_status":
		var s toolCallStatusDTO
		if err := r.decode(statusCodec, item.Data, &s); err != nil {
			return fail("tool_call_status", err)
		}
		d.TurnID, d.CallID, d.Status = s.TurnID, s.CallID, s.Status
		for _, o := range s.Operations {
			op := Operation{ID: o.ID, Type: o.Type, Status: o.Status}
			if o.Type == "shell" && r.decode(shellStateCodec, o.State, &op.State) != nil {
				op.State = ShellState{}
			}
			d.Operations = append(d.Operations, op)
		}
	}
	return Record, ""
}

// The strict field tables of the second reading's shapes.
var (
	itemCodec       = jsonparse.NewStrictCodec(reflect.TypeFor[itemDTO]())
	inputCodec      = jsonparse.NewStrictCodec(reflect.TypeFor[inputDTO]())
	turnCodec       = jsonparse.NewStrictCodec(reflect.TypeFor[turnDTO]())
	responseCodec   = jsonparse.NewStrictCodec(reflect.TypeFor[modelResponseDTO]())
	toolCallCodec   = jsonparse.NewStrictCodec(reflect.TypeFor[toolCallDTO]())
	messageCodec    = jsonparse.NewStrictCodec(reflect.TypeFor[messageDTO]())
	reasoningCodec  = jsonparse.NewStrictCodec(reflect.TypeFor[reasoningDTO]())
	statusCodec     = jsonparse.NewStrictCodec(reflect.TypeFor[toolCallStatusDTO]())
	shellStateCodec = jsonparse.NewStrictCodec(reflect.TypeFor[ShellState]())
)

// The shapes of the second reading, named as uagent names them (the
// names are in encoding/json's messages).
type (
	itemDTO struct {
		Sequence   int64         `json:"Sequence"`
		RecordedAt time.Time     `json:"RecordedAt"`
		Kind       string        `json:"Kind"`
		Data       jsonparse.Raw `json:"Data"`
		Type       string        `json:"type"`
		Message    string        `json:"message"`
	}
	inputDTO struct {
		ID      string        `json:"ID"`
		Kind    string        `json:"Kind"`
		Payload jsonparse.Raw `json:"Payload"`
	}
	turnDTO struct {
		ID string `json:"ID"`
	}
	modelResponseDTO struct {
		TurnID   string `json:"TurnID"`
		Response struct {
			Stop    string          `json:"Stop"`
			Output  []outputItemDTO `json:"Output"`
			Usage   Usage           `json:"Usage"`
			Failure *Failure        `json:"Failure"`
		} `json:"Response"`
	}
	outputItemDTO struct {
		Type string        `json:"Type"`
		Data jsonparse.Raw `json:"Data"`
	}
	toolCallDTO struct {
		CallID    string `json:"CallID"`
		Name      string `json:"Name"`
		Arguments string `json:"Arguments"`
	}
	messageDTO struct {
		Role  string `json:"Role"`
		Text  string `json:"Text"`
		Phase string `json:"Phase"`
	}
	reasoningDTO struct {
		Summary []string `json:"Summary"`
	}
	toolCallStatusDTO struct {
		TurnID     string         `json:"TurnID"`
		CallID     string         `json:"CallID"`
		Status     CallStatus     `json:"Status"`
		Operations []operationDTO `json:"Operations"`
	}
	operationDTO struct {
		ID     string        `json:"ID"`
		Type   string        `json:"Type"`
		Status string        `json:"Status"`
		State  jsonparse.Raw `json:"State"`
	}
	controlDTO struct {
		Mode       string `json:"Mode"`
		Reason     string `json:"Reason"`
		Parameters struct {
			ReasoningEffort string `json:"ReasoningEffort"`
		} `json:"Parameters"`
	}
)

// Control reads a control input's Payload as uagent does; the error's text
// is encoding/json's.
func Control(payload jsonparse.Raw) (mode, effort, reason string, err error) {
	var c controlDTO
	if err := json.Unmarshal([]byte(payload), &c); err != nil {
		return "", "", "", err
	}
	return c.Mode, c.Parameters.ReasoningEffort, c.Reason, nil
}

// Text is a user's or developer's message text as uagent reads it from a
// Payload (one JSON value, or none, as a reading gives it): the string
// when the Payload decodes as one (null as ""), else the Payload's JSON
// text.
func Text(payload jsonparse.Raw) string {
	if len(payload) > 0 && payload[0] == '"' {
		if s, err := jsonparse.Unquote([]byte(payload)); err == nil {
			return s
		}
	}
	var s string
	if json.Unmarshal([]byte(payload), &s) != nil {
		return string(payload)
	}
	return s
}
