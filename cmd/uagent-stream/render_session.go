package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/uahstream"
)

// sessionView is what the renderer keeps of a session stream of the
// harness: the session's fold (whose run folds the renderer shows), the
// streamed text it has shown, and whether a streamed line is open.
type sessionView struct {
	s      uahstream.Session
	shown  map[*uahstream.Live]bool
	open   bool      // a streamed line is being written
	origin time.Time // session_opened's at: the clock of the lines between runs
}

// sessionLine renders one line of a session stream.
func (r *renderer) sessionLine(dto any, err error) {
	v := r.session
	if err == nil {
		if dto, err = uahstream.Decode(dto); err != nil {
			err = fmt.Errorf("stream: %s line: %w", uahstream.TypeOf(dto), err)
		}
	}
	ch := v.s.Add(dto, err)
	if ch.CutOff >= 0 || ch.Ended { // what the run streamed and no response replaced, before its end
		r.endRunText(ch.Unreplaced)
	}
	if ch.CutOff >= 0 { // the open run ends here, without run_finished
		r.end(v.s.Runs()[ch.CutOff].Verdict)
		r.printf("%s── run %d was cut off: the next run starts%s\n", r.pal.yellow, ch.CutOff+1, r.pal.reset)
	}
	if ch.Started {
		r.breakLine()
		r.reset()
		r.fold = v.s.Fold()
		r.printf("%s══ run %d%s\n", r.pal.bold, ch.Run+1, r.pal.reset)
	}
	if err != nil {
		r.breakLine()
		r.errs++
		r.printf("%s✗ %s%s\n", r.pal.red, sanitize(err.Error(), false), r.pal.reset)
		return
	}
	if ch.Run >= 0 && !uahstream.Known(uahstream.TypeOf(dto)) {
		if ch.LiveStep == uahstream.Replaced && r.live && v.shown[ch.Live] {
			delete(v.shown, ch.Live)
			r.breakLine()
			if ch.Same { // shown as it streamed: not again
				r.quiet = true
			} else {
				r.printf("%s   (the streamed text is replaced by the response's)%s\n", r.pal.dim, r.pal.reset)
			}
		}
		r.breakLine()
		r.renderChange(dto, ch.Step)
		r.quiet = false
		return
	}
	r.harness(dto, ch)
}

// breakLine ends a streamed line that is open.
func (r *renderer) breakLine() {
	if r.session != nil && r.session.open {
		r.session.open = false
		r.w.WriteString("\n")
	}
}

// sessionStamp is the time column of a line: since the run began inside
// a run, since the session opened between runs.
func (r *renderer) sessionStamp(at time.Time) string {
	if r.session.s.Fold() != nil {
		return r.stamp(at)
	}
	return fmt.Sprintf("%s%8.3fs%s ", r.pal.dim, at.Sub(r.session.origin).Seconds(), r.pal.reset)
}

