package uahstream_test

import (
	"fmt"
	"strings"

	"github.com/uagentkit/stream/uahstream"
)

// Any stream is read once into its session: here a session stream of the
// harness, two runs; each run is handed over whole when it ends.
func ExampleReader() {
	in := strings.NewReader(`{"v":1,"type":"session_opened","at":"2026-10-01T18:57:05Z","id":"s1"}
{"v":1,"type":"run_started","at":"2026-10-01T18:57:06Z","run_id":"r1","session_id":"s1"}
{"v":1,"type":"text_delta","at":"2026-10-01T18:57:07Z","item_id":"m","text":"Hel"}
{"v":1,"type":"text_delta","at":"2026-10-01T18:57:07Z","item_id":"m","text":"lo"}
{"v":1,"type":"assistant_message","at":"2026-10-01T18:57:08Z","text":"Hello","final":true}
{"v":1,"type":"run_finished","at":"2026-10-01T18:57:09Z","summary":{"status":"ok","answer":"Hello","stats":{"final_answer":true}}}
{"v":1,"type":"idle","at":"2026-10-01T18:57:10Z"}
{"v":1,"type":"run_started","at":"2026-10-01T18:58:00Z","run_id":"r2","session_id":"s1"}
{"v":1,"type":"turn_started","at":"2026-10-01T18:58:01Z","turn":1}
`)
	rd := uahstream.NewReader(in)
	for l := range rd.Lines() {
		if l.LiveStep == uahstream.LiveStreamed {
			fmt.Printf("streamed %q\n", l.Delta)
		}
		if e := l.Ended; e != nil {
			fmt.Println("run", e.Run+1, e.Summary.RunID, e.Verdict.Ending, e.Summary.Status, e.Summary.Stats.Turns, "turns")
		}
	}
	s := rd.Session()
	fmt.Println("session", s.ID(), s.Totals().Runs, "runs")
	// Output:
	// streamed "Hel"
	// streamed "lo"
	// run 1 r1 finished ok 0 turns
	// run 2 r2 cut_off error 1 turns
	// session s1 2 runs
}
