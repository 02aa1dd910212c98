package statedir

import (
	"cmp"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/uagentkit/stream"
)

// Session is a conversation: the runs of the state directory that share
// a session_id, in the order they started. uagent --session ID resumes
// one, so that its runs together are the whole conversation.
type Session struct {
	ID   string
	Runs []*Run
}

// Sessions returns the state directory's sessions, the one with the
// latest activity first (see UpdatedAt), and what could not be read of
// it (each a *Problem; a run without a session is in none and is no
// problem). The run directories are opened on all cores: a state
// directory of 10,000 runs is read in a fraction of a second (see
// BENCHMARKS.md).
func Sessions(stateDir string) ([]Session, []error) {
	dir := filepath.Join(stateDir, "runs")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, []error{&Problem{File: dir, Err: err}}
	}
	runs := make([]*Run, len(entries))
	errs := make([]error, len(entries))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				path := filepath.Join(dir, entries[i].Name())
				if !entries[i].IsDir() {
					errs[i] = &Problem{File: path, Err: ErrNotARun}
					continue
				}
				runs[i], errs[i] = OpenRun(path)
			}
		})
	}
	for i, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			next <- i
		}
	}
	close(next)
	wg.Wait()
	byID := map[string]int{}
	var out []Session
	var problems []error
	for i, r := range runs {
		if errs[i] != nil {
			problems = append(problems, errs[i])
		}
		if r == nil || r.SessionID() == "" {
			continue
		}
		k, ok := byID[r.SessionID()]
		if !ok {
			k = len(out)
			byID[r.SessionID()] = k
			out = append(out, Session{ID: r.SessionID()})
		}
		out[k].Runs = append(out[k].Runs, r)
	}
	for _, s := range out {
		slices.SortStableFunc(s.Runs, func(a, b *Run) int { return a.StartedAt().Compare(b.StartedAt()) })
	}
	slices.SortStableFunc(out, func(a, b Session) int {
		return cmp.Or(b.UpdatedAt().Compare(a.UpdatedAt()), strings.Compare(a.ID, b.ID))
	})
	return out, problems
}

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

// Title is the session's first prompt, on one line and cut to 80 runes:
// its first run's request's prompt, else its first message's content.
func (s Session) Title() string {
	for _, r := range s.Runs {
		if q := r.Request; q != nil {
			if q.Prompt != "" {
				return oneLine(q.Prompt, 80)
			}
			for _, m := range q.Messages {
				if m.Content != "" {
					return oneLine(m.Content, 80)
				}
			}
		}
	}
	return ""
}

// Workspace is where the session ran: the first of its runs' summaries
// that says.
func (s Session) Workspace() string {
	for _, r := range s.Runs {
		if r.Summary != nil && r.Summary.Workspace != "" {
			return r.Summary.Workspace
		}
	}
	return ""
}

// Effort is the effort the session's last run ran with: its summary's,
// else its request's thinking_level.
func (s Session) Effort() string {
	return s.lastRun(func(d *stream.SummaryDTO) string { return d.Effort }, func(q *Request) string { return q.ThinkingLevel })
}

// Model is the model the session's last run used: its summary's, else its
// request's.
func (s Session) Model() string {
	return s.lastRun(func(d *stream.SummaryDTO) string { return d.Model }, func(q *Request) string { return q.Model })
}

// lastRun is what the last run's summary says (of), else its request.
func (s Session) lastRun(of func(*stream.SummaryDTO) string, orRequest func(*Request) string) string {
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
