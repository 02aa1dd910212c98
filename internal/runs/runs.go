// Package runs makes runs for the tests of every view of the fold: random
// event sequences (valid, or anything goes) and the named edge cases that
// each view must pair as the fold does.
package runs

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/uagentkit/stream"
)

// T0 is when every run made here starts.
var T0 = time.Date(2026, 9, 23, 12, 39, 18, 960000000, time.UTC)

// Random makes a random event sequence. With valid, it keeps to the
// stream rules that Validate checks (turns from 1 that do not go back,
// responses to the open turn, finishes after their start, ok:false without
// op_id) and sets every time; otherwise anything goes: reversed and zero
// times, empty op_ids and names, repeated finishes.
func Random(r *rand.Rand, valid bool) []stream.Event { return RandomFrom(r, valid, T0) }

// RandomFrom is Random with its times from base on.
func RandomFrom(r *rand.Rand, valid bool, base time.Time) []stream.Event {
	n := r.IntN(40)
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var evs []stream.Event
	turn := 0
	var started []string
	when := func() time.Time {
		if !valid && r.IntN(12) == 0 {
			return time.Time{}
		}
		// Mostly forward, sometimes back, often the same instant.
		base = base.Add(time.Duration(r.IntN(7)-1) * time.Duration(pick("1", "1000", "1000000", "7000000")[0]-'0') * time.Millisecond)
		return base.Add(time.Duration(r.IntN(3)) * 500 * time.Microsecond)
	}
	for range n {
		at := when()
		switch r.IntN(13) {
		case 0:
			turn++
			if !valid && r.IntN(4) == 0 {
				turn = r.IntN(3)
			}
			evs = append(evs, stream.TurnStarted{At: at, Turn: turn, TurnID: pick("", "t")})
		case 1:
			if valid && turn == 0 {
				continue
			}
			evs = append(evs, stream.ModelResponded{At: at, Turn: turn, Duration: time.Duration(r.IntN(5000)) * time.Millisecond,
				Usage: stream.Tokens{InputTokens: int64(r.IntN(900)), CachedInputTokens: int64(r.IntN(9)), OutputTokens: int64(r.IntN(90)), ReasoningTokens: int64(r.IntN(9))},
				Stop:  pick("", "complete", "complete", "max_tokens", "refused"), Failure: pick("", "", "", "boom")})
		case 2:
			evs = append(evs, stream.ToolCalled{At: at, CallID: pick("c1", "c2", "c3", ""), Name: pick("Bash", "Read", ""), Label: "l"})
		case 3, 4:
			op := pick("o1", "o2", "o3", "o4", "")
			started = append(started, op)
			evs = append(evs, stream.ToolStarted{At: at, CallID: pick("c1", "c2", "c3", "c4"), OpID: op, Name: pick("Bash", "Read", "")})
		case 5, 6:
			op := pick("o1", "o2", "o3", "o5", "")
			ok := r.IntN(3) > 0
			if valid {
				switch {
				case len(started) > 0 && r.IntN(4) > 0:
					op = started[r.IntN(len(started))]
				default:
					op, ok = "", false
				}
				if op == "" {
					ok = false
				}
			}
			evs = append(evs, stream.ToolFinished{At: at, CallID: pick("c1", "c2", "c3", "c5"), OpID: op, Name: pick("Bash", "Read", ""), OK: ok, Detail: "exit 0"})
		case 7:
			evs = append(evs, stream.AssistantMessage{At: at, Turn: max(turn, 0), Text: pick("", "partial", "answer"), Final: r.IntN(2) == 0})
		case 8:
			evs = append(evs, stream.UserMessage{At: at, ID: "u", Text: pick("", "hi")})
		case 9:
			evs = append(evs, stream.DeveloperMessage{At: at, ID: "d", Text: "x"}, stream.ControlInput{At: at, ID: "c", Mode: "settings"})
		case 10:
			evs = append(evs, stream.ReasoningSummary{At: at, Text: "r"})
		case 11:
			evs = append(evs, stream.RunnerError{At: at, Message: pick("", "e")})
		case 12:
			evs = append(evs, stream.PreflightWarning{At: at, Code: "w", Message: pick("", "w")})
		}
	}
	return evs
}

