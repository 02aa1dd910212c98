package history

import (
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/uahstream"
)

// Tally prices a stream as it is read, for a view that shows one (cat):
// each run's requests are the usage of its model_responded lines, priced
// when the run ends (its Ended: the fold's summary says its provider,
// model and start) by CostRequests, so the long-context rule applies
// request by request. The zero Tally prices nothing; use Prices.Tally.
// A Tally is not safe for concurrent use.
type Tally struct {
	prices Prices
	reqs   []stream.TokensDTO // the open run's
	est    Estimate
	runs   int
}

// Tally returns a Tally that prices by p.
func (p Prices) Tally() *Tally { return &Tally{prices: p} }

// Add takes the next line, as a uahstream.Reader reads it, and returns
// the estimate of the run it ended (ended is false for a line that ended
// none).
func (t *Tally) Add(l uahstream.Line) (c Cost, ended bool) {
	if d, ok := l.DTO.(stream.ModelRespondedDTO); ok && l.Change.Run >= 0 {
		t.reqs = append(t.reqs, d.Usage)
	}
	if e := l.Ended; e != nil {
		s := e.Summary
		r := &Run{Provider: s.Provider, Model: s.Model, Tokens: s.Stats.Tokens}
		r.Cost = t.prices.CostRequests(s.Provider, s.Model, s.StartedAt, t.reqs)
		t.est.Add(r)
		t.reqs = t.reqs[:0]
		t.runs++
		return r.Cost, true
	}
	return Cost{}, false
}

// Estimate is the estimate of the runs that have ended, and Runs their
// number.
func (t *Tally) Estimate() (e Estimate, runs int) { return t.est, t.runs }
