// Package span is the uagent runner's interval arithmetic, shared by the
// stats and by the pictures drawn from them, so that the two agree. It has
// no special cases: a span that ends before it starts takes part like any
// other, with a negative length.
package span

import (
	"cmp"
	"container/heap"
	"slices"
	"time"
)

// Span is the interval from Start to End. End may be before Start.
type Span struct{ Start, End time.Time }

// Merge sorts spans by start (spans with equal starts keep their order) and
// merges each span whose start is at or before the previous merged end into
// it; the merged end is the later of the two. It works in place and returns
// the merged prefix of spans.
func Merge(spans []Span) []Span {
	slices.SortStableFunc(spans, func(a, b Span) int { return a.Start.Compare(b.Start) })
	out := spans[:0]
	for _, s := range spans {
		if n := len(out); n > 0 && !s.Start.After(out[n-1].End) {
			if s.End.After(out[n-1].End) {
				out[n-1].End = s.End
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// Total is the sum of End.Sub(Start) over spans, negative lengths included.
// Each Sub saturates as time.Time.Sub does; the sum is plain int64
// addition. It counts overlaps twice, so give it merged spans.
func Total(spans []Span) time.Duration {
	var d time.Duration
	for _, s := range spans {
		d += s.End.Sub(s.Start)
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
func Intersect(a, b []Span) []Span {
	var out []Span
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo := Later(a[i].Start, b[j].Start)
		hi := a[i].End
		if b[j].End.Before(hi) {
			hi = b[j].End
		}
		if hi.After(lo) {
			out = append(out, Span{lo, hi})
		}
		if a[i].End.Before(b[j].End) {
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
func MaxParallel(spans []Span) int {
	type edge struct {
		t     time.Time
		delta int
	}
	edges := make([]edge, 0, 2*len(spans))
	for _, s := range spans {
		edges = append(edges, edge{s.Start, +1}, edge{s.End, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		return cmp.Or(a.t.Compare(b.t), cmp.Compare(a.delta, b.delta))
	})
	n, most := 0, 0
	for _, e := range edges {
		n += e.delta
		most = max(most, n)
	}
	return most
}

// Later returns the later of a and b.
func Later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Lanes gives each span, in start order (equal starts in their order), the
// lowest lane free at its start: a lane is free once its last span has
// ended (at or before the start). Spans that would need a lane at or
// beyond limit all get lane limit; more counts them. It runs in
// O(n log n), and is what every picture of a run lays its operations out
// with, so that the SVG timeline and the page agree.
func Lanes(spans []Span, limit int) (lanes []int, more int) {
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
