package main

import (
	"slices"
	"strconv"
	"strings"

	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/internal/safetext"
	"github.com/uagentkit/stream/termstream"
)

// cmdUsage adds up the history's tokens by day, week, month, session,
// model or workspace, with an API-price estimate of what they cost.
func cmdUsage(e env, args []string) error {
	fs := flags(e, "usage")
	var h historyFlags
	h.register(fs)
	by := fs.String("by", history.ByDay, "group by `G`: "+strings.Join(history.Groupings(), ", "))
	breakdown := fs.Bool("breakdown", false, "a row per provider/model under each group")
	asJSON := fs.Bool("json", false, "print JSON: the rows and the total (a row's schema: uagent-stream schema usage)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fs.usageError("takes no FILE: it adds up the history (--state-dir)")
	}
	if !slices.Contains(history.Groupings(), *by) {
		return fs.usageError("--by wants one of " + strings.Join(history.Groupings(), ", "))
	}
	loc, f, err := h.parsed(fs)
	if err != nil {
		return err
	}
	x, err := h.open(e)
	if err != nil {
		return err
	}
	rows, total, err := x.Usage(f, *by, loc, *breakdown)
	if err != nil {
		return err
	}
	unpriced(e, total.Cost)
	l := lister{e: e, x: x, loc: loc}
	if *asJSON {
		return l.writeJSON(history.Report(*by, loc, rows, total))
	}
	head := strings.ToUpper(*by)
	t := termstream.Table{Header: []string{head, "SESSIONS", "RUNS", "INPUT (UNCACHED)", "CACHED", "CACHE WRITES", "OUTPUT (REASONING)", "TOTAL", "COST"}}
	if *by == history.BySession {
		t.Header = slices.Insert(t.Header, 3, "SUBAGENTS")
	}
	t.Squeeze, t.Drop = []int{0}, t.Columns("CACHE WRITES", "CACHED", "SESSIONS", "SUBAGENTS", "OUTPUT (REASONING)", "RUNS", "INPUT (UNCACHED)")
	row := func(name string, u history.UsageRow) {
		cells := []string{name, strconv.Itoa(u.Sessions), strconv.Itoa(u.Runs), termstream.Thousands(u.UncachedInput()), termstream.Thousands(u.Tokens.CachedInput),
			termstream.Thousands(u.Tokens.CacheWriteInput), termstream.Thousands(u.Tokens.Output) + " (" + termstream.Thousands(u.Tokens.Reasoning) + ")", termstream.Thousands(u.Total()), money(u.Cost)}
		if *by == history.BySession {
			cells = slices.Insert(cells, 3, strconv.Itoa(u.Subagents))
		}
		t.Add(cells...)
	}
	for _, r := range rows {
		name := r.Period
		switch *by {
		case history.BySession:
			name = x.ShortID(name)
		case history.ByWorkspace:
			name = termstream.Tilde(name)
		}
		if name == "" { // a run that does not say
			name = "(unknown)"
		}
		row(sanitize(name, false), r)
		for _, m := range r.Models {
			row("  "+sanitize(m.Period, false), m)
		}
	}
	row("total", total)
	cols, _, _ := l.size()
	t.Write(e.stdout, cols)
	_, err = e.stdout.Write([]byte(termstream.Wrap("("+estimateNote(total.Cost)+")", cols) + "\n"))
	return err
}

// cmdPrices prints the price table in force: the built-in rows, with
// those of --prices in their place.
func cmdPrices(e env, args []string) error {
	fs := flags(e, "prices")
	path := fs.String("prices", "", pricesUsage)
	asJSON := fs.Bool("json", false, "print the rows as a JSON array, in prices.json's shape")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fs.usageError("takes no FILE (--prices FILE adds a table)")
	}
	p, err := history.PricesWith(*path)
	if err != nil {
		return err
	}
	if *asJSON {
		return safetext.WriteArray(e.stdout, p.Rows(), func(r history.Price) any { return r })
	}
	l := &lister{e: e}
	cols, _, _ := l.size()
	t := termstream.PricesTable(p.Rows())
	t.Write(e.stdout, cols)
	return nil
}