// harness renders one of the harness's lines.
func (r *renderer) harness(dto any, ch uahstream.Change) {
	p, v := r.pal, r.session
	switch d := dto.(type) {
	case uahstream.TextDeltaDTO:
		r.delta(ch, d.At, d.Final)
		return
	case uahstream.ReasoningDeltaDTO:
		r.delta(ch, d.At, false)
		return
	case uahstream.StreamResetDTO:
		var shown bool
		for _, l := range ch.Voided {
			shown = shown || v.shown[l]
			delete(v.shown, l)
		}
		if shown {
			r.breakLine()
			r.printf("%s%s── stream reset: the streamed text above is void%s\n", r.sessionStamp(d.At), p.yellow, p.reset)
		}
		return
	}
	r.breakLine()
	switch d := dto.(type) {
	case uahstream.SessionOpenedDTO:
		v.origin = d.At
		s := d.Settings
		opened := "session " + oneLine(d.ID, 80)
		if d.Resumed {
			opened += " (resumed)"
		}
		r.printf("%s%s%s\n", p.bold, joinNonEmpty(" · ", opened, prefixed("engine ", oneLine(d.Engine, 40)),
			joinNonEmpty(" ", oneLine(s.Provider, 40), oneLine(s.Model, 40)), prefixed("effort ", oneLine(s.Effort, 20)),
			prefixed("tier ", oneLine(s.ServiceTier, 20)), oneLine(s.Workspace, 120),
			"opened "+d.At.UTC().Format("2006-01-02 15:04:05 UTC")), p.reset)
	case uahstream.InstructionsLoadedDTO:
		files := make([]string, len(d.Files))
		for i, f := range d.Files {
			files[i] = oneLine(f, 120)
		}
		cut := ""
		if d.Truncated {
			cut = ", truncated"
		}
		r.printf("%s%sinstructions: %s (%d bytes%s)%s\n", r.sessionStamp(d.At), p.dim, strings.Join(files, ", "), d.Bytes, cut, p.reset)
	case uahstream.InputQueuedDTO:
		r.printf("%s%squeued%s %s: %s\n", r.sessionStamp(d.At), p.cyan, p.reset, oneLine(d.ID, 60), text(d.Text))
	case uahstream.InputSentDTO:
		r.printf("%s%ssent %s%s\n", r.sessionStamp(d.At), p.dim, ids(d.IDs), p.reset)
	case uahstream.InputDeliveredDTO:
		r.printf("%s%s✓ delivered %s%s\n", r.sessionStamp(d.At), p.dim, oneLine(d.ID, 60), p.reset)
	case uahstream.InputFailedDTO:
		r.printf("%s%s✗ not delivered %s: %s%s\n", r.sessionStamp(d.At), p.red, ids(d.IDs), oneLine(d.Reason, 160), p.reset)
	case uahstream.InputWithdrawnDTO:
		r.printf("%s%swithdrawn %s%s\n", r.sessionStamp(d.At), p.dim, oneLine(d.ID, 60), p.reset)
	case uahstream.SettingsChangedDTO:
		s := d.Settings
		r.printf("%s%ssettings: %s (%s)%s\n", r.sessionStamp(d.At), p.dim, joinNonEmpty(" · ", joinNonEmpty(" ", oneLine(s.Provider, 40), oneLine(s.Model, 40)),
			prefixed("effort ", oneLine(s.Effort, 20)), prefixed("tier ", oneLine(s.ServiceTier, 20)), oneLine(s.Workspace, 120)), oneLine(d.Applied, 20), p.reset)
	case uahstream.IdleDTO:
		r.printf("%s%s── idle%s\n", r.sessionStamp(d.At), p.dim, p.reset)
	case uahstream.NoticeDTO:
		col := p.dim
		switch d.Level {
		case "warning":
			col = p.yellow
		case "error":
			col = p.red
		}
		r.printf("%s%s! %s: %s%s\n", r.sessionStamp(d.At), col, oneLine(d.Level, 20), text(d.Message), p.reset)
	case uahstream.ReconnectingDTO:
		offline := ""
		if d.Offline {
			offline = ", offline"
		}
		r.printf("%s%s⟳ reconnecting (attempt %d of %d, in %s%s): %s%s\n", r.sessionStamp(d.At), p.yellow, d.Attempt, d.MaxAttempts, ms(d.DelayMS), offline, oneLine(d.Reason, 160), p.reset)
	case uahstream.ReconnectEndedDTO:
		if d.OK {
			r.printf("%s%s⟳ reconnected%s\n", r.sessionStamp(d.At), p.dim, p.reset)
		} else {
			r.printf("%s%s✗ reconnecting gave up%s\n", r.sessionStamp(d.At), p.red, p.reset)
		}
	case uahstream.CompactionStartedDTO:
		r.printf("%s%scompacting (%s, %d tokens)%s\n", r.sessionStamp(d.At), p.dim, oneLine(d.Trigger, 40), d.Tokens, p.reset)
	case uahstream.CompactedDTO:
		switch {
		case d.Error != "":
			r.printf("%s%s✗ compaction failed: %s%s\n", r.sessionStamp(d.At), p.red, oneLine(d.Error, 160), p.reset)
		case d.Interrupted:
			r.printf("%s%scompaction interrupted%s\n", r.sessionStamp(d.At), p.yellow, p.reset)
		default:
			r.printf("%s%scompacted (%s)%s\n", r.sessionStamp(d.At), p.dim, oneLine(d.Trigger, 40), p.reset)
		}
		if d.Warning != "" {
			r.printf("%s%s! %s%s\n", r.sessionStamp(d.At), p.yellow, oneLine(d.Warning, 160), p.reset)
		}
	case uahstream.WebSearchDTO:
		what := joinNonEmpty(" · ", oneLine(d.Action, 20), oneLine(d.Query, 120), oneLine(d.URL, 120), oneLine(d.Pattern, 60))
		mark := "⋯"
		if d.Done {
			mark = "✓"
		}
		r.printf("%s  %s web search: %s\n", r.sessionStamp(d.At), mark, what)
	case uahstream.RewoundDTO:
		r.printf("%s%srewound to %s%s\n", r.sessionStamp(d.At), p.yellow, oneLine(d.MessageID, 60), p.reset)
	case stream.UnknownDTO:
		r.printf("%s%s? %s (unknown type, %d bytes)%s\n", r.sessionStamp(d.At), p.dim, oneLine(d.Type, 60), len(d.Raw), p.reset)
	default: // a uagent event outside every run
		r.printf("%s? %s outside a run%s\n", p.dim, oneLine(uahstream.TypeOf(dto), 60), p.reset)
	}
}

