package termstream

import (
	"fmt"
	"strings"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/uahstream"
)

// sessionLine renders one line of a session stream of the harness: its
// runs each as a run, under "══ run N", and the session's events between
// and inside them.
func (r *Renderer) sessionLine(l uahstream.Line) {
	if e := l.Ended; e != nil { // what the run streamed and no response replaced, before its end
		r.endRunText(e.Unreplaced)
		if e.CutOff && (l.Started || l.End) { // the open run ends here, without run_finished
			r.end(e.Verdict, l.End)
			if l.Started {
				r.printf("%s── run %d was cut off: the next run starts%s\n", r.pal.yellow, e.Run+1, r.pal.reset)
			}
		}
	}
	if l.End {
		return
	}
	if l.Started {
		r.breakLine()
		r.ended, r.runStart, r.answer, r.finished = nil, time.Time{}, nil, false
		r.printf("%s══ run %d%s\n", r.pal.bold, l.Run+1, r.pal.reset)
	}
	if l.Err != nil {
		r.breakLine()
		r.errs++
		r.printf("%s✗ %s%s\n", r.pal.red, sanitize(l.Err.Error(), false), r.pal.reset)
		return
	}
	if l.Run >= 0 && !uahstream.Known(uahstream.TypeOf(l.DTO)) {
		if l.LiveStep == uahstream.LiveReplaced && r.o.Live && r.shown[l.Live.Index] {
			delete(r.shown, l.Live.Index)
			r.breakLine()
			if l.Same { // shown as it streamed: not again
				r.quiet = true
			} else {
				r.printf("%s   (the streamed text is replaced by the response's)%s\n", r.pal.dim, r.pal.reset)
			}
		}
		r.breakLine()
		r.render(l)
		r.quiet = false
		return
	}
	r.harness(l)
}

// breakLine ends a streamed line that is open.
func (r *Renderer) breakLine() {
	if r.open {
		r.open = false
		r.w.WriteString("\n")
	}
}

// sessionStamp is the time column of a line: since the run began inside
// a run, since the session opened between runs.
func (r *Renderer) sessionStamp(l uahstream.Line, at time.Time) string {
	if l.Run >= 0 {
		return r.stamp(at)
	}
	return fmt.Sprintf("%s%8.3fs%s ", r.pal.dim, at.Sub(r.origin).Seconds(), r.pal.reset)
}

