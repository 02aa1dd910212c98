// Package history is a person's history of uagent runs as people look at
// it: the sessions and runs of the state directories uagent and uah keep
// (see statedir.Homes), listed newest first, filtered, found by any id or
// a unique prefix of one, searched for text, and added up by day, week,
// month, session, model or workspace with an API-price estimate of what
// the tokens would cost.
//
// An [Index] is read once (Open): each run's request.json and
// summary.json, on all cores, never its events (a run without a summary
// is the exception: its summary is recomputed from its events, as
// `uagent stats` does). Its figures are the summaries' own, the runner's
// numbers. [Index.Search] reads the runs' records, only of the runs whose
// bytes can hold the text.
//
// Every string of an Index comes from the history and is untrusted: a
// view sanitizes what it shows (the command's sanitize, the page's
// escaping).
package history

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/uahstream"
)

// Run is one run of the history, as its summary says.
type Run struct {
	ID        string
	SessionID string
	// Seq is the run's place in its session, from 1 (by start); 0 for a
	// run without a session.
	Seq int
	// Home is the state directory the run was read from, Dir its
	// directory.
	Home, Dir string
	StartedAt time.Time
	WallMS    int64
	// Status is the run directory's state's word (statedir.Run.Status):
	// the summary's status, running, or cut_off for a run uagent never
	// ended.
	Status                             string
	Provider, Model, Effort, Workspace string
	Turns, ToolCalls                   int
	Tokens                             stream.TokensDTO
	// Title is the run's first prompt from the user (see
	// statedir.RequestHead.Title).
	Title string
	// Cost is the API-price estimate of its tokens.
	Cost Cost

	run *statedir.Run
}

// StateRun is the run's directory as statedir read it, for its events
// (statedir.Run.Events). Like every statedir.Run, it is not safe for
// concurrent use.
func (r *Run) StateRun() *statedir.Run { return r.run }

// Session is a conversation of the history: the runs that share a
// session_id, in the order they started, and what uah's sidecar says of
// it.
type Session struct {
	ID string
	// Title is the session's title by the history's one rule (see
	// statedir.Session.Title).
	Title string
	// Source is where uah began it: tui, run, subagent, or review (a
	// subagent of uah's /review); "" for a session of uagent's own.
	Source string
	// Parent is the session a subagent or reviewer belongs to, when the
	// history has it; Children are its own subagents and reviewers, the
	// latest activity first.
	Parent   string
	Children []*Session
	// Workspace is where it ran (the first run's that says, else the
	// sidecar's); Home the state directory of its last run.
	Workspace, Home string
	// StartedAt is its first run's start; LastActivity its last run's end
	// (or start, for a run still going).
	StartedAt, LastActivity time.Time
	Runs                    []*Run
	// Status, Provider, Model and Effort are its last run's.
	Status, Provider, Model, Effort string
	// Tokens, ToolCalls and WallMS are its runs', summed (not its
	// children's); Cost their estimate.
	Tokens    stream.TokensDTO
	ToolCalls int
	WallMS    int64
	Cost      Estimate
}

// Index is the sessions and runs of a history. It is read once, by Open,
// and safe for concurrent use; its Sessions and Runs are not changed
// after it is made.
type Index struct {
	sessions []*Session // every session, the latest activity first
	runs     []*Run     // every run, by start
	byRun    map[string]*Run
	bySess   map[string]*Session
	short    map[string]int // the shortest unique prefix of each id
	prices   Prices
	problems []error
	h        *statedir.History
	// recomputed are the summaries of the runs without one, recomputed
	// from their records, by directory, with the records' size and time:
	// Reopen recomputes only those whose records changed.
	recomputed map[string]recomputed
}

// recomputed is a summary a run's records gave, and what they were then.
type recomputed struct {
	size    int64
	modTime time.Time
	sum     stream.SummaryDTO
}

// Open reads the history of the state directories dirs (see
// statedir.OpenHistory: each run once, uah's sidecars) and prices its
// tokens by prices. What could not be read is in Problems; the rest is
// read.
func Open(prices Prices, dirs ...string) *Index {
	return build(prices, statedir.OpenHistory(dirs...), nil)
}

// Reopen reads the history again, as Open does, but for its runs that had
// ended (see statedir.History.Reopen): what a history that a person works
// in costs to follow is its listing and the runs that are new or going
// on, not a rescan of all of it.
func (x *Index) Reopen() *Index { return build(x.prices, x.h.Reopen(), x.recomputed) }

