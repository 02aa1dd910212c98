package termstream_test

import (
	"os"
	"strings"

	"github.com/uagentkit/stream/termstream"
	"github.com/uagentkit/stream/uahstream"
)

// A stream read once into its session, and rendered from its Lines.
func Example() {
	in := strings.NewReader(`{"v":1,"type":"run_started","at":"2026-09-23T12:00:00Z","run_id":"r1","provider":"openai-codex","model":"gpt-6-sol"}
{"v":1,"type":"tool_called","at":"2026-09-23T12:00:01Z","call_id":"c1","name":"Bash","label":"make"}
{"v":1,"type":"tool_started","at":"2026-09-23T12:00:01Z","call_id":"c1","op_id":"o1","name":"Bash","label":"make"}
`)
	rd := uahstream.NewReader(in)
	r := termstream.New(os.Stdout, rd.Session(), termstream.Options{})
	for l := range rd.Lines() {
		r.Add(l)
	}
	r.Finish(rd.Session().Verdict())
	// Output:
	// run r1 · openai-codex gpt-6-sol · started 2026-09-23 12:00:00 UTC
	//    1.000s   → Bash: make
	//             ⋯ Bash: make · still running
	// ── cut_off: no run_finished: the stream was cut off
}
