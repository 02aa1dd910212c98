package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// The runner's records as uagent's events.jsonl holds them, in the field
// order and with the fields its Go types have (read off the records in
// uagent's testing/fixtures/runner), written by encoding/json as the
// runner writes them (so <, > and & are \u003c, \u003e, \u0026).
type (
	rec struct {
		Sequence   int
		RecordedAt time.Time
		Kind       string
		Data       any
	}
	recInput struct {
		ID      string
		Kind    string
		Payload any
	}
	recControl struct {
		Mode       string
		Reason     string
		Parameters *recParams `json:",omitempty"`
	}
	recParams struct{ ReasoningEffort string }
	recTurn   struct{ ID, PreviousTurnID, Type string }
	recResp   struct {
		TurnID   string
		Response recResponse
	}
	recResponse struct {
		ID      string
		Stop    string
		Output  []recOutput
		Usage   recUsage
		Failure *recFailure
	}
	recFailure struct{ Code, Message string }
	recOutput  struct {
		ProviderID string
		Type       string
		Data       any
	}
	recCall  struct{ CallID, Name, Arguments string }
	recMsg   struct{ Role, Text, Phase string }
	recReas  struct{ Summary []string }
	recUsage struct {
		InputTokens, CachedInputTokens, CacheWriteInputTokens, OutputTokens, ReasoningTokens int
		Raw                                                                                  recRaw
	}
	// recRaw is the provider's raw usage: an attribution of the input to
	// every item of the conversation so far, which grows with the run.
	recRaw struct {
		Attribution        recAttribution `json:"attribution"`
		InputTokens        int            `json:"input_tokens"`
		InputTokensDetails recTokens      `json:"input_tokens_details"`
		OutputTokens       int            `json:"output_tokens"`
		OutputDetails      recReasoning   `json:"output_tokens_details"`
		TotalTokens        int            `json:"total_tokens"`
	}
	recAttribution struct {
		Items         map[string]recItem `json:"items"`
		RequestFields map[string]recItem `json:"request_fields"`
	}
	recItem struct {
		CacheWriteTokens int       `json:"cache_write_tokens"`
		CachedTokens     int       `json:"cached_tokens"`
		Content          []recItem `json:"content,omitempty"`
		InputTokens      int       `json:"input_tokens"`
		OutputTokens     int       `json:"output_tokens"`
	}
	recTokens struct {
		CacheWriteTokens int `json:"cache_write_tokens"`
		CachedTokens     int `json:"cached_tokens"`
	}
	recReasoning struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	}
	recStatus struct {
		TurnID     string
		CallID     string
		Status     recCallStatus
		Operations []recOp
	}
	recCallStatus struct {
		Error      string
		WaitingFor []string
	}
	recOp struct {
		MaxOutputLength int
		ID, Type        string
		Version         int
		Status          string
		State           recShell
	}
	recShell struct {
		Input                                      recShellInput
		BaseDirectory, Phase                       string
		ProcessGroupID                             int
		PendingExitCode                            *int
		OutSize, ErrSize                           int
		InlineOut, InlineErr                       string
		InlineOutTail, InlineErrTail               string
		Result                                     *recResult
		TerminalError                              string
		ErrorTruncated, OutTruncated, ErrTruncated bool
		OutPath, ErrPath                           string
	}
	recShellInput struct{ Command, Shell, Directory string }
	recResult     struct {
		Out, Err         string
		OutSize, ErrSize int
		ExitCode         int
	}
)

// RecordsAt is when the runs of WriteRecords start.
var RecordsAt = time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)

