package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/internal/safetext"
	"github.com/uagentkit/stream/termstream"
)

// cmdLs lists the history: its sessions (or runs), the latest first,
// with what they cost; filtered; searched.
func cmdLs(e env, args []string) error {
	fs := flags(e, "ls")
	var h historyFlags
	h.register(fs)
	runs := fs.Bool("runs", false, "a line per run instead of per session")
	fs.StringVar(&h.status, "status", "", "only sessions whose last run (runs that) says `S`: "+strings.Join(history.Statuses(), ", "))
	fs.StringVar(&h.source, "source", "", "only sessions uah began as `S`: "+strings.Join(history.Sources(), ", "))
	search := fs.String("search", "", "only what holds `TEXT` in a prompt, message, answer, tool label or tool argument (case-insensitive), each hit shown")
	limit := fs.Int("limit", 0, "show at most `N`; 0 is all (default: a terminal page on a terminal, else all)")
	asJSON := fs.Bool("json", false, "print a JSON array (its schema: uagent-stream schema ls, ls-runs)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fs.usageError("takes no FILE: it lists the history (--state-dir)")
	}
	loc, f, err := h.parsed(fs)
	if err != nil {
		return err
	}
	x, err := h.open(e)
	if err != nil {
		return err
	}
	l := lister{e: e, x: x, loc: loc, json: *asJSON, limit: *limit}
	if !fs.given("limit") && !l.json {
		if _, rows, ok := l.size(); ok && rows > 0 {
			l.limit = max(rows-3, 1)
		}
	}
	if *runs {
		return l.runs(f, *search)
	}
	return l.sessions(f, *search)
}

type lister struct {
	e     env
	x     *history.Index
	loc   *time.Location
	json  bool
	limit int
	more  int // what the limit left out
}

// size is the terminal's, from $COLUMNS and $LINES when they say.
func (l *lister) size() (cols, rows int, ok bool) {
	cols, rows, ok = termstream.Size(l.e.stdout)
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		cols, ok = n, true
	}
	if n, err := strconv.Atoi(os.Getenv("LINES")); err == nil && n > 0 {
		rows = n
	}
	return cols, rows, ok
}

// said says on stderr what a search could not read.
func (l *lister) said(errs []error) {
	for _, err := range errs {
		fmt.Fprintf(l.e.stderr, "uagent-stream: %s\n", sanitize(err.Error(), false))
	}
}

func (l *lister) sessions(f history.Filter, search string) error {
	res, errs := l.x.Find(context.Background(), f, search)
	l.said(errs)
	listed, found := res.Sessions, res.Matches
	if l.limit > 0 && len(listed) > l.limit {
		l.more, listed = len(listed)-l.limit, listed[:l.limit]
	}
	var est history.Estimate
	for _, s := range listed {
		est.Merge(s.Cost)
	}
	unpriced(l.e, est)
	if l.json {
		return safetext.WriteArray(l.e.stdout, listed, func(s history.Listed) any {
			j := s.JSON()
			for _, r := range s.Runs {
				if m, ok := found[r.ID]; ok {
					j.Matches = append(j.Matches, m.JSON())
				}
			}
			return j
		})
	}
	t := termstream.Table{Header: []string{"LAST ACTIVITY", "SESSION", "RUNS", "STATUS", "MODEL", "TOKENS IN/OUT", "COST", "WORKSPACE", "TITLE"}}
	t.Squeeze, t.Drop = t.Columns("TITLE", "WORKSPACE", "MODEL"), t.Columns("WORKSPACE", "RUNS", "MODEL", "STATUS", "LAST ACTIVITY", "TOKENS IN/OUT")
	for _, s := range listed {
		id := l.x.ShortID(s.ID)
		if s.Depth > 0 {
			id = strings.Repeat("  ", s.Depth-1) + "↳ " + id
			if s.Source == "review" {
				id += " (review)"
			}
		}
		t.Add(l.stamp(s.LastActivity), sanitize(id, false), strconv.Itoa(len(s.Runs)), sanitize(s.Status, false), sanitize(s.Model, false),
			termstream.Compact(s.Tokens.Input)+"/"+termstream.Compact(s.Tokens.Output), money(s.Cost), sanitize(termstream.Tilde(s.Workspace), false), sanitize(s.Title, false))
		for _, r := range s.Runs {
			if m, ok := found[r.ID]; ok {
				t.Note(l.match(m))
			}
		}
	}
	return l.writeTable(t, est, len(listed))
}

func (l *lister) runs(f history.Filter, search string) error {
	res, errs := l.x.FindRuns(context.Background(), f, search)
	l.said(errs)
	runs, found := res.Runs, res.Matches
	if l.limit > 0 && len(runs) > l.limit {
		l.more, runs = len(runs)-l.limit, runs[:l.limit]
	}
	var est history.Estimate
	for _, r := range runs {
		est.Add(r)
	}
	unpriced(l.e, est)
	if l.json {
		return safetext.WriteArray(l.e.stdout, runs, func(r *history.Run) any {
			j := r.JSON()
			if m, ok := found[r.ID]; ok {
				j.Matches = []history.MatchJSON{m.JSON()}
			}
			return j
		})
	}
	t := termstream.Table{Header: []string{"STARTED", "RUN", "SESSION", "#", "WALL", "STATUS", "MODEL", "TURNS", "TOOLS", "TOKENS IN/OUT", "COST", "TITLE"}}
	t.Squeeze, t.Drop = t.Columns("TITLE", "MODEL"), t.Columns("SESSION", "TURNS", "TOOLS", "#", "WALL", "MODEL", "STATUS", "STARTED", "TOKENS IN/OUT")
	for _, r := range runs {
		var one history.Estimate
		one.Add(r)
		t.Add(l.stamp(r.StartedAt), sanitize(l.x.ShortID(r.ID), false), sanitize(l.x.ShortID(r.SessionID), false), strconv.Itoa(r.Seq),
			termstream.Wall(r.WallMS), sanitize(r.Status, false), sanitize(r.Model, false), strconv.Itoa(r.Turns), strconv.Itoa(r.ToolCalls),
			termstream.Compact(r.Tokens.Input)+"/"+termstream.Compact(r.Tokens.Output), money(one), sanitize(r.Title, false))
		if m, ok := found[r.ID]; ok {
			t.Note(l.match(m))
		}
	}
	return l.writeTable(t, est, len(runs))
}

// match is a search's hit, as a line under its session or run.
func (l *lister) match(m history.Match) string {
	return "⌕ " + sanitize(l.x.ShortID(m.Run.ID), false) + " " + l.stamp(m.At) + "  " + sanitize(m.Snippet, false)
}

func (l *lister) stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(l.loc).Format("2006-01-02 15:04")
}

func (l *lister) writeJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = (jsonOut{W: l.e.stdout}).Write(append(b, '\n'))
	return err
}

// writeTable writes the table, its last column cut to the terminal's
// width, and what its costs are.
func (l *lister) writeTable(t termstream.Table, est history.Estimate, n int) error {
	cols, _, _ := l.size()
	if n == 0 {
		fmt.Fprintln(l.e.stdout, "nothing in the history matches")
		return nil
	}
	t.Write(l.e.stdout, cols)
	if l.more > 0 {
		fmt.Fprintln(l.e.stdout, termstream.Wrap(fmt.Sprintf("… and %d more (--limit 0 shows all)", l.more), cols))
	}
	fmt.Fprintln(l.e.stdout, termstream.Wrap("("+estimateNote(est)+")", cols))
	return nil
}
