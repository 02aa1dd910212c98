package acpstream

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"unicode"

	acp "github.com/coder/acp-go-sdk"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/safetext"
	"github.com/uagentkit/stream/internal/tail"
	"github.com/uagentkit/stream/uahstream"
)

// updates turns the lines of a prompt's run (or of a saved run) into
// session updates, as the run's session folded them: the tool calls'
// pairing and states, and the notices, are the fold's. It keeps no fold.
type updates struct {
	conn    *acp.AgentSideConnection
	session acp.SessionId
	notices []string // each notice of the open run as it was shown, by its index
	stop    string   // the stop of the last response that closed a turn

	// replay: the lines are a saved run's, sent as history (session/load):
	// its user messages too. window: the context window, for
	// usage_update (0: none sent).
	replay bool
	window int
}

// text is a string from a run as the editor shows it: newlines and tabs
// kept, what a terminal may act on escaped.
func text(s string) string { return safetext.Human(s, safetext.KeepNewlines|safetext.KeepTabs) }

// line is a string from a run kept on one line.
func line(s string) string { return safetext.Human(s, 0) }

func (u *updates) send(up acp.SessionUpdate) {
	// An editor that has gone away makes the connection end; the run is
	// then stopped by the agent.
	_ = u.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: u.session, Update: up})
}

// add sends what one line changed.
func (u *updates) add(l uahstream.Line) {
	if l.Ended != nil {
		u.endNotices(l.Ended.Fold)
	}
	if l.Started {
		u.notices = nil
	}
	if l.Err != nil || l.DTO == nil {
		return
	}
	switch d := l.DTO.(type) {
	case uahstream.TextDeltaDTO: // the text as the model writes it
		u.send(acp.UpdateAgentMessageText(text(d.Text)))
	case uahstream.ReasoningDeltaDTO:
		u.send(acp.UpdateAgentThoughtText(text(d.Text)))
	case uahstream.StreamResetDTO:
		if len(l.Voided) > 0 {
			u.send(acp.UpdateAgentMessageText("\n[uah: the text above is void: the stream was reset]\n"))
		}
	case uahstream.NoticeDTO:
		u.send(acp.UpdateAgentMessageText("\n" + text("[uah "+d.Level+"] "+d.Message) + "\n"))
	case stream.UserMessageDTO:
		if u.replay {
			u.send(acp.UpdateUserMessageText(text(d.Text)))
		}
	case stream.ModelRespondedDTO:
		if u.window > 0 && !u.replay {
			used := int(d.Usage.Input + d.Usage.Output)
			u.send(acp.SessionUpdate{UsageUpdate: &acp.SessionUsageUpdate{SessionUpdate: "usage_update", Used: used, Size: u.window}})
		}
	case stream.AssistantMessageDTO:
		if rest := unsent(l.Change, d.Text); rest != "" {
			u.send(acp.UpdateAgentMessageText(text(rest)))
		}
	case stream.ReasoningDTO:
		if rest := unsent(l.Change, d.Text); rest != "" {
			u.send(acp.UpdateAgentThoughtText(text(rest)))
		}
	}
	ch := l.Step
	if ch.NoticeStep == stream.StepOpened {
		n := l.Notice
		u.notices = append(u.notices, text(n.String()))
		u.send(acp.UpdateAgentMessageText("\n" + u.notices[ch.NoticeIndex] + "\n"))
	}
	if ch.TurnStep == stream.StepClosed {
		u.stop = l.Turn.Stop
	}
	if ch.CallStep == stream.StepOpened {
		c := l.Call
		u.send(acp.StartToolCall(acp.ToolCallId(line(c.CallID)), line(c.Label),
			acp.WithStartKind(toolKind(c.Name)), acp.WithStartStatus(acp.ToolCallStatusPending), acp.WithStartRawInput(rawInput(c.Arguments))))
	}
	if ch.ToolStep == stream.StepOpened {
		u.send(acp.UpdateToolCall(acp.ToolCallId(line(l.Tool.CallID)), acp.WithUpdateStatus(acp.ToolCallStatusInProgress)))
	}
	switch {
	case ch.ToolStep == stream.StepClosed:
		iv := l.Tool
		u.finished(iv.CallID, iv.OK, iv.Detail, iv.OutPath, iv.ErrPath)
	case ch.CallStep != 0:
		// A call that finished with no operation: it failed before one
		// started.
		if c := l.Call; c.Finished && c.Ops == 0 {
			fin, _ := l.DTO.(stream.ToolFinishedDTO)
			u.finished(c.CallID, c.OK, c.Detail, fin.OutPath, fin.ErrPath)
		}
	}
}

