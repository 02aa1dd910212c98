package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/tail"
	"github.com/uagentkit/stream/uahstream"
)

// renderer prints a run for people as its events arrive. It writes through
// a buffer; live, it flushes after every event.
type renderer struct {
	w           *bufio.Writer
	live        bool
	pal         palette
	noReasoning bool
	toolOutput  bool
	interrupted func() bool // reports a follow that the user stopped

	fold     *stream.Fold // the run's fold: its start, its notices, the operations still running, its verdict
	answer   *string      // the final answer already shown
	errs     int
	finished atomic.Bool

	lines   int          // lines rendered
	session *sessionView // a session stream of the harness: its first line was session_opened
	quiet   bool         // the next message was shown as it streamed: not again
}

type palette struct{ dim, red, yellow, green, bold, cyan, reset string }

func newRenderer(w io.Writer, color, live bool) *renderer {
	r := &renderer{w: bufio.NewWriterSize(w, 64<<10), live: live, interrupted: func() bool { return false }}
	r.reset()
	if color {
		r.pal = palette{dim: "\x1b[2m", red: "\x1b[31m", yellow: "\x1b[33m", green: "\x1b[32m", bold: "\x1b[1m", cyan: "\x1b[36m", reset: "\x1b[0m"}
	}
	return r
}

// reset forgets the run, for the next one.
func (r *renderer) reset() {
	r.fold, r.answer = new(stream.Fold), nil
	r.finished.Store(false)
}

// restart forgets the stream, for a new one.
func (r *renderer) restart() {
	r.reset()
	r.session, r.lines = nil, 0
}

func (r *renderer) flush() { r.w.Flush() }

// renderAll renders every line of dec, then says how the stream ended
// (the fold's verdict of the stream alone). Line errors are shown where
// they occur and make the result an exit 1.
func (r *renderer) renderAll(dec *stream.Decoder) error {
	err := r.renderEach(dec.All())
	r.finish(r.verdict())
	if err != nil {
		return err
	}
	if r.errs > 0 {
		return exitError{1}
	}
	return nil
}

// renderEach renders a sequence of events and line errors. It returns the
// first error that is not a line error. The caller ends the rendering with
// end, once it knows the verdict.
func (r *renderer) renderEach(events iter.Seq2[any, error]) error {
	for dto, err := range events {
		if r.lines++; r.lines == 1 && err == nil && uahstream.Opens(dto) {
			r.session = &sessionView{shown: map[*uahstream.Live]bool{}}
		}
		if r.session != nil {
			r.sessionLine(dto, err)
		} else if err != nil {
			if _, ok := errors.AsType[*stream.LineError](err); !ok {
				return err
			}
			r.errs++
			r.fold.Add(nil, err)
			r.printf("%s✗ %s%s\n", r.pal.red, sanitize(err.Error(), false), r.pal.reset)
		} else {
			r.render(dto)
		}
		if r.live {
			r.flush()
		}
	}
	return nil
}

func (r *renderer) printf(format string, args ...any) { fmt.Fprintf(r.w, format, args...) }

// stamp is the time column: seconds since the run began, as the fold
// says when that was.
func (r *renderer) stamp(at time.Time) string {
	start, _ := r.fold.Times()
	return fmt.Sprintf("%s%8.3fs%s ", r.pal.dim, at.Sub(start).Seconds(), r.pal.reset)
}

// text renders multi-line text, continuation lines indented.
func text(s string) string {
	return strings.ReplaceAll(sanitize(s, true), "\n", "\n"+strings.Repeat(" ", 14))
}

// joinNonEmpty joins the parts that are not empty.
func joinNonEmpty(sep string, parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), sep)
}

// prefixed is prefix+s, or "" when s is empty.
func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// finish says how the stream ended: a run's ending (end), or a session's.
func (r *renderer) finish(v stream.Verdict) {
	if r.session != nil {
		r.sessionEnd(v)
		return
	}
	r.end(v)
}

// verdict is the fold's verdict of the stream alone: of the session's
// last run, for a session.
func (r *renderer) verdict() stream.Verdict {
	if r.session != nil {
		return r.session.s.Verdict()
	}
	return r.fold.Verdict()
}

func (r *renderer) render(dto any) { r.renderChange(dto, r.fold.Add(dto, nil)) }

