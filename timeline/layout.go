// Package timeline lays out where a run's time went, as its fold paired
// it: the model turns in one lane, the tool operations in lanes beside
// it (at most MaxToolLanes, then one lane counted as "more"), and when
// tools ran while the model generated; and draws a stream's runs, each
// from its own fold, as one SVG. The page of ssestream (its /intervals)
// lays a run out with Of, as the SVG does: one rule for both.
//
// It keeps no fold of its own: it is given the folds (stream.Fold) of the
// runs, whose labels and details it shows only when the fold keeps them
// (stream.Fold.KeepText, uahstream.Session.KeepText).
package timeline

import (
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/span"
)

// MaxToolLanes is how many tool lanes a run is laid out in; operations
// beyond them go to one more lane, counted in Layout.More.
const MaxToolLanes = 24

// Bar is a turn or a tool operation of a run's fold, laid out.
type Bar struct {
	// Start and End are the fold's; End may be before Start, and an open
	// one runs to the run's end.
	Start, End time.Time
	// Open reports a turn no response closed, an operation no finish
	// closed; OK a turn without a failure, an operation that finished ok.
	Open, OK bool
	// Turn is the turn's number, or the turn an operation ran in.
	Turn int
	// Lane is an operation's lane, from 0; MaxToolLanes for one in the
	// lane of the operations beyond them.
	Lane int
	// Label is an operation's "name: label"; Detail a turn's failure, an
	// operation's closing detail.
	Label, Detail string
}

// Layout is a run laid out from its fold.
type Layout struct {
	// Title is "RUN_ID · PROVIDER MODEL", empty without run_started.
	Title string
	// Origin and End are when the run began and ended (Fold.Times).
	Origin, End time.Time
	// Turns and Tools are the fold's turns and operations, in its order.
	Turns, Tools []Bar
	// Overlaps are when tools ran while the model generated
	// (Fold.Overlaps).
	Overlaps [][2]time.Time
	// Lanes counts the tool lanes used, the "more" lane not counted; More
	// the operations in it.
	Lanes, More int
}

// Of lays out a run from its fold.
func Of(f *stream.Fold) Layout {
	var l Layout
	if d := f.Started(); d != nil {
		l.Title = d.RunID + " · " + d.Provider + " " + d.Model
	}
	l.Origin, l.End = f.Times()
	for _, iv := range f.Turns() {
		l.Turns = append(l.Turns, Bar{Start: iv.Start, End: iv.End, Open: iv.Open, OK: iv.Failure == "", Turn: iv.Turn, Detail: iv.Failure})
	}
	tools := f.Tools()
	spans := make([]span.Span[time.Time], len(tools))
	for i, iv := range tools {
		spans[i] = span.Span[time.Time]{Start: iv.Start, End: iv.End}
	}
	lanes, more := span.Lanes(spans, MaxToolLanes)
	l.More = more
	for i, iv := range tools {
		l.Tools = append(l.Tools, Bar{Start: iv.Start, End: iv.End, Open: iv.Open, OK: iv.OK, Turn: iv.Turn, Lane: lanes[i],
			Label: iv.Name + ": " + iv.Label, Detail: iv.Detail})
		if lanes[i] < MaxToolLanes {
			l.Lanes = max(l.Lanes, lanes[i]+1)
		}
	}
	for start, end := range f.Overlaps() {
		l.Overlaps = append(l.Overlaps, [2]time.Time{start, end})
	}
	return l
}
