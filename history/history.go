// Package history is a person's history of uagent runs as people look at
// it: the sessions and runs of the state directories uagent and uah keep
// (see statedir.Homes), listed newest first, filtered, found by any id or
// a unique prefix of one, searched for text, and added up by day, week,
// month, session, model or workspace with an API-price estimate of what
// the tokens would cost.
//
// It is the layer above statedir, which reads files: the history makes of
// them sessions (the runs that share a session_id, uah's sidecars, the
// parents of subagents and reviewers), titles by one rule, and one index,
// kept current by [Index.Reopen] (or [Live]) from what changed. Every
// view and protocol (the command, the page, the editor's agent, the A2A
// agent) takes its sessions from here.
//
// An [Index] is read once (Open): each run's request.json (its head: see
// statedir.RequestHead) and summary.json, on all cores, never its events
// (a run that has not finished is the exception: its figures so far are
// recomputed from its events). Its figures are the summaries' own, the
// runner's numbers; its statuses the run directories' one state
// (statedir.Run.Status). [Locate] finds one run by name from the
// directories' names, without the index. [Index.Search] reads the runs'
// records, only of the runs whose bytes can hold the text.
//
// Every string of an Index comes from the history and is untrusted: a
// view sanitizes what it shows (the command's sanitize, the page's
// escaping).
package history

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/pool"
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
	// Answered reports a summary with an answer.
	Answered bool

	state statedir.State // as it was when the run was read
}

// Attempts reads how its model attempts ended, as its stderr.log says
// (statedir.ReadAttempts): read when asked, not kept.
func (r *Run) Attempts() (statedir.Attempts, error) { return statedir.ReadAttempts(r.Dir) }

// Attempts adds up how its runs' model attempts ended, as their
// stderr.log says (a run whose file cannot be read adds nothing).
func (s *Session) Attempts() statedir.Attempts {
	var out statedir.Attempts
	for _, r := range s.Runs {
		if a, err := r.Attempts(); err == nil {
			out = out.Add(a)
		}
	}
	return out
}

// final reports a run that had finished when it was read.
func (r *Run) final() bool { return r.state == statedir.StateFinished }

// Session is a conversation of the history: the runs that share a
// session_id, in the order they started, and what uah's sidecar says of
// it.
type Session struct {
	ID string
	// Title is the session's title by the history's one rule: its uah
	// sidecar's first prompt (statedir.Sidecar.Title), else the title of
	// its first run that has one (statedir.RequestHead.Title: the first
	// prompt from the user, never a developer's message).
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
	// Compaction is what uah's compactions of the session spent (its
	// compaction log's stats.call, uahstream.CallUsage): model calls of
	// their own, in no run's summary, so apart from Tokens and Cost;
	// CompactionCost their estimate (each call one request, priced as the
	// session's provider and the record's model, else the session's, on
	// the day of the record).
	Compaction     uahstream.Compaction
	CompactionCost Estimate
	compactions    []statedir.Compaction // its log, by time
	// Subagents is what the session's subagent and reviewer sessions
	// spent, counted as usage --by session counts them: in the session at
	// the top of their parents (Root). Of a session at the top, every
	// descendant's runs; of a subagent, nothing. Apart from Tokens and
	// Cost, which are its own runs'.
	Subagents Spent
}

// Spent is what some sessions' runs spent: how many sessions and runs,
// their tokens and their estimate.
type Spent struct {
	Sessions, Runs int
	Tokens         stream.TokensDTO
	Cost           Estimate
}

// Index is the sessions and runs of a history. It is read once, by Open
// (or Reopen), and safe for concurrent use; its Sessions and Runs are not
// changed after it is made.
type Index struct {
	sessions []*Session // every session, the latest activity first
	runs     []*Run     // every run, by start
	byRun    map[string]*Run
	bySess   map[string]*Session
	short    map[string]int // the shortest unique prefix of each id
	prices   Prices
	problems []error
	dirs     []string
	// ended are the run directories read that had finished, every copy
	// (statedir.Reread does not open them again).
	ended map[string]bool
	// recomputed are the summaries of the runs that have not finished,
	// recomputed from their records, by directory, with the records' size
	// and time: Reopen recomputes only those whose records changed.
	recomputed map[string]recomputed
	// stamps are the times of the homes' runs/ and sessions/ directories
	// when the index began reading them (see Reopen).
	stamps []stamp
	// sidecars are uah's sidecars as read (Reopen reads again only those
	// that changed).
	sidecars map[string]*statedir.Sidecar
	// perRequest are, while the index is built, the estimates of the
	// finished runs priced from their requests (perRequestOf), by
	// directory.
	perRequest map[string]perRequestCost
}

// recomputed is a summary a run's records gave, and what they were then.
type recomputed struct {
	size    int64
	modTime time.Time
	sum     stream.SummaryDTO
}