// delta shows streamed text as it comes, when live; a whole stream shows
// each response's own text instead (and what streamed without one at its
// run's end).
func (r *renderer) delta(ch uahstream.Change, at time.Time, final bool) {
	v := r.session
	if !r.live || ch.Live.Reasoning && r.noReasoning {
		return
	}
	if !v.shown[ch.Live] {
		r.breakLine()
		who := r.pal.bold + "assistant ⋯" + r.pal.reset
		if final {
			who = r.pal.bold + "answer ⋯" + r.pal.reset
		}
		if ch.Live.Reasoning {
			who = r.pal.dim + "  ·"
		}
		r.printf("%s%s ", r.sessionStamp(at), who)
		v.shown[ch.Live] = true
	}
	r.w.WriteString(strings.ReplaceAll(sanitize(ch.Delta, true), "\n", "\n"+strings.Repeat(" ", 14)))
	if ch.Live.Reasoning {
		r.w.WriteString(r.pal.reset)
	}
	v.open = true
}

// endRunText ends what streamed in the run that ends: a streamed line is
// closed; what streamed without a response to replace it (left: as the
// session's fold says) is shown, when it was not as it came.
func (r *renderer) endRunText(left []*uahstream.Live) {
	r.breakLine()
	for _, l := range left {
		shown := r.session.shown[l]
		delete(r.session.shown, l)
		if shown || l.Reasoning && r.noReasoning {
			continue
		}
		who := "assistant (streamed, no response)"
		if l.Reasoning {
			who = "reasoning (streamed, no response)"
		}
		r.printf("%s%s%s:%s %s\n", strings.Repeat(" ", 10), r.pal.dim, who, r.pal.reset, text(l.Text))
	}
}

// sessionEnd says how the session ended: the open run's ending, and the
// totals of its runs.
func (r *renderer) sessionEnd(v stream.Verdict) {
	s := &r.session.s
	r.endRunText(s.Pending())
	if s.Fold() != nil {
		r.end(v)
	}
	t := s.Totals()
	p := r.pal
	r.printf("%s══ session %s: %s · %s · %s · model %s · wall %s%s\n", p.bold, oneLine(s.ID(), 80), plural(t.Runs, "run"), plural(t.Turns, "turn"),
		plural(t.ToolCalls, "tool call"), ms(t.ModelMS), ms(t.WallMS), p.reset)
	r.printf("   tokens %s\n", tokens(t.Tokens))
	for _, m := range s.Messages() {
		switch m.State {
		case uahstream.Failed, uahstream.Queued:
			r.printf("   %smessage %s %s%s%s\n", p.yellow, oneLine(m.ID, 60), m.State, prefixed(": ", oneLine(m.Reason, 160)), p.reset)
		}
	}
	r.flush()
}

// ids lists message ids.
func ids(list []string) string {
	out := make([]string, len(list))
	for i, id := range list {
		out[i] = oneLine(id, 60)
	}
	return strings.Join(out, ", ")
}
