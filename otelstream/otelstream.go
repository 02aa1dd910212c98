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
	"fmt"
	"io"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/uahstream"
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

// Exporter turns the lines of a stream, as they arrive, into spans: a
// trace per run. Feed it the Lines its session folded (a
// uahstream.Reader's, or execstream.Run.Lines; next to the writer's Sink,
// uahstream.Session.AddEvent's), then call End. It keeps no fold of its
// own: the spans are the run fold's intervals, as each Line says them. An
// Exporter is not safe for concurrent use.
type Exporter struct {
	tracer  trace.Tracer
	content bool
	run                      // the run being exported
	last    *uahstream.Ended // the run the stream's end left open, ended by End
}

// run is what the Exporter keeps of the run it exports.
type run struct {
	runID, model, provider string
	root                   trace.Span
	rootCtx                context.Context
	inputs                 []message
	args                   map[int]string // with content: each call's arguments, by call index
	finished               bool           // its run_finished came: what follows is not its
	finishAt               time.Time      // that run_finished's at
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

// epoch is the time a span or event gets for an event whose time is zero
// (0001-01-01, which a hostile or broken stream may carry): OTLP counts
// time from the Unix epoch, and the SDK would put the time of the export
// in its place. Every other time is the event's own.
var epoch = time.Unix(0, 0).UTC()

// stamp is the timestamp option for t, the epoch for a zero t.
func stamp(t time.Time) trace.SpanEventOption {
	if t.IsZero() {
		t = epoch
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

// Add adds one line of the stream, as its session folded it. A line that
// begins a run begins its trace (of a run's stream, its first line; a
// run without run_started has a root span all the same); a line that
// ends one ends its trace, its open spans cut off; the lines between the
// runs of a session stream have none. The stream's end leaves the run
// still open to End, which knows its status.
func (x *Exporter) Add(l uahstream.Line) {
	if d, ok := l.DTO.(stream.RunFinishedDTO); ok && x.root != nil && !x.finished {
		x.finished, x.finishAt = true, d.At
	}
	if e := l.Ended; e != nil && !l.End {
		x.finishRun(e, "")
	}
	if l.Started {
		d, _ := l.DTO.(stream.RunStartedDTO)
		x.startRoot(d, lineTime(l))
	}
	if e := l.Ended; e != nil && l.End {
		x.last = e
	}
	if x.root == nil || l.Err != nil || l.DTO == nil || x.finished {
		return
	}
	x.annotate(l.DTO, lineTime(l))
	if d, ok := l.DTO.(stream.ToolCalledDTO); ok && x.content {
		if _, seen := x.args[l.Step.CallIndex]; !seen {
			if x.args == nil {
				x.args = map[int]string{}
			}
			x.args[l.Step.CallIndex] = d.Arguments
		}
	}
	if l.Step.TurnStep == stream.StepClosed {
		x.chatSpan(l.Step.TurnIndex, l.Turn, "")
	}
	if l.Step.ToolStep == stream.StepClosed {
		x.toolSpan(l.Tool, "")
	}
	if l.Step.CallStep != 0 {
		x.callEvent(l.Call)
	}
}

// lineTime is a line's at.
func lineTime(l uahstream.Line) time.Time {
	_, at, _ := stream.HeaderOf(l.DTO)
	return at
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

// finishRun ends the trace of a run that ended: the spans of what its
// fold still has open, then the root, at its run_finished (with its
// status) or, cut off, at the latest time of its lines (with status, or
// error).
func (x *Exporter) finishRun(e *uahstream.Ended, status stream.Status) {
	if x.root == nil {
		return
	}
	f := e.Fold
	cutOff := ""
	at := time.Time{}
	if e.Recorded != nil {
		status, at = stream.Status(e.Recorded.Status), x.finishAt
	} else {
		cutOff = "the stream was cut off before run_finished"
		_, at = f.Times()
		status = cmp.Or(status, stream.StatusError)
	}
	open := cmp.Or(cutOff, "still running when the run finished")
	for i, iv := range f.Turns() {
		if iv.Open {
			x.chatSpan(i, iv, open)
		}
	}
	for _, iv := range f.Running() {
		x.toolSpan(iv, open)
	}
	r := x.root
	sum := e.Summary
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
	r.End(stamp(at))
	x.run = run{}
}

// End ends the run the stream's end left open: a run whose run_finished
// came ends at it; one cut off before it ends at the latest time of its
// lines, its open spans with an error status saying the stream was cut
// off. status is the run's status when it is known from elsewhere (a
// process's outcome), or "" for error. End may be called more than once.
func (x *Exporter) End(status stream.Status) {
	if x.last != nil {
		x.finishRun(x.last, status)
		x.last = nil
	}
}

// Export reads a recorded stream and exports it as one trace (a trace per
// run of a session stream: see Exporter.Add). Lines that
// cannot be decoded are skipped; an error of r is returned, after the spans
// of what was read have been ended.
func Export(r io.Reader, tp trace.TracerProvider, opts ...Option) error {
	x := New(tp, opts...)
	rd := uahstream.NewReader(r)
	for l := range rd.Lines() {
		x.Add(l)
	}
	x.End("")
	return rd.Err()
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
