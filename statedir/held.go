package statedir

import (
	"path/filepath"
	"strings"
)

// SessionsDir is the directory of a state directory where uagent keeps
// each session's file and lock (DESIGN.md, "What uagent saves").
const SessionsDir = "sessions"

// lockPath is the run lock of a run's session: <state>/sessions/<id>.lock,
// "" for a session id that cannot name a file of its own.
func (r *Run) lockPath() string {
	id := r.SessionID()
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return ""
	}
	return filepath.Join(filepath.Dir(filepath.Dir(r.Dir)), SessionsDir, id+".lock")
}

// Held reports whether a process holds the run's session lock (uagent
// takes <state>/sessions/<session id>.lock with flock for as long as a
// run of the session goes on, and the system lets go of it when the
// process ends): a run whose summary says running but whose lock nobody
// holds was stopped before it could say how it ended (kill -9, a
// crash). known is false where it cannot be told (a system without
// flock). It never waits: a lock held is found held at once. The probe
// takes a shared lock for a moment, which a uagent starting that very
// moment would find busy.
func (r *Run) Held() (held, known bool) {
	p := r.lockPath()
	if p == "" {
		return false, true
	}
	return lockHeld(p)
}
