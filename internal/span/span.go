// Package span merges and intersects time intervals exactly as the uagent
// runner's stats do, so that the stats and the timeline drawn from them
// agree.
package span

import (
	"slices"
	"time"
)

// Span is the interval [Start, End]. A span that ends before it starts is
// empty.
type Span struct{ Start, End time.Time }

// Merge sorts spans by start and merges those that overlap or touch (a
// start at or before the previous end). It works in place and returns the
// merged prefix of spans.
func Merge(spans []Span) []Span {
	slices.SortFunc(spans, func(a, b Span) int { return a.Start.Compare(b.Start) })
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

// Total is the summed length of the spans, in nanoseconds; it counts
// overlaps twice, so give it merged spans.
func Total(spans []Span) time.Duration {
	var d time.Duration
	for _, s := range spans {
		if s.End.After(s.Start) {
			d += s.End.Sub(s.Start)
		}
	}
	return d
}

// Intersect returns the non-empty intersections of two merged sets of
// spans, in order.
func Intersect(a, b []Span) []Span {
	var out []Span
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := a[i].Start, a[i].End
		if b[j].Start.After(lo) {
			lo = b[j].Start
		}
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