// renderChange renders a line that the fold has taken, with what it
// changed there.
func (r *renderer) renderChange(dto any, ch stream.Change) {
	p := r.pal
	if ch.NoticeStep == stream.Repeated {
		return // shown once; the summary counts the repeats
	}
	switch d := dto.(type) {
	case stream.RunStartedDTO:
		started := ""
		if !d.At.IsZero() {
			started = "started " + d.At.UTC().Format("2006-01-02 15:04:05 UTC")
		}
		r.printf("%s%s%s\n", p.bold, joinNonEmpty(" · ", prefixed("run ", oneLine(d.RunID, 80))+p.reset+p.bold,
			joinNonEmpty(" ", oneLine(d.Provider, 40), oneLine(d.Model, 40)), prefixed("effort ", oneLine(d.Effort, 20)),
			oneLine(d.Workspace, 120), prefixed("session ", oneLine(d.SessionID, 80)), started), p.reset)
	case stream.PreflightWarningDTO:
		r.printf("%s%s! %s: %s%s\n", r.stamp(d.At), p.yellow, joinNonEmpty(" ", "warning", oneLine(d.Code, 40)), text(d.Message), p.reset)
	case stream.UserMessageDTO:
		r.printf("%s%suser:%s %s\n", r.stamp(d.At), p.cyan, p.reset, text(d.Text))
	case stream.DeveloperMessageDTO:
		r.printf("%s%sdeveloper:%s %s\n", r.stamp(d.At), p.cyan, p.reset, text(d.Text))
	case stream.ControlInputDTO:
		r.printf("%s%s%s%s\n", r.stamp(d.At), p.dim, joinNonEmpty(" · ", "control "+oneLine(d.Mode, 20),
			prefixed("effort ", oneLine(d.Effort, 20)), oneLine(d.Reason, 120)), p.reset)
	case stream.TurnStartedDTO:
		r.printf("%s%s── turn %d%s\n", r.stamp(d.At), p.bold, d.Turn, p.reset)
	case stream.ModelRespondedDTO:
		stop := ""
		if d.Stop != "" && d.Stop != stream.StopComplete {
			stop = " · " + p.yellow + "stop " + oneLine(d.Stop, 40) + p.reset
		}
		r.printf("%s  model %s · %s%s\n", r.stamp(d.At), ms(d.DurationMS), tokens(d.Usage), stop)
		if d.Failure != "" {
			r.printf("%s  %s✗ model failure: %s%s\n", r.stamp(d.At), p.red, text(d.Failure), p.reset)
		}
	case stream.ToolCalledDTO:
		r.printf("%s  → %s: %s\n", r.stamp(d.At), oneLine(d.Name, 40), oneLine(d.Label, 160))
	case stream.ToolFinishedDTO:
		mark, col := "✓", p.green
		if !d.OK {
			mark, col = "✗", p.red
		}
		r.printf("%s  %s%s %s: %s · %s · %s%s\n", r.stamp(d.At), col, mark, oneLine(d.Name, 40), oneLine(d.Label, 120),
			oneLine(d.Detail, 80), ms(d.DurationMS), p.reset)
		if r.toolOutput {
			r.tail("stdout", d.OutPath)
			r.tail("stderr", d.ErrPath)
		}
	case stream.AssistantMessageDTO:
		who := "assistant:"
		if d.Final {
			who = "answer:"
			r.answer = &d.Text
		}
		if !r.quiet {
			r.printf("%s%s%s%s %s\n", r.stamp(d.At), p.bold, who, p.reset, text(d.Text))
		}
	case stream.ReasoningDTO:
		if !r.noReasoning && !r.quiet {
			r.printf("%s%s  · %s%s\n", r.stamp(d.At), p.dim, text(d.Text), p.reset)
		}
	case stream.RunnerErrorDTO:
		r.printf("%s%s✗ runner error: %s%s\n", r.stamp(d.At), p.red, text(d.Message), p.reset)
	case stream.RunFinishedDTO:
		if r.finished.Load() {
			return
		}
		r.markInflight(d.At)
		r.summary(d.Summary)
		r.finished.Store(true)
	case stream.UnknownDTO:
		r.printf("%s%s? %s (unknown type, %d bytes)%s\n", r.stamp(d.At), p.dim, oneLine(d.Type, 60), len(d.Raw), p.reset)
	}
}

// tail prints the last lines of a tool's output file, when it exists.
func (r *renderer) tail(what, path string) {
	for _, l := range tail.Lines(path) {
		r.printf("%s            %s │ %s%s\n", r.pal.dim, what, oneLine(l, 200), r.pal.reset)
	}
}

// end marks the tools still in flight when the stream ended without
// run_finished, and says how it ended: v is the fold's verdict, of the
// stream alone or with the process's exit code.
func (r *renderer) end(v stream.Verdict) {
	defer r.flush()
	if r.finished.Load() {
		return
	}
	r.markInflight(time.Time{})
	if r.interrupted() {
		r.printf("%s── interrupted: the run was still going (no run_finished yet)%s\n", r.pal.yellow, r.pal.reset)
		return
	}
	why := "no run_finished: the stream was cut off"
	switch v.Ending {
	case stream.EndPreflightBlocked:
		why = "no line: a run blocked in preflight writes none"
	case stream.EndStartFailed:
		why = "the stream stops after run_started: the runner could not start"
	}
	r.printf("%s── %s: %s%s\n", r.pal.yellow, v.Ending, why, r.pal.reset)
}

