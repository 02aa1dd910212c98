package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/sessions"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is an OTLP/HTTP endpoint that decodes what arrives with the
// official protobuf types.
type receiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	attrs map[string]string // resource attributes
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil || req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var msg coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range msg.ResourceSpans {
		for _, kv := range rs.GetResource().GetAttributes() {
			r.attrs[kv.Key] = kv.GetValue().GetStringValue()
		}
		for _, ss := range rs.ScopeSpans {
			r.spans = append(r.spans, ss.Spans...)
		}
	}
	b, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(b)
}

func TestOtelExportsOverOTLPHTTP(t *testing.T) {
	rcv := &receiver{attrs: map[string]string{}}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "")
	t.Setenv("OTEL_SERVICE_NAME", "")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test")
	code, stdout, stderr := runCmd(t, "", "otel", runFile)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	names := map[string]int{}
	traces := map[string]bool{}
	for _, s := range rcv.spans {
		names[s.Name]++
		traces[string(s.TraceId)] = true
	}
	assert.Equal(t, map[string]int{"invoke_agent uagent": 1, "chat gpt-6-sol": 2, "execute_tool Bash": 3}, names)
	assert.Len(t, traces, 1, "one trace")
	assert.Equal(t, "uagent", rcv.attrs["service.name"], "the service, unless OTEL_SERVICE_NAME says otherwise")
	assert.Equal(t, "test", rcv.attrs["deployment.environment"], "OTEL_RESOURCE_ATTRIBUTES is read")
}

func TestOtelUnreachableEndpoint(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	code, _, stderr := runCmd(t, "", "otel", runFile)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "uagent-stream: otel: export to http://127.0.0.1:1 failed")

	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
	code, _, stderr = runCmd(t, "", "otel", runFile)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `want http/protobuf or grpc`)
}

// otel of a session stream: a trace per run, each run's root span with
// the session as gen_ai.conversation.id (session_unix_test.go: live, with
// run --otel, the same).
func TestOtelOfASession(t *testing.T) { otelOfASession(t, "otel") }

func otelOfASession(t *testing.T, how string) {
	path := sessionFile(t, aSession)
	args := map[string][]string{"otel": {"otel", path}, "run": {"run", "--otel", "--", "cat", path}}[how]
	rcv := &receiver{attrs: map[string]string{}}
	srv := httptest.NewServer(rcv)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "")
	code, _, stderr := runCmd(t, "", args...)
	srv.Close()
	require.Equal(t, 0, code, stderr)
	rcv.mu.Lock()
	traces, roots := map[string]int{}, 0
	for _, s := range rcv.spans {
		traces[string(s.TraceId)]++
		if s.Name == "invoke_agent uagent" {
			roots++
			conv := ""
			for _, kv := range s.Attributes {
				if kv.Key == "gen_ai.conversation.id" {
					conv = kv.GetValue().GetStringValue()
				}
			}
			assert.Equal(t, sessions.ID, conv, "%v", args)
		}
	}
	rcv.mu.Unlock()
	assert.Equal(t, 2, roots, "%v: a root span per run", args)
	assert.Len(t, traces, 2, "%v: a trace per run", args)
}
