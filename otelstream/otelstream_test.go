package otelstream

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/runs"
	"github.com/uagentkit/stream/uahstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// record exports b and returns the ended spans.
func record(t *testing.T, b []byte, opts ...Option) []sdktrace.ReadOnlySpan {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr), sdktrace.WithIDGenerator(IDGenerator{}))
	require.NoError(t, Export(bytes.NewReader(b), tp, opts...))
	require.NoError(t, tp.Shutdown(t.Context()))
	return sr.Ended()
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

func byName(spans []sdktrace.ReadOnlySpan, prefix string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if strings.HasPrefix(s.Name(), prefix) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	return out
}

// streams are the bundled examples and, when present, the conformance
// streams recorded from the real runner.
func streams(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	conf, _ := filepath.Glob("../../shared/conformance/*.jsonl") // absent: the bundled run only
	for _, p := range append([]string{"../testdata/run.jsonl"}, conf...) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		out[filepath.Base(p)] = b
	}
	return out
}

func TestSpansOfARun(t *testing.T) {
	for name, b := range streams(t) {
		t.Run(name, func(t *testing.T) {
			spans := record(t, b)
			sum, err := stream.Summarize(bytes.NewReader(b))
			require.NoError(t, err)
			roots := byName(spans, "invoke_agent uagent")
			require.Len(t, roots, 1)
			root := roots[0]
			assert.False(t, root.Parent().IsValid(), "the root has no parent")
			ra := attrs(root)
			assert.Equal(t, "invoke_agent", ra["gen_ai.operation.name"].AsString())
			assert.Equal(t, sum.Summary.Provider, ra["gen_ai.provider.name"].AsString())
			assert.Equal(t, sum.Summary.Model, ra["gen_ai.request.model"].AsString())
			assert.Equal(t, sum.Summary.SessionID, ra["gen_ai.conversation.id"].AsString())
			assert.Equal(t, sum.Summary.RunID, ra["uagent.run_id"].AsString())
			assert.Equal(t, sum.Summary.Stats.Tokens.Input, ra["gen_ai.usage.input_tokens"].AsInt64())
			assert.Equal(t, sum.Summary.Stats.Tokens.Output, ra["gen_ai.usage.output_tokens"].AsInt64())
			assert.Equal(t, codes.Unset, root.Status().Code, "an ok run")

			// Times are the events' own.
			dtos := decodeAll(t, b)
			assert.True(t, root.StartTime().Equal(dtos[0].(stream.RunStartedDTO).At))
			assert.True(t, root.EndTime().Equal(dtos[len(dtos)-1].(stream.RunFinishedDTO).At))

			chats := byName(spans, "chat ")
			assert.Len(t, chats, sum.Summary.Stats.Turns, "one chat span per turn")
			var in, out int64
			for _, c := range chats {
				assert.Equal(t, root.SpanContext().SpanID(), c.Parent().SpanID())
				assert.Equal(t, "chat "+sum.Summary.Model, c.Name())
				a := attrs(c)
				in += a["gen_ai.usage.input_tokens"].AsInt64()
				out += a["gen_ai.usage.output_tokens"].AsInt64()
				assert.Equal(t, []string{"complete"}, a["gen_ai.response.finish_reasons"].AsStringSlice())
			}
			assert.Equal(t, sum.Summary.Stats.Tokens.Input, in, "the spans' tokens sum to the stats'")
			assert.Equal(t, sum.Summary.Stats.Tokens.Output, out)

			// Each span lasts what the stats' fold paired.
			var c stream.Fold
			for _, dto := range dtos {
				c.Add(dto, nil)
			}
			turns := c.Turns()
			require.Len(t, chats, len(turns))
			for i, iv := range turns {
				assert.True(t, chats[i].StartTime().Equal(iv.Start), "chat %d starts at its turn_started", i)
				assert.True(t, chats[i].EndTime().Equal(iv.End), "chat %d ends at its model_responded", i)
			}
			tools := byName(spans, "execute_tool ")
			ops := c.Tools()
			require.Len(t, tools, len(ops), "no call failed before its operation in these runs")
			for _, iv := range ops {
				found := slices.ContainsFunc(tools, func(s sdktrace.ReadOnlySpan) bool {
					return attrs(s)["gen_ai.tool.call.id"].AsString() == iv.CallID && s.StartTime().Equal(iv.Start) && s.EndTime().Equal(iv.End)
				})
				assert.True(t, found, "a span for operation %s from tool_started to tool_finished", iv.OpID)
			}
			assert.Len(t, tools, sum.Summary.Stats.ToolCalls)
			failed := 0
			for _, s := range tools {
				a := attrs(s)
				assert.Equal(t, "execute_tool", a["gen_ai.operation.name"].AsString())
				assert.NotEmpty(t, a["gen_ai.tool.call.id"].AsString())
				assert.Equal(t, "execute_tool "+a["gen_ai.tool.name"].AsString(), s.Name())
				assert.Contains(t, a, ToolLabelKey)
				if s.Status().Code == codes.Error {
					failed++
				}
			}
			assert.Equal(t, sum.Summary.Stats.FailedToolCalls, failed)
			assert.NotContains(t, attrs(root), attribute.Key("gen_ai.input.messages"), "no content by default")
		})
	}
}

