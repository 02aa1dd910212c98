// Package span is the uagent runner's interval arithmetic, shared by the
// fold's stats and by the pictures drawn from them, so that the two agree.
// It has no special cases: a span that ends before it starts takes part
// like any other, with a negative length.
//
// The points of a span are of any type a [Clock] orders and subtracts as
// time.Time does: [Time] for time.Time itself, or the fold's compact
// instants.
package span

import (
	"cmp"
	"container/heap"
	"slices"
	"time"
)

// Clock orders and subtracts the points of type T. Compare is
// time.Time.Compare's contract, Sub time.Time.Sub's (a − b, saturating).
type Clock[T any] struct {
	Compare func(a, b T) int
	Sub     func(a, b T) time.Duration
}

// Time is the Clock of time.Time.
var Time = Clock[time.Time]{Compare: time.Time.Compare, Sub: time.Time.Sub}

// Span is the interval from Start to End. End may be before Start.
type Span[T any] struct{ Start, End T }

// later returns the later of a and b (a when they are equal).
func (c Clock[T]) later(a, b T) T {
	if c.Compare(b, a) > 0 {
		return b
	}
	return a
}

// Merge sorts spans by start (spans with equal starts keep their order) and
// merges each span whose start is at or before the previous merged end into
// it; the merged end is the later of the two. It works in place and returns
// the merged prefix of spans.
func Merge[T any](c Clock[T], spans []Span[T]) []Span[T] {
	slices.SortStableFunc(spans, func(a, b Span[T]) int { return c.Compare(a.Start, b.Start) })
	out := spans[:0]
	for _, s := range spans {
		if n := len(out); n > 0 && c.Compare(s.Start, out[n-1].End) <= 0 {
			out[n-1].End = c.later(out[n-1].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

// Total is the sum of End − Start over spans, negative lengths included.
// Each subtraction saturates as time.Time.Sub does; the sum is plain int64
// addition. It counts overlaps twice, so give it merged spans.
func Total[T any](c Clock[T], spans []Span[T]) time.Duration {
	var d time.Duration
	for _, s := range spans {
		d += c.Sub(s.End, s.Start)
	}
	return d
}

// Intersect walks two merged lists pairwise: each pair whose intersection
// is non-empty (the earlier end after the later start) contributes it;
// then the list whose span ends first advances, b on a tie. It returns the
// intersections in order.
//
// On merged lists the tie rule cannot change the result: after a tie at E,
// both tied spans end at E and every later span of either list starts after
// E, so neither tied span meets anything further.
func Intersect[T any](c Clock[T], a, b []Span[T]) []Span[T] {
	var out []Span[T]
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo := c.later(a[i].Start, b[j].Start)
		hi := a[i].End
		if c.Compare(b[j].End, hi) < 0 {
			hi = b[j].End
		}
		if c.Compare(hi, lo) > 0 {
			out = append(out, Span[T]{lo, hi})
		}
		if c.Compare(a[i].End, b[j].End) < 0 {
			i++
		} else {
			j++
		}
	}
	return out
}

// MaxParallel sweeps the spans' edges, a start as +1 and an end as -1,
// sorted by time with ends before starts at the same instant, and returns
// the highest running count. A reversed span still contributes both edges.
func MaxParallel[T any](c Clock[T], spans []Span[T]) int {
	type edge struct {
		t     T
		delta int
	}
	edges := make([]edge, 0, 2*len(spans))
	for _, s := range spans {
		edges = append(edges, edge{s.Start, +1}, edge{s.End, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		return cmp.Or(c.Compare(a.t, b.t), cmp.Compare(a.delta, b.delta))
	})
	n, most := 0, 0
	for _, e := range edges {
		n += e.delta
		most = max(most, n)
	}
	return most
}

// Later returns the later of two times (a when they are equal).
func Later(a, b time.Time) time.Time { return Time.later(a, b) }

// Lanes gives each span, in start order (equal starts in their order), the
// lowest lane free at its start: a lane is free once its last span has
// ended (at or before the start). Spans that would need a lane at or
// beyond limit all get lane limit; more counts them. It runs in
// O(n log n), and is what every picture of a run lays its operations out
// with, so that the SVG timeline and the page agree.
func Lanes(spans []Span[time.Time], limit int) (lanes []int, more int) {
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return spans[a].Start.Compare(spans[b].Start) })
	lanes = make([]int, len(spans))
	var free intHeap  // lanes free now
	var busy laneHeap // lanes in use, by end
	used := 0
	for _, i := range order {
		for busy.Len() > 0 && !busy[0].end.After(spans[i].Start) {
			heap.Push(&free, heap.Pop(&busy).(laneEnd).lane)
		}
		lane := used
		if free.Len() > 0 {
			lane = heap.Pop(&free).(int)
		} else if used < limit {
			used++
		}
		if lane >= limit {
			lanes[i] = limit
			more++
			continue
		}
		lanes[i] = lane
		heap.Push(&busy, laneEnd{end: spans[i].End, lane: lane})
	}
	return lanes, more
}

type laneEnd struct {
	end  time.Time
	lane int
}

type laneHeap []laneEnd

func (h laneHeap) Len() int           { return len(h) }
func (h laneHeap) Less(i, j int) bool { return h[i].end.Before(h[j].end) }
func (h laneHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *laneHeap) Push(x any)        { *h = append(*h, x.(laneEnd)) }
func (h *laneHeap) Pop() any          { old := *h; x := old[len(old)-1]; *h = old[:len(old)-1]; return x }

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any          { old := *h; x := old[len(old)-1]; *h = old[:len(old)-1]; return x }
