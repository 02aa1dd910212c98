package history

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/uahstream"
)

// Input is a stream a program was asked to read, whatever named it: a
// file, standard input, a run directory (the events of the v1 stream
// uagent would have written of it, not written out), or a run or a
// session of the history by its id (a session's runs in order, as one
// session stream), read once into one session through Reader. An Input
// is not safe for concurrent use.
type Input struct {
	Reader *uahstream.Reader
	// Run is a run directory's; Runs a session's, in order, and Session
	// the history's session they are (nil for a run or a stream).
	Run     *statedir.Run
	Runs    []*statedir.Run
	Session *Session
	// State is the run directory's, or the session's last run's, when
	// it was opened; 0 for a stream.
	State statedir.State
	close func() error
}

// OpenInput opens name into s (a new Session when nil): "-" is stdin; a
// path that exists is a run directory or a file (read with opts); any
// other name is looked up in the history of the state directories dirs
// (see Lookup). Close it when read.
func OpenInput(name string, stdin io.Reader, dirs []string, s *uahstream.Session, opts ...stream.DecoderOption) (*Input, error) {
	if s == nil {
		s = new(uahstream.Session)
	}
	nop := func() error { return nil }
	if name == "-" {
		return &Input{Reader: s.Reader(stdin, opts...), close: nop}, nil
	}
	found, ok, err := Lookup(dirs, name)
	switch {
	case err != nil:
		return nil, err
	case ok:
		return found.Open(s)
	}
	if info, err := os.Stat(name); err == nil && info.IsDir() {
		if !statedir.IsRun(name) {
			return nil, fmt.Errorf("%s: a directory that is not a run directory (one with events.jsonl, summary.json or request.json)", name)
		}
		return openRun(name, s)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return &Input{Reader: s.Reader(f, opts...), close: f.Close}, nil
}

// Open opens what was found, read into s (a new Session when nil): a
// run's directory, or a session's runs in order, each opened again from
// its directory as it is now. Close the Input when read.
func (f Found) Open(s *uahstream.Session) (*Input, error) {
	if s == nil {
		s = new(uahstream.Session)
	}
	if f.Run != nil {
		return openRun(f.Run.Dir, s)
	}
	if f.Session == nil {
		return nil, fmt.Errorf("%w: nothing was found", ErrNotFound)
	}
	rd, runs, err := f.Session.Reader(s, nil)
	if err != nil {
		return nil, err
	}
	in := &Input{Reader: rd, Runs: runs, Session: f.Session, close: func() error { return nil }}
	if len(runs) > 0 {
		in.State = runs[len(runs)-1].State()
	}
	return in, nil
}

// openRun opens the run directory dir into s.
func openRun(dir string, s *uahstream.Session) (*Input, error) {
	r, err := statedir.OpenRun(dir)
	if err != nil {
		return nil, err
	}
	return &Input{Reader: s.EventReader(r.Events()), Run: r, State: r.State(), close: func() error { return nil }}, nil
}

// Close closes the file the Input reads, if any.
func (in *Input) Close() error {
	if in.close == nil {
		return nil
	}
	return in.close()
}

// Going reports that the Input's last run is a run directory whose run
// is still going (statedir.StateRunning) as it was opened: its
// transcript ends "running", not cut off.
func (in *Input) Going() bool { return in.State == statedir.StateRunning }

// Status is the word for the Input's last run when it is a run directory
// that has not finished (statedir.StatusOf: running or cut_off), "" for a
// stream or a finished run: what a view says of a run without
// run_finished.
func (in *Input) Status() stream.Status {
	if in.State == 0 || in.State == statedir.StateFinished {
		return ""
	}
	return stream.Status(statedir.StatusOf(in.State, nil))
}

// Problems returns what could not be read of its run directories, once
// they have been read: nothing for a file.
func (in *Input) Problems() []error {
	var out []error
	for _, r := range append([]*statedir.Run{in.Run}, in.Runs...) {
		if r != nil {
			out = append(out, r.Problems()...)
		}
	}
	return out
}

// Attempts adds up the model attempts its run directories' stderr.log
// say (statedir.Run.Attempts): nothing for a file, and nothing of a run
// whose stderr.log cannot be read.
func (in *Input) Attempts() statedir.Attempts {
	var out statedir.Attempts
	for _, r := range append([]*statedir.Run{in.Run}, in.Runs...) {
		if r == nil {
			continue
		}
		if a, err := r.Attempts(); err == nil {
			out = out.Add(a)
		}
	}
	return out
}

// RunOf is the run directory the Ended run was read from: of a run
// directory, its run; of a session of the history, its run of that
// index; nil for a stream.
func (in *Input) RunOf(e *uahstream.Ended) *statedir.Run {
	if in.Run != nil {
		return in.Run
	}
	if e.Run >= 0 && e.Run < len(in.Runs) {
		return in.Runs[e.Run]
	}
	return nil
}

// NotFoundError is a name that is neither a path nor an id of the
// history: Open is what opening it as a file said. It wraps both that and
// ErrNotFound.
type NotFoundError struct{ Open error }

// Error says both: no such file, and no such id.
func (n *NotFoundError) Error() string {
	return n.Open.Error() + " (nor is it the id of a run or session of the history: uagent-stream ls lists them)"
}

// Unwrap returns the file's error and ErrNotFound.
func (n *NotFoundError) Unwrap() []error { return []error{n.Open, ErrNotFound} }

// Lookup finds what a name a program was given as a file names when it is
// not one: a run or a session of the history of the state directories
// dirs (see Locate; priced by DefaultPrices). ok is false for "-", "" and
// a path that exists, which always wins. A name of nothing is a
// *NotFoundError; a prefix of more than one id an *AmbiguousError.
func Lookup(dirs []string, name string) (found Found, ok bool, err error) {
	if name == "-" || name == "" {
		return Found{}, false, nil
	}
	if _, err := os.Lstat(name); err == nil || !errors.Is(err, os.ErrNotExist) {
		return Found{}, false, nil
	}
	found, err = Locate(DefaultPrices(), dirs, name)
	if errors.Is(err, ErrNotFound) {
		f, openErr := os.Open(name) // what a file's reader would say of it
		if openErr == nil {         // made a moment later: a path, which wins
			f.Close()
			return Found{}, false, nil
		}
		return found, true, &NotFoundError{openErr}
	}
	return found, err == nil, err
}
