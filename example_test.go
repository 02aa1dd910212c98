package stream_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/uagentkit/stream"
)

func ExampleSink() {
	start := time.Date(2026, 9, 23, 12, 32, 7, 481000000, time.UTC)
	sink := stream.NewSink(os.Stdout)
	sink.Emit(stream.RunStarted{At: start, RunID: "r1", SessionID: "s1", Provider: "openai-codex",
		Model: "gpt-6-sol", Effort: "high", Workspace: "/home/dev/demo"})
	sink.Emit(stream.ToolCalled{At: start.Add(time.Second), CallID: "call_1", Name: "Bash",
		Label: "ls && cat a.txt", Arguments: `{"command":"ls && cat a.txt"}`})
	sink.Emit(stream.RunFinished{At: start.Add(2 * time.Second), Result: stream.Result{Status: stream.StatusOK}})
	sink.Emit(stream.RunnerError{Message: "after run_finished: not written"})
	if err := sink.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"v":1,"type":"run_started","at":"2026-09-23T12:32:07.481Z","run_id":"r1","session_id":"s1","provider":"openai-codex","model":"gpt-6-sol","effort":"high","workspace":"/home/dev/demo"}
	// {"v":1,"type":"tool_called","at":"2026-09-23T12:32:08.481Z","call_id":"call_1","name":"Bash","label":"ls && cat a.txt","arguments":"{\"command\":\"ls && cat a.txt\"}"}
	// {"v":1,"type":"run_finished","at":"2026-09-23T12:32:09.481Z","summary":{"v":1,"status":"ok","runner_exit_code":0,"run_id":"","session_id":"","provider":"","model":"","effort":"","workspace":"","started_at":"0001-01-01T00:00:00Z","wall_ms":0,"stats":{"event_span_ms":0,"model_ms":0,"tool_busy_ms":0,"tool_model_overlap_ms":0,"turns":0,"user_messages":0,"model_responses":0,"tool_calls":0,"failed_tool_calls":0,"max_parallel_tools":0,"tools_by_name":{},"tokens":{"input":0,"cached_input":0,"cache_write_input":0,"output":0,"reasoning":0},"final_answer":false},"answer":""}}
}

func ExampleEventToDTO() {
	dto, ok := stream.EventToDTO(stream.ModelResponded{
		At:       time.Date(2026, 9, 23, 14, 39, 21, 677979000, time.FixedZone("CEST", 2*3600)),
		Turn:     1,
		Duration: 2686*time.Millisecond + 900*time.Microsecond,
		Stop:     stream.StopComplete,
	})
	d := dto.(stream.ModelRespondedDTO)
	fmt.Println(ok, d.Type, d.At, d.DurationMS, d.Stop)
	// Output: true model_responded 2026-09-23 12:39:21.677979 +0000 UTC 2686 complete
}

func ExampleDecoder() {
	const lines = `{"v":1,"type":"run_started","at":"2026-09-23T12:32:07.481Z","run_id":"r1","session_id":"s1","provider":"p","model":"m","effort":"high","workspace":"/w"}
{"v":1,"type":"tool_called","at":"2026-09-23T12:32:08Z","call_id":"c1","name":"Bash","label":"ls"
{"v":1,"type":"hologram","at":"2026-09-23T12:32:09Z","beam":true}
{"at":"2026-09-23T12:32:10Z","text":"hello","final":true,"type":"assistant_message","v":1}
`
	dec := stream.NewDecoder(strings.NewReader(lines))
	for dto, err := range dec.All() {
		switch d := dto.(type) {
		case nil:
			fmt.Println("error:", err)
		case stream.RunStartedDTO:
			fmt.Println(d.Type, d.RunID, d.Model)
		case stream.AssistantMessageDTO:
			fmt.Println(d.Type, d.Text, d.Final)
		case stream.UnknownDTO:
			fmt.Println("unknown", d.Type, len(d.Raw), "bytes")
		}
	}
	// Output:
	// run_started r1 m
	// error: stream: line 2, byte 250: tool_called: invalid JSON: unexpected end of line, want ',' or '}'
	// unknown hologram 65 bytes
	// assistant_message hello true
}

// A reader that keeps nothing past the next line (one that counts, or
// writes each line out) borrows the strings: each is valid until the next
// Decode, and one kept longer is copied.
func ExampleWithBorrowedStrings() {
	const lines = `{"v":1,"type":"tool_called","at":"2026-09-23T12:32:08Z","call_id":"c1","name":"Bash","label":"ls -l","arguments":"{\"command\":\"ls -l\"}"}
{"v":1,"type":"tool_called","at":"2026-09-23T12:32:09Z","call_id":"c2","name":"Read","label":"read a.go","arguments":"{\"path\":\"a.go\"}"}
{"v":1,"type":"tool_called","at":"2026-09-23T12:32:10Z","call_id":"c3","name":"Bash","label":"go test","arguments":"{\"command\":\"go test\"}"}
`
	dec := stream.NewDecoder(strings.NewReader(lines), stream.WithBorrowedStrings())
	calls := map[string]*int{}
	var first string
	for dto, err := range dec.All() {
		if c, ok := dto.(stream.ToolCalledDTO); ok && err == nil {
			// A lookup keeps nothing; a map's assignment keeps the key
			// it is given, even for a key it has: a copy, once.
			n, seen := calls[c.Name]
			if !seen {
				n = new(int)
				calls[strings.Clone(c.Name)] = n
			}
			*n++
			if first == "" {
				first = strings.Clone(c.Arguments) // kept past the next Decode: copied
			}
		}
	}
	fmt.Println(*calls["Bash"], *calls["Read"], first)
	// Output:
	// 2 1 {"command":"ls -l"}
}

