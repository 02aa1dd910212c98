package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"sync"
	"syscall"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/execstream"
)

// reportOutcome prints the outcome line of a run started as run and serve
// start it, on a line of its own after the command's stderr, and the error
// of reading it, if any; it returns the exit code for the outcome.
func reportOutcome(e env, stderr *lastByte, name string, o execstream.Outcome, err error) int {
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
func exitCode(o execstream.Outcome) int {
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
