// Package termstream renders a stream for people at a terminal: a run's
// header, its transcript with a time column, its tools with their
// outcome and duration, its summary (and where the events contradict
// it), its answer once; of a session stream of the harness, the
// session's events around its runs, and the model's text as it streams
// when live. It is what uagent-stream cat and run print, for a Go
// harness that wants the same transcript.
//
// A Renderer takes the Lines of a stream as its session folded them
// (uahstream.Reader, execstream.Run.Lines) and keeps no fold of its own:
// what pairs with what, what is still running, how a run ended and where
// its summary disagrees with its events are the session's answers. Every
// string from the stream goes through one sanitizer: controls, bidi and
// invisible characters are shown as escapes, never passed to the
// terminal.
package termstream

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/internal/safetext"
	"github.com/uagentkit/stream/internal/tail"
	"github.com/uagentkit/stream/uahstream"
)

// Options say how a Renderer renders.
type Options struct {
	// Color uses ANSI colours (only on a terminal, and never with
	// NO_COLOR: the caller decides).
	Color bool
	// Live flushes after every line, and shows the model's text as it
	// streams (a whole stream shows each response's own text instead).
	Live bool
	// NoReasoning hides the reasoning lines.
	NoReasoning bool
	// ToolOutput prints, under each finished tool, the last 5 lines of its
	// out_path and err_path files, where they exist (sanitized, at most
	// 16 KiB read).
	ToolOutput bool
	// Interrupted, when set, reports that the person stopped a live view
	// (Ctrl-C): a run without run_finished is then said to be still going,
	// not cut off.
	Interrupted func() bool
	// Going, when set, reports that the source says its last run is still
	// going (a run directory in statedir.StateRunning): a stream that ends
	// without run_finished then ends "running", not cut off.
	Going func() bool
	// Prices, when set, prices the runs as their lines come
	// (history.Tally): Finish ends with one line of what they would cost
	// (CostLine).
	Prices *history.Prices
}

// Renderer prints a stream for people as its lines arrive. It writes
// through a buffer; live, it flushes after every line. A Renderer is not
// safe for concurrent use.
type Renderer struct {
	w   *bufio.Writer
	o   Options
	pal palette
	s   *uahstream.Session
	// tally prices the stream's runs (Options.Prices), nil without.
	tally *history.Tally

	runStart time.Time // when the open run began, as its fold says
	answer   *string   // the final answer already shown
	finished bool      // the open run's run_finished was shown
	errs     int

	// Of a session stream of the harness: the streamed text shown, and
	// whether a streamed line is open.
	shown  map[int]bool // by Live.Index
	open   bool
	origin time.Time // session_opened's at: the clock of the lines between runs
	quiet  bool      // the next message was shown as it streamed: not again
	ended  *uahstream.Ended
}

type palette struct{ dim, red, yellow, green, bold, cyan, reset string }

// New returns a Renderer writing to w the lines of s.
func New(w io.Writer, s *uahstream.Session, o Options) *Renderer {
	r := &Renderer{w: bufio.NewWriterSize(w, 64<<10), o: o, s: s, shown: map[int]bool{}}
	if r.o.Interrupted == nil {
		r.o.Interrupted = func() bool { return false }
	}
	if o.Prices != nil {
		r.tally = o.Prices.Tally()
	}
	if o.Color {
		r.pal = palette{dim: "\x1b[2m", red: "\x1b[31m", yellow: "\x1b[33m", green: "\x1b[32m", bold: "\x1b[1m", cyan: "\x1b[36m", reset: "\x1b[0m"}
	}
	return r
}

// Restart forgets the stream, for another of s, such as a followed file
// that was replaced.
func (r *Renderer) Restart(s *uahstream.Session) {
	r.s, r.runStart, r.answer, r.finished, r.open, r.origin = s, time.Time{}, nil, false, false, time.Time{}
	r.shown = map[int]bool{}
	if r.o.Prices != nil {
		r.tally = r.o.Prices.Tally()
	}
}

