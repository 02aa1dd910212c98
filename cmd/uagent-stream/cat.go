package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/uagentkit/stream"
)

func cmdCat(e env, args []string) error {
	fs := flags(e, "cat", "[-f] [--no-color] FILE|-")
	follow := fs.Bool("f", false, "follow a growing file until run_finished, like tail -f")
	noColor := fs.Bool("no-color", false, "never colour the output (NO_COLOR also turns colour off)")
	_, in, err := parseInput(e, fs, args)
	if err != nil {
		return err
	}
	defer in.Close()
	r := newRenderer(e.stdout, useColor(e.stdout, *noColor))
	var src io.Reader = in
	if f, ok := in.(*os.File); ok && *follow {
		src = &followReader{ctx: context.Background(), f: f, done: &r.finished}
	}
	return r.renderAll(stream.NewDecoder(src))
}

// pollInterval is how often a followed file is checked for growth.
var pollInterval = 100 * time.Millisecond

// followReader reads a file that another process appends to. At the end of
// the file it waits for more, until done is set (run_finished was rendered)
// or ctx ends.
type followReader struct {
	ctx  context.Context
	f    *os.File
	done *atomic.Bool
}

func (r *followReader) Read(p []byte) (int, error) {
	for {
		n, err := r.f.Read(p)
		if n > 0 || err != io.EOF || r.done.Load() {
			return n, err
		}
		select {
		case <-r.ctx.Done():
			return 0, io.EOF
		case <-time.After(pollInterval):
		}
	}
}

// renderer prints a run for people as its events arrive.
type renderer struct {
	w        io.Writer
	pal      palette
	start    time.Time
	inflight map[string]stream.ToolStartedDTO // by op_id
	order    []string                         // op_ids in start order
	errs     int
	finished atomic.Bool
}

type palette struct{ dim, red, yellow, green, bold, cyan, reset string }

func newRenderer(w io.Writer, color bool) *renderer {
	r := &renderer{w: w, inflight: map[string]stream.ToolStartedDTO{}}
	if color {
		r.pal = palette{dim: "\x1b[2m", red: "\x1b[31m", yellow: "\x1b[33m", green: "\x1b[32m", bold: "\x1b[1m", cyan: "\x1b[36m", reset: "\x1b[0m"}
	}
	return r
}

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
			continue
		}
		r.render(dto)
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

func (r *renderer) render(dto any) {
	p := r.pal
	switch d := dto.(type) {
	case stream.RunStartedDTO:
		r.start = d.At
		r.printf("%srun %s%s · %s %s · effort %s · %s\n", p.bold, oneLine(d.RunID, 80), p.reset,
			oneLine(d.Provider, 40), oneLine(d.Model, 40), oneLine(d.Effort, 20), oneLine(d.Workspace, 120))
	case stream.PreflightWarningDTO:
		r.printf("%s%s! warning %s: %s%s\n", r.stamp(d.At), p.yellow, oneLine(d.Code, 40), text(d.Message), p.reset)
	case stream.UserMessageDTO:
		r.printf("%s%suser:%s %s\n", r.stamp(d.At), p.cyan, p.reset, text(d.Text))
	case stream.DeveloperMessageDTO:
		r.printf("%s%sdeveloper:%s %s\n", r.stamp(d.At), p.cyan, p.reset, text(d.Text))
	case stream.ControlInputDTO:
		var extra []string
		if d.Effort != "" {
			extra = append(extra, "effort "+oneLine(d.Effort, 20))
		}
		if d.Reason != "" {
			extra = append(extra, oneLine(d.Reason, 120))
		}
		r.printf("%s%scontrol %s%s%s\n", r.stamp(d.At), p.dim, oneLine(d.Mode, 20), joinPrefixed(" · ", extra), p.reset)
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
	case stream.ToolStartedDTO:
		if _, ok := r.inflight[d.OpID]; !ok {
			r.order = append(r.order, d.OpID)
		}
		r.inflight[d.OpID] = d
	case stream.ToolFinishedDTO:
		delete(r.inflight, d.OpID)
		mark, col := "✓", p.green
		if !d.OK {
			mark, col = "✗", p.red
		}
		r.printf("%s  %s%s %s: %s · %s · %s%s\n", r.stamp(d.At), col, mark, oneLine(d.Name, 40), oneLine(d.Label, 120),
			oneLine(d.Detail, 80), ms(d.DurationMS), p.reset)
	case stream.AssistantMessageDTO:
		who := "assistant:"
		if d.Final {
			who = "answer:"
		}
		r.printf("%s%s%s%s %s\n", r.stamp(d.At), p.bold, who, p.reset, text(d.Text))
	case stream.ReasoningDTO:
		r.printf("%s%s  · %s%s\n", r.stamp(d.At), p.dim, text(d.Text), p.reset)
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

// end marks the tools still in flight when the stream ends without
// run_finished.
func (r *renderer) end() {
	if !r.finished.Load() {
		r.markInflight(time.Time{})
		if !r.start.IsZero() {
			r.printf("%s── no run_finished: the stream was cut off%s\n", r.pal.yellow, r.pal.reset)
		}
	}
}

func (r *renderer) markInflight(at time.Time) {
	for _, op := range r.order {
		d, ok := r.inflight[op]
		if !ok {
			continue
		}
		delete(r.inflight, op)
		stamp := strings.Repeat(" ", 10)
		if !at.IsZero() {
			stamp = r.stamp(at)
		}
		r.printf("%s  %s⋯ %s: %s · still running%s\n", stamp, r.pal.yellow, oneLine(d.Name, 40), oneLine(d.Label, 120), r.pal.reset)
	}
	r.order = r.order[:0]
}

func (r *renderer) summary(s stream.SummaryDTO) {
	p := r.pal
	col := p.green
	if s.Status != string(stream.StatusOK) {
		col = p.red
	}
	st := s.Stats
	r.printf("%s── %s%s · exit %d · wall %s · %d turns · model %s · tools %s (overlap %s)%s\n", col+p.bold,
		oneLine(s.Status, 20), p.reset+p.bold, s.RunnerExitCode, ms(s.WallMS), st.Turns, ms(st.ModelMS), ms(st.ToolBusyMS),
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
	for _, w := range st.Warnings {
		r.printf("   %swarning: %s%s\n", p.yellow, oneLine(w, 160), p.reset)
	}
	for _, e := range append(slices.Clone(st.Errors), st.Failures...) {
		r.printf("   %serror: %s%s\n", p.red, oneLine(e, 160), p.reset)
	}
	if s.Answer != "" {
		r.printf("   answer: %s\n", strings.ReplaceAll(sanitize(s.Answer, true), "\n", "\n           "))
	}
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

func joinPrefixed(sep string, parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	return sep + strings.Join(parts, sep)
}
