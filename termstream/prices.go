package termstream

import (
	"strconv"
	"strings"

	"github.com/uagentkit/stream/history"
)

// CostLine is the one line a view of a stream ends with: what its runs
// (runs of them ended) would cost at API prices and what that figure is,
// or why there is none. Its text is sanitized.
func CostLine(est history.Estimate, runs int) string {
	switch {
	case runs == 0:
		return "cost: none (no run)"
	case est.USDOrNil() == nil && len(est.Unpriced) > 0:
		return "cost: ? (no price for " + sanitize(strings.Join(est.Unpriced, ", "), false) + "; --prices adds a row)"
	}
	return "cost: " + Money(est.USDOrNil(), est.UnpricedTokens > 0) + " (" + sanitize(est.Note(), false) + ")"
}

// PricesTable is a price table's rows as a table: provider, model, the
// day the rates apply from, the rates per million tokens (input, cached,
// cache write, an hour's cache write, output; – where none is
// published), the long-context rule (above how many prompt tokens, and
// its input and output rates), the plan that bills the provider, the day
// checked and the source. Its cells are sanitized; the source column may
// be cut to fit.
func PricesTable(rows []history.Price) Table {
	t := Table{Header: []string{"PROVIDER", "MODEL", "SINCE", "INPUT", "CACHED", "WRITE", "WRITE 1H", "OUTPUT", "LONG CONTEXT", "PLAN", "CHECKED", "SOURCE"}}
	t.Squeeze = t.Columns("SOURCE")
	t.Drop = t.Columns("PLAN", "WRITE 1H", "LONG CONTEXT")
	for _, r := range rows {
		long := "–"
		if lc := r.LongContext; lc != nil {
			long = "> " + Thousands(lc.Above) + ": " + rate(lc.Input) + " / " + rate(lc.Output)
		}
		cells := []string{r.Provider, r.Model, r.Since, rate(r.Input), rate(r.CachedInput), rate(r.CacheWriteInput), rate(r.CacheWrite1hInput),
			rate(r.Output), long, r.Plan, r.Checked, r.Source}
		for i, c := range cells {
			cells[i] = sanitize(c, false)
		}
		t.Add(cells...)
	}
	return t
}

// rate is a rate per million tokens: "–" for none.
func rate(v *float64) string {
	if v == nil {
		return "–"
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}
