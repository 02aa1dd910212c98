package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/uagentkit/stream"
)

// The baseline: runner records read as uagent reads them, with
// encoding/json: each line in one pass into the union of every kind's
// Data; a line that does not fit it, again kind by kind (outputs by their
// type, shell states alone). Written for this benchmark from DESIGN.md's
// description of uagent's reader; the mapping to events is the same as
// statedir's, so that the two can be checked against each other.

type bLine struct {
	Sequence   int64     `json:"Sequence"`
	Type       string    `json:"type"`
	Message    string    `json:"message"`
	RecordedAt time.Time `json:"RecordedAt"`
	Kind       string    `json:"Kind"`
	Data       bData     `json:"Data"`
}

type bData struct {
	bInput
	TurnID     string      `json:"TurnID"`
	Response   bResponse   `json:"Response"`
	CallID     string      `json:"CallID"`
	Status     bCallStatus `json:"Status"`
	Operations []bShellOp  `json:"Operations"`
}

type bInput struct {
	ID      string          `json:"ID"`
	Kind    string          `json:"Kind"`
	Payload json.RawMessage `json:"Payload"`
}

type bResponse struct {
	Stop    string    `json:"Stop"`
	Output  []bOutput `json:"Output"`
	Usage   bUsage    `json:"Usage"`
	Failure *struct {
		Code    string `json:"Code"`
		Message string `json:"Message"`
	} `json:"Failure"`
}

type bUsage struct {
	InputTokens           int64 `json:"InputTokens"`
	CachedInputTokens     int64 `json:"CachedInputTokens"`
	CacheWriteInputTokens int64 `json:"CacheWriteInputTokens"`
	OutputTokens          int64 `json:"OutputTokens"`
	ReasoningTokens       int64 `json:"ReasoningTokens"`
}

type bOutput struct {
	Type string      `json:"Type"`
	Data bOutputData `json:"Data"`
}

type bOutputData struct {
	CallID    string   `json:"CallID"`
	Name      string   `json:"Name"`
	Arguments string   `json:"Arguments"`
	Role      string   `json:"Role"`
	Text      string   `json:"Text"`
	Phase     string   `json:"Phase"`
	Summary   []string `json:"Summary"`
}

type bCallStatus struct {
	Error string `json:"Error"`
}

type bShellOp struct {
	ID     string      `json:"ID"`
	Type   string      `json:"Type"`
	Status string      `json:"Status"`
	State  bShellState `json:"State"`
}

type bShellState struct {
	ProcessGroupID int    `json:"ProcessGroupID"`
	OutPath        string `json:"OutPath"`
	ErrPath        string `json:"ErrPath"`
	Result         *struct {
		ExitCode int `json:"ExitCode"`
	} `json:"Result"`
	TerminalError string `json:"TerminalError"`
}

// The shapes of the second reading.
type bItem struct {
	Sequence   int64           `json:"Sequence"`
	Type       string          `json:"type"`
	Message    string          `json:"message"`
	RecordedAt time.Time       `json:"RecordedAt"`
	Kind       string          `json:"Kind"`
	Data       json.RawMessage `json:"Data"`
}

type bRawResponse struct {
	TurnID   string `json:"TurnID"`
	Response struct {
		Stop   string `json:"Stop"`
		Output []struct {
			Type string          `json:"Type"`
			Data json.RawMessage `json:"Data"`
		} `json:"Output"`
		Usage   bUsage `json:"Usage"`
		Failure *struct {
			Code    string `json:"Code"`
			Message string `json:"Message"`
		} `json:"Failure"`
	} `json:"Response"`
}

type bRawStatus struct {
	TurnID     string      `json:"TurnID"`
	CallID     string      `json:"CallID"`
	Status     bCallStatus `json:"Status"`
	Operations []struct {
		ID     string          `json:"ID"`
		Type   string          `json:"Type"`
		Status string          `json:"Status"`
		State  json.RawMessage `json:"State"`
	} `json:"Operations"`
}

type bOp struct {
	start time.Time
	done  bool
}

