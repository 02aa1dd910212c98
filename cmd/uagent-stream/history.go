package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/termstream"
)

// historyFlags are the flags of the commands that read the history (ls,
// usage): where it is, what prices it is estimated by, when and where.
type historyFlags struct {
	dirs     dirsFlag  // given (serve's)
	state    *dirsFlag // or registered (--state-dir)
	prices   string
	timezone string
	since    string
	until    string
	ws       string
	model    string
	status   string // ls's
	source   string // ls's
}

// pricesUsage is the help of --prices.
const pricesUsage = "a price table `FILE` (prices.json's shape or LiteLLM's model_prices_and_context_window.json) whose rows add to or replace the built-in ones"

// homes are the state directories given: serve's, or --state-dir.
func (h *historyFlags) homes() []string {
	if h.state != nil {
		return *h.state
	}
	return h.dirs
}

func (h *historyFlags) register(fs *flagSet) {
	h.state = fs.stateDirFlag(", and the history read")
	fs.StringVar(&h.prices, "prices", "", pricesUsage)
	fs.StringVar(&h.timezone, "timezone", "", "the time zone `TZ` of the times shown and of the days, weeks and months (an IANA name; default: the local one)")
	fs.StringVar(&h.since, "since", "", "only what was active at or after `WHEN`: a date (2026-11-01), a time (2026-11-01T15:04), or a duration before now (36h, 7d)")
	fs.StringVar(&h.until, "until", "", "only what began before `WHEN` (as --since)")
	fs.StringVar(&h.ws, "workspace", "", "only what ran in `DIR` (. is the current directory)")
	fs.StringVar(&h.model, "model", "", "only what used the model `M`")
}

// parsed is the time zone and the filter the flags ask for (after
// fs.parse); a usage error when they are not what they should be.
func (h *historyFlags) parsed(fs *flagSet) (*time.Location, history.Filter, error) {
	loc, err := h.location()
	if err != nil {
		return nil, history.Filter{}, fs.usageError(err.Error())
	}
	f, err := h.filter(loc, time.Now())
	if err != nil {
		return nil, history.Filter{}, fs.usageError(err.Error())
	}
	return loc, f, nil
}

// location is the time zone asked for.
func (h *historyFlags) location() (*time.Location, error) {
	if h.timezone == "" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(h.timezone)
	if err != nil {
		return nil, fmt.Errorf("--timezone %s: not a time zone", h.timezone)
	}
	return loc, nil
}

// filter is the filter the flags ask for (history.Asked; Status and
// Source are ls's, set before).
func (h *historyFlags) filter(loc *time.Location, now time.Time) (history.Filter, error) {
	a := history.Asked{Since: h.since, Until: h.until, Model: h.model, Status: h.status, Source: h.source}
	if h.ws != "" {
		ws, err := filepath.Abs(h.ws)
		if err != nil {
			return history.Filter{}, fmt.Errorf("--workspace: %w", err)
		}
		a.Workspace = ws
	}
	f, err := a.Filter(loc, now)
	if err != nil {
		return f, fmt.Errorf("--%w", err) // --since wants …
	}
	return f, nil
}

// open reads the history and its prices, and says on stderr what of it
// could not be read (how much, and the first).
func (h *historyFlags) open(e env) (*history.Index, error) {
	dirs, prices, err := h.table()
	if err != nil {
		return nil, err
	}
	x := history.Open(prices, dirs...)
	if ps := x.Problems(); len(ps) > 0 {
		what := "1 entry of the history could not be read"
		if len(ps) > 1 {
			what = fmt.Sprintf("%d entries of the history could not be read; the first", len(ps))
		}
		fmt.Fprintf(e.stderr, "uagent-stream: %s: %s\n", what, sanitize(ps[0].Error(), false))
	}
	return x, nil
}

// table is the homes and the prices the flags say.
func (h *historyFlags) table() ([]string, history.Prices, error) {
	dirs, err := statedir.Homes(h.homes())
	if err != nil {
		return nil, history.Prices{}, err
	}
	prices, err := history.PricesWith(h.prices)
	return dirs, prices, err
}

// unpriced says on stderr, in one line, the models whose tokens could
// not be priced.
func unpriced(e env, est history.Estimate) {
	if len(est.Unpriced) > 0 {
		fmt.Fprintf(e.stderr, "uagent-stream: no price for %s: their tokens are counted and unpriced (--prices adds a row)\n", sanitize(strings.Join(est.Unpriced, ", "), false))
	}
}

// estimateNote is what every cost shown is, sanitized.
func estimateNote(est history.Estimate) string { return sanitize(est.Note(), false) }

// money is an estimate's cost as a person reads it (termstream.Money).
func money(est history.Estimate) string {
	return termstream.Money(est.USDOrNil(), est.UnpricedTokens > 0)
}