func ExampleSummarize() {
	f, err := os.Open("testdata/run.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	r, err := stream.Summarize(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := r.Summary
	fmt.Println(s.Status, s.Stats.Turns, s.Stats.ToolCalls, s.Stats.FailedToolCalls, s.Stats.MaxParallelTools)
	fmt.Println(s.Stats.ModelMS, s.Stats.ToolBusyMS, s.Answer)
	fmt.Println("matches run_finished:", r.Recorded.Stats.ModelMS == s.Stats.ModelMS, "cut off:", r.CutOff)
	// Output:
	// ok 2 3 1 3
	// 5355 117 a.txt has 3 lines; b.txt does not exist.
	// matches run_finished: true cut off: false
}

func ExampleFold() {
	t := time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)
	var f stream.Fold // the zero value is ready
	f.AddEvent(stream.TurnStarted{At: t, Turn: 1})
	f.AddEvent(stream.ModelResponded{At: t.Add(2 * time.Second), Turn: 1, Stop: stream.StopComplete})
	f.AddEvent(stream.ToolStarted{At: t.Add(2 * time.Second), CallID: "a", OpID: "1", Name: "Bash"})
	f.AddEvent(stream.ToolStarted{At: t.Add(2 * time.Second), CallID: "b", OpID: "2", Name: "Bash"})
	f.AddEvent(stream.ToolFinished{At: t.Add(3 * time.Second), CallID: "a", OpID: "1", Name: "Bash", OK: true})
	f.AddEvent(stream.TurnStarted{At: t.Add(3 * time.Second), Turn: 2})
	f.EndAt(t.Add(4 * time.Second)) // op 2 and turn 2 never finished: they run to the end
	s := f.Stats()
	fmt.Println(s.ModelTime, s.ToolBusyTime, s.ToolModelOverlap, s.MaxParallelTools, s.ToolsByName)
	// Output: 3s 2s 1s 2 map[Bash:2]
}

// A front-end draws a run as its lines arrive, from what each line changed
// in the fold: the same fold its stats come from.
func ExampleFold_Add() {
	in := strings.NewReader(`{"v":1,"type":"run_started","at":"2026-09-23T12:00:00Z","run_id":"r1"}
{"v":1,"type":"tool_started","at":"2026-09-23T12:00:00Z","call_id":"a","op_id":"1","name":"Bash","label":"ls"}
{"v":1,"type":"tool_started","at":"2026-09-23T12:00:01Z","call_id":"b","op_id":"2","name":"Bash","label":"make"}
{"v":1,"type":"tool_finished","at":"2026-09-23T12:00:02Z","call_id":"a","op_id":"1","name":"Bash","label":"ls","ok":false,"detail":"exit 2"}
`)
	var f stream.Fold
	for dto, err := range stream.NewDecoder(in).All() {
		ch := f.Add(dto, err)
		if ch.ToolStep == stream.StepClosed {
			op := f.Tool(ch.ToolIndex)
			fmt.Println("closed:", op.Label, op.End.Sub(op.Start), "ok:", op.OK, op.Detail)
		}
	}
	for _, op := range f.Tools() {
		if op.Open {
			fmt.Println("still running:", op.Label)
		}
	}
	fmt.Println(f.Verdict().Ending)
	// Output:
	// closed: ls 2s ok: false exit 2
	// still running: make
	// cut_off
}

// A run_finished summary that the events contradict: the fold says where.
func ExampleFold_Recomputed() {
	in := strings.NewReader(`{"v":1,"type":"run_started","at":"2026-09-23T12:00:00Z","run_id":"r1"}
{"v":1,"type":"turn_started","at":"2026-09-23T12:00:00Z","turn":1}
{"v":1,"type":"model_responded","at":"2026-09-23T12:00:02Z","turn":1,"duration_ms":2000,"usage":{"input":9,"output":1}}
{"v":1,"type":"run_finished","at":"2026-09-23T12:00:03Z","summary":{"status":"ok","stats":{"turns":7,"model_ms":99}}}
`)
	var f stream.Fold
	for dto, err := range stream.NewDecoder(in).All() {
		f.Add(dto, err)
	}
	for _, d := range f.Recomputed().Diff { // only the fields the summary has
		fmt.Println(d)
	}
	// Output:
	// stats.model_ms is 99, recomputed 2000
	// stats.turns is 7, recomputed 1
}

func ExampleValidate() {
	f, err := os.Open("testdata/invalid/tool-op.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	findings, err := stream.Validate(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range findings {
		fmt.Println(f)
	}
	// Output:
	// 15: tool_finished for op_id "op-nope", which no tool_started began (tool-op)
	// 21: stats.tool_busy_ms is 117, recomputed 2798 (stats)
	// 21: stats.tool_model_overlap_ms is 0, recomputed 2669 (stats)
}
