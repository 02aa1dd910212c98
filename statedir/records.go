package statedir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/jsonparse"
	"github.com/uagentkit/stream/statedir/internal/harness"
)

// Operation statuses that end an operation.
func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "canceled"
}

// shellOp is the type of a shell operation.
const shellOp = "shell"

// mapper turns records into events, with the state uagent keeps across
// them: the turn count, each turn id's number, the latest turn's start,
// each call's name and label, each operation's start and whether it
// finished, which calls failed.
type mapper struct {
	turns     int
	turnStart time.Time
	turnIDs   map[string]int
	calls     map[string]call
	ops       map[string]op
	failed    map[string]bool
	latest    time.Time // the latest time a record had, for the lines that have none
	emit      func(stream.Event)
	records   harness.Reader
	// skip, when set, reports a line not worth mapping (Run.Requests): a
	// whole line it skips is not read at all.
	skip func(line []byte) bool
}

type call struct{ name, label string }

type op struct {
	start time.Time
	done  bool
}

func newMapper(emit func(stream.Event)) *mapper {
	return &mapper{turnIDs: map[string]int{}, calls: map[string]call{}, ops: map[string]op{}, failed: map[string]bool{}, emit: emit}
}

// line maps one line of events.jsonl (without its newline), read as
// uagent reads it (see package harness).
func (m *mapper) line(text []byte) {
	r, outcome, failure := m.records.Read(text)
	switch outcome {
	case harness.Blank:
		return
	case harness.Unparseable:
		m.emit(stream.RunnerError{At: m.latest, Message: "unparseable runner output: " + oneLine(string(text), 200)})
		return
	case harness.ErrorRecord:
		m.emit(stream.RunnerError{At: m.latest, Message: r.Message})
		return
	}
	at := r.RecordedAt
	if !at.IsZero() {
		m.latest = at
	}
	if outcome == harness.Failed {
		m.emit(stream.RunnerError{At: at, Message: failure})
		return
	}
	d := &r.Data
	switch r.Kind {
	case "input":
		m.input(at, d.ID, d.Kind, d.Payload)
	case "turn":
		m.turn(at, d.ID)
	case "model_response":
		m.response(at, d.TurnID, &d.Response)
	case "tool_call_status":
		m.status(at, d.CallID, d.Status.Error, d.Operations)
	}
}

// input maps an input: a user's, a developer's or a control message.
func (m *mapper) input(at time.Time, id, kind string, payload jsonparse.Raw) {
	switch kind {
	case "external":
		m.emit(stream.UserMessage{At: at, ID: id, Text: harness.Text(payload)})
	case "developer":
		m.emit(stream.DeveloperMessage{At: at, ID: id, Text: harness.Text(payload)})
	case "control":
		mode, effort, reason, err := harness.Control(payload)
		if err != nil {
			m.emit(stream.RunnerError{At: at, Message: fmt.Sprintf("failed to decode control input: %v", err)})
			return
		}
		m.emit(stream.ControlInput{At: at, ID: id, Mode: mode, Effort: effort, Reason: reason})
	}
}

func (m *mapper) turn(at time.Time, id string) {
	m.turns++
	m.turnStart = at
	if id != "" {
		m.turnIDs[id] = m.turns
	}
	m.emit(stream.TurnStarted{At: at, Turn: m.turns, TurnID: id})
}

func (m *mapper) response(at time.Time, turnID string, r *harness.Response) {
	u, stop := r.Usage, r.Stop
	turn := m.turns
	if n, ok := m.turnIDs[turnID]; ok {
		turn = n
	}
	e := stream.ModelResponded{At: at, Turn: turn, TurnID: turnID, Stop: stop, Usage: stream.Tokens{InputTokens: u.InputTokens,
		CachedInputTokens: u.CachedInputTokens, CacheWriteInputTokens: u.CacheWriteInputTokens, OutputTokens: u.OutputTokens,
		ReasoningTokens: u.ReasoningTokens}}
	if !m.turnStart.IsZero() {
		e.Duration = at.Sub(m.turnStart)
	}
	if f := r.Failure; f != nil {
		e.Failure = strings.TrimSpace(f.Code + ": " + f.Message)
	}
	m.emit(e)
	for _, o := range r.Output {
		d := o.Data
		switch o.Type {
		case "tool_call":
			c := call{name: d.Name, label: label(d.Name, d.Arguments)}
			m.calls[d.CallID] = c
			m.emit(stream.ToolCalled{At: at, CallID: d.CallID, Name: c.name, Label: c.label, Arguments: d.Arguments})
		case "message":
			if d.Role == "assistant" {
				m.emit(stream.AssistantMessage{At: at, Turn: turn, Text: d.Text, Final: d.Phase == "final_answer"})
			}
		case "reasoning":
			for _, s := range d.Summary {
				m.emit(stream.ReasoningSummary{At: at, Turn: turn, Text: s})
			}
		}
	}
}

func (m *mapper) status(at time.Time, callID, callErr string, ops []harness.Operation) {
	c := m.calls[callID]
	if callErr != "" && !m.failed[callID] {
		m.failed[callID] = true
		m.emit(stream.ToolFinished{At: at, CallID: callID, Name: c.name, Label: c.label, Detail: oneLine(callErr, 160)})
	}
	for _, o := range ops {
		var outPath, errPath string
		if o.Type == shellOp {
			outPath, errPath = o.State.OutPath, o.State.ErrPath
		}
		info, seen := m.ops[o.ID]
		if !seen {
			info = op{start: at}
			m.ops[o.ID] = info
			m.emit(stream.ToolStarted{At: at, CallID: callID, OpID: o.ID, Name: c.name, Label: c.label, OpType: o.Type,
				OutPath: outPath, ErrPath: errPath})
		}
		if info.done || !terminal(o.Status) {
			continue
		}
		info.done = true
		m.ops[o.ID] = info
		ok, detail := outcome(o)
		m.emit(stream.ToolFinished{At: at, CallID: callID, OpID: o.ID, Name: c.name, Label: c.label, OK: ok, Detail: detail,
			Duration: at.Sub(info.start), OpType: o.Type, OutPath: outPath, ErrPath: errPath})
	}
}