// harness renders one of the harness's lines.
func (r *Renderer) harness(l uahstream.Line) {
	p := r.pal
	switch d := l.DTO.(type) {
	case uahstream.TextDeltaDTO:
		r.delta(l, d.At, d.Final)
		return
	case uahstream.ReasoningDeltaDTO:
		r.delta(l, d.At, false)
		return
	case uahstream.StreamResetDTO:
		var shown bool
		for _, v := range l.Voided {
			shown = shown || r.shown[v.Index]
			delete(r.shown, v.Index)
		}
		if shown {
			r.breakLine()
			r.printf("%s%s── stream reset: the streamed text above is void%s\n", r.sessionStamp(l, d.At), p.yellow, p.reset)
		}
		return
	}
	r.breakLine()
	stamp := func(at time.Time) string { return r.sessionStamp(l, at) }
	switch d := l.DTO.(type) {
	case uahstream.SessionOpenedDTO:
		r.origin = d.At
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
		r.printf("%s%sinstructions: %s (%d bytes%s)%s\n", stamp(d.At), p.dim, strings.Join(files, ", "), d.Bytes, cut, p.reset)
	case uahstream.InputQueuedDTO:
		r.printf("%s%squeued%s %s: %s\n", stamp(d.At), p.cyan, p.reset, oneLine(d.ID, 60), text(d.Text))
	case uahstream.InputSentDTO:
		r.printf("%s%ssent %s%s\n", stamp(d.At), p.dim, ids(d.IDs), p.reset)
	case uahstream.InputDeliveredDTO:
		r.printf("%s%s✓ delivered %s%s\n", stamp(d.At), p.dim, oneLine(d.ID, 60), p.reset)
	case uahstream.InputFailedDTO:
		r.printf("%s%s✗ not delivered %s: %s%s\n", stamp(d.At), p.red, ids(d.IDs), oneLine(d.Reason, 160), p.reset)
	case uahstream.InputWithdrawnDTO:
		r.printf("%s%swithdrawn %s%s\n", stamp(d.At), p.dim, oneLine(d.ID, 60), p.reset)
	case uahstream.SettingsChangedDTO:
		s := d.Settings
		r.printf("%s%ssettings: %s (%s)%s\n", stamp(d.At), p.dim, joinNonEmpty(" · ", joinNonEmpty(" ", oneLine(s.Provider, 40), oneLine(s.Model, 40)),
			prefixed("effort ", oneLine(s.Effort, 20)), prefixed("tier ", oneLine(s.ServiceTier, 20)), oneLine(s.Workspace, 120)), oneLine(d.Applied, 20), p.reset)
	case uahstream.IdleDTO:
		r.printf("%s%s── idle%s\n", stamp(d.At), p.dim, p.reset)
	case uahstream.NoticeDTO:
		col := p.dim
		switch d.Level {
		case "warning":
			col = p.yellow
		case "error":
			col = p.red
		}
		r.printf("%s%s! %s: %s%s\n", stamp(d.At), col, oneLine(d.Level, 20), text(d.Message), p.reset)
	case uahstream.ReconnectingDTO:
		offline := ""
		if d.Offline {
			offline = ", offline"
		}
		r.printf("%s%s⟳ reconnecting (attempt %d of %d, in %s%s): %s%s\n", stamp(d.At), p.yellow, d.Attempt, d.MaxAttempts, ms(d.DelayMS), offline, oneLine(d.Reason, 160), p.reset)
	case uahstream.ReconnectEndedDTO:
		if d.OK {
			r.printf("%s%s⟳ reconnected%s\n", stamp(d.At), p.dim, p.reset)
		} else {
			r.printf("%s%s✗ reconnecting gave up%s\n", stamp(d.At), p.red, p.reset)
		}
	case uahstream.CompactionStartedDTO:
		r.printf("%s%scompacting (%s, %d tokens)%s\n", stamp(d.At), p.dim, oneLine(d.Trigger, 40), d.Tokens, p.reset)
	case uahstream.CompactedDTO:
		switch {
		case d.Error != "":
			r.printf("%s%s✗ compaction failed: %s%s\n", stamp(d.At), p.red, oneLine(d.Error, 160), p.reset)
		case d.Interrupted:
			r.printf("%s%scompaction interrupted%s\n", stamp(d.At), p.yellow, p.reset)
		default:
			r.printf("%s%scompacted (%s)%s\n", stamp(d.At), p.dim, oneLine(d.Trigger, 40), p.reset)
		}
		if d.Warning != "" {
			r.printf("%s%s! %s%s\n", stamp(d.At), p.yellow, oneLine(d.Warning, 160), p.reset)
		}
	case uahstream.WebSearchDTO:
		what := joinNonEmpty(" · ", oneLine(d.Action, 20), oneLine(d.Query, 120), oneLine(d.URL, 120), oneLine(d.Pattern, 60))
		mark := "⋯"
		if d.Done {
			mark = "✓"
		}
		r.printf("%s  %s web search: %s\n", stamp(d.At), mark, what)
	case uahstream.RewoundDTO:
		r.printf("%s%srewound to %s%s\n", stamp(d.At), p.yellow, oneLine(d.MessageID, 60), p.reset)
	case uahstream.EffortUpdatesOffDTO:
		r.printf("%s%s! effort_updates_off: %s%s\n", stamp(d.At), p.yellow, joinNonEmpty(": ", oneLine(d.Message, 160), oneLine(d.Error, 160)), p.reset)
	case uahstream.GoalUpdatedDTO:
		g := d.Goal
		r.printf("%s%sgoal_updated (%s%s): %s · %s%s%s\n", stamp(d.At), p.cyan, oneLine(d.Change, 20), prefixed(" by ", oneLine(d.By, 20)),
			oneLine(g.Status, 20), text(g.Objective), prefixed(" · ", oneLine(g.Reason, 120)), p.reset)
	case uahstream.GoalContinuedDTO:
		r.printf("%s%sgoal_continued: %s (continuation %d)%s\n", stamp(d.At), p.cyan, text(d.Goal.Objective), d.Goal.Continuations, p.reset)
	case uahstream.GoalClearedDTO:
		r.printf("%s%sgoal_cleared%s\n", stamp(d.At), p.cyan, p.reset)
	case uahstream.AutoReviewedDTO:
		col := p.dim
		switch d.Outcome {
		case "deny", "error":
			col = p.red
		case "ask_user":
			col = p.yellow
		}
		r.printf("%s%s⚖ auto-reviewed %s: %s%s · %s · %d in (%d cached) / %d out tokens%s\n", stamp(d.At), col, oneLine(d.Command, 160), oneLine(d.Outcome, 20),
			prefixed(" · ", joinNonEmpty(": ", prefixed("risk ", oneLine(d.Risk, 20)), oneLine(d.Reason, 160))), ms(d.DurationMS),
			d.InputTokens, d.CachedInputTokens, d.OutputTokens, p.reset)
	case stream.UnknownDTO:
		r.printf("%s%s? %s (unknown type, %d bytes)%s\n", stamp(d.At), p.dim, oneLine(d.Type, 60), len(d.Raw), p.reset)
	default: // a uagent event outside every run
		r.printf("%s? %s outside a run%s\n", p.dim, oneLine(uahstream.TypeOf(l.DTO), 60), p.reset)
	}
}

