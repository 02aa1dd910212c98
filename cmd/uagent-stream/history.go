package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/internal/regular"
	"github.com/uagentkit/stream/statedir"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
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
}

// homes are the state directories given: serve's, or --state-dir.
func (h *historyFlags) homes() []string {
	if h.state != nil {
		return *h.state
	}
	return h.dirs
}

func (h *historyFlags) register(fs *flagSet) {
	h.state = fs.stateDirFlag(", and the history read")
	fs.StringVar(&h.prices, "prices", "", "a price table `FILE` (a JSON array of rows, as prices.json) whose rows add to or replace the built-in ones")
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

// filter is the filter the flags ask for (Status and Source are ls's).
func (h *historyFlags) filter(loc *time.Location, now time.Time) (history.Filter, error) {
	var f history.Filter
	var err error
	if f.Since, err = history.When(h.since, loc, now); err != nil {
		return f, fmt.Errorf("--since %s", err)
	}
	if f.Until, err = history.When(h.until, loc, now); err != nil {
		return f, fmt.Errorf("--until %s", err)
	}
	f.Model = h.model
	if h.ws != "" {
		ws, err := filepath.Abs(h.ws)
		if err != nil {
			return f, fmt.Errorf("--workspace: %w", err)
		}
		f.Workspace = ws
	}
	return f, nil
}

// open reads the history and its prices, and says on stderr what of it
// could not be read (how much, and the first).
func (h *historyFlags) open(e env) (*history.Index, error) {
	dirs, err := statedir.Homes(h.homes())
	if err != nil {
		return nil, err
	}
	prices := history.DefaultPrices()
	if h.prices != "" {
		f, err := regular.Open(h.prices) // a FIFO or /dev/zero is no table
		if err != nil {
			return nil, err
		}
		more, err := history.ParsePrices(f) // read to history.MaxPricesFile at most
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", h.prices, err)
		}
		prices = prices.With(more)
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

// unpriced says on stderr, once each, the models whose tokens could not
// be priced, and the subscriptions that bill a provider instead.
func unpriced(e env, est history.Estimate) {
	for _, m := range est.Unpriced {
		fmt.Fprintf(e.stderr, "uagent-stream: no price for %s: its tokens are counted and unpriced (--prices adds a row)\n", sanitize(m, false))
	}
}

// estimateNote is what every cost shown is, sanitized.
func estimateNote(est history.Estimate) string { return sanitize(est.Note(), false) }

// money is a cost as a person reads it: "$1.23"; "≥$1.23" when some of
// its tokens are unpriced; "?" when none is priced.
func money(est history.Estimate) string {
	v := est.USDOrNil()
	switch {
	case v == nil:
		return "?"
	case est.UnpricedTokens > 0:
		return "≥" + dollars(*v)
	}
	return dollars(*v)
}

func dollars(v float64) string {
	if v > 0 && v < 0.01 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// compact is a token count in a few characters: 950, 12.3k, 1.5M.
func compact(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	case n < 1_000_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	}
	return strconv.FormatFloat(float64(n)/1e9, 'f', 1, 64) + "G"
}

func thousands(n int64) string { return english.Sprint(n) }

// english writes numbers as the tables do: 1,234,567.
var english = message.NewPrinter(language.English)

// tilde writes a path under the home directory with ~.
func tilde(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || path == "" {
		return path
	}
	if path == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(path, home+string(filepath.Separator)); ok {
		return "~" + string(filepath.Separator) + rest
	}
	return path
}