type baseline struct {
	turns     int
	turnStart time.Time
	turnIDs   map[string]int
	calls     map[string][2]string
	ops       map[string]*bOp
	failed    map[string]bool
	latest    time.Time
	emit      func(stream.Event)
}

// readBaseline reads events.jsonl as uagent does, line by line.
func readBaseline(r io.Reader, emit func(stream.Event)) error {
	b := &baseline{turnIDs: map[string]int{}, calls: map[string][2]string{}, ops: map[string]*bOp{}, failed: map[string]bool{}, emit: emit}
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		b.line(bytes.TrimSuffix(line, []byte("\n")))
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (b *baseline) line(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	var l bLine
	if json.Unmarshal(line, &l) != nil {
		b.byKind(line)
		return
	}
	if l.Type == "error" {
		b.emit(stream.RunnerError{At: b.latest, Message: l.Message})
		return
	}
	at := l.RecordedAt
	b.latest = at
	switch l.Kind {
	case "input":
		b.input(at, l.Data.bInput)
	case "turn":
		b.turn(at, l.Data.ID)
	case "model_response":
		b.response(at, l.Data.TurnID, l.Data.Response)
	case "tool_call_status":
		b.status(at, l.Data.CallID, l.Data.Status, l.Data.Operations)
	}
}

func (b *baseline) byKind(line []byte) {
	var it bItem
	if err := json.Unmarshal(line, &it); err != nil {
		b.emit(stream.RunnerError{At: b.latest, Message: "unparseable runner output: " + oneLine(string(line), 200)})
		return
	}
	if it.Type == "error" {
		b.emit(stream.RunnerError{At: b.latest, Message: it.Message})
		return
	}
	at := it.RecordedAt
	b.latest = at
	switch it.Kind {
	case "input":
		var in bInput
		if err := json.Unmarshal(it.Data, &in); err != nil {
			b.emit(stream.RunnerError{At: at, Message: fmt.Sprintf("failed to decode input: %v", err)})
			return
		}
		b.input(at, in)
	case "turn":
		var t struct {
			ID string `json:"ID"`
		}
		json.Unmarshal(it.Data, &t)
		b.turn(at, t.ID)
	case "model_response":
		var raw bRawResponse
		if err := json.Unmarshal(it.Data, &raw); err != nil {
			b.emit(stream.RunnerError{At: at, Message: fmt.Sprintf("failed to decode model_response: %v", err)})
			return
		}
		resp := bResponse{Stop: raw.Response.Stop, Usage: raw.Response.Usage, Failure: raw.Response.Failure}
		for _, o := range raw.Response.Output {
			out := bOutput{Type: o.Type}
			if o.Type == "tool_call" || o.Type == "message" || o.Type == "reasoning" {
				if json.Unmarshal(o.Data, &out.Data) != nil {
					continue
				}
			}
			resp.Output = append(resp.Output, out)
		}
		b.response(at, raw.TurnID, resp)
	case "tool_call_status":
		var raw bRawStatus
		if err := json.Unmarshal(it.Data, &raw); err != nil {
			b.emit(stream.RunnerError{At: at, Message: fmt.Sprintf("failed to decode tool_call_status: %v", err)})
			return
		}
		ops := make([]bShellOp, len(raw.Operations))
		for i, o := range raw.Operations {
			ops[i] = bShellOp{ID: o.ID, Type: o.Type, Status: o.Status}
			if o.Type == "shell" && json.Unmarshal(o.State, &ops[i].State) != nil {
				ops[i].State = bShellState{}
			}
		}
		b.status(at, raw.CallID, raw.Status, ops)
	}
}

func (b *baseline) input(at time.Time, in bInput) {
	switch in.Kind {
	case "external":
		b.emit(stream.UserMessage{At: at, ID: in.ID, Text: inputText(in.Payload)})
	case "developer":
		b.emit(stream.DeveloperMessage{At: at, ID: in.ID, Text: inputText(in.Payload)})
	case "control":
		var c struct {
			Mode, Reason string
			Parameters   struct{ ReasoningEffort string }
		}
		if err := json.Unmarshal(in.Payload, &c); err != nil {
			b.emit(stream.RunnerError{At: at, Message: fmt.Sprintf("failed to decode control input: %v", err)})
			return
		}
		b.emit(stream.ControlInput{At: at, ID: in.ID, Mode: c.Mode, Effort: c.Parameters.ReasoningEffort, Reason: c.Reason})
	}
}

func inputText(p json.RawMessage) string {
	var s string
	if json.Unmarshal(p, &s) != nil {
		return string(p)
	}
	return s
}

func (b *baseline) turn(at time.Time, id string) {
	b.turns++
	b.turnStart = at
	if id != "" {
		b.turnIDs[id] = b.turns
	}
	b.emit(stream.TurnStarted{At: at, Turn: b.turns, TurnID: id})
}

func (b *baseline) response(at time.Time, turnID string, r bResponse) {
	turn := b.turns
	if n, ok := b.turnIDs[turnID]; ok {
		turn = n
	}
	u := r.Usage
	e := stream.ModelResponded{At: at, Turn: turn, TurnID: turnID, Stop: r.Stop, Usage: stream.Tokens{InputTokens: u.InputTokens,
		CachedInputTokens: u.CachedInputTokens, CacheWriteInputTokens: u.CacheWriteInputTokens, OutputTokens: u.OutputTokens, ReasoningTokens: u.ReasoningTokens}}
	if !b.turnStart.IsZero() {
		e.Duration = at.Sub(b.turnStart)
	}
	if r.Failure != nil {
		e.Failure = strings.TrimSpace(r.Failure.Code + ": " + r.Failure.Message)
	}
	b.emit(e)
	for _, o := range r.Output {
		d := o.Data
		switch o.Type {
		case "tool_call":
			l := label(d.Name, d.Arguments)
			b.calls[d.CallID] = [2]string{d.Name, l}
			b.emit(stream.ToolCalled{At: at, CallID: d.CallID, Name: d.Name, Label: l, Arguments: d.Arguments})
		case "message":
			if d.Role == "assistant" {
				b.emit(stream.AssistantMessage{At: at, Turn: turn, Text: d.Text, Final: d.Phase == "final_answer"})
			}
		case "reasoning":
			for _, s := range d.Summary {
				b.emit(stream.ReasoningSummary{At: at, Turn: turn, Text: s})
			}
		}
	}
}

func (b *baseline) status(at time.Time, callID string, st bCallStatus, ops []bShellOp) {
	c := b.calls[callID]
	if st.Error != "" && !b.failed[callID] {
		b.failed[callID] = true
		b.emit(stream.ToolFinished{At: at, CallID: callID, Name: c[0], Label: c[1], Detail: oneLine(st.Error, 160)})
	}
	for _, o := range ops {
		var out, errp string
		if o.Type == "shell" {
			out, errp = o.State.OutPath, o.State.ErrPath
		}
		info, seen := b.ops[o.ID]
		if !seen {
			info = &bOp{start: at}
			b.ops[o.ID] = info
			b.emit(stream.ToolStarted{At: at, CallID: callID, OpID: o.ID, Name: c[0], Label: c[1], OpType: o.Type, OutPath: out, ErrPath: errp})
		}
		if info.done || !(o.Status == "completed" || o.Status == "failed" || o.Status == "canceled") {
			continue
		}
		info.done = true
		ok, detail := o.Status == "completed", o.Status
		if o.Type == "shell" {
			if o.State.Result != nil {
				detail = fmt.Sprintf("exit %d", o.State.Result.ExitCode)
				ok = ok && o.State.Result.ExitCode == 0
			}
			if o.State.TerminalError != "" {
				ok, detail = false, oneLine(o.State.TerminalError, 120)
			}
		}
		b.emit(stream.ToolFinished{At: at, CallID: callID, OpID: o.ID, Name: c[0], Label: c[1], OK: ok, Detail: detail,
			Duration: at.Sub(info.start), OpType: o.Type, OutPath: out, ErrPath: errp})
	}
}

func label(name, args string) string {
	if name == "Bash" {
		var a struct {
			Command string `json:"command"`
		}
		if json.Unmarshal([]byte(args), &a) == nil && a.Command != "" {
			return oneLine(a.Command, 120)
		}
	}
	return oneLine(args, 120)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