// Edges are the cases where pairing goes wrong when it is done twice: each
// starts with run_started and, but for "cut off", ends with run_finished.
func Edges() map[string][]stream.Event {
	ms := func(n int) time.Time { return T0.Add(time.Duration(n) * time.Millisecond) }
	start := stream.RunStarted{At: ms(0), RunID: "edge", Model: "m"}
	end := func(n int) stream.RunFinished {
		return stream.RunFinished{At: ms(n), Result: stream.Result{Status: stream.StatusOK}}
	}
	return map[string][]stream.Event{
		"replaced turn": {start,
			stream.TurnStarted{At: ms(10), Turn: 1}, stream.TurnStarted{At: ms(50), Turn: 1},
			stream.ModelResponded{At: ms(90), Turn: 1, Usage: stream.Tokens{InputTokens: 10, OutputTokens: 2}, Stop: stream.StopComplete}, end(100)},
		"duplicate start": {start,
			stream.ToolStarted{At: ms(10), CallID: "c1", OpID: "o1", Name: "Bash"}, stream.ToolStarted{At: ms(30), CallID: "c1", OpID: "o1", Name: "Bash"},
			stream.ToolFinished{At: ms(60), CallID: "c1", OpID: "o1", Name: "Bash", OK: true}, end(100)},
		"repeated finish": {start,
			stream.ToolStarted{At: ms(10), CallID: "c1", OpID: "o1", Name: "Bash"},
			stream.ToolFinished{At: ms(40), CallID: "c1", OpID: "o1", Name: "Bash", OK: true},
			stream.ToolFinished{At: ms(70), CallID: "c1", OpID: "o1", Name: "Bash", OK: false, Detail: "again"}, end(100)},
		"op_id reused after its finish": {start,
			stream.ToolStarted{At: ms(10), CallID: "c1", OpID: "o1", Name: "Bash"},
			stream.ToolFinished{At: ms(20), CallID: "c1", OpID: "o1", Name: "Bash", OK: true},
			stream.ToolStarted{At: ms(30), CallID: "c2", OpID: "o1", Name: "Read"},
			stream.ToolFinished{At: ms(45), CallID: "c2", OpID: "o1", Name: "Read", OK: true}, end(100)},
		"cut off": {start,
			stream.TurnStarted{At: ms(10), Turn: 1},
			stream.ToolStarted{At: ms(20), CallID: "c1", OpID: "o1", Name: "Bash"},
			stream.ReasoningSummary{At: ms(25), Text: "thinking"},
			stream.UserMessage{At: ms(30), ID: "u", Text: "more"}},
	}
}

// Streams returns the bundled streams (root/testdata/*.jsonl) and, when the
// folder is there, the conformance streams recorded from the real runner
// (root/../shared/conformance/*.jsonl), by file name. root is the module's
// root, as the calling test sees it.
func Streams(root string) (map[string][]byte, error) {
	bundled, err := filepath.Glob(filepath.Join(root, "testdata", "*.jsonl"))
	if err != nil {
		return nil, err
	}
	conf, _ := filepath.Glob(filepath.Join(root, "..", "shared", "conformance", "*.jsonl")) // absent: the bundled ones only
	out := map[string][]byte{}
	for _, p := range append(bundled, conf...) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out[filepath.Base(p)] = b
	}
	return out, nil
}

// Write writes events through the Sink, as uagent writes a stream.
func Write(events []stream.Event) []byte {
	var b bytes.Buffer
	s := stream.NewSink(&b)
	for _, e := range events {
		s.Emit(e)
	}
	return b.Bytes()
}

