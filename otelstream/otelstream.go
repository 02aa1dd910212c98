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
//   - one "chat {model}" span per model turn (turn_started to
//     model_responded): gen_ai.usage.input_tokens, output_tokens,
//     cache_read.input_tokens, cache_creation.input_tokens and
//     reasoning.output_tokens, gen_ai.response.finish_reasons from stop,
//     and an error status when the response carries a failure;
//   - one "execute_tool {name}" span per tool operation (tool_started to
//     tool_finished): gen_ai.tool.name, gen_ai.tool.call.id, uagent.tool.label,
//     uagent.tool.op_type, uagent.tool.detail, and an error status when ok is
//     false; a call that failed before an operation started is a
//     zero-length span with an error status;
//   - preflight warnings, runner errors and control inputs are span events
//     of the root span.
//
// Message texts, tool arguments and the answer may be sensitive: they are
// left out unless [WithContent] asks for them, and then recorded as the
// conventions say (gen_ai.input.messages and gen_ai.output.messages on the
// root and chat spans, gen_ai.tool.call.arguments on tool spans).
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

	runID, model, provider string
	root                   trace.Span
	rootCtx                context.Context
	rootOpen, ended        bool
	last                   time.Time
	tokens                 stream.Tokens

	turns           int
	turn            *openTurn
	ops             map[string]trace.Span // op_id → span; the first start wins
	calls           map[string]call       // call_id → what tool_called said
	inputs, outputs []message
	answer          string
}

type openTurn struct {
	span  trace.Span
	index int
	turn  int
}

type call struct{ name, arguments string }

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
	x := &Exporter{
		tracer: tp.Tracer("github.com/uagentkit/stream/otelstream", trace.WithSchemaURL(semconv.SchemaURL)),
		ops:    map[string]trace.Span{},
		calls:  map[string]call{},
	}
	for _, o := range opts {
		o(x)
	}
	return x
}

// observe keeps the latest time seen, where open spans end if the stream
// is cut off.
func (x *Exporter) observe(t time.Time) {
	if t.After(x.last) {
		x.last = t
	}
}