// WriteRecords writes one run's events.jsonl shaped like the runner's of
// a long agent run, of size bytes at least: control and message inputs;
// turns of a reasoning summary, one to four parallel Bash calls (commands
// of 10 B to 4 KB, outputs of up to MaxText, each operation recorded
// ready, then running with its output's tail, then completed or failed
// with its whole state) and assistant text; every response with the raw
// usage attribution of the conversation so far (the last 64 items).
// One response in 200 has a field of another type (a token count
// written as a string), which a reader must read again leniently. Texts
// are made as in Options.Text; the same seed gives the same records.
func WriteRecords(w io.Writer, o Options) error {
	r := rand.New(rand.NewPCG(o.Seed, 29))
	if o.MaxText < 10 {
		o.MaxText = 10
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	c := &counter{w: bw}
	seq, responses := 0, 0
	at := RecordsAt
	uuid := func() string {
		return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1))
	}
	var werr error
	emit := func(kind string, data any, step time.Duration) {
		seq++
		at = at.Add(step)
		b, err := json.Marshal(rec{Sequence: seq, RecordedAt: at, Kind: kind, Data: data})
		if err != nil {
			panic(err) // the shapes above always encode
		}
		if kind == "model_response" {
			responses++
		}
		if kind == "model_response" && responses%200 == 100 {
			b = []byte(strings.Replace(string(b), `"InputTokens":`, `"InputTokens":"`, 1))
			b = []byte(strings.Replace(string(b), `,"CachedInputTokens"`, `","CachedInputTokens"`, 1))
		}
		if werr == nil {
			_, werr = c.Write(append(b, '\n'))
		}
	}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	emit("input", recInput{ID: uuid(), Kind: "control", Payload: recControl{Mode: "settings", Parameters: &recParams{ReasoningEffort: "high"}}}, 0)
	emit("input", recInput{ID: uuid(), Kind: "external", Payload: text(r, o.Text, size(r, o.MaxText))}, ms(6))
	emit("input", recInput{ID: uuid(), Kind: "control", Payload: recControl{Mode: "when_idle"}}, ms(5))
	var items []string // the conversation's items, for the attribution
	prev := ""
	base := "/home/dev/.local/state/unreal-agent/sessions/operations/" + uuid()
	for turn := 1; c.n < o.Size && werr == nil; turn++ {
		id := uuid()
		emit("turn", recTurn{ID: id, PreviousTurnID: prev, Type: "regular"}, ms(4))
		prev = id
		var outs []recOutput
		item := func(prefix string) string {
			s := fmt.Sprintf("%s_%016x%016x%016x", prefix, r.Uint64(), r.Uint64(), r.Uint64())
			items = append(items, s)
			return s
		}
		outs = append(outs, recOutput{ProviderID: item("rs"), Type: "reasoning", Data: recReas{Summary: []string{text(r, o.Text, size(r, 600))}}})
		var calls []recCall
		if turn%5 != 0 {
			for range 1 + r.IntN(4) {
				cmd := "cd /home/dev/demo && " + text(r, "plain", size(r, 4<<10))
				args, _ := json.Marshal(map[string]string{"command": cmd})
				call := recCall{CallID: fmt.Sprintf("call_%012x", r.Uint64()&(1<<48-1)), Name: "Bash", Arguments: string(args)}
				calls = append(calls, call)
				outs = append(outs, recOutput{ProviderID: item("fc"), Type: "tool_call", Data: call})
			}
		} else {
			outs = append(outs, recOutput{ProviderID: item("msg"), Type: "message", Data: recMsg{Role: "assistant", Text: text(r, o.Text, size(r, o.MaxText)), Phase: "commentary"}})
		}
		attr := map[string]recItem{}
		for _, it := range items[max(0, len(items)-64):] {
			n := 2 + r.IntN(400)
			attr[it] = recItem{InputTokens: n, Content: []recItem{{InputTokens: n}}}
		}
		in := 5000 + 40*turn
		emit("model_response", recResp{TurnID: id, Response: recResponse{
			ID: fmt.Sprintf("resp_%016x%016x", r.Uint64(), r.Uint64()), Stop: "complete", Output: outs,
			Usage: recUsage{InputTokens: in, CachedInputTokens: in - 500, OutputTokens: 300, ReasoningTokens: 120, Raw: recRaw{
				Attribution: recAttribution{Items: attr, RequestFields: map[string]recItem{"tools": {InputTokens: 174}}},
				InputTokens: in, InputTokensDetails: recTokens{CachedTokens: in - 500}, OutputTokens: 300,
				OutputDetails: recReasoning{ReasoningTokens: 120}, TotalTokens: in + 300}},
		}}, ms(1500+r.IntN(2000)))
		for _, call := range calls {
			var a struct{ Command string }
			json.Unmarshal([]byte(call.Arguments), &a)
			op := recOp{MaxOutputLength: 40000, ID: uuid(), Type: "shell", Version: 3, Status: "ready", State: recShell{
				Input: recShellInput{Command: a.Command, Shell: "/bin/bash", Directory: "/home/dev/demo"}, BaseDirectory: base,
				OutTruncated: true, ErrTruncated: true}}
			status := func(step time.Duration) {
				emit("tool_call_status", recStatus{TurnID: id, CallID: call.CallID, Status: recCallStatus{WaitingFor: []string{op.ID}}, Operations: []recOp{op}}, step)
			}
			status(ms(5))
			out := text(r, o.Text, size(r, o.MaxText))
			op.Status = "running"
			op.State.OutSize = len(out)
			op.State.InlineOutTail = out[max(0, len(out)-200):]
			status(ms(100 + r.IntN(900)))
			code := 0
			if r.IntN(10) == 0 {
				code = 1
			}
			op.Status = "completed"
			op.State.Result = &recResult{Out: out, OutSize: len(out), ExitCode: code}
			op.State.OutTruncated, op.State.ErrTruncated = false, false
			op.State.OutPath, op.State.ErrPath = base+"/"+op.ID+"/out", base+"/"+op.ID+"/err"
			status(ms(10 + r.IntN(2000)))
		}
	}
	turn := uuid()
	emit("turn", recTurn{ID: turn, PreviousTurnID: prev, Type: "regular"}, ms(4))
	emit("model_response", recResp{TurnID: turn, Response: recResponse{ID: "resp_final", Stop: "complete",
		Output: []recOutput{{ProviderID: "msg_final", Type: "message", Data: recMsg{Role: "assistant", Text: "Done.", Phase: "final_answer"}}}}}, ms(900))
	if werr != nil {
		return werr
	}
	return bw.Flush()
}
