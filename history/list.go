package history

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uagentkit/stream/statedir"
)

// Filter keeps the sessions and runs a person asks for; its zero value
// keeps everything. A run passes when it started in [Since, Until) (a
// zero bound is none), in Workspace (a path, compared cleaned), with
// Model, ending in Status, in a session of Source (tui, run, subagent,
// review). A session passes when its last activity is at or after Since,
// it started before Until, it ran in Workspace, one of its runs used
// Model, its last run's status is Status and its source is Source.
type Filter struct {
	Since, Until                     time.Time
	Workspace, Model, Status, Source string
}

func (f Filter) run(x *Index, r *Run) bool {
	switch {
	case !f.Since.IsZero() && r.StartedAt.Before(f.Since),
		!f.Until.IsZero() && !r.StartedAt.Before(f.Until),
		f.Workspace != "" && filepath.Clean(r.Workspace) != filepath.Clean(f.Workspace),
		f.Model != "" && r.Model != f.Model,
		f.Status != "" && r.Status != f.Status:
		return false
	}
	if f.Source != "" {
		s := x.bySess[r.SessionID]
		return s != nil && s.Source == f.Source
	}
	return true
}

func (f Filter) session(s *Session) bool {
	switch {
	case !f.Since.IsZero() && s.LastActivity.Before(f.Since),
		!f.Until.IsZero() && !s.StartedAt.Before(f.Until),
		f.Workspace != "" && filepath.Clean(s.Workspace) != filepath.Clean(f.Workspace),
		f.Status != "" && s.Status != f.Status,
		f.Source != "" && s.Source != f.Source:
		return false
	}
	return f.Model == "" || slices.ContainsFunc(s.Runs, func(r *Run) bool { return r.Model == f.Model })
}

// Listed is a session as a list shows it: at Depth 0, or under its parent
// (1 under a session at 0, and so on).
type Listed struct {
	*Session
	Depth int
}

// List returns the sessions that pass f, the latest activity first, each
// subagent and reviewer right under its parent (the latest activity
// first), when its parent is listed too; one whose parent is not listed
// is listed at depth 0.
func (x *Index) List(f Filter) []Listed {
	pass := map[*Session]bool{}
	for _, s := range x.sessions {
		if f.session(s) {
			pass[s] = true
		}
	}
	var out []Listed
	var under func(s *Session, depth int)
	under = func(s *Session, depth int) {
		out = append(out, Listed{s, depth})
		for _, c := range s.Children {
			if pass[c] {
				under(c, depth+1)
			}
		}
	}
	for _, s := range x.sessions {
		if p := x.bySess[s.Parent]; pass[s] && (p == nil || !pass[p]) {
			under(s, 0)
		}
	}
	return out
}

// ListRuns returns the runs that pass f, the latest start first.
func (x *Index) ListRuns(f Filter) []*Run {
	var out []*Run
	for i := len(x.runs) - 1; i >= 0; i-- {
		if f.run(x, x.runs[i]) {
			out = append(out, x.runs[i])
		}
	}
	return out
}

// Sources are what uah begins a session as (Filter.Source): in its
// terminal, by uah run, as a subagent, or as a reviewer of /review.
func Sources() []string { return []string{"tui", "run", "subagent", "review"} }

// Asked is a Filter as a person or a program writes one: Since and Until
// as When reads them, Status and Source by name, Workspace a path as it
// is to be compared (a caller makes a relative one absolute first).
type Asked struct {
	Since, Until, Workspace, Model, Status, Source string
}

// FilterError is a field of an Asked that is not what it should be: its
// name (since, until, status, source) and what it wants.
type FilterError struct {
	Field string
	Err   error
}

// Error says the field and what it wants: "status wants one of …".
func (e *FilterError) Error() string { return e.Field + " " + e.Err.Error() }

// Unwrap returns what the field wants (ErrWhen for a time).
func (e *FilterError) Unwrap() error { return e.Err }

