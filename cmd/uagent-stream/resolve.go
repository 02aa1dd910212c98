package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/uahstream"
)

// homes are the state directories a FILE argument that is no path is
// looked up in: the command's --state-dir, else statedir.Homes'.
func (e env) homes() ([]string, error) { return statedir.Homes(*e.dirs) }

// lookupHistory finds what a FILE argument names when it is not a path
// that exists (history.Lookup). An ambiguous prefix is an error that
// lists the candidates.
func lookupHistory(e env, name string) (history.Found, bool, error) {
	dirs, _ := e.homes() // none without a home directory: a path still opens
	found, ok, err := history.Lookup(dirs, name)
	return found, ok, explain(err)
}

// openInput opens a FILE argument (history.OpenInput), wherever a command
// reads a stream.
func openInput(e env, name string, s *uahstream.Session, opts ...stream.DecoderOption) (*history.Input, error) {
	dirs, _ := e.homes() // none without a home directory: a path still opens
	in, err := history.OpenInput(name, e.stdin, dirs, s, opts...)
	return in, explain(err)
}

// explain is err, with an ambiguous prefix's candidates listed on one
// line (the message is sanitized as one, and the ids are the history's
// directory names, so none may start a line of its own).
func explain(err error) error {
	amb, ok := errors.AsType[*history.AmbiguousError](err)
	if !ok {
		return err
	}
	cands := make([]string, len(amb.Candidates))
	for i, c := range amb.Candidates {
		what := "session"
		if len(c) >= 15 {
			if at, err := time.Parse("20060102-150405", c[:15]); err == nil {
				what = "run of " + at.Format("2006-01-02 15:04")
			}
		}
		cands[i] = c + " (" + what + ")"
	}
	return fmt.Errorf("%s is the beginning of %d ids of the history; say which: %s", amb.Prefix, len(amb.Candidates), strings.Join(cands, ", "))
}

// reportProblems says on stderr what could not be read of a run directory
// read through in, and reports whether any of it is serious
// (statedir.Serious).
func reportProblems(e env, in *history.Input) (anySerious bool) {
	for _, p := range in.Problems() {
		fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(p.Error(), false))
		anySerious = anySerious || statedir.Serious(p)
	}
	return anySerious
}