// outcome is whether an operation that ended succeeded, and its detail.
func outcome(o harness.Operation) (bool, string) {
	ok, detail := o.Status == "completed", o.Status
	if o.Type != shellOp {
		return ok, detail
	}
	if r := o.State.Result; r != nil {
		detail = fmt.Sprintf("exit %d", r.ExitCode)
		ok = ok && r.ExitCode == 0
	}
	if o.State.TerminalError != "" {
		ok, detail = false, oneLine(o.State.TerminalError, 120)
	}
	return ok, detail
}

// label is a call's label: a Bash call's command, when its arguments are
// a JSON object with a non-empty string command (read as encoding/json
// reads it, as uagent does: the key in any case), else the arguments; on
// one line, cut to 120 runes.
func label(name, args string) string {
	if name == "Bash" {
		if cmd := command(args); cmd != "" {
			return oneLine(cmd, 120)
		}
	}
	return oneLine(args, 120)
}

// commandArgs is the shape of a Bash call's arguments.
type commandArgs struct {
	Command string `json:"command"`
}

var commandCodec = jsonparse.NewCodec(reflect.TypeFor[commandArgs]())

// command is what encoding/json.Unmarshal(args, &commandArgs{}) sets
// Command to, or "" when it returns an error. The stream package's parser
// reads it unless the text may hold a key that encoding/json would match
// and it would not (another case of "command", or a key with an escape:
// a quote followed by either), or it fails (not JSON, not an object, a
// command that is not a string): then encoding/json reads it. The two read
// an object with the exact key alike otherwise: the last duplicate wins,
// null leaves it, invalid UTF-8 is U+FFFD.
func command(args string) string {
	text := unsafe.Slice(unsafe.StringData(args), len(args)) // read, never written
	var a commandArgs
	if !otherKeys(text) && jsonparse.Parse(commandCodec, text, &a) == nil {
		return a.Command
	}
	a = commandArgs{}
	if json.Unmarshal(text, &a) != nil {
		return ""
	}
	return a.Command
}

// otherKeys reports a string whose raw text may decode to "command" in
// another case than all lower: one that begins as "command" does in any
// case and then has a backslash (an escape might go on with it), or is
// "command" in another case. encoding/json might match such a key, the
// parser does not. Only ASCII letters fold to the letters of "command"
// (no other letter does, as the Kelvin sign does to k), and a raw byte
// other than a backslash is itself.
func otherKeys(text []byte) bool {
	const key = "command"
	for i := 0; ; i++ {
		j := bytes.IndexByte(text[i:], '"')
		if j < 0 {
			return false
		}
		i += j
		rest := text[i+1:]
		k := 0
		for k < len(key) && k < len(rest) && rest[k] != '\\' && rest[k]|0x20 == key[k] {
			k++
		}
		switch {
		case k < len(rest) && rest[k] == '\\':
			return true
		case k == len(key) && k < len(rest) && rest[k] == '"' && string(rest[:k]) != key:
			return true
		}
	}
}

// oneLine makes s one line (every run of white space one space, the ends
// trimmed) and cuts it to n runes: n−1 of them and "…" when it is longer.
// It is strings.Join(strings.Fields(s), " ") cut by its runes as uagent
// cuts (string([]rune(s)[:n-1]) + "…", which makes each invalid byte of
// the cut U+FFFD), in one pass that stops at the rune after the nth and
// copies nothing while the result is a prefix of s.
func oneLine(s string, n int) string {
	var b []byte // the result, once it is not a prefix of s
	end := 0     // the result's length while it is s[:end]
	runes, cut := 0, 0
	space := false // white space since the last rune kept
	size := func() int {
		if b != nil {
			return len(b)
		}
		return end
	}
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if isSpace(r) {
			space, i = true, i+w
			continue
		}
		for _, sep := range [2]bool{true, false} { // the separator, if any, then the rune
			if sep && !(space && runes > 0) {
				continue
			}
			if runes == n {
				return cutAt(b, s, cut)
			}
			if runes == n-1 {
				cut = size()
			}
			runes++
			switch {
			case b != nil && sep:
				b = append(b, ' ')
			case b != nil:
				b = append(b, s[i:i+w]...)
			case sep && s[end] == ' ':
				end++
			case !sep && end == i:
				end += w
			default: // the result leaves s here
				b = append(make([]byte, 0, min(len(s), 4*n)), s[:end]...)
				if sep {
					b = append(b, ' ')
				} else {
					b = append(b, s[i:i+w]...)
				}
			}
		}
		space, i = false, i+w
	}
	if b == nil {
		return s[:end]
	}
	return string(b)
}

// cutAt is the first cut bytes of the result (b, or s while the result is
// a prefix of it), each invalid byte U+FFFD, and "…".
func cutAt(b []byte, s string, cut int) string {
	head := s[:min(cut, len(s))]
	if b != nil {
		head = string(b[:cut])
	}
	if !utf8.ValidString(head) {
		head = string([]rune(head))
	}
	return head + "…"
}

// isSpace is unicode.IsSpace, with ASCII first.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}
