// Package sessions writes session streams for the tests, in the order
// DESIGN.md's "Session streams" gives for `uah run --stream`:
// session_opened first, instructions_loaded; for each run input_queued,
// input_sent, the run's v1 lines from run_started to run_finished (its
// summary the events' own), with input_delivered right after the
// user_message that echoes the message and the model's text streamed as
// text_delta and reasoning_delta before the response's assistant_message
// and reasoning; then idle. A run that cannot start has input_failed,
// notice (level error) and idle. Written here from DESIGN.md's words, not
// copied from a recorded session.
package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uagentkit/stream"
)

// T0 is when every session made here opens.
var T0 = time.Date(2026, 10, 1, 18, 57, 5, 0, time.UTC)

// ID is the session's id, every run's session_id.
const ID = "294542e3-f5c8-4269-97f6-747167545bd3"

// Run says what one run of a session does.
type Run struct {
	Message string // the user's message
	Answer  string // the final assistant text
	Calls   int    // Bash calls, in a second turn
	Failed  bool   // the calls fail (exit 1)
	// Reset streams text that a stream_reset voids before the answer.
	Reset bool
	// CannotStart: no run_started (input_failed, notice, idle).
	CannotStart bool
	// CutOff ends the session in the middle of the run (after its first
	// turn's text streamed).
	CutOff bool
	// Queued: the next run's message is queued during this run, so that
	// the next run starts right after run_finished, with no idle between.
	Queued bool
	// AutoReview: uah's auto-reviewer judges each call before it starts
	// (auto_reviewed: allow, 900 input tokens of which 800 cached, 40
	// output, 1,200 ms each).
	AutoReview bool
	// Goal: the run is one uah began for its goal (/goal), set just
	// before (goal_updated, goal_continued), the backend refuses effort
	// updates inside it (effort_updates_off), and the model completes
	// the goal after it, which is then cleared (goal_updated,
	// goal_cleared).
	Goal bool
	// Status, when set, is the status its run_finished says (a run
	// interrupted or at the disk limit), instead of the one its events
	// classify.
	Status stream.Status
	// Notice is a notice of this level after the run ("" for none).
	Notice string
	// Compaction: uah compacts the conversation before the run's first
	// response (compaction_started, compacted with stats whose call used
	// 200,000 input tokens, 150,000 cached, and 4,000 output).
	Compaction bool
}

// Options shape a session.
type Options struct {
	Resumed bool
	Runs    []Run
	// Text replaces every text of the session (messages, answers,
	// streamed text, commands, the model, the workspace, notices): hostile
	// bytes for the tests of every output.
	Text string
}

// Write returns the session stream.
func Write(o Options) []byte {
	w := &writer{at: T0, o: o}
	w.harness("session_opened", map[string]any{"id": ID, "resumed": o.Resumed, "engine": "embedded",
		"settings": map[string]any{"provider": "openai-codex", "model": w.text("gpt-6.1-sol"), "effort": "low", "workspace": w.text("/tmp/ab/repo")}})
	w.harness("instructions_loaded", map[string]any{"files": []string{w.text("/home/dev/.codex/AGENTS.md")}, "bytes": 74, "truncated": false})
	queuedAhead := ""
	for i, r := range o.Runs {
		msgID := fmt.Sprintf("m%d", i+1)
		goal := map[string]any{"goal_id": "g1", "objective": w.text("Make the tests pass"), "status": "active", "tokens_used": 0,
			"time_used_seconds": 0, "continuations": 1, "max_continuations": 50, "created_at": T0, "updated_at": T0}
		if r.Goal {
			w.harness("goal_updated", map[string]any{"goal": goal, "change": "set", "by": "user"})
			w.harness("goal_continued", map[string]any{"goal": goal})
		}
		if queuedAhead != msgID {
			w.harness("input_queued", map[string]any{"id": msgID, "text": w.text(r.Message)})
		}
		w.harness("input_sent", map[string]any{"ids": []string{msgID}})
		if r.CannotStart {
			w.harness("input_failed", map[string]any{"ids": []string{msgID}, "reason": w.text("the runner could not start")})
			w.harness("notice", map[string]any{"level": "error", "message": w.text("uagent exited 1 before run_started")})
			w.harness("idle", map[string]any{})
			continue
		}
		if w.run(i, msgID, r) {
			return w.b.Bytes() // cut off
		}
		if r.Goal {
			goal["status"], goal["tokens_used"], goal["reason"] = "complete", 9151, w.text("done")
			w.harness("goal_updated", map[string]any{"goal": goal, "change": "status", "by": "model"})
			w.harness("goal_cleared", map[string]any{})
		}
		if r.Queued && i+1 < len(o.Runs) {
			queuedAhead = fmt.Sprintf("m%d", i+2)
			continue // the queued message was accepted during the run (below); the next run starts at once
		}
		queuedAhead = ""
		w.harness("idle", map[string]any{})
	}
	return w.b.Bytes()
}