// unsent is what of a response's text the editor has not been sent: all
// of it, unless it replaces streamed text (a session stream's), which was
// sent as it came; then what follows that text, or, when the response
// says something else, its text on a line of its own.
func unsent(live uahstream.Change, full string) string {
	rest, anew := live.Unstreamed(full)
	if anew {
		return "\n" + rest
	}
	return rest
}

// finished sends a call's last state: its detail, and the last lines of
// its output files where they can be read.
func (u *updates) finished(callID string, ok bool, detail, outPath, errPath string) {
	status := acp.ToolCallStatusCompleted
	if !ok {
		status = acp.ToolCallStatusFailed
	}
	shown := text(detail)
	for _, o := range []struct{ what, path string }{{"stdout", outPath}, {"stderr", errPath}} {
		for _, l := range tail.Lines(o.path) {
			shown += "\n" + o.what + " │ " + text(l)
		}
	}
	u.send(acp.UpdateToolCall(acp.ToolCallId(line(callID)), acp.WithUpdateStatus(status),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(shown))})))
}

// endNotices says, once a run has ended, how many times each notice
// that came more than once came.
func (u *updates) endNotices(f *stream.Fold) {
	for i, n := range f.Notices() {
		if n.Count > 1 && i < len(u.notices) {
			u.send(acp.UpdateAgentMessageText(fmt.Sprintf("\n%s (came %d times)\n", u.notices[i], n.Count)))
		}
	}
}

// lastStop is the stop reason of the last model response that closed a
// turn.
func (u *updates) lastStop() string { return u.stop }

// usage is the token usage of a session's runs, added up, as the
// protocol's (unstable) usage.
func usage(s *uahstream.Session) *acp.Usage {
	t := s.Totals().Tokens
	cached, written, thought := int(t.CachedInput), int(t.CacheWriteInput), int(t.Reasoning)
	return &acp.Usage{InputTokens: int(t.Input), OutputTokens: int(t.Output), CachedReadTokens: &cached,
		CachedWriteTokens: &written, ThoughtTokens: &thought, TotalTokens: int(t.Input + t.Output)}
}

// rawInput is a call's arguments: their JSON value when they are JSON,
// else the text; nil when there are none.
func rawInput(args string) any {
	if args == "" {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(args), &v) == nil {
		return cleanValue(v)
	}
	return text(args)
}

// cleanValue escapes what a terminal may act on in every string of a JSON
// value, its keys included.
func cleanValue(v any) any {
	switch v := v.(type) {
	case string:
		return text(v)
	case []any:
		for i := range v {
			v[i] = cleanValue(v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[line(k)] = cleanValue(x)
		}
		return out
	}
	return v
}

// toolKinds maps a tool's name to the kind editors show it as, the way the
// existing adapters do: the name is cut into words (at _, -, ., / and
// space, and where a lower-case letter meets an upper-case one), and the
// first rule with one of its words wins. README's table lists them.
var toolKinds = []struct {
	words []string
	kind  acp.ToolKind
}{
	{[]string{"bash", "shell", "sh", "exec", "command", "terminal"}, acp.ToolKindExecute},
	{[]string{"think", "todo", "plan"}, acp.ToolKindThink},
	{[]string{"read", "view", "cat", "open"}, acp.ToolKindRead},
	{[]string{"edit", "write", "patch", "replace", "create", "delete", "move"}, acp.ToolKindEdit},
	{[]string{"grep", "glob", "search", "find", "list", "ls"}, acp.ToolKindSearch},
	{[]string{"fetch", "http", "web", "url", "curl"}, acp.ToolKindFetch},
}

func toolKind(name string) acp.ToolKind {
	var words []string
	var w []rune
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ' || r == '/':
			words, w = append(words, string(w)), w[:0]
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			words, w = append(words, string(w)), w[:0]
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		w = append(w, unicode.ToLower(r))
	}
	words = append(words, string(w))
	for _, rule := range toolKinds {
		for _, word := range words {
			if slices.Contains(rule.words, word) {
				return rule.kind
			}
		}
	}
	return acp.ToolKindOther
}
