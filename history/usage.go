package history

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uagentkit/stream"
)

// The groupings of Usage.
const (
	ByDay       = "day"
	ByWeek      = "week"
	ByMonth     = "month"
	BySession   = "session"
	ByModel     = "model"
	ByWorkspace = "workspace"
)

// Groupings returns the groupings Usage knows, in the order of the help
// (a new slice each call).
func Groupings() []string { return []string{ByDay, ByWeek, ByMonth, BySession, ByModel, ByWorkspace} }

// UsageRow is what the runs of one group spent: how many sessions and
// runs (and, of a session's row, how many subagent and reviewer sessions
// its runs include), their tokens (input includes cached and cache-write
// input, output includes reasoning) and the estimate of their cost. With
// a breakdown, Models has a row per provider/model of the group.
type UsageRow struct {
	// Period is the group: a day (2006-01-02), an ISO week (2006-W01), a
	// month (2006-01) in the location asked for; a session id (the root
	// session, whose subagents' runs count in it); provider/model; a
	// workspace.
	Period    string
	Sessions  int
	Runs      int
	Subagents int
	Tokens    stream.TokensDTO
	Cost      Estimate
	Models    []UsageRow

	sessions map[string]bool
	subs     map[string]bool
	// first and last are the group's first and last run's start, for
	// the order of sessions' rows.
	first, last time.Time
}

// UncachedInput is the input that was neither read from nor written to
// the cache.
func (u UsageRow) UncachedInput() int64 {
	return satSub(satSub(u.Tokens.Input, u.Tokens.CachedInput), u.Tokens.CacheWriteInput)
}

// Total is the row's tokens: input and output (reasoning is in output).
func (u UsageRow) Total() int64 { return satAdd(u.Tokens.Input, u.Tokens.Output) }

func (u *UsageRow) add(r *Run, session, root string) {
	if u.sessions == nil {
		u.sessions, u.subs = map[string]bool{}, map[string]bool{}
	}
	u.Runs++
	if session != "" {
		u.sessions[session] = true
		if root != "" && session != root {
			u.subs[session] = true
		}
	}
	addTokens(&u.Tokens, r.Tokens)
	u.Cost.Add(r)
	if u.first.IsZero() || r.StartedAt.Before(u.first) {
		u.first = r.StartedAt
	}
	if r.StartedAt.After(u.last) {
		u.last = r.StartedAt
	}
}

// done counts the row's sessions.
func (u *UsageRow) done(by string) {
	u.Sessions, u.Subagents = len(u.sessions), len(u.subs)
	if by == BySession {
		u.Sessions = 1 // the root's row; its subagents are Subagents
	}
	for i := range u.Models {
		u.Models[i].done("")
	}
}

// Root is the session at the top of s's parents (s itself without one).
func (x *Index) Root(s *Session) *Session {
	seen := map[*Session]bool{}
	for s != nil && !seen[s] {
		seen[s] = true
		p := x.bySess[s.Parent]
		if p == nil {
			return s
		}
		s = p
	}
	return s
}

// Usage adds up the runs that pass f, grouped by (one of Groupings; times in
// loc), and all of them in the total: each run counted once, in one row
// and in the total. With breakdown each row has a row per provider/model
// (by model, none: each row is one already). The rows are in the order of their groups' times (day, week, month),
// of their last run (session), or of their tokens, the most first, then
// their names (model, workspace).
func (x *Index) Usage(f Filter, by string, loc *time.Location, breakdown bool) (rows []UsageRow, total UsageRow, err error) {
	if !slices.Contains(Groupings(), by) {
		return nil, UsageRow{}, fmt.Errorf("stream: usage by %q: want one of %s", by, strings.Join(Groupings(), ", "))
	}
	if loc == nil {
		loc = time.Local
	}
	groups := map[string]*UsageRow{}
	var order []*UsageRow
	total.Period = "total"
	for _, r := range x.runs {
		if !f.run(x, r) {
			continue
		}
		root := ""
		if s := x.bySess[r.SessionID]; s != nil {
			root = x.Root(s).ID
		}
		key := x.group(r, by, root, loc)
		g := groups[key]
		if g == nil {
			g = &UsageRow{Period: key}
			groups[key] = g
			order = append(order, g)
		}
		sub := "" // only a session's row counts subagents
		if by == BySession {
			sub = root
		}
		g.add(r, r.SessionID, sub)
		total.add(r, r.SessionID, "")
		if breakdown && by != ByModel {
			model := r.ModelName()
			i := slices.IndexFunc(g.Models, func(m UsageRow) bool { return m.Period == model })
			if i < 0 {
				i = len(g.Models)
				g.Models = append(g.Models, UsageRow{Period: model})
			}
			g.Models[i].add(r, r.SessionID, "")
		}
	}
	for _, g := range order {
		g.done(by)
		slices.SortStableFunc(g.Models, byTokens)
		rows = append(rows, *g)
	}
	total.done("")
	if by == BySession { // the total of the rows: its root sessions, and their subagents
		total.Sessions, total.Subagents = len(rows), 0
		for _, g := range rows {
			total.Subagents += g.Subagents
		}
	}
	switch by {
	case ByDay, ByWeek, ByMonth:
		slices.SortStableFunc(rows, func(a, b UsageRow) int { return strings.Compare(a.Period, b.Period) })
	case BySession:
		slices.SortStableFunc(rows, func(a, b UsageRow) int { return cmp.Or(a.last.Compare(b.last), strings.Compare(a.Period, b.Period)) })
	default:
		slices.SortStableFunc(rows, byTokens)
	}
	return rows, total, nil
}

func byTokens(a, b UsageRow) int {
	return cmp.Or(cmp.Compare(b.Total(), a.Total()), strings.Compare(a.Period, b.Period))
}

// group is the name of the group a run is in.
func (x *Index) group(r *Run, by, root string, loc *time.Location) string {
	switch by {
	case ByDay, ByWeek, ByMonth:
		return period(r.StartedAt.In(loc), by)
	case BySession:
		return root
	case ByModel:
		return r.ModelName()
	}
	return r.Workspace
}

// period is the name of the day, ISO week or month t is in.
func period(t time.Time, by string) string {
	switch by {
	case ByWeek:
		y, w := t.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	case ByMonth:
		return t.Format("2006-01")
	}
	return t.Format(time.DateOnly)
}

// maxPeriods bounds what Periods lists.
const maxPeriods = 10000

// Periods lists the days, ISO weeks or months (by) from the period first
// to the period last, both included, named as Usage names its rows: the
// axis of a chart, with the periods no run is in. Other groupings have no
// periods between (nil); so have names that are none of the grouping's,
// and a span of more than 10,000 periods.
func Periods(by, first, last string) []string {
	var t time.Time
	var err error
	switch by {
	case ByDay:
		t, err = time.Parse(time.DateOnly, first)
	case ByMonth:
		t, err = time.Parse("2006-01", first)
	case ByWeek:
		var y, w int
		if _, err = fmt.Sscanf(first, "%04d-W%02d", &y, &w); err == nil {
			jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC) // in ISO week 1
			t = jan4.AddDate(0, 0, 7*(w-1)-(int(jan4.Weekday())+6)%7)
		}
	default:
		return nil
	}
	if err != nil || period(t, by) != first {
		return nil
	}
	var out []string
	for range maxPeriods {
		p := period(t, by)
		out = append(out, p)
		if p == last {
			return out
		}
		switch by {
		case ByDay:
			t = t.AddDate(0, 0, 1)
		case ByWeek:
			t = t.AddDate(0, 0, 7)
		default:
			t = t.AddDate(0, 1, 0)
		}
	}
	return nil
}