// delta shows streamed text as it comes, when live; a whole stream shows
// each response's own text instead (and what streamed without one at its
// run's end).
func (r *Renderer) delta(l uahstream.Line, at time.Time, final bool) {
	if !r.o.Live || l.Live.Reasoning && r.o.NoReasoning {
		return
	}
	if !r.shown[l.Live.Index] {
		r.breakLine()
		who := r.pal.bold + "assistant ⋯" + r.pal.reset
		if final {
			who = r.pal.bold + "answer ⋯" + r.pal.reset
		}
		if l.Live.Reasoning {
			who = r.pal.dim + "  ·"
		}
		r.printf("%s%s ", r.sessionStamp(l, at), who)
		r.shown[l.Live.Index] = true
	}
	r.w.WriteString(strings.ReplaceAll(sanitize(l.Delta, true), "\n", "\n"+strings.Repeat(" ", 14)))
	if l.Live.Reasoning {
		r.w.WriteString(r.pal.reset)
	}
	r.open = true
}

// endRunText ends what streamed in the run that ends: a streamed line is
// closed; what streamed without a response to replace it (as the
// session's fold says) is shown, when it was not as it came.
func (r *Renderer) endRunText(left []*uahstream.Live) {
	r.breakLine()
	for _, l := range left {
		shown := r.shown[l.Index]
		delete(r.shown, l.Index)
		if shown || l.Reasoning && r.o.NoReasoning {
			continue
		}
		who := "assistant (streamed, no response)"
		if l.Reasoning {
			who = "reasoning (streamed, no response)"
		}
		r.printf("%s%s%s:%s %s\n", strings.Repeat(" ", 10), r.pal.dim, who, r.pal.reset, text(l.Text))
	}
}

// sessionEnd says how the session ended: the totals of its runs, and the
// messages left queued or failed. (A run the end cut off was said so at
// the session's end.)
func (r *Renderer) sessionEnd(v stream.Verdict) {
	s := r.s
	t := s.Totals()
	p := r.pal
	r.printf("%s══ session %s: %s · %s · %s · model %s · wall %s%s\n", p.bold, oneLine(s.ID(), 80), plural(t.Runs, "run"), plural(t.Turns, "turn"),
		plural(t.ToolCalls, "tool call"), ms(t.ModelMS), ms(t.WallMS), p.reset)
	r.printf("   tokens %s\n", tokens(t.Tokens))
	if a := t.AutoReview; a.Reviews > 0 {
		r.printf("   auto-reviewer (apart from the runs): %s · %s · tokens %s\n", plural(a.Reviews, "review"), ms(a.DurationMS), tokens(a.Tokens))
	}
	if c := t.Compaction; c.Calls > 0 {
		r.printf("   compactions (apart from the runs): %s · %s · tokens %s\n", plural(c.Compactions, "compaction"), plural(c.Calls, "model call"), tokens(c.Tokens))
	}
	for _, m := range s.Messages() {
		switch m.State {
		case uahstream.MessageFailed, uahstream.MessageQueued:
			r.printf("   %smessage %s %s%s%s\n", p.yellow, oneLine(m.ID, 60), m.State, prefixed(": ", oneLine(m.Reason, 160)), p.reset)
		}
	}
}

// ids lists message ids.
func ids(list []string) string {
	out := make([]string, len(list))
	for i, id := range list {
		out[i] = oneLine(id, 60)
	}
	return strings.Join(out, ", ")
}