// stamp is a directory's modification time, zero when it is missing.
type stamp struct {
	dir string
	mod time.Time
}

// ErrParent is the cause of a *statedir.Problem of a sidecar that names a
// parent with no runs in the history, or that is its own descendant: the
// session is listed at the top, not under it.
var ErrParent = errors.New("uah's session sidecar names a parent")

// Open reads the history of the state directories dirs (see
// statedir.OpenHistory: each run once, uah's sidecars) and prices its
// tokens by prices. What could not be read is in Problems; the rest is
// read.
func Open(prices Prices, dirs ...string) *Index {
	stamps := stampsOf(dirs)
	return build(prices, statedir.OpenHistory(dirs...), nil, stamps)
}

// Reopen reads the history again, as Open does, from what changed: when
// no home's runs/ or sessions/ directory changed since x was read (a run
// directory is made in runs/, a sidecar written into sessions/ by a
// rename) and no run is running, x itself, read from nothing but the
// directories' times; else the listing, the sidecars and the runs that
// had not finished read again, the runs that had finished taken from x
// (statedir.Reread). What a history that a person works in costs to
// follow is its listing and the runs that are new or going on; an idle
// one costs a stat of each home's two directories.
func (x *Index) Reopen() *Index {
	if x.unchanged() {
		return x
	}
	stamps := stampsOf(x.dirs)
	return build(x.prices, statedir.Reread(x.dirs, x.sidecars, func(dir string) bool { return x.ended[dir] }), x, stamps)
}

// stampsOf is the times of the homes' runs/ and sessions/ directories.
func stampsOf(dirs []string) []stamp {
	var out []stamp
	for _, d := range dirs {
		for _, sub := range []string{d, filepath.Join(d, "runs"), filepath.Join(d, statedir.SessionsDir)} {
			st := stamp{dir: sub}
			if info, err := os.Stat(sub); err == nil {
				st.mod = info.ModTime()
			}
			out = append(out, st)
		}
	}
	return out
}

// settle is how long after a directory changed its time is not trusted
// to show the next change (file systems keep times to a second or two).
const settle = 2 * time.Second

// unchanged reports that nothing x shows can have changed since it was
// read: no run is running (a running run's records grow, and it ends by
// a file written in its own directory or by its lock let go of), and no
// directory stamp moved (or moved too recently to be trusted).
func (x *Index) unchanged() bool {
	for _, r := range x.runs {
		if !r.final() && r.Status == string(stream.StatusRunning) {
			return false
		}
	}
	now := stampsOf(x.dirs)
	for i, st := range now {
		if !st.mod.Equal(x.stamps[i].mod) || time.Since(st.mod) < settle {
			return false
		}
	}
	return true
}

func build(prices Prices, h *statedir.History, prev *Index, stamps []stamp) *Index {
	x := &Index{byRun: map[string]*Run{}, bySess: map[string]*Session{}, prices: prices, problems: h.Problems(), dirs: h.Dirs(),
		ended: map[string]bool{}, recomputed: map[string]recomputed{}, stamps: stamps, sidecars: h.Sidecars()}
	var before map[string]recomputed
	if prev != nil {
		before = prev.recomputed
		known := h.Known()
		for _, id := range known { // finished, read before: as it was (a copy: Seq is the new index's)
			if r := prev.byRun[id]; r != nil {
				c := *r
				x.runs = append(x.runs, &c)
			}
		}
		for dir := range prev.ended { // the copies of the runs still listed
			if _, ok := slices.BinarySearch(known, filepath.Base(dir)); ok {
				x.ended[dir] = true
			}
		}
	}
	x.perRequest = x.perRequestOf(h.Runs())
	for _, sr := range h.Runs() {
		x.runs = append(x.runs, x.run(sr, before))
	}
	x.perRequest = nil
	for _, r := range x.runs {
		x.byRun[r.ID] = r
		if r.final() {
			x.ended[r.Dir] = true
		}
	}
	for _, sr := range h.Runs() { // every copy of a finished run is ended, the one not read too
		if sr.Finished() {
			for _, d := range x.dirs {
				if c := filepath.Join(d, "runs", sr.ID); c != sr.Dir {
					if _, err := os.Stat(c); err == nil {
						x.ended[c] = true
					}
				}
			}
		}
	}
	slices.SortStableFunc(x.runs, func(a, b *Run) int { return cmp.Or(a.StartedAt.Compare(b.StartedAt), strings.Compare(a.ID, b.ID)) })
	x.sessionsOf(h.Sidecars())
	x.spentApart(h.Compactions)
	x.short = shortest(x.ids())
	return x
}

