package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/uagentkit/stream"
)

func cmdCat(e env, args []string) error {
	fs := flags(e, "cat")
	follow := fs.Bool("f", false, "follow a growing file until run_finished, like tail -f; wait for it to appear, start over when it is replaced")
	noColor := fs.Bool("no-color", false, "never colour the output (NO_COLOR also turns colour off)")
	noReasoning := fs.Bool("no-reasoning", false, "hide the reasoning lines")
	toolOutput := fs.Bool("tool-output", false, "under each finished tool, print the last lines of its out_path and err_path files, where they exist on this machine")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.usageError("want one FILE or -")
	}
	name := fs.Arg(0)
	if *follow && name == "-" {
		return fs.usageError("-f follows a FILE; standard input cannot be followed")
	}
	r := newRenderer(e.stdout, useColor(e.stdout, *noColor), *follow)
	r.noReasoning, r.toolOutput = *noReasoning, *toolOutput
	defer r.flush()
	if !*follow {
		in, err := open(e, name)
		if err != nil {
			return err
		}
		defer in.Close()
		return r.renderAll(stream.NewDecoder(in))
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fr := &follower{ctx: ctx, path: name, done: r.finished.Load, waiting: func() {
		fmt.Fprintf(e.stderr, "uagent-stream: waiting for %s to appear\n", sanitize(name, false))
	}}
	defer fr.close()
	r.interrupted = func() bool { return ctx.Err() != nil }
	for {
		err := r.renderEach(stream.NewDecoder(fr).All())
		if errors.Is(err, errReplaced) {
			r.printf("%s── %s was replaced or truncated: a new run starts ──%s\n", r.pal.yellow, sanitize(name, false), r.pal.reset)
			r.reset()
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	switch {
	case ctx.Err() != nil && !r.finished.Load():
		return exitError{stream.ExitInterrupted}
	case r.errs > 0:
		return exitError{1}
	}
	return nil
}

// pollInterval is how often a followed file is checked for growth.
var pollInterval = 100 * time.Millisecond

// errReplaced ends a followed stream whose file was replaced or truncated.
var errReplaced = errors.New("the file was replaced or truncated")

// follower reads a file that another process appends to. It waits for the
// file to appear; at the end of the file it waits for more, until done is
// set (run_finished was rendered) or ctx ends; when the file is replaced
// (a new file at the path) or truncated, it returns errReplaced once and
// starts over from the new file's beginning.
type follower struct {
	ctx     context.Context
	path    string
	done    func() bool // the stream has ended: stop at the end of the file
	waiting func()      // called once when the file does not exist yet

	f      *os.File
	off    int64 // bytes read from f
	waited bool
}

func (r *follower) Read(p []byte) (int, error) {
	for {
		if r.f == nil {
			f, err := os.Open(r.path)
			switch {
			case err == nil:
				r.f, r.off = f, 0
			case errors.Is(err, fs.ErrNotExist):
				if !r.waited {
					r.waited = true
					r.waiting()
				}
			default:
				return 0, err
			}
		}
		if r.f != nil {
			n, err := r.f.Read(p)
			r.off += int64(n)
			if n > 0 || err != io.EOF {
				return n, err
			}
			if r.done() {
				return 0, io.EOF
			}
			if r.replaced() {
				r.close()
				return 0, errReplaced
			}
		}
		select {
		case <-r.ctx.Done():
			return 0, io.EOF
		case <-time.After(pollInterval):
		}
	}
}

// replaced reports a new file at the path, or the file shorter than what
// was read. A removed file is waited for.
func (r *follower) replaced() bool {
	st, err := os.Stat(r.path)
	if err != nil {
		return false
	}
	cur, err := r.f.Stat()
	if err != nil {
		return false
	}
	return !os.SameFile(st, cur) || st.Size() < r.off
}

func (r *follower) close() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
}

// renderer prints a run for people as its events arrive. It writes through
// a buffer; live, it flushes after every event.
type renderer struct {
	w           *bufio.Writer
	live        bool
	pal         palette
	noReasoning bool
	toolOutput  bool
	interrupted func() bool // reports a follow that the user stopped

	start    time.Time
	fold     stream.Summarizer // the run's fold: which operations are still running
	answer   *string           // the final answer already shown
	notices  stream.Notices    // repeated notices print once
	errs     int
	finished atomic.Bool
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
	r.start, r.fold, r.answer = time.Time{}, stream.Summarizer{}, nil
	r.notices = stream.Notices{}
	r.finished.Store(false)
}

func (r *renderer) flush() { r.w.Flush() }

// renderAll renders every line of dec, then marks the tools still in
// flight. Line errors are shown where they occur and make the result an
// exit 1.
func (r *renderer) renderAll(dec *stream.Decoder) error {
	if err := r.renderEach(dec.All()); err != nil {
		return err
	}
	if r.errs > 0 {
		return exitError{1}
	}
	return nil
}

// renderEach renders a sequence of events and line errors, then marks the
// tools still in flight. It returns the first error that is not a line
// error.
func (r *renderer) renderEach(events iter.Seq2[any, error]) error {
	defer r.end()
	for dto, err := range events {
		if err != nil {
			if _, ok := errors.AsType[*stream.LineError](err); !ok {
				return err
			}
			r.errs++
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

// stamp is the time column: seconds since the run started.
func (r *renderer) stamp(at time.Time) string {
	if r.start.IsZero() {
		r.start = at
	}
	return fmt.Sprintf("%s%8.3fs%s ", r.pal.dim, at.Sub(r.start).Seconds(), r.pal.reset)
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

func (r *renderer) render(dto any) {
	p := r.pal
	r.fold.Add(dto, nil, nil)
	if _, n, ok := r.notices.Add(dto); ok && n > 1 {
		return // shown once; the summary counts the repeats
	}
	switch d := dto.(type) {
	case stream.RunStartedDTO:
		r.start = d.At
		started := ""
		if !d.At.IsZero() {
			started = "started " + d.At.UTC().Format("2006-01-02 15:04:05 UTC")
		}
		r.printf("%s%s%s\n", p.bold, joinNonEmpty(" · ", prefixed("run ", oneLine(d.RunID, 80))+p.reset+p.bold,
			joinNonEmpty(" ", oneLine(d.Provider, 40), oneLine(d.Model, 40)), prefixed("effort ", oneLine(d.Effort, 20)),
			oneLine(d.Workspace, 120), prefixed("session ", oneLine(d.SessionID, 80)), started), p.reset)
	case stream.PreflightWarningDTO:
		r.printf("%s%s! warning %s: %s%s\n", r.stamp(d.At), p.yellow, oneLine(d.Code, 40), text(d.Message), p.reset)
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
		r.printf("%s%s%s%s %s\n", r.stamp(d.At), p.bold, who, p.reset, text(d.Text))
	case stream.ReasoningDTO:
		if !r.noReasoning {
			r.printf("%s%s  · %s%s\n", r.stamp(d.At), p.dim, text(d.Text), p.reset)
		}
	case stream.RunnerErrorDTO:
		r.printf("%s%s✗ runner error: %s%s\n", r.stamp(d.At), p.red, text(d.Message), p.reset)
	case stream.RunFinishedDTO:
		r.markInflight(d.At)
		r.summary(d.Summary)
		r.finished.Store(true)
	case stream.UnknownDTO:
		r.printf("%s%s? %s (unknown type, %d bytes)%s\n", r.stamp(d.At), p.dim, oneLine(d.Type, 60), len(d.Raw), p.reset)
	}
}

// Bounds of --tool-output.
const (
	tailCount = 5
	tailBytes = 16 << 10
)

// tail prints the last lines of a tool's output file, when it exists.
func (r *renderer) tail(what, path string) {
	for _, l := range tailLines(path) {
		r.printf("%s            %s │ %s%s\n", r.pal.dim, what, oneLine(l, 200), r.pal.reset)
	}
}

// tailLines returns the last tailCount lines of a tool's output file, read
// from at most its last tailBytes, or none when it cannot be read.
func tailLines(path string) []string {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	off := max(0, info.Size()-tailBytes)
	buf := make([]byte, info.Size()-off)
	n, _ := f.ReadAt(buf, off)
	lines := strings.Split(strings.TrimRight(string(buf[:n]), "\n"), "\n")
	if off > 0 && len(lines) > 1 {
		lines = lines[1:] // the first is cut
	}
	lines = lines[max(0, len(lines)-tailCount):]
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	return lines
}

// end marks the tools still in flight when the stream ends without
// run_finished, and says why it ended.
func (r *renderer) end() {
	if r.finished.Load() {
		return
	}
	r.markInflight(time.Time{})
	switch {
	case r.interrupted():
		r.printf("%s── interrupted: the run was still going (no run_finished yet)%s\n", r.pal.yellow, r.pal.reset)
	case !r.start.IsZero():
		r.printf("%s── no run_finished: the stream was cut off%s\n", r.pal.yellow, r.pal.reset)
	}
}

// markInflight marks the operations the fold still has open, in the
// order they started.
func (r *renderer) markInflight(at time.Time) {
	for _, iv := range r.fold.Fold().ToolIntervals() {
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
	for _, w := range counted(st.Warnings) {
		r.printf("   %swarning: %s%s\n", p.yellow, w, p.reset)
	}
	for _, e := range counted(append(slices.Clone(st.Errors), st.Failures...)) {
		r.printf("   %serror: %s%s\n", p.red, e, p.reset)
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