// Note prints a line of the viewer's own, not the stream's (such as "the
// file was replaced"), marked as a notice. msg is sanitized.
func (r *Renderer) Note(msg string) {
	r.printf("%s── %s ──%s\n", r.pal.yellow, sanitize(msg, false), r.pal.reset)
	if r.o.Live {
		r.w.Flush()
	}
}

// Errors counts the lines that could not be decoded, shown so far.
func (r *Renderer) Errors() int { return r.errs }

// Flush writes what is buffered.
func (r *Renderer) Flush() error { return r.w.Flush() }

// Add renders a line (the session's end included: a run it cut off is
// said to be so, and a session's totals are shown; a process's ending is
// Finish's).
func (r *Renderer) Add(l uahstream.Line) {
	if r.tally != nil {
		r.tally.Add(l)
	}
	r.ended = l.Ended
	switch {
	case r.s.Harness():
		r.sessionLine(l)
	case l.End:
		if !r.finished && l.Ended != nil {
			r.ended = l.Ended
		}
	case l.Err != nil:
		r.errs++
		r.printf("%s✗ %s%s\n", r.pal.red, sanitize(l.Err.Error(), false), r.pal.reset)
	default:
		r.render(l)
	}
	if r.o.Live {
		r.w.Flush()
	}
}

// Finish says how the stream ended, when the run did not say it itself:
// v is the session's verdict (uahstream.Session.Verdict) or a process's
// (execstream.Outcome); of a session stream, the session's totals too.
// Call it once, after the session's end was added.
func (r *Renderer) Finish(v stream.Verdict) {
	defer r.w.Flush()
	if r.s.Harness() {
		r.sessionEnd(v)
	} else {
		r.end(v, true)
	}
	if r.tally != nil {
		r.printf("%s\n", CostLine(r.tally.Estimate()))
	}
}

// Render renders every line rd reads (Add), the session's end included,
// then says how the stream ended (Finish, with the session's verdict),
// and flushes. running reports a run that was still going when the
// stream ended (cut off, or not ended yet); err is the reader's own
// (uahstream.Reader.Err), never a line's (those are shown where they
// occur, and counted in Errors).
func (r *Renderer) Render(rd *uahstream.Reader) (running bool, err error) {
	return r.RenderUntil(rd, nil)
}

// RenderUntil is Render that stops after the line at which enough
// reports true (a page that is full), reading no more and saying no end;
// with a nil enough it is Render.
func (r *Renderer) RenderUntil(rd *uahstream.Reader, enough func() bool) (running bool, err error) {
	defer r.Flush()
	for l := range rd.Lines() {
		if l.End {
			running = l.Ended != nil && l.Ended.CutOff
		}
		r.Add(l)
		if enough != nil && enough() {
			return running, nil
		}
	}
	r.Finish(rd.Session().Verdict())
	return running, rd.Err()
}

func (r *Renderer) printf(format string, args ...any) { fmt.Fprintf(r.w, format, args...) }

// sanitize makes a string from a stream safe to show: with keepNewlines,
// "\n" stays a line break; tabs become spaces.
func sanitize(s string, keepNewlines bool) string { return safetext.Sanitize(s, keepNewlines) }

// Sanitize makes a string from a stream (or any that a program did not
// write itself) safe for a terminal or a log, as every output of this
// module makes it: control characters, escapes of terminal sequences,
// bidi overrides and zero-width characters shown as escapes, invalid
// UTF-8 as \xNN; with keepNewlines, "\n" stays a line break. It is safe
// for concurrent use.
func Sanitize(s string, keepNewlines bool) string { return safetext.Sanitize(s, keepNewlines) }

// OneLine is Sanitize on one line, cut to max runes ("…" for what is cut).
func OneLine(s string, max int) string { return safetext.OneLine(s, max) }

// oneLine sanitizes s and keeps it on one line, cut to max runes.
func oneLine(s string, max int) string { return safetext.OneLine(s, max) }

// stamp is the time column: seconds since the run began, as its fold
// says when that was.
func (r *Renderer) stamp(at time.Time) string {
	if r.runStart.IsZero() {
		r.fold(func(f *stream.Fold) { r.runStart, _ = f.Times() })
	}
	return fmt.Sprintf("%s%8.3fs%s ", r.pal.dim, at.Sub(r.runStart).Seconds(), r.pal.reset)
}

