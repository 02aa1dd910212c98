package statedir

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
)

// gen writes random runner records and, beside them, the events uagent
// makes of them: DESIGN.md's rules stated forward, as plainly as possible
// and apart from the mapper's code (what each record is made to give).
type gen struct {
	r         *rand.Rand
	at        time.Time
	records   []string
	want      []stream.Event
	turns     int
	turnStart time.Time
	turnIDs   map[string]int
	calls     map[string][2]string // name, label
	ops       map[string]*genOp
	failed    map[string]bool
	callIDs   []string
	opIDs     []string
}

type genOp struct {
	start time.Time
	done  bool
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// record appends one record line.
func (g *gen) record(kind string, data any) {
	g.at = g.at.Add(time.Duration(g.r.IntN(3000)) * time.Millisecond)
	b, _ := json.Marshal(map[string]any{"Sequence": len(g.records) + 1, "RecordedAt": g.at, "Kind": kind, "Data": data})
	g.records = append(g.records, string(b))
}

func (g *gen) expect(e stream.Event) { g.want = append(g.want, e) }

// cut is DESIGN.md's "made one line" and "cut to n runes".
func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func (g *gen) text() string {
	return g.pick("", "short", "two\n  lines\tand tabs", strings.Repeat("long text ", 20), "naïve — ünïcödé", `quotes " and \ back`)
}

func (g *gen) input() {
	id := fmt.Sprint("in-", len(g.records))
	switch g.r.IntN(6) {
	case 0:
		t := g.text()
		g.record("input", map[string]any{"ID": id, "Kind": "external", "Payload": t})
		g.expect(stream.UserMessage{At: g.at, ID: id, Text: t})
	case 1:
		g.record("input", map[string]any{"ID": id, "Kind": "external", "Payload": []int{1, 2}})
		g.expect(stream.UserMessage{At: g.at, ID: id, Text: "[1,2]"})
	case 2:
		t := g.text()
		g.record("input", map[string]any{"ID": id, "Kind": "developer", "Payload": t})
		g.expect(stream.DeveloperMessage{At: g.at, ID: id, Text: t})
	case 3:
		mode, effort, reason := g.pick("settings", "when_idle", "hard"), g.pick("", "low", "max"), g.pick("", "budget")
		g.record("input", map[string]any{"ID": id, "Kind": "control", "Payload": map[string]any{"Mode": mode, "Reason": reason,
			"Parameters": map[string]any{"ReasoningEffort": effort}}})
		g.expect(stream.ControlInput{At: g.at, ID: id, Mode: mode, Effort: effort, Reason: reason})
	case 4:
		g.record("input", map[string]any{"ID": id, "Kind": "control", "Payload": 5})
		g.expect(stream.RunnerError{At: g.at, Message: "failed to decode control input: json: cannot unmarshal number into Go value of type harness.controlDTO"})
	default:
		g.record("input", map[string]any{"ID": id, "Kind": g.pick("queued", "heartbeat"), "Payload": "x"})
	}
}

func (g *gen) turn() {
	id := g.pick("", fmt.Sprint("t-", g.turns+1), "t-1")
	g.record("turn", map[string]any{"ID": id, "Type": "regular"})
	g.turns++
	g.turnStart = g.at
	if id != "" {
		g.turnIDs[id] = g.turns
	}
	g.expect(stream.TurnStarted{At: g.at, Turn: g.turns, TurnID: id})
}

// args returns a call's arguments and what uagent labels them.
func (g *gen) args(name string) (string, string) {
	cmd := g.pick("ls", "make\n  test", strings.Repeat("x ", 80), "")
	switch g.r.IntN(5) {
	case 0:
		b, _ := json.Marshal(map[string]string{"command": cmd})
		if name == "Bash" && cmd != "" {
			return string(b), cut(cmd, 120)
		}
		return string(b), cut(string(b), 120)
	case 1: // encoding/json matches the key in any case, as uagent reads it
		b, _ := json.Marshal(map[string]string{"Command": cmd})
		if name == "Bash" && cmd != "" {
			return string(b), cut(cmd, 120)
		}
		return string(b), cut(string(b), 120)
	case 2:
		a := `{"command":5}`
		return a, a
	default:
		a := g.text()
		return a, cut(a, 120)
	}
}

func (g *gen) response() {
	turn := g.turns
	id := g.pick("", "t-1", fmt.Sprint("t-", g.turns), "t-unknown")
	if n, ok := g.turnIDs[id]; ok {
		turn = n
	}
	u := map[string]int64{"InputTokens": g.r.Int64N(900), "CachedInputTokens": g.r.Int64N(9), "CacheWriteInputTokens": 0,
		"OutputTokens": g.r.Int64N(90), "ReasoningTokens": g.r.Int64N(9)}
	stop := g.pick("complete", "max_tokens", "")
	var failure any
	e := stream.ModelResponded{Turn: turn, TurnID: id, Stop: stop, Usage: stream.Tokens{InputTokens: u["InputTokens"],
		CachedInputTokens: u["CachedInputTokens"], OutputTokens: u["OutputTokens"], ReasoningTokens: u["ReasoningTokens"]}}
	if g.r.IntN(4) == 0 {
		code, msg := g.pick("", "rate_limit"), g.pick("", " try again ")
		failure = map[string]string{"Code": code, "Message": msg}
		e.Failure = strings.TrimSpace(code + ": " + msg)
	}
	var outs []any
	var then []stream.Event
	for range g.r.IntN(4) {
		switch g.r.IntN(5) {
		case 0, 1:
			name := g.pick("Bash", "Read", "")
			callID := g.pick("c1", "c2", "c3", fmt.Sprint("c-", len(g.records)))
			a, label := g.args(name)
			outs = append(outs, map[string]any{"Type": "tool_call", "Data": map[string]any{"CallID": callID, "Name": name, "Arguments": a}})
			g.calls[callID] = [2]string{name, label}
			g.callIDs = append(g.callIDs, callID)
			then = append(then, stream.ToolCalled{CallID: callID, Name: name, Label: label, Arguments: a})
		case 2:
			role, phase, text := g.pick("assistant", "user"), g.pick("", "final_answer", "commentary"), g.text()
			outs = append(outs, map[string]any{"Type": "message", "Data": map[string]any{"Role": role, "Text": text, "Phase": phase}})
			if role == "assistant" {
				then = append(then, stream.AssistantMessage{Turn: turn, Text: text, Final: phase == "final_answer"})
			}
		case 3:
			sum := []string{g.text(), g.text()}[:1+g.r.IntN(2)]
			outs = append(outs, map[string]any{"Type": "reasoning", "Data": map[string]any{"Summary": sum}})
			for _, s := range sum {
				then = append(then, stream.ReasoningSummary{Turn: turn, Text: s})
			}
		default:
			outs = append(outs, map[string]any{"Type": "web_search_call", "Data": map[string]any{"Query": "q"}})
		}
	}
	g.record("model_response", map[string]any{"TurnID": id, "Response": map[string]any{"Stop": stop, "Output": outs, "Usage": u, "Failure": failure}})
	e.At = g.at
	if !g.turnStart.IsZero() {
		e.Duration = g.at.Sub(g.turnStart)
	}
	g.expect(e)
	for _, x := range then {
		switch x := x.(type) {
		case stream.ToolCalled:
			x.At = g.at
			g.expect(x)
		case stream.AssistantMessage:
			x.At = g.at
			g.expect(x)
		case stream.ReasoningSummary:
			x.At = g.at
			g.expect(x)
		}
	}
}

func (g *gen) status() {
	callID := g.pick(append(g.callIDs, "c-never-called")...)
	call := g.calls[callID]
	callErr := g.pick("", "", "bad\n arguments")
	var ops []any
	type step struct {
		id, typ, status string
		state           map[string]any
	}
	var steps []step
	for range g.r.IntN(3) {
		id := g.pick(append(g.opIDs, fmt.Sprint("op-", len(g.records)))...)
		g.opIDs = append(g.opIDs, id)
		typ, status := g.pick("shell", "shell", "read"), g.pick("ready", "running", "completed", "failed", "canceled")
		state := map[string]any{}
		switch g.r.IntN(4) {
		case 0:
			state["Result"] = map[string]any{"ExitCode": g.r.IntN(3)}
		case 1:
			state["TerminalError"] = g.pick("timed out", strings.Repeat("killed ", 30))
		case 2:
			state["OutPath"], state["ErrPath"] = "/o/"+id, "/e/"+id
			state["Result"] = nil
		}
		steps = append(steps, step{id, typ, status, state})
		ops = append(ops, map[string]any{"ID": id, "Type": typ, "Status": status, "State": state})
	}
	g.record("tool_call_status", map[string]any{"CallID": callID, "Status": map[string]any{"Error": callErr}, "Operations": ops})
	if callErr != "" && !g.failed[callID] {
		g.failed[callID] = true
		g.expect(stream.ToolFinished{At: g.at, CallID: callID, Name: call[0], Label: call[1], Detail: cut(callErr, 160)})
	}
	for _, s := range steps {
		var out, errp string
		if s.typ == "shell" {
			out, _ = s.state["OutPath"].(string)
			errp, _ = s.state["ErrPath"].(string)
		}
		op := g.ops[s.id]
		if op == nil {
			op = &genOp{start: g.at}
			g.ops[s.id] = op
			g.expect(stream.ToolStarted{At: g.at, CallID: callID, OpID: s.id, Name: call[0], Label: call[1], OpType: s.typ, OutPath: out, ErrPath: errp})
		}
		if op.done || s.status != "completed" && s.status != "failed" && s.status != "canceled" {
			continue
		}
		op.done = true
		ok, detail := s.status == "completed", s.status
		if s.typ == "shell" {
			if res, has := s.state["Result"].(map[string]any); has {
				detail = fmt.Sprint("exit ", res["ExitCode"])
				ok = ok && res["ExitCode"] == 0
			}
			if te, has := s.state["TerminalError"].(string); has && te != "" {
				ok, detail = false, cut(te, 120)
			}
		}
		g.expect(stream.ToolFinished{At: g.at, CallID: callID, OpID: s.id, Name: call[0], Label: call[1], OK: ok, Detail: detail,
			Duration: g.at.Sub(op.start), OpType: s.typ, OutPath: out, ErrPath: errp})
	}
}

// The mapper against the generator, on 500 random runs of records: the
// same events, in the same order.
func TestGeneratedRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 1))
	for run := range 500 {
		g := &gen{r: r, at: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC), turnIDs: map[string]int{}, calls: map[string][2]string{},
			ops: map[string]*genOp{}, failed: map[string]bool{}}
		id := "20261101-090000-0000beef"
		g.want = []stream.Event{stream.RunStarted{At: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC), RunID: id}}
		for range r.IntN(40) {
			switch r.IntN(9) {
			case 0:
				g.input()
			case 1, 2:
				g.turn()
			case 3, 4:
				g.response()
			case 5, 6:
				g.status()
			case 7:
				g.records = append(g.records, `{"type":"error","message":"runner says no"}`)
				g.expect(stream.RunnerError{At: g.latest(), Message: "runner says no"})
			default:
				g.records = append(g.records, "not JSON:  at\tall")
				g.expect(stream.RunnerError{At: g.latest(), Message: "unparseable runner output: not JSON: at all"})
			}
		}
		dir := filepath.Join(t.TempDir(), id)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, EventsFile), []byte(strings.Join(g.records, "\n")+"\n"), 0o644))
		rd, err := OpenRun(dir)
		require.NoError(t, err)
		var got, want []any
		for e := range rd.Events() {
			d, _ := stream.EventToDTO(e)
			got = append(got, d)
		}
		for _, e := range g.want {
			d, _ := stream.EventToDTO(e)
			want = append(want, d)
		}
		if d := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); d != "" {
			t.Fatalf("run %d (-generator +mapper):\n%s\nrecords:\n%s", run, d, strings.Join(g.records, "\n"))
		}
	}
}

// latest is the time of the last record with one, or the run's start.
func (g *gen) latest() time.Time {
	for i := len(g.records) - 1; i >= 0; i-- {
		var r struct{ RecordedAt time.Time }
		if json.Unmarshal([]byte(g.records[i]), &r) == nil && !r.RecordedAt.IsZero() {
			return r.RecordedAt
		}
	}
	return time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
}