// sessionsOf groups the runs into sessions (the runs that share a
// session_id, in the order they started), each with its sidecar, the
// latest activity first, and puts each subagent and reviewer under its
// parent (a parent with no runs in the history, or a cycle, is a
// problem, ErrParent, and the session stays at the top).
func (x *Index) sessionsOf(sidecars map[string]*statedir.Sidecar) {
	for _, r := range x.runs { // by start
		if r.SessionID == "" {
			continue
		}
		s := x.bySess[r.SessionID]
		if s == nil {
			s = &Session{ID: r.SessionID}
			x.bySess[s.ID] = s
			x.sessions = append(x.sessions, s)
		}
		r.Seq = len(s.Runs) + 1
		s.Runs = append(s.Runs, r)
		addTokens(&s.Tokens, r.Tokens)
		s.ToolCalls += r.ToolCalls
		s.WallMS = satAdd(s.WallMS, r.WallMS)
		s.Cost.Add(r)
	}
	for _, s := range x.sessions {
		first, last := s.Runs[0], s.Runs[len(s.Runs)-1]
		s.StartedAt, s.Home, s.LastActivity = first.StartedAt, last.Home, last.StartedAt
		if last.final() {
			s.LastActivity = last.StartedAt.Add(time.Duration(last.WallMS) * time.Millisecond)
		}
		s.Status, s.Provider, s.Model, s.Effort = last.Status, last.Provider, last.Model, last.Effort
		for _, r := range s.Runs {
			s.Workspace = cmp.Or(s.Workspace, r.Workspace)
		}
		sc := sidecars[s.ID]
		if sc == nil {
			s.Title = title(s, "")
			continue
		}
		s.Title, s.Source, s.Workspace = title(s, sc.Title()), sc.Source, cmp.Or(s.Workspace, sc.Workspace)
		if sc.Review {
			s.Source = "review"
			for _, r := range s.Runs { // a review that answered, then stopped as /review stops it
				if r.Status == string(stream.StatusInterrupted) && r.Answered {
					r.Status = ReviewedStatus
				}
			}
			s.Status = s.Runs[len(s.Runs)-1].Status
		}
	}
	slices.SortStableFunc(x.sessions, func(a, b *Session) int {
		return cmp.Or(b.LastActivity.Compare(a.LastActivity), strings.Compare(a.ID, b.ID))
	})
	parents, problems := parentsOf(sidecars, func(id string) bool { return x.bySess[id] != nil })
	x.problems = append(x.problems, problems...)
	for _, s := range x.sessions {
		s.Parent = parents[s.ID]
	}
	for _, s := range x.sessions { // in the order of their activity
		if p := x.bySess[s.Parent]; p != nil {
			p.Children = append(p.Children, s)
		}
	}
}

// spentApart adds up, for each session, what was spent outside its runs:
// its compactions' calls, and its subagents' runs (in the session at the
// top of their parents).
func (x *Index) spentApart(compactions func(id string) []statedir.Compaction) {
	for _, s := range x.sessions {
		s.compactions = slices.SortedStableFunc(slices.Values(compactions(s.ID)), func(a, b statedir.Compaction) int { return a.At.Compare(b.At) })
		for _, c := range s.compactions {
			s.Compaction.Add(c.Stats)
			if t, ok := uahstream.CallUsage(c.Stats); ok {
				model := cmp.Or(c.Model, s.Model)
				s.CompactionCost.Add(&Run{Provider: s.Provider, Model: model, Tokens: t,
					Cost: x.prices.CostRequests(s.Provider, model, c.At, []stream.TokensDTO{t})})
			}
		}
		if root := x.Root(s); root != s {
			root.Subagents.Sessions++
			for _, r := range s.Runs {
				root.Subagents.Runs++
				addTokens(&root.Subagents.Tokens, r.Tokens)
				root.Subagents.Cost.Add(r)
			}
		}
	}
}

// title is a session's title, by the history's one rule: its sidecar's
// first prompt (sidecar), else the title of its first run that has one
// (statedir.RequestHead.Title: the first prompt from the user, never a
// developer's message).
func title(s *Session, sidecar string) string {
	if sidecar != "" {
		return sidecar
	}
	for _, r := range s.Runs {
		if r.Title != "" {
			return r.Title
		}
	}
	return ""
}

// Parents returns the parent of each session of h whose sidecar names
// one, by the history's rule (the parent has runs in h; the session is
// not its own ancestor), and a problem (ErrParent) for each sidecar whose
// parent is not taken.
func Parents(h *statedir.History) (map[string]string, []error) {
	has := map[string]bool{}
	for _, r := range h.Runs() {
		has[r.SessionID()] = true
	}
	for _, id := range h.Known() {
		has[id] = true
	}
	return parentsOf(h.Sidecars(), func(id string) bool { return has[id] })
}

