// Package otelstream turns uagent runs into OpenTelemetry traces, so that
// runs show up in the tracing backends teams already watch agents with
// (Jaeger, Grafana Tempo, Honeycomb, Langfuse, Arize Phoenix, Datadog),
// through an OpenTelemetry Collector or any OTLP endpoint.
//
// The spans follow the OpenTelemetry semantic conventions for generative
// AI as published in semantic conventions v1.41.0 (the package
// go.opentelemetry.io/otel/semconv/v1.41.0); those conventions have the
// status Development, so names may change in later versions:
//
//   - one root span per run, "invoke_agent uagent", from run_started to
//     run_finished: gen_ai.operation.name invoke_agent, gen_ai.agent.name,
//     gen_ai.provider.name, gen_ai.request.model, gen_ai.conversation.id
//     (the session), uagent.run_id, uagent.effort, the run's total token
//     usage, and an error status with error.type (the run's status) when
//     the status is not ok;
//   - one "chat {model}" span per model turn the run's fold paired (from
//     its turn_started to the model_responded that closed it; a turn
//     restarted by a second turn_started starts at the second):
//     gen_ai.usage.input_tokens, output_tokens, cache_read.input_tokens,
//     cache_creation.input_tokens and reasoning.output_tokens,
//     gen_ai.response.finish_reasons from stop, and an error status when
//     the response carries a failure;
//   - one "execute_tool {name}" span per tool operation the fold paired
//     (its first tool_started to the tool_finished that closed it):
//     gen_ai.tool.name, gen_ai.tool.call.id, uagent.tool.label,
//     uagent.tool.op_type, uagent.tool.detail, and an error status when ok
//     is false;
//   - preflight warnings, runner errors, control inputs and calls that
//     failed before an operation started (uagent.tool_call_failed) are
//     span events of the root span.
//
// The chat and execute_tool spans are exactly the fold's intervals
// ([stream.Fold.Turns] and [stream.Fold.Tools]): as many, with the same
// start and end times, as the stats are computed from. A span is made when
// its interval closes, or at the end of the run for those still open.
//
// Message texts, tool arguments and the answer may be sensitive: they are
// left out unless [WithContent] asks for them, and then recorded as the
// conventions say (gen_ai.input.messages and gen_ai.output.messages on the
// root span, gen_ai.tool.call.arguments on tool spans).
//
// Times are the events' own, so a recording exported tomorrow shows when
// the run really ran. With [IDGenerator] installed in the TracerProvider,
// the trace ID is derived from the run ID and each span's ID from what it
// stands for, so exporting the same run twice gives the same trace, and a
// live export and a later export of the recording agree.
//
// A stream cut off before run_finished still exports: its open spans end
// at the last time observed, with an error status saying so.
package otelstream

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/uagentkit/stream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// SemconvVersion is the version of the semantic conventions the spans
// follow.
const SemconvVersion = "1.41.0"

// Attribute keys of this package's own, for what the conventions do not
// name.
const (
	RunIDKey      = attribute.Key("uagent.run_id")
	EffortKey     = attribute.Key("uagent.effort")
	WorkspaceKey  = attribute.Key("uagent.workspace")
	ToolLabelKey  = attribute.Key("uagent.tool.label")
	ToolOpTypeKey = attribute.Key("uagent.tool.op_type")
	ToolDetailKey = attribute.Key("uagent.tool.detail")
	TurnKey       = attribute.Key("uagent.turn")
)

// Option configures an [Exporter].
type Option func(*Exporter)

// WithContent records message texts, tool arguments and the answer, which
// are left out by default.
func WithContent() Option { return func(x *Exporter) { x.content = true } }

// Exporter turns the lines of one run, as they arrive, into spans. Feed it
// with Add (DTO values, as the stream package's Decoder and Run.Events give
// them) or AddEvent (domain events, next to the writer's Sink), then call
// End. An Exporter is not safe for concurrent use.
type Exporter struct {
	tracer  trace.Tracer
	content bool

	fold                   stream.Fold // the run's one fold: the spans are its intervals
	runID, model, provider string
	root                   trace.Span
	rootCtx                context.Context
	ended                  bool
	inputs                 []message
	args                   map[int]string // with content: each call's arguments, by call index
}

// message is a chat message as the conventions record it.
type message struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

