package acpstream

import (
	"bytes"
	"encoding/json"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// FuzzArrive: whatever line the filter passes on, arrive never panics; a
// line it does not stamp is passed on as it is; a stamped one is a JSON
// object whose params are the same PromptRequest but for _meta, which
// has the prompt's place.
func FuzzArrive(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":"x","method":"session/prompt","params":{"sessionId":"s","prompt":[],"_meta":{"uagentkit/arrival":7,"a":1}}}`,
		`{"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`,
		`{"jsonrpc":"2.0","id":null,"method":"session/prompt","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[],"_meta":null}}`,
		`{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/"}}`,
		`{"method":"session/prompt","method":"x","id":1}`,
		`{"id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[],"_meta":[1]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		a := New(nil)
		out := a.arrive(bytes.Clone(line))
		var req map[string]json.RawMessage
		if bytes.Equal(out, line) {
			return
		}
		if err := json.Unmarshal(out, &req); err != nil {
			t.Fatalf("stamped line is not JSON: %v: %s", err, out)
		}
		var p acp.PromptRequest
		if err := json.Unmarshal(req["params"], &p); err != nil || p.Validate() != nil {
			t.Fatalf("stamped params are no prompt request: %s", out)
		}
		if v, ok := p.Meta[arrivalKey].(float64); !ok || v != 1 {
			t.Fatalf("the first prompt of its session is not stamped 1: %s", out)
		}
	})
}