func parentsOf(sidecars map[string]*statedir.Sidecar, ran func(id string) bool) (map[string]string, []error) {
	out := map[string]string{}
	var problems []error
	for _, id := range slices.Sorted(maps.Keys(sidecars)) {
		sc := sidecars[id]
		p := sc.Parent
		switch {
		case p == "" || !ran(id):
		case !ran(p):
			problems = append(problems, &statedir.Problem{File: sc.Path, Err: fmt.Errorf("%w, %s, with no run in the history (listed at the top)", ErrParent, p)})
		case cycle(id, func(id string) string {
			if sc := sidecars[id]; sc != nil {
				return sc.Parent
			}
			return ""
		}):
			problems = append(problems, &statedir.Problem{File: sc.Path, Err: fmt.Errorf("%w, %s, that is its own descendant (listed at the top)", ErrParent, p)})
		default:
			out[id] = p
		}
	}
	return out, problems
}

// cycle reports whether following parent from id comes back to id.
func cycle(id string, parent func(string) string) bool {
	seen := map[string]bool{}
	for p := parent(id); p != ""; p = parent(p) {
		if p == id {
			return true
		}
		if seen[p] {
			return false // a cycle above id, not through it
		}
		seen[p] = true
	}
	return false
}

// run is what the index keeps of a run directory: its summary's figures,
// or, without a summary, those its events recompute.
func (x *Index) run(sr *statedir.Run, before map[string]recomputed) *Run {
	state := sr.State()
	r := &Run{ID: sr.ID, SessionID: sr.SessionID(), Dir: sr.Dir, Home: home(sr.Dir), StartedAt: sr.StartedAt(), state: state}
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
		r.Answered = sum.Answer != ""
	}
	if q := sr.Request; q != nil {
		r.Model, r.Effort, r.Title = cmp.Or(r.Model, q.Model), cmp.Or(r.Effort, q.ThinkingLevel), q.Title
	}
	r.Cost = x.price(sr, r)
	return r
}

// price is a run's estimate: from its requests (each model_response's
// usage in its records) when its row has a long-context rule its input
// could have met, so the rule is applied request by request; else from
// its totals, which then give the same figure. (A run that has finished
// is priced once: Reopen takes it from the index before.)
func (x *Index) price(sr *statedir.Run, r *Run) Cost {
	c := x.prices.Cost(r.Provider, r.Model, r.StartedAt, r.Tokens)
	if !c.Unapplied {
		return c
	}
	if pc, ok := x.perRequest[sr.Dir]; ok && pc.model == [2]string{r.Provider, r.Model} {
		return pc.cost
	}
	return x.priceRequests(sr, r.Provider, r.Model, r.StartedAt, c)
}

// priceRequests prices a run's requests as its records give them; a run
// with no request in them keeps c, its totals' figure, said to be one.
func (x *Index) priceRequests(sr *statedir.Run, provider, model string, start time.Time, c Cost) Cost {
	m, n := x.prices.meter(provider, model, start), 0
	for u := range sr.Requests() {
		m.add(u.DTO())
		n++
	}
	if n == 0 {
		return c
	}
	return m.c
}

// perRequestCost is a run's estimate from its requests, and the provider
// and model it was priced as.
type perRequestCost struct {
	model [2]string
	cost  Cost
}

// perRequestOf prices, on all cores, the finished runs whose price needs
// their requests (see price): what a history of long runs costs to list
// is its runs' records, read side by side.
func (x *Index) perRequestOf(runs []*statedir.Run) map[string]perRequestCost {
	var need []*statedir.Run
	for _, sr := range runs {
		if s := sr.Summary; sr.Finished() && x.prices.Cost(s.Provider, s.Model, sr.StartedAt(), s.Stats.Tokens).Unapplied {
			need = append(need, sr)
		}
	}
	out := make(map[string]perRequestCost, len(need))
	pool.InOrder(len(need), pool.Each(func(i int) perRequestCost {
		s := need[i].Summary
		c := x.prices.Cost(s.Provider, s.Model, need[i].StartedAt(), s.Stats.Tokens)
		return perRequestCost{[2]string{s.Provider, s.Model}, x.priceRequests(need[i], s.Provider, s.Model, need[i].StartedAt(), c)}
	}), func(i int, c perRequestCost) { out[need[i].Dir] = c })
	return out
}

// home is the state directory of a run directory (STATE/runs/ID).
func home(dir string) string { return filepath.Dir(filepath.Dir(dir)) }

// oneLine is s on one line: every run of white space one space, the ends
// trimmed.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func addTokens(t *stream.TokensDTO, u stream.TokensDTO) {
	t.Input = satAdd(t.Input, u.Input)
	t.CachedInput = satAdd(t.CachedInput, u.CachedInput)
	t.CacheWriteInput = satAdd(t.CacheWriteInput, u.CacheWriteInput)
	t.Output = satAdd(t.Output, u.Output)
	t.Reasoning = satAdd(t.Reasoning, u.Reasoning)
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