// markInflight marks the operations the fold still has open, in the
// order they started.
func (r *renderer) markInflight(at time.Time) {
	for _, iv := range r.fold.Tools() {
		if !iv.Open {
			continue
		}
		stamp := strings.Repeat(" ", 10)
		if !at.IsZero() {
			stamp = r.stamp(at)
		}
		r.printf("%s  %s⋯ %s: %s · still running%s\n", stamp, r.pal.yellow, oneLine(iv.Name, 40), oneLine(iv.Label, 120), r.pal.reset)
	}
}

// plural is "1 turn", "2 turns".
func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// summary shows the run_finished summary, says where the events
// contradict it (and what they say), and lists the notices and model
// failures with their counts, as the fold counts them.
func (r *renderer) summary(s stream.SummaryDTO) {
	p := r.pal
	col := p.green
	if s.Status != string(stream.StatusOK) {
		col = p.red
	}
	st := s.Stats
	r.printf("%s── %s%s · exit %d · wall %s · %s · model %s · tools %s (overlap %s)%s\n", col+p.bold,
		oneLine(s.Status, 20), p.reset+p.bold, s.RunnerExitCode, ms(s.WallMS), plural(st.Turns, "turn"), ms(st.ModelMS), ms(st.ToolBusyMS),
		ms(st.ToolModelOverlapMS), p.reset)
	r.printf("   tokens %s\n", tokens(st.Tokens))
	if len(st.ToolsByName) > 0 {
		var parts []string
		for _, name := range slices.Sorted(maps.Keys(st.ToolsByName)) {
			parts = append(parts, fmt.Sprintf("%s %d", oneLine(name, 40), st.ToolsByName[name]))
		}
		failed := ""
		if st.FailedToolCalls > 0 {
			failed = fmt.Sprintf(" · %s%d failed%s", p.red, st.FailedToolCalls, p.reset)
		}
		r.printf("   tools %s · at most %d at once%s\n", strings.Join(parts, ", "), st.MaxParallelTools, failed)
	}
	if diff := r.fold.Diff(); len(diff) > 0 {
		r.printf("   %s✗ the summary disagrees with the events; they say:%s\n", p.red, p.reset)
		for _, d := range diff {
			r.printf("     %s%s: %s (the summary says %s)%s\n", p.red, oneLine(d.Field, 60), oneLine(d.Recomputed, 160), oneLine(d.Recorded, 160), p.reset)
		}
	}
	for _, n := range r.fold.Notices() {
		count := ""
		if n.Count > 1 {
			count = fmt.Sprintf(" (×%d)", n.Count)
		}
		if n.Type == stream.TypePreflightWarning {
			r.printf("   %s%s: %s%s%s\n", p.yellow, joinNonEmpty(" ", "warning", oneLine(n.Code, 40)), oneLine(n.Message, 160), count, p.reset)
		} else {
			r.printf("   %srunner error: %s%s%s\n", p.red, oneLine(n.Message, 160), count, p.reset)
		}
	}
	for _, f := range counted(r.fold.Stats().Failures) {
		r.printf("   %smodel failure: %s%s\n", p.red, f, p.reset)
	}
	if s.Answer != "" && (r.answer == nil || *r.answer != s.Answer) {
		r.printf("   answer: %s\n", strings.ReplaceAll(sanitize(s.Answer, true), "\n", "\n           "))
	}
}

// counted lists each distinct message once, sanitized, in the order they
// first came, with "(×N)" when it came N > 1 times.
func counted(msgs []string) []string {
	n := map[string]int{}
	var order []string
	for _, m := range msgs {
		if n[m] == 0 {
			order = append(order, m)
		}
		n[m]++
	}
	out := make([]string, len(order))
	for i, m := range order {
		out[i] = oneLine(m, 160)
		if n[m] > 1 {
			out[i] += fmt.Sprintf(" (×%d)", n[m])
		}
	}
	return out
}

func ms(n int64) string { return (time.Duration(n) * time.Millisecond).String() }

func tokens(t stream.TokensDTO) string {
	s := fmt.Sprintf("in %d", t.Input)
	if t.CachedInput > 0 || t.CacheWriteInput > 0 {
		s += fmt.Sprintf(" (cached %d, written %d)", t.CachedInput, t.CacheWriteInput)
	}
	s += fmt.Sprintf(" · out %d", t.Output)
	if t.Reasoning > 0 {
		s += fmt.Sprintf(" (reasoning %d)", t.Reasoning)
	}
	return s
}
