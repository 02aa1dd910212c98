package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/uagentkit/stream"
)

// cmdRun runs a command that writes a stream, renders it live (or passes it
// through with --json), prints one outcome line to stderr and exits with
// the command's exit code: 128+signal when a signal killed it, 130 when the
// run was interrupted, 127 when the command does not exist and 126 when it
// cannot be executed.
func cmdRun(e env, args []string) error {
	fl := flags(e, "run")
	fl.interleave = false // what follows COMMAND is the command's own
	asJSON := fl.Bool("json", false, "pass the JSONL through instead of rendering it (control, bidi and invisible characters written as \\u escapes: the same JSON values)")
	save := fl.String("save", "", "also write the raw stream, byte for byte, to this `file` (as tee would)")
	otelOn := fl.Bool("otel", false, "also export the run live as OpenTelemetry spans (OTLP, configured by the OTEL_* variables)")
	otelContent := fl.Bool("otel-content", false, "with --otel, also export message texts, tool arguments and the answer")
	noColor := fl.Bool("no-color", false, "never colour the output")
	grace := fl.Duration("grace", 5*time.Second, "on interrupt, how long to wait before killing what is left")
	if err := fl.parse(args); err != nil {
		return err
	}
	if fl.NArg() == 0 {
		return fl.usageError("want a COMMAND to run")
	}
	// The command owns its process: descendants that leave the run's
	// process group are reparented here (Linux) and stopped at the end.
	becomeSubreaper()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	name := fl.Arg(0)
	cmd := exec.Command(name, fl.Args()[1:]...)
	cmd.Stdin = e.stdin
	stderr := &lastByte{w: e.stderr}
	cmd.Stderr = stderr
	var copies []io.Writer
	if *save != "" {
		f, err := os.Create(*save)
		if err != nil {
			return err
		}
		defer f.Close()
		copies = append(copies, f)
	}
	var jsonLines *lineWriter
	if *asJSON {
		jsonLines = &lineWriter{w: jsonOut{e.stdout}, max: stream.DefaultMaxLineSize, long: func(line int) {
			stderr.newline()
			fmt.Fprintf(stderr, "uagent-stream: line %d is longer than %d bytes: passed on as it comes\n", line, stream.DefaultMaxLineSize)
		}}
		copies = append(copies, jsonLines)
	}
	opts := []stream.Option{stream.WithGrace(*grace)}
	if len(copies) > 0 {
		opts = append(opts, stream.WithStdoutCopy(io.MultiWriter(copies...)))
	}
	restore := foreground(cmd, e.stdin)
	run, err := stream.Start(ctx, cmd, opts...)
	if err != nil {
		restore()
		fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(err.Error(), false))
		return exitError{startFailure(err)}
	}
	export := newLiveExport(e, *otelOn, *otelContent)
	events := export.tap(run.Events())
	var renderErr error
	if *asJSON {
		for range events {
		}
	} else {
		r := newRenderer(e.stdout, useColor(e.stdout, *noColor), true)
		renderErr = r.renderEach(events)
		r.flush()
	}
	o, err := run.Wait()
	restore() // the terminal first: nothing below needs the child
	reapOrphans(*grace)
	if jsonLines != nil {
		jsonLines.flush()
	}
	export.end(e, o.Status) // a bounded flush, beside the run's own result
	if err == nil {
		err = renderErr
	}
	code := reportOutcome(e, stderr, name, o, err)
	if code == 0 {
		return nil
	}
	return exitError{code}
}

// reportOutcome prints the outcome line of a run started as run and serve
// start it, on a line of its own after the command's stderr, and the error
// of reading it, if any; it returns the exit code for the outcome.
func reportOutcome(e env, stderr *lastByte, name string, o stream.Outcome, err error) int {
	code := exitCode(o)
	how := fmt.Sprintf("exit %d", o.ExitCode)
	if sig, ok := o.Signal.(syscall.Signal); ok {
		how = fmt.Sprintf("killed by signal %d (%s)", int(sig), sig)
	}
	errs := ""
	if o.LineErrors > 0 {
		errs = fmt.Sprintf(", %d bad", o.LineErrors)
	}
	stderr.newline()
	fmt.Fprintf(e.stderr, "uagent-stream: %s: %s, status %s, %s, %d lines%s\n", sanitize(name, false), o.Ending,
		sanitize(string(o.Status), false), how, o.Lines, errs)
	if err != nil {
		fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(err.Error(), false))
		if code == 0 {
			code = 1
		}
	}
	return code
}

// exitCode is the exit code of run (and serve) for a run's outcome: the
// command's own, 128+signal when a signal killed it, 130 when the run was
// interrupted.
func exitCode(o stream.Outcome) int {
	code := o.ExitCode
	if sig, ok := o.Signal.(syscall.Signal); ok {
		code = 128 + int(sig)
	}
	if o.Status == stream.StatusInterrupted {
		code = stream.ExitInterrupted
	}
	return code
}

// startFailure is the exit code for a command that could not start: 127
// when it does not exist, 126 when it cannot be executed, as shells say.
func startFailure(err error) int {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, exec.ErrNotFound):
		return 127
	case errors.Is(err, fs.ErrPermission):
		return 126
	}
	return 1
}

// lineWriter passes whole lines to w, so that w sees no character cut in
// two, holding at most max bytes of a line: a longer line is reported (its
// number to long) and passed on as it comes, cut only between characters.
// flush writes what is left.
type lineWriter struct {
	w        io.Writer
	max      int
	long     func(line int)
	buf      []byte
	line     int  // lines ended so far
	cur      int  // bytes of the line not ended yet
	overlong bool // that line is longer than max (and was reported)
}

func (l *lineWriter) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		seg, ended := rest, false
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			seg, ended = rest[:i+1], true
		}
		rest = rest[len(seg):]
		if l.cur += len(seg); ended {
			l.cur--
		}
		if !l.overlong && l.cur > l.max {
			l.overlong = true
			l.long(l.line + 1)
		}
		if ended {
			l.line, l.cur, l.overlong = l.line+1, 0, false
		}
	}
	l.buf = append(l.buf, p...)
	out := bytes.LastIndexByte(l.buf, '\n') + 1 // whole lines
	if l.overlong {                             // and the overlong line's bytes as they come, but never half a character
		out = len(l.buf) - partialRune(l.buf)
	}
	if out > 0 {
		if _, err := l.w.Write(l.buf[:out]); err != nil {
			return 0, err
		}
		l.buf = append(l.buf[:0], l.buf[out:]...)
	}
	return len(p), nil
}

// partialRune is how many bytes at the end of b are the start of a UTF-8
// sequence that is not complete yet.
func partialRune(b []byte) int {
	for n := 1; n <= min(3, len(b)); n++ {
		c := b[len(b)-n]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}

func (l *lineWriter) flush() {
	if len(l.buf) > 0 {
		l.w.Write(l.buf)
		l.buf = l.buf[:0]
	}
}

// lastByte passes writes through and remembers whether the last byte
// written ended a line, so that a message after the child's stderr starts
// on a line of its own. It is safe for concurrent use.
type lastByte struct {
	mu      sync.Mutex
	w       io.Writer
	written bool
	last    byte
}

func (l *lastByte) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(p) > 0 {
		l.written, l.last = true, p[len(p)-1]
	}
	return l.w.Write(p)
}

// newline ends the child's last line if it did not.
func (l *lastByte) newline() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written && l.last != '\n' {
		io.WriteString(l.w, "\n")
		l.last = '\n'
	}
}