func decodeAll(t *testing.T, b []byte) []any {
	var out []any
	for dto, err := range stream.NewDecoder(bytes.NewReader(b)).All() {
		require.NoError(t, err)
		out = append(out, dto)
	}
	return out
}

var t0 = time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)

func ms(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

func sink(t *testing.T, evs ...stream.Event) []byte {
	var buf bytes.Buffer
	s := stream.NewSink(&buf)
	for _, e := range evs {
		s.Emit(e)
	}
	require.NoError(t, s.Err())
	return buf.Bytes()
}

func TestParallelToolsAreOverlappingSiblings(t *testing.T) {
	spans := record(t, sink(t, stream.RunStarted{At: ms(0), RunID: "r"},
		stream.ToolStarted{At: ms(10), CallID: "a", OpID: "1", Name: "Bash"},
		stream.ToolStarted{At: ms(20), CallID: "b", OpID: "2", Name: "Read"},
		stream.ToolFinished{At: ms(50), CallID: "a", OpID: "1", OK: true},
		stream.ToolFinished{At: ms(60), CallID: "b", OpID: "2", OK: false, Detail: "exit 1"},
		stream.ToolFinished{At: ms(70), CallID: "c", Name: "Write", OK: false, Detail: "bad arguments"},
		stream.RunFinished{At: ms(80), Result: stream.Result{Status: stream.StatusError}}))
	tools := byName(spans, "execute_tool ")
	require.Len(t, tools, 2, "one span per operation the fold paired")
	a, b := tools[0], tools[1]
	assert.Equal(t, a.Parent().SpanID(), b.Parent().SpanID(), "siblings")
	assert.True(t, b.StartTime().Before(a.EndTime()), "overlapping")
	assert.Equal(t, codes.Error, b.Status().Code)
	assert.Equal(t, "exit 1", b.Status().Description)
	root := byName(spans, "invoke_agent")[0]
	var failed []sdktrace.Event
	for _, e := range root.Events() {
		if e.Name == "uagent.tool_call_failed" {
			failed = append(failed, e)
		}
	}
	require.Len(t, failed, 1, "a call that failed before its operation is an event of the root: it has no interval")
	assert.True(t, failed[0].Time.Equal(ms(70)))
	fa := map[attribute.Key]attribute.Value{}
	for _, kv := range failed[0].Attributes {
		fa[kv.Key] = kv.Value
	}
	assert.Equal(t, "Write", fa["gen_ai.tool.name"].AsString())
	assert.Equal(t, "bad arguments", fa[ToolDetailKey].AsString())
	assert.Equal(t, codes.Error, root.Status().Code)
	assert.Equal(t, "error", attrs(root)["error.type"].AsString())
}

func TestACutOffStreamStillExports(t *testing.T) {
	spans := record(t, sink(t, stream.RunStarted{At: ms(0), RunID: "r", Model: "m"},
		stream.TurnStarted{At: ms(10), Turn: 1},
		stream.ToolStarted{At: ms(20), CallID: "a", OpID: "1", Name: "Bash"},
		stream.UserMessage{At: ms(30)}))
	require.Len(t, spans, 3)
	for _, s := range spans {
		assert.True(t, s.EndTime().Equal(ms(30)), "%s ends at the last time observed", s.Name())
		assert.Equal(t, codes.Error, s.Status().Code, s.Name())
		assert.Contains(t, s.Status().Description, "cut off")
	}
}

func TestContentOnlyWhenAsked(t *testing.T) {
	b := sink(t, stream.RunStarted{At: ms(0), RunID: "r"}, stream.UserMessage{At: ms(1), Text: "secret question"},
		stream.ToolCalled{At: ms(2), CallID: "a", Name: "Bash", Arguments: `{"command":"cat secrets"}`},
		stream.ToolStarted{At: ms(3), CallID: "a", OpID: "1", Name: "Bash"},
		stream.ToolFinished{At: ms(4), CallID: "a", OpID: "1", OK: true},
		stream.AssistantMessage{At: ms(5), Text: "secret answer", Final: true},
		stream.RunFinished{At: ms(6), Result: stream.Result{Status: stream.StatusOK}})
	all := func(spans []sdktrace.ReadOnlySpan) string {
		var sb strings.Builder
		for _, s := range spans {
			for _, kv := range s.Attributes() {
				sb.WriteString(kv.Value.Emit())
			}
		}
		return sb.String()
	}
	plain := all(record(t, b))
	for _, secret := range []string{"secret question", "cat secrets", "secret answer"} {
		assert.NotContains(t, plain, secret)
	}
	spans := record(t, b, WithContent())
	with := all(spans)
	for _, secret := range []string{"secret question", "cat secrets", "secret answer"} {
		assert.Contains(t, with, secret)
	}
	root := attrs(byName(spans, "invoke_agent")[0])
	assert.JSONEq(t, `[{"role":"user","parts":[{"type":"text","content":"secret question"}]}]`, root["gen_ai.input.messages"].AsString())
	assert.JSONEq(t, `[{"role":"assistant","parts":[{"type":"text","content":"secret answer"}]}]`, root["gen_ai.output.messages"].AsString())
}

// The same run exported twice, or live and then from its recording, is
// the same trace with the same spans.
func TestTheSameRunIsTheSameTrace(t *testing.T) {
	b, err := os.ReadFile("../testdata/run.jsonl")
	require.NoError(t, err)
	ids := func(spans []sdktrace.ReadOnlySpan) []string {
		var out []string
		for _, s := range spans {
			out = append(out, s.Name()+" "+s.SpanContext().TraceID().String()+" "+s.SpanContext().SpanID().String()+" "+s.Parent().SpanID().String())
		}
		slices.Sort(out)
		return out
	}
	first := ids(record(t, b))
	assert.Equal(t, first, ids(record(t, b)))

	// Live: fed one domain event at a time, as the writer would next to its Sink.
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr), sdktrace.WithIDGenerator(IDGenerator{}))
	x := New(tp)
	var s uahstream.Session
	for _, dto := range decodeAll(t, b) {
		e, ok := stream.DTOToEvent(dto)
		require.True(t, ok)
		x.Add(s.AddEvent(e))
	}
	x.Add(uahstream.Line{Change: s.End()})
	x.End("")
	require.NoError(t, tp.Shutdown(t.Context()))
	assert.Equal(t, first, ids(sr.Ended()))
	other := record(t, bytes.Replace(b, []byte("20260923T123918Z-demo"), []byte("another-run"), -1))
	assert.NotEqual(t, first[0][strings.Index(first[0], " ")+1:][:32], other[0].SpanContext().TraceID().String(), "another run, another trace")
}