type writer struct {
	b  bytes.Buffer
	at time.Time
	o  Options
}

func (w *writer) text(s string) string {
	if w.o.Text != "" {
		return w.o.Text
	}
	return s
}

func (w *writer) tick(ms int) time.Time {
	w.at = w.at.Add(time.Duration(ms) * time.Millisecond)
	return w.at
}

// harness writes one of the harness's lines.
func (w *writer) harness(typ string, fields map[string]any) {
	fields["v"], fields["type"], fields["at"] = 1, typ, w.tick(3).Format(time.RFC3339Nano)
	b, err := json.Marshal(fields)
	if err != nil {
		panic(err)
	}
	w.b.Write(append(b, '\n'))
}

// run writes a run's lines and reports whether it cut the session off.
func (w *writer) run(i int, msgID string, r Run) (cutOff bool) {
	sink := stream.NewSink(&w.b)
	var fold stream.Fold
	emit := func(e stream.Event) { sink.Emit(e); fold.AddEvent(e) }
	runID := fmt.Sprintf("20261001-2157%02d-294542e3", 5+i)
	start := w.tick(2)
	req := stream.Request{RunID: runID, SessionID: ID, Provider: "openai-codex", Model: w.text("gpt-6.1-sol"), Effort: "low", Workspace: w.text("/tmp/ab/repo")}
	emit(stream.RunStarted{At: start, RunID: runID, SessionID: ID, Provider: req.Provider, Model: req.Model, Effort: req.Effort, Workspace: req.Workspace})
	emit(stream.UserMessage{At: w.tick(18), ID: msgID, Text: w.text(r.Message)})
	w.harness("input_delivered", map[string]any{"id": msgID})
	if r.Compaction {
		w.harness("compaction_started", map[string]any{"trigger": "auto", "tokens": 250000})
		w.harness("compacted", map[string]any{"trigger": "auto", "summary": w.text("what happened so far"),
			"stats": map[string]any{"strategy": "local", "call": map[string]any{"InputTokens": 200000, "CachedInputTokens": 150000, "OutputTokens": 4000}}})
	}
	if r.Goal {
		w.harness("effort_updates_off", map[string]any{"message": w.text("the effort changes with the next run"), "error": w.text("400 unsupported")})
	}
	turn := 0
	response := func(text string, final bool) {
		turn++
		t := fmt.Sprintf("turn-%d-%d", i+1, turn)
		began := w.tick(1)
		emit(stream.TurnStarted{At: began, Turn: turn, TurnID: t})
		w.harness("reasoning_delta", map[string]any{"item_id": "rs_" + t, "part": 0, "text": w.text("Thinking ")})
		w.harness("reasoning_delta", map[string]any{"item_id": "rs_" + t, "part": 0, "text": w.text("it over.")})
		if r.Reset && turn == 1 {
			w.harness("text_delta", map[string]any{"item_id": "msg_void_" + t, "text": w.text("A first try")})
			w.harness("stream_reset", map[string]any{})
			w.harness("reconnecting", map[string]any{"attempt": 1, "max_attempts": 5, "delay_ms": 500, "reason": w.text("stream error")})
			w.harness("reconnect_ended", map[string]any{"ok": true})
			w.harness("reasoning_delta", map[string]any{"item_id": "rs_" + t, "part": 0, "text": w.text("Thinking it over.")})
		}
		half := len(text) / 2
		for len(text) > 0 && (half == 0 || !isBoundary(text, half)) && half < len(text) {
			half++
		}
		for _, piece := range []string{text[:half], text[half:]} {
			if piece != "" {
				w.harness("text_delta", map[string]any{"item_id": "msg_" + t, "text": piece, "final": final})
			}
		}
		if r.CutOff {
			return
		}
		at := w.tick(900)
		emit(stream.ModelResponded{At: at, Turn: turn, TurnID: t, Duration: at.Sub(began), Stop: stream.StopComplete,
			Usage: stream.Tokens{InputTokens: 12873, CachedInputTokens: 3712, OutputTokens: 65}})
		emit(stream.ReasoningSummary{At: at, Turn: turn, Text: w.text("Thinking it over.")})
		emit(stream.AssistantMessage{At: at, Turn: turn, Text: text, Final: final})
	}
	if r.Calls > 0 {
		response(w.text("I'll run the commands."), false)
		if r.CutOff {
			return true
		}
		at := w.at
		for c := range r.Calls {
			id := fmt.Sprintf("call_%d_%d", i+1, c)
			emit(stream.ToolCalled{At: at, CallID: id, Name: "Bash", Label: w.text("ls"), Arguments: `{"command":"ls"}`})
		}
		for c := range r.Calls {
			id := fmt.Sprintf("call_%d_%d", i+1, c)
			if r.AutoReview {
				w.harness("auto_reviewed", map[string]any{"command": w.text("ls"), "outcome": "allow", "risk": "low", "reason": w.text("reads the directory"),
					"duration_ms": 1200, "input_tokens": 900, "cached_input_tokens": 800, "output_tokens": 40})
			}
			emit(stream.ToolStarted{At: w.tick(2), CallID: id, OpID: "op_" + id, Name: "Bash", Label: w.text("ls"), OpType: "shell"})
		}
		if r.Queued {
			w.harness("input_queued", map[string]any{"id": fmt.Sprintf("m%d", i+2), "text": w.text("and then?")})
		}
		for c := range r.Calls {
			id := fmt.Sprintf("call_%d_%d", i+1, c)
			detail := "exit 0"
			if r.Failed {
				detail = "exit 1"
			}
			emit(stream.ToolFinished{At: w.tick(300), CallID: id, OpID: "op_" + id, Name: "Bash", Label: w.text("ls"), OK: !r.Failed,
				Detail: detail, Duration: 300 * time.Millisecond, OpType: "shell"})
		}
	} else if r.Queued {
		w.harness("input_queued", map[string]any{"id": fmt.Sprintf("m%d", i+2), "text": w.text("and then?")})
	}
	response(r.Answer, true)
	if r.CutOff {
		return true
	}
	end := w.tick(8)
	fold.EndAt(end)
	st := fold.Stats()
	status := stream.Classify("", 0, st)
	if r.Status != "" {
		status = r.Status
	}
	emit(stream.RunFinished{At: end, Result: stream.Result{Status: status, StartedAt: start, Wall: end.Sub(start),
		Request: req, Stats: st, Answer: fold.Answer()}})
	if r.Notice != "" {
		w.harness("notice", map[string]any{"level": r.Notice, "message": w.text("a notice after the run")})
	}
	return false
}

func isBoundary(s string, i int) bool { return i == len(s) || s[i]&0xc0 != 0x80 }
