// Package span is the uagent runner's interval arithmetic, shared by the
// stats and by the pictures drawn from them, so that the two agree. It has
// no special cases: a span that ends before it starts takes part like any
// other, with a negative length.
package span

import (
	"cmp"
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