// start begins a span with a deterministic ID key (see IDGenerator).
func (x *Exporter) start(parent context.Context, key, name string, at time.Time, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	ctx := context.WithValue(parent, idKey{}, ids{run: x.runID, span: key})
	return x.tracer.Start(ctx, name, trace.WithTimestamp(at), trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

// ensureRoot starts the root span if no run_started came first.
func (x *Exporter) ensureRoot(at time.Time) {
	if x.root == nil {
		x.startRoot(stream.RunStartedDTO{}, at)
	}
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
	x.rootOpen = true
}

// AddEvent adds a domain event, as the uagent writer emits it to its Sink.
func (x *Exporter) AddEvent(e stream.Event) {
	if dto, ok := stream.EventToDTO(e); ok {
		x.Add(dto)
	}
}

// Add adds one line of the run, a DTO value as the Decoder returns it.
// Lines after run_finished, and values that are not DTOs, are ignored.
func (x *Exporter) Add(dto any) {
	if x.ended {
		return
	}
	switch d := dto.(type) {
	case stream.RunStartedDTO:
		x.observe(d.At)
		if x.root == nil {
			x.startRoot(d, d.At)
		}
	case stream.PreflightWarningDTO:
		x.observe(d.At)
		x.ensureRoot(d.At)
		x.root.AddEvent("uagent.preflight_warning", trace.WithTimestamp(d.At),
			trace.WithAttributes(attribute.String("uagent.code", d.Code), attribute.String("uagent.message", d.Message)))
	case stream.RunnerErrorDTO:
		x.observe(d.At)
		x.ensureRoot(d.At)
		x.root.AddEvent("uagent.runner_error", trace.WithTimestamp(d.At), trace.WithAttributes(attribute.String("uagent.message", d.Message)))
	case stream.ControlInputDTO:
		x.observe(d.At)
		x.ensureRoot(d.At)
		x.root.AddEvent("uagent.control_input", trace.WithTimestamp(d.At), trace.WithAttributes(attribute.String("uagent.mode", d.Mode),
			attribute.String("uagent.effort", d.Effort), attribute.String("uagent.reason", d.Reason)))
	case stream.UserMessageDTO:
		x.observe(d.At)
		x.ensureRoot(d.At)
		x.inputs = append(x.inputs, message{Role: "user", Parts: []part{{"text", d.Text}}})
	case stream.DeveloperMessageDTO:
		x.observe(d.At)
		x.ensureRoot(d.At)
		x.inputs = append(x.inputs, message{Role: "system", Parts: []part{{"text", d.Text}}})
	case stream.TurnStartedDTO:
		x.observe(d.At)
		x.ensureRoot(d.At)
		if x.turn != nil { // a second turn_started replaces the start, as in the stats
			x.turn.span.End(trace.WithTimestamp(d.At))
		}
		x.turns++
		_, span := x.start(x.rootCtx, fmt.Sprintf("turn/%d", x.turns), "chat "+x.model, d.At, trace.SpanKindClient,
			semconv.GenAIOperationNameChat, semconv.GenAIRequestModel(x.model), semconv.GenAIProviderNameKey.String(x.provider),
			TurnKey.Int(d.Turn))
		x.turn = &openTurn{span: span, index: x.turns, turn: d.Turn}
	case stream.ModelRespondedDTO:
		x.observe(d.At)
		x.ensureRoot(d.At)
		x.tokens = x.tokens.Add(tokens(d.Usage))
		if x.turn == nil {
			return
		}
		s := x.turn.span
		s.SetAttributes(usage(d.Usage)...)
		if d.Stop != "" {
			s.SetAttributes(semconv.GenAIResponseFinishReasons(d.Stop))
		}
		if d.Failure != "" {
			s.SetStatus(codes.Error, d.Failure)
			s.SetAttributes(semconv.ErrorTypeKey.String("model_failure"))
		}
		s.End(trace.WithTimestamp(d.At))
		x.turn = nil
	case stream.AssistantMessageDTO:
		x.observe(d.At)
		x.ensureRoot(d.At)
		if d.Final {
			x.answer = d.Text
		}
		x.outputs = append(x.outputs, message{Role: "assistant", Parts: []part{{"text", d.Text}}})
	case stream.ToolCalledDTO:
		x.observe(d.At)
		x.ensureRoot(d.At)
		if _, ok := x.calls[d.CallID]; !ok {
			x.calls[d.CallID] = call{name: d.Name, arguments: d.Arguments}
		}
	case stream.ToolStartedDTO:
		x.observe(d.At)
		x.ensureRoot(d.At)
		if _, ok := x.ops[d.OpID]; ok {
			return
		}
		x.ops[d.OpID] = x.toolSpan("op/"+d.OpID, d.At, d.CallID, d.Name, d.Label, d.OpType)
	case stream.ToolFinishedDTO:
		x.observe(d.At)
		x.ensureRoot(d.At)
		span, started := x.ops[d.OpID]
		switch {
		case started && span == nil: // finished already: the first finish counts
			return
		case started:
			x.ops[d.OpID] = nil
		case d.OpID == "": // failed before an operation started: a zero-length span
			span = x.toolSpan("call/"+d.CallID, d.At, d.CallID, d.Name, d.Label, d.OpType)
		default: // an operation that never started
			return
		}
		span.SetAttributes(ToolDetailKey.String(d.Detail))
		if !d.OK {
			span.SetStatus(codes.Error, d.Detail)
			span.SetAttributes(semconv.ErrorTypeKey.String("tool_failed"))
		}
		span.End(trace.WithTimestamp(d.At))
	case stream.ReasoningDTO:
		x.observe(d.At)
	case stream.RunFinishedDTO:
		x.observe(d.At)
		x.ensureRoot(d.At)
		x.finish(d.At, d.Summary.Status, "")
	}
}

func (x *Exporter) toolSpan(key string, at time.Time, callID, name, label, opType string) trace.Span {
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(name), semconv.GenAIToolCallID(callID),
		ToolLabelKey.String(label)}
	if opType != "" {
		attrs = append(attrs, ToolOpTypeKey.String(opType))
	}
	if c, ok := x.calls[callID]; ok && x.content && c.arguments != "" {
		attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(c.arguments))
	}
	_, span := x.start(x.rootCtx, key, "execute_tool "+name, at, trace.SpanKindInternal, attrs...)
	return span
}

