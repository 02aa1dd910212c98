package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/statedir"
)

// openHistory opens the history a FILE argument that is no path is
// looked up in (statedir.Homes: $UAGENT_STATE_DIR, else uagent's and
// uah's); env.history reads it once a command.
func openHistory() (*history.Index, error) {
	dirs, err := statedir.Homes(nil)
	if err != nil {
		return nil, err
	}
	return history.Open(history.DefaultPrices(), dirs...), nil
}

func onceHistory() func() (*history.Index, error) { return sync.OnceValues(openHistory) }

// lookupHistory finds what a FILE argument names when it is not a path that
// exists (and not "-"): a run or a session of the history, by its id, a
// unique prefix of one, or "latest". ok is false for a path that exists,
// which always wins. An ambiguous prefix is an error that lists the
// candidates; a name of nothing says both that no file and no id has it.
func lookupHistory(e env, name string) (found history.Found, ok bool, err error) {
	if name == "-" || name == "" {
		return history.Found{}, false, nil
	}
	_, statErr := os.Lstat(name)
	if statErr == nil || !errors.Is(statErr, os.ErrNotExist) {
		return history.Found{}, false, nil
	}
	x, err := e.history()
	if err != nil {
		return history.Found{}, false, err
	}
	found, err = x.Resolve(name)
	if amb, isAmb := errors.AsType[*history.AmbiguousError](err); isAmb {
		// One line: the message is sanitized as one, and the ids are the
		// history's (directory names), so none may start a line of its own.
		cands := make([]string, len(amb.Candidates))
		for i, c := range amb.Candidates {
			what := "session"
			if r := x.Run(c); r != nil {
				what = "run of " + r.StartedAt.Format("2006-01-02 15:04")
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
