package statedir

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/uagentkit/stream"
)

// State is what a run directory says of its run at the moment it is
// asked: decided by [Run.State] alone, so that every view of a saved run
// (a listing, a transcript, a page, a table row, an editor's or an
// agent's answer) says the same of it.
type State int

// The states of a run directory.
const (
	// StateFinished: summary.json has a final status (ok, error,
	// timeout, interrupted, disk_limit): the run has ended and said how.
	StateFinished State = iota + 1
	// StateRunning: no final summary, and a process holds the session's
	// lock (uagent takes it for as long as a run goes on).
	StateRunning
	// StateStopped: no summary.json, or one still saying running, and
	// nobody holds the session's lock: uagent died (kill -9, a crash)
	// before it could say how the run ended. Its records are all there
	// will be.
	StateStopped
)

// StoppedStatus is the one word every view shows for a stopped run: the
// name the stream reader gives a stream without run_finished
// (stream.EndCutOff).
const StoppedStatus = "cut_off"

// Statuses returns every word Run.Status says: the final statuses of a
// summary (ok, error, timeout, interrupted, disk_limit), running, and
// StoppedStatus; a new slice each call.
func Statuses() []string {
	return []string{string(stream.StatusOK), string(stream.StatusError), string(stream.StatusTimeout),
		string(stream.StatusInterrupted), string(stream.StatusDiskLimit), string(stream.StatusRunning), StoppedStatus}
}

// String returns finished, running or stopped.
func (s State) String() string {
	switch s {
	case StateFinished:
		return "finished"
	case StateRunning:
		return "running"
	case StateStopped:
		return "stopped"
	}
	return "State(?)"
}

// State returns the run's state: finished when the summary read by
// OpenRun has a final status; else running while a process holds the
// session's lock (see Held) and no later run of its session is in its
// state directory (uagent runs one run of a session at a time: the lock
// is the later run's), stopped otherwise. Where the lock
// cannot be probed (a system without flock), a summary saying running is
// taken at its word (running) and a run without one is stopped. It
// probes the lock (never waiting) each time it is asked about a run that
// has not finished; it is safe for concurrent use with the other readers
// of r that do not change it (everything but Events, Follow and Write).
func (r *Run) State() State {
	if r.Finished() {
		return StateFinished
	}
	held, known := r.Held()
	switch {
	case held && !r.superseded():
		return StateRunning
	case held:
		return StateStopped
	case !known && r.Summary != nil:
		return StateRunning
	}
	return StateStopped
}

// Status is the word for the run's state that every view shows: the
// summary's status for a finished run, "running" for a running one,
// StoppedStatus ("cut_off") for a stopped one.
func (r *Run) Status() string { return StatusOf(r.State(), r.Summary) }

// StatusOf is the word for a run in state st whose summary.json is sum
// (nil without one): see Run.Status.
func StatusOf(st State, sum *stream.SummaryDTO) string {
	switch {
	case st == StateFinished && sum != nil:
		return sum.Status
	case st == StateRunning:
		return string(stream.StatusRunning)
	}
	return StoppedStatus
}

// superseded reports whether a later run of r's session is in r's state
// directory. Run ids begin with their start (YYYYMMDD-HHMMSS-) and go on
// with the session id's first 8 characters, so only the names after r's
// with r's third part are opened.
func (r *Run) superseded() bool {
	id, session := r.ID, r.SessionID()
	if len(id) < 24 || session == "" {
		return false
	}
	es, err := os.ReadDir(filepath.Dir(r.Dir))
	if err != nil {
		return false
	}
	for _, e := range es {
		name := e.Name()
		if name <= id || len(name) < 24 || name[16:24] != id[16:24] || strings.HasPrefix(name, ".") {
			continue
		}
		if later, err := OpenRun(filepath.Join(filepath.Dir(r.Dir), name)); err == nil && later.SessionID() == session {
			return true
		}
	}
	return false
}