// finish ends the open spans and the root at t. status is the run's;
// cutOff, when not empty, says why the spans end without their events.
func (x *Exporter) finish(t time.Time, status, cutOff string) {
	if x.turn != nil {
		if cutOff != "" {
			x.turn.span.SetStatus(codes.Error, cutOff)
		}
		x.turn.span.End(trace.WithTimestamp(t))
		x.turn = nil
	}
	for id, span := range x.ops {
		if span != nil {
			if cutOff != "" {
				span.SetStatus(codes.Error, cutOff)
			}
			span.End(trace.WithTimestamp(t))
			x.ops[id] = nil
		}
	}
	r := x.root
	r.SetAttributes(usage(tokensDTO(x.tokens))...)
	if x.content {
		if b, err := json.Marshal(x.inputs); err == nil && len(x.inputs) > 0 {
			r.SetAttributes(semconv.GenAIInputMessagesKey.String(string(b)))
		}
		if x.answer != "" {
			b, _ := json.Marshal([]message{{Role: "assistant", Parts: []part{{"text", x.answer}}}})
			r.SetAttributes(semconv.GenAIOutputMessagesKey.String(string(b)))
		}
	}
	switch {
	case cutOff != "":
		r.SetStatus(codes.Error, cutOff)
		r.SetAttributes(semconv.ErrorTypeKey.String(status))
	case status != string(stream.StatusOK):
		r.SetStatus(codes.Error, "the run's status is "+status)
		r.SetAttributes(semconv.ErrorTypeKey.String(status))
	}
	r.End(trace.WithTimestamp(t))
	x.ended = true
}

// End ends the run. A run whose run_finished came is already ended; a
// stream cut off before it ends at the latest time observed, its open spans
// with an error status saying the stream was cut off. status is the run's
// status when it is known from elsewhere (a process's outcome), or "" for
// "error". End may be called more than once.
func (x *Exporter) End(status string) {
	if x.ended || x.root == nil {
		x.ended = true
		return
	}
	if status == "" {
		status = string(stream.StatusError)
	}
	x.finish(x.last, status, "the stream was cut off before run_finished")
}

// Export reads a recorded stream and exports it as one trace. Lines that
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

func tokens(d stream.TokensDTO) stream.Tokens {
	return stream.Tokens{InputTokens: d.Input, CachedInputTokens: d.CachedInput, CacheWriteInputTokens: d.CacheWriteInput,
		OutputTokens: d.Output, ReasoningTokens: d.Reasoning}
}

func tokensDTO(t stream.Tokens) stream.TokensDTO {
	return stream.TokensDTO{Input: t.InputTokens, CachedInput: t.CachedInputTokens, CacheWriteInput: t.CacheWriteInputTokens,
		Output: t.OutputTokens, Reasoning: t.ReasoningTokens}
}

// usage is the token usage as the conventions name it. Input includes the
// cached and cache-write tokens, output the reasoning ones, as in uagent.
func usage(u stream.TokensDTO) []attribute.KeyValue {
	return []attribute.KeyValue{
		semconv.GenAIUsageInputTokensKey.Int64(u.Input),
		semconv.GenAIUsageOutputTokensKey.Int64(u.Output),
		semconv.GenAIUsageCacheReadInputTokensKey.Int64(u.CachedInput),
		semconv.GenAIUsageCacheCreationInputTokensKey.Int64(u.CacheWriteInput),
		semconv.GenAIUsageReasoningOutputTokensKey.Int64(u.Reasoning),
	}
}

// idKey carries, in the context a span starts with, what its IDs are
// derived from.
type idKey struct{}

type ids struct{ run, span string }

// IDGenerator returns an ID generator for sdktrace.WithIDGenerator: for the
// spans of an Exporter whose run has an ID, the trace ID is derived from
// the run ID and each span ID from the run ID and what the span stands for
// (the run, the n-th turn, an operation's op_id, a call's call_id), so
// that the same run always gives the same trace. Other spans get random
// IDs. It is safe for concurrent use.
func IDGenerator() interface {
	NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID)
	NewSpanID(ctx context.Context, traceID trace.TraceID) trace.SpanID
} {
	return idGenerator{}
}

type idGenerator struct{}

func (idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	var tid trace.TraceID
	if v, ok := ctx.Value(idKey{}).(ids); ok && v.run != "" {
		h := sha256.Sum256([]byte("uagent trace\x00" + v.run))
		copy(tid[:], h[:])
	} else {
		rand.Read(tid[:])
	}
	return tid, idGenerator{}.NewSpanID(ctx, tid)
}

func (idGenerator) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	var sid trace.SpanID
	if v, ok := ctx.Value(idKey{}).(ids); ok && v.run != "" {
		h := sha256.Sum256([]byte("uagent span\x00" + v.run + "\x00" + v.span))
		copy(sid[:], h[:])
	} else {
		rand.Read(sid[:])
	}
	return sid
}