type part struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

// New returns an Exporter that creates its spans with tp.
func New(tp trace.TracerProvider, opts ...Option) *Exporter {
	x := &Exporter{tracer: tp.Tracer("github.com/uagentkit/stream/otelstream", trace.WithSchemaURL(semconv.SchemaURL))}
	for _, o := range opts {
		o(x)
	}
	return x
}

// Epoch is the time a span or event gets for an event whose time is zero
// (0001-01-01, which a hostile or broken stream may carry): OTLP counts time
// from the Unix epoch, and the SDK would put the time of the export in its
// place. Every other time is the event's own.
var Epoch = time.Unix(0, 0).UTC()

// stamp is the timestamp option for t, Epoch for a zero t.
func stamp(t time.Time) trace.SpanEventOption {
	if t.IsZero() {
		t = Epoch
	}
	return trace.WithTimestamp(t)
}

// start begins a span with a deterministic ID key (see IDGenerator).
func (x *Exporter) start(parent context.Context, key, name string, at time.Time, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	ctx := context.WithValue(parent, idKey{}, ids{run: x.runID, span: key})
	return x.tracer.Start(ctx, name, stamp(at), trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

func (x *Exporter) startRoot(d stream.RunStartedDTO, at time.Time) {
	x.runID, x.model, x.provider = d.RunID, d.Model, d.Provider
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameInvokeAgent, semconv.GenAIAgentName("uagent"),
		RunIDKey.String(d.RunID)}
	for _, kv := range []struct {
		key attribute.Key
		v   string
	}{{semconv.GenAIProviderNameKey, d.Provider}, {semconv.GenAIRequestModelKey, d.Model},
		{semconv.GenAIConversationIDKey, d.SessionID}, {EffortKey, d.Effort}, {WorkspaceKey, d.Workspace}} {
		if kv.v != "" {
			attrs = append(attrs, kv.key.String(kv.v))
		}
	}
	x.rootCtx, x.root = x.start(context.Background(), "run", "invoke_agent uagent", at, trace.SpanKindInternal, attrs...)
}

// AddEvent adds a domain event, as the uagent writer emits it to its Sink.
func (x *Exporter) AddEvent(e stream.Event) {
	if dto, ok := stream.EventToDTO(e); ok {
		x.Add(dto)
	}
}

// Add adds one line of the run, a DTO value as the Decoder returns it.
// Lines after run_finished, and values that are not DTOs, are ignored. A
// run_started after the run's ends its trace (as End("") would) and begins
// the next run's: a session stream of the harness, many runs in one
// stream, is a trace per run.
func (x *Exporter) Add(dto any) {
	if _, ok := dto.(stream.RunStartedDTO); ok && x.root != nil {
		x.End("")
		*x = Exporter{tracer: x.tracer, content: x.content}
	}
	if x.ended {
		return
	}
	e, ok := stream.DTOToEvent(dto)
	if !ok {
		return
	}
	at := e.OccurredAt()
	if d, ok := dto.(stream.RunStartedDTO); ok && x.root == nil {
		x.startRoot(d, at)
	}
	if x.root == nil { // no run_started came first
		x.startRoot(stream.RunStartedDTO{}, at)
	}
	ch := x.fold.Add(dto, nil)
	x.annotate(dto, at)
	f := &x.fold
	if d, ok := dto.(stream.ToolCalledDTO); ok && x.content {
		if _, seen := x.args[ch.CallIndex]; !seen {
			if x.args == nil {
				x.args = map[int]string{}
			}
			x.args[ch.CallIndex] = d.Arguments
		}
	}
	if ch.TurnStep == stream.Closed {
		x.chatSpan(ch.TurnIndex, f.Turn(ch.TurnIndex), "")
	}
	if ch.ToolStep == stream.Closed {
		x.toolSpan(f.Tool(ch.ToolIndex), "")
	}
	if ch.CallStep != 0 {
		x.callEvent(f.Call(ch.CallIndex))
	}
	if d, ok := dto.(stream.RunFinishedDTO); ok {
		x.finish(at, stream.Status(d.Summary.Status), "")
	}
}

// callEvent records a call that failed before an operation started as an
// event of the root span: it has no interval, so no span of its own.
func (x *Exporter) callEvent(call stream.ToolCall) {
	if call.Finished && !call.OK && call.Ops == 0 {
		x.root.AddEvent("uagent.tool_call_failed", stamp(call.FinishedAt), trace.WithAttributes(
			semconv.GenAIToolName(call.Name), semconv.GenAIToolCallID(call.CallID), ToolLabelKey.String(call.Label),
			ToolDetailKey.String(call.Detail)))
	}
}

// annotate records what a line adds to the root span: notices and control
// inputs as span events, messages for the content.
func (x *Exporter) annotate(dto any, at time.Time) {
	switch d := dto.(type) {
	case stream.PreflightWarningDTO:
		x.root.AddEvent("uagent.preflight_warning", stamp(at),
			trace.WithAttributes(attribute.String("uagent.code", d.Code), attribute.String("uagent.message", d.Message)))
	case stream.RunnerErrorDTO:
		x.root.AddEvent("uagent.runner_error", stamp(at), trace.WithAttributes(attribute.String("uagent.message", d.Message)))
	case stream.ControlInputDTO:
		x.root.AddEvent("uagent.control_input", stamp(at), trace.WithAttributes(attribute.String("uagent.mode", d.Mode),
			attribute.String("uagent.effort", d.Effort), attribute.String("uagent.reason", d.Reason)))
	case stream.UserMessageDTO:
		x.inputs = append(x.inputs, message{Role: "user", Parts: []part{{"text", d.Text}}})
	case stream.DeveloperMessageDTO:
		x.inputs = append(x.inputs, message{Role: "system", Parts: []part{{"text", d.Text}}})
	}
}

// chatSpan makes the span of the i-th model turn the fold paired. cutOff,
// when not empty, says why it ends without its model_responded.
func (x *Exporter) chatSpan(i int, iv stream.TurnInterval, cutOff string) {
	_, s := x.start(x.rootCtx, fmt.Sprintf("turn/%d", i), "chat "+x.model, iv.Start, trace.SpanKindClient,
		semconv.GenAIOperationNameChat, semconv.GenAIRequestModel(x.model), semconv.GenAIProviderNameKey.String(x.provider),
		TurnKey.Int(iv.Turn))
	if !iv.Open {
		s.SetAttributes(usage(iv.Usage)...)
		if iv.Stop != "" {
			s.SetAttributes(semconv.GenAIResponseFinishReasons(iv.Stop))
		}
	}
	switch {
	case iv.Failure != "":
		s.SetStatus(codes.Error, iv.Failure)
		s.SetAttributes(semconv.ErrorTypeKey.String("model_failure"))
	case cutOff != "":
		s.SetStatus(codes.Error, cutOff)
	}
	s.End(stamp(iv.End))
}

// toolSpan makes the span of an operation the fold paired.
func (x *Exporter) toolSpan(iv stream.ToolInterval, cutOff string) {
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(iv.Name), semconv.GenAIToolCallID(iv.CallID),
		ToolLabelKey.String(iv.Label)}
	if iv.OpType != "" {
		attrs = append(attrs, ToolOpTypeKey.String(iv.OpType))
	}
	if args := x.args[iv.Call]; args != "" {
		attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(args))
	}
	_, s := x.start(x.rootCtx, "op/"+iv.OpID, "execute_tool "+iv.Name, iv.Start, trace.SpanKindInternal, attrs...)
	switch {
	case iv.Open:
		s.SetStatus(codes.Error, cutOff)
	case !iv.OK:
		s.SetAttributes(ToolDetailKey.String(iv.Detail))
		s.SetStatus(codes.Error, iv.Detail)
		s.SetAttributes(semconv.ErrorTypeKey.String("tool_failed"))
	default:
		s.SetAttributes(ToolDetailKey.String(iv.Detail))
	}
	s.End(stamp(iv.End))
}

