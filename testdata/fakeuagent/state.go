package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/statedir"
)

// saveRun is a run of uagent with a state directory: the run's directory
// (request.json, the runner's records, summary.json, running then ended)
// under stateDir/runs, then its v1 stream on out. Its answer says which
// prompts of the session came before, so that a test sees the
// conversation go on. A session whose lock another process holds fails
// as uagent does.
func saveRun(stateDir, session, effort, model, prompt string, out io.Writer) error {
	if stateDir == "" {
		return errors.New("no state directory: set UAGENT_STATE_DIR")
	}
	if session == "" {
		b := make([]byte, 16)
		rand.Read(b)
		h := hex.EncodeToString(b)
		session = h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:]
	}
	if err := lockSession(stateDir, session); err != nil {
		return err
	}
	if effort == "" {
		effort = "high"
	}
	if model == "" {
		model = "fake-model"
	}
	// The prompts that came before, from the session's saved runs.
	var before []string
	if s := history.Open(history.Prices{}, stateDir).Session(session); s != nil {
		for _, r := range s.Runs {
			if q, err := statedir.ReadRequest(r.Dir); err == nil {
				before = append(before, q.Prompt)
			}
		}
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	id := now.Format("20060102-150405-") + session[:8]
	dir := filepath.Join(stateDir, "runs", id)
	for n := 2; ; n++ {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return err
		}
		if err := os.Mkdir(dir, 0o755); err == nil {
			break
		} else if !errors.Is(err, os.ErrExist) {
			return err
		}
		id = now.Format("20060102-150405-") + session[:8] + fmt.Sprintf("-%d", n)
		dir = filepath.Join(stateDir, "runs", id)
	}
	req, _ := json.Marshal(map[string]string{"prompt": prompt, "session_id": session, "thinking_level": effort, "model": model})
	if err := os.WriteFile(filepath.Join(dir, statedir.RequestFile), req, 0o644); err != nil {
		return err
	}
	sum := stream.SummaryDTO{V: 1, Status: "running", RunID: id, SessionID: session, Provider: "fake", Model: model, Effort: effort,
		Workspace: mustCwd(), StartedAt: now}
	if err := sum.WriteFile(filepath.Join(dir, statedir.SummaryFile)); err != nil {
		return err
	}
	answer := "answer to: " + prompt
	if len(before) > 0 {
		answer += " (after: " + strings.Join(before, " | ") + ")"
	}
	at := now
	seq := 0
	var records []string
	record := func(kind string, data any) {
		seq++
		at = at.Add(10 * time.Millisecond)
		b, _ := json.Marshal(map[string]any{"Sequence": seq, "RecordedAt": at, "Kind": kind, "Data": data})
		records = append(records, string(b))
	}
	record("input", map[string]any{"ID": "in-1", "Kind": "external", "Payload": prompt})
	record("turn", map[string]any{"ID": "t1"})
	record("model_response", map[string]any{"TurnID": "t1", "Response": map[string]any{"Stop": "complete",
		"Output":  []any{map[string]any{"Type": "tool_call", "Data": map[string]any{"CallID": "call_" + id, "Name": "Bash", "Arguments": `{"command":"ls"}`}}},
		"Usage":   map[string]any{"InputTokens": 1000, "OutputTokens": 20},
		"Failure": nil}})
	op := map[string]any{"ID": "op_" + id, "Type": "shell", "Status": "running", "State": map[string]any{}}
	record("tool_call_status", map[string]any{"CallID": "call_" + id, "Status": map[string]any{}, "Operations": []any{op}})
	op["Status"], op["State"] = "completed", map[string]any{"Result": map[string]any{"ExitCode": 0}}
	record("tool_call_status", map[string]any{"CallID": "call_" + id, "Status": map[string]any{}, "Operations": []any{op}})
	record("turn", map[string]any{"ID": "t2"})
	record("model_response", map[string]any{"TurnID": "t2", "Response": map[string]any{"Stop": "complete",
		"Output":  []any{map[string]any{"Type": "message", "Data": map[string]any{"Role": "assistant", "Text": answer, "Phase": "final_answer"}}},
		"Usage":   map[string]any{"InputTokens": 1100, "OutputTokens": 30},
		"Failure": nil}})
	if err := os.WriteFile(filepath.Join(dir, statedir.EventsFile), []byte(strings.Join(records, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	r, err := statedir.OpenRun(dir)
	if err != nil {
		return err
	}
	var f stream.Fold
	for e := range r.Events() {
		f.AddEvent(e)
	}
	f.EndAt(at)
	st := f.Stats()
	sum.Stats = stream.SummaryToDTO(stream.Result{Stats: st}).Stats
	sum.Status, sum.WallMS, sum.Answer = string(stream.Classify("", 0, st)), at.Sub(now).Milliseconds(), f.Answer()
	if err := sum.WriteFile(filepath.Join(dir, statedir.SummaryFile)); err != nil {
		return err
	}
	if r, err = statedir.OpenRun(dir); err != nil {
		return err
	}
	return r.Write(out)
}

func mustCwd() string {
	wd, _ := os.Getwd()
	return wd
}

// hangRun is a run of uagent with a state directory that works until
// SIGINT: its directory (summary running) and its first lines (run_started,
// the prompt, a tool started); then, at SIGINT, the signal noted in
// sigintTo (when given), the summary interrupted, run_finished, exit 130.
func hangRun(stateDir, session, prompt, sigintTo string, out io.Writer) error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if stateDir == "" || session == "" {
		return errors.New("-hang with -state needs UAGENT_STATE_DIR and --session")
	}
	if err := lockSession(stateDir, session); err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	id := now.Format("20060102-150405-") + session[:8]
	dir := filepath.Join(stateDir, "runs", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	req, _ := json.Marshal(map[string]string{"prompt": prompt, "session_id": session})
	if err := os.WriteFile(filepath.Join(dir, statedir.RequestFile), req, 0o644); err != nil {
		return err
	}
	sum := stream.SummaryDTO{V: 1, Status: "running", RunID: id, SessionID: session, Provider: "fake", Model: "fake-model", Effort: "high",
		Workspace: mustCwd(), StartedAt: now}
	if err := sum.WriteFile(filepath.Join(dir, statedir.SummaryFile)); err != nil {
		return err
	}
	rec := fmt.Sprintf(`{"Sequence":1,"RecordedAt":%q,"Kind":"input","Data":{"ID":"in-1","Kind":"external","Payload":%q}}`+"\n",
		now.Add(10*time.Millisecond).Format(time.RFC3339Nano), prompt)
	if err := os.WriteFile(filepath.Join(dir, statedir.EventsFile), []byte(rec), 0o644); err != nil {
		return err
	}
	sink := stream.NewSink(out)
	sink.Emit(stream.RunStarted{At: now, RunID: id, SessionID: session, Provider: "fake", Model: "fake-model", Effort: "high", Workspace: mustCwd()})
	sink.Emit(stream.UserMessage{At: now.Add(10 * time.Millisecond), ID: "in-1", Text: prompt})
	sink.Emit(stream.ToolCalled{At: now.Add(20 * time.Millisecond), CallID: "call_sleep", Name: "Bash", Label: "sleep 1000", Arguments: `{"command":"sleep 1000"}`})
	sink.Emit(stream.ToolStarted{At: now.Add(20 * time.Millisecond), CallID: "call_sleep", OpID: "op_sleep", Name: "Bash", Label: "sleep 1000", OpType: "shell"})
	if sig := <-sigs; sig != syscall.SIGINT {
		return fmt.Errorf("stopped by %v", sig)
	}
	if sigintTo != "" {
		if err := os.WriteFile(sigintTo, []byte("SIGINT\n"), 0o644); err != nil {
			return err
		}
	}
	end := time.Now().UTC()
	st := stream.Stats{Turns: 0, ToolCalls: 1, MaxParallelTools: 1, ToolsByName: map[string]int{"Bash": 1}, UserMessages: 1,
		EventSpan: 10 * time.Millisecond, ToolBusyTime: end.Sub(now.Add(20 * time.Millisecond))}
	sum.Status, sum.RunnerExitCode, sum.WallMS = string(stream.StatusInterrupted), 130, end.Sub(now).Milliseconds()
	sum.Stats = stream.SummaryToDTO(stream.Result{Stats: st}).Stats
	if err := sum.WriteFile(filepath.Join(dir, statedir.SummaryFile)); err != nil {
		return err
	}
	res := stream.SummaryFromDTO(sum)
	res.Stats = st
	sink.Emit(stream.RunFinished{At: end, Result: res})
	return sink.Err()
}
