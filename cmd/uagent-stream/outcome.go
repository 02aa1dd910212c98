package main

import (
	"fmt"
	"io"
	"sync"
	"syscall"

	"github.com/uagentkit/stream/execstream"
)

// reportOutcome prints the outcome line of a run started as run and serve
// start it, on a line of its own after the command's stderr, and the error
// of reading it, if any; it returns the exit code for the outcome.
func reportOutcome(e env, stderr *lastByte, name string, o execstream.Outcome, err error) int {
	code := o.ShellExitCode()
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