// finish makes the spans of what the fold still has open, then ends the
// root at t. status is the run's; cutOff, when not empty, says why the run
// ends without run_finished.
func (x *Exporter) finish(t time.Time, status stream.Status, cutOff string) {
	f := &x.fold
	open := cmp.Or(cutOff, "still running when the run finished")
	for i, iv := range f.Turns() {
		if iv.Open {
			x.chatSpan(i, iv, open)
		}
	}
	for _, iv := range f.Tools() {
		if iv.Open {
			x.toolSpan(iv, open)
		}
	}
	r := x.root
	sum := f.Summary()
	r.SetAttributes(usage(sum.Stats.Tokens.Tokens())...)
	if x.content {
		if b, err := json.Marshal(x.inputs); err == nil && len(x.inputs) > 0 {
			r.SetAttributes(semconv.GenAIInputMessagesKey.String(string(b)))
		}
		if sum.Answer != "" {
			b, _ := json.Marshal([]message{{Role: "assistant", Parts: []part{{"text", sum.Answer}}}})
			r.SetAttributes(semconv.GenAIOutputMessagesKey.String(string(b)))
		}
	}
	switch {
	case cutOff != "":
		r.SetStatus(codes.Error, cutOff)
		r.SetAttributes(semconv.ErrorTypeKey.String(string(status)))
	case status != stream.StatusOK:
		r.SetStatus(codes.Error, "the run's status is "+string(status))
		r.SetAttributes(semconv.ErrorTypeKey.String(string(status)))
	}
	r.End(stamp(t))
	x.ended = true
}