// Filter is the Filter a asks for, its times in loc and its durations
// before now (see When): a status one of statedir.Statuses, a source one
// of Sources. The first field that will not do is a *FilterError. It is
// the one reading of a filter the command's flags, the page's address
// and an agent's call share.
func (a Asked) Filter(loc *time.Location, now time.Time) (Filter, error) {
	f := Filter{Workspace: a.Workspace, Model: a.Model, Status: a.Status, Source: a.Source}
	var err error
	if f.Since, err = When(a.Since, loc, now); err != nil {
		return f, &FilterError{"since", err}
	}
	if f.Until, err = When(a.Until, loc, now); err != nil {
		return f, &FilterError{"until", err}
	}
	if a.Status != "" && !slices.Contains(Statuses(), a.Status) {
		return f, &FilterError{"status", errors.New("wants one of " + strings.Join(Statuses(), ", "))}
	}
	if a.Source != "" && !slices.Contains(Sources(), a.Source) {
		return f, &FilterError{"source", errors.New("wants one of " + strings.Join(Sources(), ", "))}
	}
	return f, nil
}

// ErrWhen is what When says of a text that is no time.
var ErrWhen = errors.New("wants a date (2026-11-01), a time (2026-11-01T15:04) or a duration before now (36h, 7d)")

// When reads a time a person wrote, for Filter's Since and Until: a date
// (midnight in loc), a time in loc (2006-01-02T15:04[:05], or with a
// space), a time with its zone (RFC 3339), or a duration before now
// (36h, 90m, 7d, 2w); "" is the zero time (no bound).
func When(s string, loc *time.Location, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.DateOnly, "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02 15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if n, unit := strings.TrimRight(s, "dw"), strings.TrimLeft(s, "0123456789"); (unit == "d" || unit == "w") && n != "" {
		if k, err := strconv.Atoi(n); err == nil {
			if unit == "w" {
				k *= 7
			}
			return now.AddDate(0, 0, -k), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, ErrWhen
}

// Listing is a listing and its search's matches: the sessions (or runs)
// that hold the text, each run's first match by its id.
type Listing struct {
	Sessions []Listed
	Runs     []*Run
	Matches  map[string]Match
}

// Find lists the sessions that pass f (see List) and, when text is not
// empty, keeps those whose runs hold it (see Search), with the matches;
// what could not be read of a run is in errs, and the rest is searched.
func (x *Index) Find(ctx context.Context, f Filter, text string) (found Listing, errs []error) {
	found.Sessions = x.List(f)
	if text == "" {
		return found, nil
	}
	var runs []*Run
	for _, s := range found.Sessions {
		runs = append(runs, s.Runs...)
	}
	found.Matches, errs = x.matches(ctx, text, runs)
	found.Sessions = slices.DeleteFunc(found.Sessions, func(s Listed) bool {
		return !slices.ContainsFunc(s.Runs, func(r *Run) bool { _, ok := found.Matches[r.ID]; return ok })
	})
	return found, errs
}

// FindRuns lists the runs that pass f (see ListRuns) and, when text is
// not empty, keeps those that hold it, as Find does.
func (x *Index) FindRuns(ctx context.Context, f Filter, text string) (found Listing, errs []error) {
	found.Runs = x.ListRuns(f)
	if text == "" {
		return found, nil
	}
	found.Matches, errs = x.matches(ctx, text, found.Runs)
	found.Runs = slices.DeleteFunc(found.Runs, func(r *Run) bool { _, ok := found.Matches[r.ID]; return !ok })
	return found, errs
}

func (x *Index) matches(ctx context.Context, text string, runs []*Run) (map[string]Match, []error) {
	out := map[string]Match{}
	var errs []error
	for m, err := range x.Search(ctx, text, runs) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[m.Run.ID] = m
	}
	return out, errs
}

// ReviewedStatus is the status of a reviewer's run (a run of a session
// uah's /review began) that answered and was then interrupted: a /review
// ends at the reviewer's first answer and stops what still runs (uah's
// ledger, row 139), so the run is a review that finished, not a failure.
const ReviewedStatus = "reviewed"

// Statuses returns the words a run's Status may be: statedir.Statuses,
// and ReviewedStatus; a new slice each call.
func Statuses() []string { return append(statedir.Statuses(), ReviewedStatus) }
