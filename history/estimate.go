package history

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ModelName is provider/model, "?" for a provider not known (a run
// without a summary: its request does not say).
func (r *Run) ModelName() string { return cmp.Or(r.Provider, "?") + "/" + r.Model }

// Estimate adds up the API-price estimates of runs. USD is what the priced
// runs would cost; the tokens (input and output: input includes cached
// and cache-write input, output reasoning) of the runs that could not be
// priced are in UnpricedTokens, never priced at zero; Unpriced names their
// provider/model pairs, Plans the "provider: plan" of runs billed by a
// subscription instead of these figures. Unapplied counts the priced
// runs whose estimate could not apply their model's long-context rule
// (see Cost.Unapplied).
type Estimate struct {
	USD                          float64
	PricedTokens, UnpricedTokens int64
	Unpriced, Plans              []string
	Unapplied                    int
}

// Add counts a run in the estimate.
func (e *Estimate) Add(r *Run) {
	n := satAdd(r.Tokens.Input, r.Tokens.Output)
	if r.Cost.Plan != "" {
		e.Plans = insert(e.Plans, r.Provider+": "+r.Cost.Plan)
	}
	if !r.Cost.Priced {
		e.UnpricedTokens = satAdd(e.UnpricedTokens, n)
		e.Unpriced = insert(e.Unpriced, r.ModelName())
		return
	}
	e.USD += r.Cost.USD
	e.PricedTokens = satAdd(e.PricedTokens, n)
	if r.Cost.Unapplied {
		e.Unapplied++
	}
}

// Merge adds another estimate to this one.
func (e *Estimate) Merge(o Estimate) {
	e.USD += o.USD
	e.PricedTokens = satAdd(e.PricedTokens, o.PricedTokens)
	e.UnpricedTokens = satAdd(e.UnpricedTokens, o.UnpricedTokens)
	e.Unapplied += o.Unapplied
	for _, u := range o.Unpriced {
		e.Unpriced = insert(e.Unpriced, u)
	}
	for _, p := range o.Plans {
		e.Plans = insert(e.Plans, p)
	}
}

// USDOrNil is the cost to show: USD, nil when no token of it could be
// priced (and it has some). A partial cost (some tokens unpriced) is the
// priced part: UnpricedTokens says what it leaves out.
func (e Estimate) USDOrNil() *float64 {
	if e.PricedTokens == 0 && e.UnpricedTokens > 0 || !e.Finite() {
		return nil
	}
	v := e.USD
	return &v
}

// Finite reports a cost that is a number: one that is not (a rate of a
// price table so large that the sum has no float64) is no figure, in a
// table as in JSON (USDOrNil is nil), and its Note says why.
func (e Estimate) Finite() bool { return !math.IsInf(e.USD, 0) && !math.IsNaN(e.USD) }

// satAdd is a+b, held at the bounds of an int64 instead of wrapping: a
// history's sums never turn negative, whatever its summaries say.
func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// satSub is a-b, held at the bounds of an int64.
func satSub(a, b int64) int64 {
	if b == math.MinInt64 {
		return satAdd(satAdd(a, math.MaxInt64), 1)
	}
	return satAdd(a, -b)
}

// insert adds s to a sorted set.
func insert(set []string, s string) []string {
	i, ok := slices.BinarySearch(set, s)
	if ok {
		return set
	}
	return slices.Insert(set, i, s)
}

// Note says what the costs of the estimate are: API-price estimates, the
// providers billed by a plan instead of them, and how many tokens are
// unpriced. Its strings are the history's: a view escapes them.
func (e Estimate) Note() string {
	s := "costs are API-price estimates (prices.json and --prices), not bills"
	for _, p := range e.Plans {
		provider, plan, _ := strings.Cut(p, ": ")
		s += "; " + provider + " is billed by its " + plan + " plan, not by these figures"
	}
	if e.UnpricedTokens > 0 {
		s += "; " + thousands(e.UnpricedTokens) + " tokens are unpriced"
	}
	if e.Unapplied > 0 {
		s += "; " + plural(e.Unapplied, "run is", "runs are") + " priced from totals alone, without the long-context rule (no per-request usage)"
	}
	if !e.Finite() {
		s += "; the cost is not a finite number (a rate of the price table too large): shown as ?"
	}
	return s
}

// thousands writes n with thousands separators: 1,234,567.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// plural is "1 run is" or "N runs are".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
