package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/uahstream"
)

// input is a FILE argument, read once into its session: a file or
// standard input through a uahstream.Reader, a run directory of uagent's
// state directory as the events of the v1 stream uagent would have
// written of it (see statedir), without writing them out.
type input struct {
	rd    *uahstream.Reader
	run   *statedir.Run   // a run directory's
	runs  []*statedir.Run // a session of the history's, in order
	state statedir.State  // of the run directory, or the session's last run; 0 for a stream
	close func() error
}

// openInput opens a FILE argument, wherever a command reads a stream,
// into s (a new Session when nil): "-" is standard input, a run directory
// its events, a file read with opts; a name that is no path a run or a
// session of the history (see lookupHistory): a run its directory's
// events, a session its runs' in order, as one session stream.
func openInput(e env, name string, s *uahstream.Session, opts ...stream.DecoderOption) (*input, error) {
	if s == nil {
		s = new(uahstream.Session)
	}
	nop := func() error { return nil }
	if name == "-" {
		return &input{rd: s.Reader(e.stdin, opts...), close: nop}, nil
	}
	found, ok, err := lookupHistory(e, name)
	switch {
	case err != nil:
		return nil, err
	case ok && found.Run != nil:
		name = found.Run.Dir
	case ok:
		rd, runs, err := found.Session.Reader(s, nil)
		if err != nil {
			return nil, err
		}
		in := &input{rd: rd, runs: runs, close: nop}
		if len(runs) > 0 {
			in.state = runs[len(runs)-1].State()
		}
		return in, nil
	}
	if info, err := os.Stat(name); err == nil && info.IsDir() {
		if !statedir.IsRun(name) {
			return nil, fmt.Errorf("%s: a directory that is not a run directory (one with events.jsonl, summary.json or request.json)", name)
		}
		r, err := statedir.OpenRun(name)
		if err != nil {
			return nil, err
		}
		return &input{rd: s.EventReader(r.Events()), run: r, state: r.State(), close: nop}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return &input{rd: s.Reader(f, opts...), close: f.Close}, nil
}

// going reports that the input's last run is a run directory whose run
// is still going (statedir.StateRunning), as its state was when the
// input was opened: its transcript ends "running", not cut off.
func (in *input) going() bool { return in.state == statedir.StateRunning }

// status is the word for the input's last run when it is a run directory
// that has not finished (statedir.StatusOf: running or cut_off), "" for a
// stream or a finished run: what a view says of a run without
// run_finished.
func (in *input) status() stream.Status {
	if in.state == 0 || in.state == statedir.StateFinished {
		return ""
	}
	return stream.Status(statedir.StatusOf(in.state, nil))
}

// problems returns what could not be read of a run directory, once it has
// been read: nothing for a file.
func (in *input) problems() []error {
	var out []error
	for _, r := range append([]*statedir.Run{in.run}, in.runs...) {
		if r != nil {
			out = append(out, r.Problems()...)
		}
	}
	return out
}

// runOf is the run directory the Ended run was read from: of a run
// directory, its run; of a session of the history, its run of that
// index; nil for a stream.
func (in *input) runOf(e *uahstream.Ended) *statedir.Run {
	if in.run != nil {
		return in.run
	}
	if e.Run >= 0 && e.Run < len(in.runs) {
		return in.runs[e.Run]
	}
	return nil
}

// serious reports a problem that is more than the run being cut off or
// being written: a file of the run that could not be read.
func serious(p error) bool {
	return !errors.Is(p, statedir.ErrNoSummary) && !errors.Is(p, statedir.ErrRunning) && !errors.Is(p, statedir.ErrWriteInProgress)
}

// reportProblems says on stderr what could not be read of a run directory
// read through in, and reports whether any of it is serious.
func reportProblems(e env, in *input) (anySerious bool) {
	for _, p := range in.problems() {
		fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(p.Error(), false))
		anySerious = anySerious || serious(p)
	}
	return anySerious
}