// End ends the run. A run whose run_finished came is already ended; a
// stream cut off before it ends at the latest time of its lines, its open
// spans with an error status saying the stream was cut off. status is the
// run's status when it is known from elsewhere (a process's outcome), or
// "" for error. End may be called more than once.
func (x *Exporter) End(status stream.Status) {
	if x.ended || x.root == nil {
		x.ended = true
		return
	}
	_, last := x.fold.Times()
	x.finish(last, cmp.Or(status, stream.StatusError), "the stream was cut off before run_finished")
}

// Export reads a recorded stream and exports it as one trace (a trace per
// run of a session stream: see Exporter.Add). Lines that
// cannot be decoded are skipped; an error of r is returned, after the spans
// of what was read have been ended.
func Export(r io.Reader, tp trace.TracerProvider, opts ...Option) error {
	x := New(tp, opts...)
	dec := stream.NewDecoder(r)
	var err error
	for dto, derr := range dec.All() {
		if derr != nil {
			if _, ok := errors.AsType[*stream.LineError](derr); !ok {
				err = derr
			}
			continue
		}
		x.Add(dto)
	}
	x.End("")
	return err
}

// usage is the token usage as the conventions name it. Input includes the
// cached and cache-write tokens, output the reasoning ones, as in uagent.
func usage(u stream.Tokens) []attribute.KeyValue {
	return []attribute.KeyValue{
		semconv.GenAIUsageInputTokensKey.Int64(u.InputTokens),
		semconv.GenAIUsageOutputTokensKey.Int64(u.OutputTokens),
		semconv.GenAIUsageCacheReadInputTokensKey.Int64(u.CachedInputTokens),
		semconv.GenAIUsageCacheCreationInputTokensKey.Int64(u.CacheWriteInputTokens),
		semconv.GenAIUsageReasoningOutputTokensKey.Int64(u.ReasoningTokens),
	}
}

// idKey carries, in the context a span starts with, what its IDs are
// derived from.
type idKey struct{}

type ids struct{ run, span string }

// IDGenerator is an ID generator for sdktrace.WithIDGenerator: for the
// spans of an Exporter whose run has an ID, the trace ID is derived from
// the run ID and each span ID from the run ID and what the span stands for
// (the run, the n-th turn of the fold, an operation's op_id), so that the
// same run always gives the same trace. Other spans get random IDs. Its
// zero value is ready; it is safe for concurrent use.
type IDGenerator struct{}

// NewIDs returns a trace ID and a span ID for a root span.
func (IDGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	var tid trace.TraceID
	if v, ok := ctx.Value(idKey{}).(ids); ok && v.run != "" {
		h := sha256.Sum256([]byte("uagent trace\x00" + v.run))
		copy(tid[:], h[:])
	} else {
		rand.Read(tid[:])
	}
	return tid, IDGenerator{}.NewSpanID(ctx, tid)
}

// NewSpanID returns a span ID for a span of the trace.
func (IDGenerator) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	var sid trace.SpanID
	if v, ok := ctx.Value(idKey{}).(ids); ok && v.run != "" {
		h := sha256.Sum256([]byte("uagent span\x00" + v.run + "\x00" + v.span))
		copy(sid[:], h[:])
	} else {
		rand.Read(sid[:])
	}
	return sid
}