// The chat and execute_tool spans are the run's intervals as the
// independent reference pairs them: as many, starting and ending when it
// says, on the bundled and conformance streams, the edge cases and 2,000
// random runs (a zero time is exported as the Unix epoch, as OTLP cannot
// carry it).
func TestSpansAreTheReferences(t *testing.T) {
	cases, err := runs.Cases("..", 2000)
	require.NoError(t, err)
	for name, b := range cases {
		var want []string
		for _, iv := range runs.Expected(b) {
			for _, at := range []*time.Time{&iv.Start, &iv.End} {
				if at.IsZero() {
					*at = epoch
				}
			}
			want = append(want, iv.String())
		}
		var got []string
		for _, s := range record(t, b) {
			kind := map[bool]string{true: "turn", false: "tool"}[strings.HasPrefix(s.Name(), "chat ")]
			if strings.HasPrefix(s.Name(), "chat ") || strings.HasPrefix(s.Name(), "execute_tool ") {
				got = append(got, runs.Interval{Kind: kind, Start: s.StartTime().UTC(), End: s.EndTime().UTC()}.String())
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			t.Fatalf("%s: spans (-reference +spans):\n%s", name, cmp.Diff(want, got))
		}
	}
}

// A session stream of the harness is a trace per run: each run_started
// after the first ends the run before, cut off if it had no run_finished.
// (A run's stream with a second run_started is one run, as its fold says.)
func TestARunPerTrace(t *testing.T) {
	opened := []byte(`{"v":1,"type":"session_opened","at":"2026-09-23T12:39:18Z","id":"s"}` + "\n")
	first := sink(t, stream.RunStarted{At: ms(0), RunID: "r1", SessionID: "s"}, stream.TurnStarted{At: ms(1), Turn: 1},
		stream.ModelResponded{At: ms(5), Turn: 1}, stream.RunFinished{At: ms(6), Result: stream.Result{Status: stream.StatusOK}})
	second := sink(t, stream.RunStarted{At: ms(10), RunID: "r2", SessionID: "s"}, stream.TurnStarted{At: ms(11), Turn: 1})
	third := sink(t, stream.RunStarted{At: ms(20), RunID: "r3", SessionID: "s"})
	all := append(append(first, second...), third...)
	require.Len(t, byName(record(t, all), "invoke_agent"), 1, "a run's stream")
	spans := record(t, append(opened, all...))
	roots := map[string]string{}
	for _, s := range spans {
		if s.Name() == "invoke_agent uagent" {
			for _, kv := range s.Attributes() {
				if kv.Key == "uagent.run_id" {
					roots[kv.Value.AsString()] = s.SpanContext().TraceID().String()
				}
			}
			if s.EndTime().After(ms(9)) && s.StartTime().Before(ms(9)) {
				t.Errorf("the first run's root reaches into the second: %v", s.EndTime())
			}
		}
	}
	require.Len(t, roots, 3)
	assert.NotEqual(t, roots["r1"], roots["r2"])
	assert.NotEqual(t, roots["r2"], roots["r3"])
}

// NewTracing takes the OTLP protocol from OpenTelemetry's variables: one
// it does not know is an error naming it, not a silent default.
func TestNewTracingProtocol(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "carrier-pigeon")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "")
	_, err := NewTracing(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "carrier-pigeon")
}

// With no endpoint configured, spans go to OpenTelemetry's default over
// plain HTTP, as its SDKs send them, not over TLS (the exporter's own
// default): here a receiver on loopback stands in for localhost:4318.
func TestNewTracingDefaultsToPlainHTTP(t *testing.T) {
	got := make(chan string, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.URL.Path
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	defaultHTTP = srv.URL
	defer func() { defaultHTTP = DefaultHTTPEndpoint }()
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_INSECURE"} {
		t.Setenv(v, "")
	}
	tr, err := NewTracing(context.Background())
	require.NoError(t, err)
	_, span := tr.Provider().Tracer("t").Start(context.Background(), "s")
	span.End()
	require.NoError(t, tr.Shutdown())
	assert.Equal(t, "/v1/traces", <-got)
}
