package timeline_test

import (
	"fmt"
	"strings"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/timeline"
)

// A run laid out from its fold: its turns, and its operations in lanes.
func ExampleOf() {
	in := strings.NewReader(`{"v":1,"type":"run_started","at":"2026-09-23T12:00:00Z","run_id":"r1"}
{"v":1,"type":"turn_started","at":"2026-09-23T12:00:00Z","turn":1}
{"v":1,"type":"tool_started","at":"2026-09-23T12:00:01Z","call_id":"c1","op_id":"o1","name":"Bash","label":"make"}
{"v":1,"type":"tool_started","at":"2026-09-23T12:00:01Z","call_id":"c2","op_id":"o2","name":"Bash","label":"make test"}
{"v":1,"type":"tool_finished","at":"2026-09-23T12:00:03Z","call_id":"c1","op_id":"o1","name":"Bash","label":"make","ok":true,"detail":"exit 0"}
{"v":1,"type":"model_responded","at":"2026-09-23T12:00:04Z","turn":1}
`)
	var f stream.Fold
	f.KeepText() // the labels and details of the bars
	for dto, err := range stream.NewDecoder(in).All() {
		f.Add(dto, err)
	}
	l := timeline.Of(&f)
	for _, b := range l.Turns {
		fmt.Println("turn", b.Turn, b.End.Sub(b.Start))
	}
	for _, b := range l.Tools {
		fmt.Println("lane", b.Lane, b.Label, b.Detail, b.End.Sub(b.Start), "open:", b.Open)
	}
	// Output:
	// turn 1 4s
	// lane 0 Bash: make exit 0 2s open: false
	// lane 1 Bash: make test  3s open: true
}