func build(prices Prices, h *statedir.History, recomputedBefore map[string]recomputed) *Index {
	x := &Index{byRun: map[string]*Run{}, bySess: map[string]*Session{}, prices: prices, problems: h.Problems(), h: h,
		recomputed: map[string]recomputed{}}
	ss, problems := h.Sessions()
	x.problems = append(x.problems, problems...)
	for _, sr := range h.Runs() {
		r := x.run(sr, recomputedBefore)
		x.runs = append(x.runs, r)
		x.byRun[r.ID] = r
	}
	slices.SortStableFunc(x.runs, func(a, b *Run) int { return cmp.Or(a.StartedAt.Compare(b.StartedAt), strings.Compare(a.ID, b.ID)) })
	for _, ss := range ss {
		s := &Session{ID: ss.ID, Title: ss.Title(), Source: ss.Source(), Parent: ss.Parent(), Workspace: ss.Workspace(),
			LastActivity: ss.UpdatedAt()}
		if ss.Review() {
			s.Source = "review"
		}
		for i, sr := range ss.Runs {
			r := x.byRun[sr.ID]
			r.Seq = i + 1
			s.Runs = append(s.Runs, r)
			addTokens(&s.Tokens, r.Tokens)
			s.ToolCalls += r.ToolCalls
			s.WallMS += r.WallMS
			s.Cost.Add(r)
		}
		if len(s.Runs) > 0 {
			first, last := s.Runs[0], s.Runs[len(s.Runs)-1]
			s.StartedAt, s.Home = first.StartedAt, last.Home
			s.Status, s.Provider, s.Model, s.Effort = last.Status, last.Provider, last.Model, last.Effort
		}
		x.sessions = append(x.sessions, s)
		x.bySess[s.ID] = s
	}
	for _, s := range x.sessions { // in the order of their activity
		if p := x.bySess[s.Parent]; p != nil {
			p.Children = append(p.Children, s)
		}
	}
	x.short = shortest(x.ids())
	return x
}

// run is what the index keeps of a run directory: its summary's figures,
// or, without a summary, those its events recompute.
func (x *Index) run(sr *statedir.Run, before map[string]recomputed) *Run {
	r := &Run{ID: sr.ID, SessionID: sr.SessionID(), Dir: sr.Dir, Home: home(sr.Dir), StartedAt: sr.StartedAt(), run: sr}
	state := sr.State()
	sum := sr.Summary
	if state != statedir.StateFinished { // its figures so far, recomputed from the records, once for records as they are
		info, err := os.Stat(filepath.Join(sr.Dir, statedir.EventsFile))
		if prev, ok := before[sr.Dir]; ok && err == nil && prev.size == info.Size() && prev.modTime.Equal(info.ModTime()) {
			x.recomputed[sr.Dir] = prev
			sum = &prev.sum
		} else {
			rd := uahstream.ReadEvents(sr.Events())
			for l := range rd.Lines() {
				if l.Ended != nil {
					s := l.Ended.Recomputed.Summary
					if d := sr.Summary; d != nil { // the identity the running summary says
						s.RunID, s.SessionID, s.Provider, s.Model = d.RunID, d.SessionID, cmp.Or(d.Provider, s.Provider), cmp.Or(d.Model, s.Model)
						s.Effort, s.Workspace, s.StartedAt = cmp.Or(d.Effort, s.Effort), cmp.Or(d.Workspace, s.Workspace), d.StartedAt
					}
					s.WallMS = s.Stats.EventSpanMS
					sum = &s
				}
			}
			if sum != nil && err == nil {
				x.recomputed[sr.Dir] = recomputed{info.Size(), info.ModTime(), *sum}
			}
		}
	}
	r.Status = statedir.StatusOf(state, sr.Summary)
	if sum != nil {
		r.WallMS = sum.WallMS
		r.Provider, r.Model, r.Effort, r.Workspace = sum.Provider, sum.Model, sum.Effort, sum.Workspace
		r.Turns, r.ToolCalls, r.Tokens = sum.Stats.Turns, sum.Stats.ToolCalls, sum.Stats.Tokens
	}
	if q := sr.Request; q != nil {
		r.Model, r.Effort, r.Title = cmp.Or(r.Model, q.Model), cmp.Or(r.Effort, q.ThinkingLevel), q.Title
	}
	r.Cost = x.prices.Cost(r.Provider, r.Model, r.Tokens)
	return r
}

