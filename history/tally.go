package history

import (
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/uahstream"
)

// Tally prices a stream as it is read, for a view that shows one (cat):
// each run's requests are the usage of its model_responded lines, each
// priced as it comes (as CostRequests prices them) by the provider, model
// and start its run_started says, so the long-context rule applies
// request by request; the run's estimate is done when it ends (its
// Ended). It keeps a run's sum, not its requests. The zero Tally prices
// nothing; use Prices.Tally. A Tally is not safe for concurrent use.
type Tally struct {
	prices Prices
	open   *meter // the open run's
	est    Estimate
	runs   int
}

// Tally returns a Tally that prices by p.
func (p Prices) Tally() *Tally { return &Tally{prices: p} }

// Add takes the next line, as a uahstream.Reader reads it, and returns
// the estimate of the run it ended (ended is false for a line that ended
// none).
func (t *Tally) Add(l uahstream.Line) (c Cost, ended bool) {
	if e := l.Ended; e != nil { // by this line, or cut off by its run_started: before the line is taken
		s := e.Summary
		r := &Run{Provider: s.Provider, Model: s.Model, Tokens: s.Stats.Tokens}
		if t.open != nil {
			r.Cost = t.open.c
		} else { // no run_started: no request was priced, its totals are
			r.Cost = t.prices.Cost(s.Provider, s.Model, s.StartedAt, s.Stats.Tokens)
		}
		t.est.Add(r)
		t.open = nil
		t.runs++
		c, ended = r.Cost, true
	}
	switch d := l.DTO.(type) {
	case stream.RunStartedDTO:
		if l.Change.Started {
			t.open = t.prices.meter(d.Provider, d.Model, d.At)
		}
	case stream.ModelRespondedDTO:
		if t.open != nil && l.Change.Run >= 0 {
			t.open.add(d.Usage)
		}
	}
	return c, ended
}

// Estimate is the estimate of the runs that have ended, and Runs their
// number.
func (t *Tally) Estimate() (e Estimate, runs int) { return t.est, t.runs }
