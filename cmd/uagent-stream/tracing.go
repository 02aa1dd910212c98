package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/otelstream"
	"github.com/uagentkit/stream/uahstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// flushTimeout bounds the export at the end: it never holds a run up
// longer than this.
const flushTimeout = 10 * time.Second

// tracing exports spans over OTLP, configured as OpenTelemetry's own
// variables say: OTEL_EXPORTER_OTLP_ENDPOINT (and _TRACES_ENDPOINT),
// OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf, the default, or grpc),
// OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES.
// The exporters and the SDK read them; only the choice between the two
// exporters is made here.
type tracing struct {
	tp       *sdktrace.TracerProvider
	endpoint string

	mu  sync.Mutex
	err error // the first export error
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

func newTracing(ctx context.Context) (*tracing, error) {
	t := &tracing{}
	proto := firstEnv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
	if proto == "" {
		proto = "http/protobuf"
	}
	t.endpoint = firstEnv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
	var (
		exp sdktrace.SpanExporter
		err error
	)
	switch proto {
	case "http/protobuf":
		if t.endpoint == "" {
			t.endpoint = "http://localhost:4318"
		}
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
			Enabled: true, InitialInterval: 200 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: 3 * time.Second}))
	case "grpc":
		if t.endpoint == "" {
			t.endpoint = "localhost:4317"
		}
		exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{
			Enabled: true, InitialInterval: 200 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: 3 * time.Second}))
	default:
		return nil, fmt.Errorf("otel: OTEL_EXPORTER_OTLP_PROTOCOL %q: want http/protobuf or grpc", proto)
	}
	if err != nil {
		return nil, fmt.Errorf("otel: exporter for %s: %w", t.endpoint, err)
	}
	// uagent is the service the spans describe, unless OTEL_SERVICE_NAME
	// or OTEL_RESOURCE_ATTRIBUTES say otherwise.
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName("uagent")), resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("otel: resource: %w", err)
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(t.keep))
	t.tp = sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithMaxQueueSize(8192)), // bounded: a slow endpoint drops spans, never holds the run
		sdktrace.WithIDGenerator(otelstream.IDGenerator{}),
		sdktrace.WithResource(res))
	return t, nil
}

func (t *tracing) keep(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = err
	}
}

// shutdown flushes what is left, within flushTimeout, and returns the first
// export error, naming the endpoint.
func (t *tracing) shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	err := t.tp.Shutdown(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil {
		err = t.err
	}
	if err != nil {
		return fmt.Errorf("otel: export to %s failed: %w", t.endpoint, err)
	}
	return nil
}

// liveExport exports a stream live, beside it, when asked (--otel): a
// trace per run (see otelstream.Exporter.Add).
type liveExport struct {
	t *tracing
	x *otelstream.Exporter
}

func newLiveExport(e env, on, content bool) *liveExport {
	if !on {
		return nil
	}
	t, err := newTracing(context.Background())
	if err != nil {
		fmt.Fprintf(e.stderr, "uagent-stream: %s (the run goes on without it)\n", sanitize(err.Error(), false))
		return nil
	}
	var opts []otelstream.Option
	if content {
		opts = append(opts, otelstream.WithContent())
	}
	return &liveExport{t: t, x: otelstream.New(t.tp, opts...)}
}

// add adds a line to the export.
func (l *liveExport) add(line uahstream.Line) {
	if l != nil {
		l.x.Add(line)
	}
}

// end ends the run's trace with status (when the stream did not say it)
// and flushes it; an export failure is reported, and changes nothing else.
func (l *liveExport) end(e env, status stream.Status) {
	if l == nil {
		return
	}
	l.x.End(status)
	if err := l.t.shutdown(); err != nil {
		fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(err.Error(), false))
	}
}