// home is the state directory of a run directory (STATE/runs/ID).
func home(dir string) string { return filepath.Dir(filepath.Dir(dir)) }

// oneLine is s on one line: every run of white space one space, the ends
// trimmed.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func addTokens(t *stream.TokensDTO, u stream.TokensDTO) {
	t.Input += u.Input
	t.CachedInput += u.CachedInput
	t.CacheWriteInput += u.CacheWriteInput
	t.Output += u.Output
	t.Reasoning += u.Reasoning
}

// Problems returns what could not be read of the history, each a
// *statedir.Problem.
func (x *Index) Problems() []error { return slices.Clone(x.problems) }

// Prices returns the table the index priced its runs by.
func (x *Index) Prices() Prices { return x.prices }

// Runs returns every run, by start, the oldest first.
func (x *Index) Runs() []*Run { return slices.Clone(x.runs) }

// Sessions returns every session, the latest activity first (subagents
// and reviewers too: see Session.Parent and Session.Children).
func (x *Index) Sessions() []*Session { return slices.Clone(x.sessions) }

// Run returns the run of an id.
func (x *Index) Run(id string) *Run { return x.byRun[id] }

// Session returns the session of an id.
func (x *Index) Session(id string) *Session { return x.bySess[id] }

// ShortID is id cut to its shortest unique prefix among the index's run
// and session ids, of at least 8 characters, as git shortens a hash: a
// prefix that Resolve finds. An id the index does not have is itself.
func (x *Index) ShortID(id string) string {
	if n, ok := x.short[id]; ok && n < len(id) {
		return id[:n]
	}
	return id
}

func (x *Index) ids() []string {
	ids := make([]string, 0, len(x.runs)+len(x.sessions))
	for _, r := range x.runs {
		ids = append(ids, r.ID)
	}
	for _, s := range x.sessions {
		ids = append(ids, s.ID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// shortest is the length of each sorted, distinct id's shortest prefix
// that no other id has, at least 8 (and at most its length).
func shortest(ids []string) map[string]int {
	out := make(map[string]int, len(ids))
	common := func(a, b string) int {
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		return n
	}
	for i, id := range ids {
		n := 0
		if i > 0 {
			n = common(ids[i-1], id)
		}
		if i+1 < len(ids) {
			n = max(n, common(id, ids[i+1]))
		}
		out[id] = min(max(n+1, 8), len(id))
	}
	return out
}

// Latest names the newest run of the history in Resolve.
const Latest = "latest"

// ErrNotFound is the cause of what Resolve says of a name the history has
// no run or session of.
var ErrNotFound = errors.New("no run or session of the history has this id or prefix")

// AmbiguousError is a prefix of more than one id: Resolve's error, with
// the candidates (their full ids, runs and sessions, sorted).
type AmbiguousError struct {
	Prefix     string
	Candidates []string
}

// Error names the prefix and how many ids it begins.
func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("stream: %q is the prefix of %d runs and sessions of the history", e.Prefix, len(e.Candidates))
}

// Found is what Resolve found: a run, or a session (the other nil).
type Found struct {
	Run     *Run
	Session *Session
}

// Resolve finds what name names: "latest" (the run that started last), a
// run id, a session id, or a prefix of exactly one of them. A prefix of
// more than one is an *AmbiguousError; a name of none wraps ErrNotFound.
func (x *Index) Resolve(name string) (Found, error) {
	if name == Latest {
		if len(x.runs) == 0 {
			return Found{}, fmt.Errorf("stream: latest: %w", ErrNotFound)
		}
		return Found{Run: x.runs[len(x.runs)-1]}, nil
	}
	if r := x.byRun[name]; r != nil {
		return Found{Run: r}, nil
	}
	if s := x.bySess[name]; s != nil {
		return Found{Session: s}, nil
	}
	var cands []string
	if name != "" {
		for _, id := range x.ids() {
			if strings.HasPrefix(id, name) {
				cands = append(cands, id)
			}
		}
	}
	switch len(cands) {
	case 0:
		return Found{}, fmt.Errorf("stream: %q: %w", name, ErrNotFound)
	case 1:
		return Found{Run: x.byRun[cands[0]], Session: x.bySess[cands[0]]}, nil
	}
	return Found{}, &AmbiguousError{Prefix: name, Candidates: cands}
}
