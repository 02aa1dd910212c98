package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/statedir"
)

// homes are the state directories a FILE argument that is no path is
// looked up in: the command's --state-dir, else statedir.Homes'.
func (e env) homes() ([]string, error) { return statedir.Homes(*e.dirs) }

// lookupHistory finds what a FILE argument names when it is not a path that
// exists (and not "-"): a run or a session of the history, by its id, a
// unique prefix of one, or "latest" (history.Locate: a run from the
// directories' names, the index read only for a session). ok is false for
// a path that exists, which always wins. An ambiguous prefix is an error
// that lists the candidates; a name of nothing says both that no file and
// no id has it.
func lookupHistory(e env, name string) (found history.Found, ok bool, err error) {
	if name == "-" || name == "" {
		return history.Found{}, false, nil
	}
	_, statErr := os.Lstat(name)
	if statErr == nil || !errors.Is(statErr, os.ErrNotExist) {
		return history.Found{}, false, nil
	}
	dirs, err := e.homes()
	if err != nil {
		return history.Found{}, false, err
	}
	found, err = history.Locate(history.DefaultPrices(), dirs, name)
	if amb, isAmb := errors.AsType[*history.AmbiguousError](err); isAmb {
		// One line: the message is sanitized as one, and the ids are the
		// history's (directory names), so none may start a line of its own.
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
		return found, true, fmt.Errorf("%s is the beginning of %d ids of the history; say which: %s", name, len(amb.Candidates), strings.Join(cands, ", "))
	}
	if errors.Is(err, history.ErrNotFound) {
		_, openErr := os.Open(name) // what a file's reader would say of it
		return found, true, noSuch{openErr}
	}
	return found, err == nil, err
}

// noSuch is a FILE argument that is neither a path nor an id of the
// history: what opening it said; it wraps history.ErrNotFound too.
type noSuch struct{ open error }

func (n noSuch) Error() string {
	return n.open.Error() + " (nor is it the id of a run or session of the history: uagent-stream ls lists them)"
}

func (n noSuch) Unwrap() []error { return []error{n.open, history.ErrNotFound} }