// fold calls do with the fold of the line being rendered: of the run it
// ended, else of the open run.
func (r *Renderer) fold(do func(*stream.Fold)) {
	if r.ended != nil {
		do(r.ended.Fold)
		return
	}
	r.s.Fold(do)
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

// render renders a line of a run.
func (r *Renderer) render(l uahstream.Line) {
	p := r.pal
	if l.Started {
		r.runStart, r.answer, r.finished = time.Time{}, nil, false
	}
	if l.Step.NoticeStep == stream.StepRepeated {
		return // shown once; the summary counts the repeats
	}
	switch d := l.DTO.(type) {
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
		if r.o.ToolOutput {
			r.tail("stdout", d.OutPath)
			r.tail("stderr", d.ErrPath)
		}
	case stream.AssistantMessageDTO:
		who := "assistant:"
		if d.Final {
			who = "answer:"
			answer := strings.Clone(d.Text) // the line's may be borrowed
			r.answer = &answer
		}
		if !r.quiet {
			r.printf("%s%s%s%s %s\n", r.stamp(d.At), p.bold, who, p.reset, text(d.Text))
		}
	case stream.ReasoningDTO:
		if !r.o.NoReasoning && !r.quiet {
			r.printf("%s%s  · %s%s\n", r.stamp(d.At), p.dim, text(d.Text), p.reset)
		}
	case stream.RunnerErrorDTO:
		r.printf("%s%s✗ runner error: %s%s\n", r.stamp(d.At), p.red, text(d.Message), p.reset)
	case stream.RunFinishedDTO:
		if r.finished {
			return
		}
		var running []stream.ToolInterval
		var rc stream.Recomputed
		var notices []stream.Notice
		r.fold(func(f *stream.Fold) { running, rc, notices = f.Running(), f.Recomputed(), f.Notices() })
		r.markInflight(running, d.At)
		r.summary(d.Summary, rc, notices)
		r.finished = true
	case stream.UnknownDTO:
		r.printf("%s%s? %s (unknown type, %d bytes)%s\n", r.stamp(d.At), p.dim, oneLine(d.Type, 60), len(d.Raw), p.reset)
	}
}

// tail prints the last lines of a tool's output file, when it exists.
func (r *Renderer) tail(what, path string) {
	for _, l := range tail.Lines(path) {
		r.printf("%s            %s │ %s%s\n", r.pal.dim, what, oneLine(l, 200), r.pal.reset)
	}
}

// end marks the tools still in flight when the run ended without
// run_finished, and says how it ended: v is the verdict, of the stream
// alone or with the process's exit code.
func (r *Renderer) end(v stream.Verdict, last bool) {
	if r.finished {
		return
	}
	var running []stream.ToolInterval
	r.fold(func(f *stream.Fold) { running = f.Running() })
	r.markInflight(running, time.Time{})
	if r.o.Interrupted() {
		r.printf("%s── interrupted: the run was still going (no run_finished yet)%s\n", r.pal.yellow, r.pal.reset)
		return
	}
	if last && r.o.Going != nil && r.o.Going() {
		r.printf("%s── running: the run is still going (no run_finished yet; cat -f follows it)%s\n", r.pal.yellow, r.pal.reset)
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

// markInflight marks the operations still open, in the order they
// started.
func (r *Renderer) markInflight(running []stream.ToolInterval, at time.Time) {
	for _, iv := range running {
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
func (r *Renderer) summary(s stream.SummaryDTO, rc stream.Recomputed, notices []stream.Notice) {
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
	if len(rc.Diff) > 0 {
		r.printf("   %s✗ the summary disagrees with the events; they say:%s\n", p.red, p.reset)
		for _, d := range rc.Diff {
			r.printf("     %s%s: %s (the summary says %s)%s\n", p.red, oneLine(d.Field, 60), oneLine(d.Recomputed, 160), oneLine(d.Recorded, 160), p.reset)
		}
	}
	for _, n := range notices {
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
	for _, f := range counted(rc.Summary.Stats.Failures) {
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
