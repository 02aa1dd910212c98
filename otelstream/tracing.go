package otelstream

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// FlushTimeout bounds the export at the end: it never holds a run up
// longer than this.
const FlushTimeout = 10 * time.Second

// Tracing exports spans over OTLP, configured as OpenTelemetry's own
// variables say: OTEL_EXPORTER_OTLP_ENDPOINT (and _TRACES_ENDPOINT),
// OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf, the default, or grpc),
// OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES.
// The exporters and the SDK read them; only the choice between the two
// exporters is made here. Its spans are batched in a bounded queue: a
// slow endpoint drops spans, never holds the run. It is safe for
// concurrent use; call Shutdown once, at the end.
type Tracing struct {
	tp       *sdktrace.TracerProvider
	endpoint string

	mu  sync.Mutex
	err error // the first export error
}

// DefaultHTTPEndpoint and DefaultGRPCEndpoint are where spans go when no
// OTEL_EXPORTER_OTLP_ENDPOINT says: OpenTelemetry's defaults for OTLP
// over HTTP and over gRPC, both without TLS, as its SDKs send them.
const (
	DefaultHTTPEndpoint = "http://localhost:4318"
	DefaultGRPCEndpoint = "http://localhost:4317"
)

// defaultHTTP is DefaultHTTPEndpoint (a test's receiver, in tests).
var defaultHTTP = DefaultHTTPEndpoint

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// NewTracing returns the Tracing the environment configures (see
// Tracing); the error is for a protocol it does not know, or an exporter
// that cannot be made.
func NewTracing(ctx context.Context) (*Tracing, error) {
	t := &Tracing{}
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
		opts := []otlptracehttp.Option{otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
			Enabled: true, InitialInterval: 200 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: 3 * time.Second})}
		if t.endpoint == "" { // OpenTelemetry's default, plain HTTP (the exporter's own is https)
			t.endpoint = defaultHTTP
			opts = append(opts, otlptracehttp.WithEndpointURL(defaultHTTP+"/v1/traces"))
		}
		exp, err = otlptracehttp.New(ctx, opts...)
	case "grpc":
		opts := []otlptracegrpc.Option{otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{
			Enabled: true, InitialInterval: 200 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: 3 * time.Second})}
		if t.endpoint == "" { // OpenTelemetry's default, without TLS
			t.endpoint = DefaultGRPCEndpoint
			opts = append(opts, otlptracegrpc.WithEndpointURL(DefaultGRPCEndpoint))
		}
		exp, err = otlptracegrpc.New(ctx, opts...)
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
		sdktrace.WithIDGenerator(IDGenerator{}),
		sdktrace.WithResource(res))
	return t, nil
}

func (t *Tracing) keep(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = err
	}
}

// Provider is the tracer provider an Exporter takes (New).
func (t *Tracing) Provider() trace.TracerProvider { return t.tp }

// Shutdown flushes what is left, within FlushTimeout, and returns the
// first export error, naming the endpoint.
func (t *Tracing) Shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), FlushTimeout)
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