// Interval is an interval as every view must show it: what it is ("turn"
// or "tool") and when it starts and ends.
type Interval struct {
	Kind       string
	Start, End time.Time
}

// String formats the interval for a comparison.
func (iv Interval) String() string {
	return iv.Kind + " " + iv.Start.Format(time.RFC3339Nano) + " " + iv.End.Format(time.RFC3339Nano)
}

// Expected returns the intervals a stream's run has, by the Reference:
// the lines read with the Decoder alone, the run closed where DESIGN.md
// closes a recorded stream (at its run_finished, or at its last line), the
// model turns then the tool operations, each in the order the Reference
// pairs them. Every view is held against it.
func Expected(b []byte) []Interval {
	var evs []stream.Event
	var end time.Time
	for dto, err := range stream.NewDecoder(bytes.NewReader(b)).All() {
		if err != nil {
			continue
		}
		if d, ok := dto.(stream.RunFinishedDTO); ok {
			end = d.At
			break
		}
		if u, ok := dto.(stream.UnknownDTO); ok {
			end = u.At
			continue
		}
		if e, ok := stream.DTOToEvent(dto); ok {
			evs = append(evs, e)
			end = e.OccurredAt()
		}
	}
	_, _, model, tools := Reference(evs, end)
	var out []Interval
	for _, iv := range model {
		out = append(out, Interval{"turn", iv[0], iv[1]})
	}
	for _, iv := range tools {
		out = append(out, Interval{"tool", iv[0], iv[1]})
	}
	return out
}

// Cases are the streams every view is checked on: the bundled and
// conformance streams (see Streams), the edge cases, and n random runs
// (valid and not, started with run_started; about one in three cut off,
// the others ended with a run_finished).
func Cases(root string, n int) (map[string][]byte, error) {
	out, err := Streams(root)
	if err != nil {
		return nil, err
	}
	for name, evs := range Edges() {
		out["edge: "+name] = Write(evs)
	}
	r := rand.New(rand.NewPCG(21, 5))
	for i := range n {
		evs := append([]stream.Event{stream.RunStarted{At: T0, RunID: fmt.Sprint("random-", i), Model: "m"}}, Random(r, i%2 == 0)...)
		if r.IntN(3) > 0 {
			end := evs[len(evs)-1].OccurredAt().Add(time.Duration(r.IntN(3)) * time.Millisecond)
			evs = append(evs, stream.RunFinished{At: end, Result: stream.Result{Status: stream.StatusOK}})
		}
		out[fmt.Sprint("random ", i)] = Write(evs)
	}
	return out, nil
}

// StillRunning returns, by DESIGN.md's words and not the fold's code, the
// tool operations of a stream's run that no tool_finished closed before
// run_finished, in the order they first started: each as its first
// tool_started's name and label, "NAME: LABEL".
func StillRunning(b []byte) []string {
	type op struct {
		what string
		open bool
	}
	var order []string
	ops := map[string]*op{}
	for dto, err := range stream.NewDecoder(bytes.NewReader(b)).All() {
		if err != nil {
			continue
		}
		switch d := dto.(type) {
		case stream.RunFinishedDTO:
			return open(order, func(id string) (string, bool) { return ops[id].what, ops[id].open })
		case stream.ToolStartedDTO:
			if ops[d.OpID] == nil {
				ops[d.OpID] = &op{what: d.Name + ": " + d.Label, open: true}
				order = append(order, d.OpID)
			}
		case stream.ToolFinishedDTO:
			if o := ops[d.OpID]; o != nil {
				o.open = false
			}
		}
	}
	return open(order, func(id string) (string, bool) { return ops[id].what, ops[id].open })
}

func open(order []string, of func(id string) (string, bool)) []string {
	var out []string
	for _, id := range order {
		if what, open := of(id); open {
			out = append(out, what)
		}
	}
	return out
}
