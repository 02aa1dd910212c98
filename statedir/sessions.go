package statedir

import (
	"strings"
	"time"

	"github.com/uagentkit/stream"
)

// Session is a conversation: the runs of a history that share a
// session_id, in the order they started. uagent --session ID resumes one,
// so that its runs together are the whole conversation.
type Session struct {
	ID   string
	Runs []*Run
	// Sidecar is uah's sidecar of the session, nil without one.
	Sidecar *Sidecar

	parent string // the sidecar's parent, when it is one (see History.Sessions)
}

// Sessions returns the sessions of the state directories dirs (see
// OpenHistory and History.Sessions), and what could not be read of them
// (each a *Problem; a run without a session is in none and is no
// problem). A state directory of 10,000 runs is read in a fraction of a
// second (see BENCHMARKS.md).
func Sessions(dirs ...string) ([]Session, []error) {
	h := OpenHistory(dirs...)
	ss, problems := h.Sessions()
	return ss, append(h.Problems(), problems...)
}

// Parent is the session that began this one, a subagent's, as its
// sidecar says: "" without one, and when it has no runs in the history or
// is the session's own descendant.
func (s Session) Parent() string { return s.parent }

// Source is where uah began the session, as its sidecar says: "tui",
// "run" (uah exec) or "subagent"; "" without a sidecar (a session of
// uagent's, or older).
func (s Session) Source() string {
	if s.Sidecar == nil {
		return ""
	}
	return s.Sidecar.Source
}

// Review reports a reviewer session: a subagent that uah's /review ran,
// as its sidecar says.
func (s Session) Review() bool { return s.Sidecar != nil && s.Sidecar.Review }

// UpdatedAt is the session's last activity: its last run's end (its
// start plus its wall time), or, for a run that has not ended, its start.
func (s Session) UpdatedAt() time.Time {
	if len(s.Runs) == 0 {
		return time.Time{}
	}
	r := s.Runs[len(s.Runs)-1]
	if r.Finished() {
		return r.Summary.StartedAt.Add(time.Duration(r.Summary.WallMS) * time.Millisecond)
	}
	return r.StartedAt()
}

// Title is the session's title, by the history's one rule: its
// sidecar's first_prompt, else the title of its first run that has one
// (RequestHead.Title: the first prompt from the user, never a developer's
// message), on one line, cut to MaxTitle runes. Every view cuts it further
// to its own width.
func (s Session) Title() string {
	if s.Sidecar != nil && strings.TrimSpace(s.Sidecar.FirstPrompt) != "" {
		return titleLine(s.Sidecar.FirstPrompt)
	}
	for _, r := range s.Runs {
		if r.Request != nil && r.Request.Title != "" {
			return r.Request.Title
		}
	}
	return ""
}

// Workspace is where the session ran: the first of its runs' summaries
// that says, else its sidecar's.
func (s Session) Workspace() string {
	for _, r := range s.Runs {
		if r.Summary != nil && r.Summary.Workspace != "" {
			return r.Summary.Workspace
		}
	}
	if s.Sidecar != nil {
		return s.Sidecar.Workspace
	}
	return ""
}

// Effort is the effort the session's last run ran with: its summary's,
// else its request's thinking_level.
func (s Session) Effort() string {
	return s.lastRun(func(d *stream.SummaryDTO) string { return d.Effort }, func(q *RequestHead) string { return q.ThinkingLevel })
}

// Model is the model the session's last run used: its summary's, else its
// request's.
func (s Session) Model() string {
	return s.lastRun(func(d *stream.SummaryDTO) string { return d.Model }, func(q *RequestHead) string { return q.Model })
}

// lastRun is what the last run's summary says (of), else its request.
func (s Session) lastRun(of func(*stream.SummaryDTO) string, orRequest func(*RequestHead) string) string {
	if len(s.Runs) == 0 {
		return ""
	}
	r := s.Runs[len(s.Runs)-1]
	if r.Summary != nil && of(r.Summary) != "" {
		return of(r.Summary)
	}
	if r.Request != nil {
		return orRequest(r.Request)
	}
	return ""
}
