package span

import (
	"github.com/stretchr/testify/require"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

var t0 = time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)

type tspan = Span[time.Time]

func s(a, b int) tspan {
	return tspan{t0.Add(time.Duration(a) * time.Millisecond), t0.Add(time.Duration(b) * time.Millisecond)}
}

func TestMerge(t *testing.T) {
	got := Merge(Time, []tspan{s(50, 60), s(0, 10), s(10, 20), s(5, 8), s(30, 40), s(35, 70)})
	assert.Equal(t, []tspan{s(0, 20), s(30, 70)}, got, "touching and overlapping spans merge, in start order")
	assert.Equal(t, 60*time.Millisecond, Total(Time, got))
	assert.Empty(t, Merge(Time, nil))
}

func TestMergeReversedSpans(t *testing.T) {
	// A reversed span merges like any other: the next start is compared
	// with its (earlier) end.
	assert.Equal(t, []tspan{s(0, 30)}, Merge(Time, []tspan{s(10, 5), s(0, 30)}), "a reversed span inside another merges")
	// Equal starts keep their order, which decides whether they merge.
	assert.Equal(t, []tspan{s(10, 5), s(10, 20)}, Merge(Time, []tspan{s(10, 5), s(10, 20)}))
	assert.Equal(t, []tspan{s(10, 20)}, Merge(Time, []tspan{s(10, 20), s(10, 5)}))
}

func TestTotal(t *testing.T) {
	assert.Equal(t, -5*time.Millisecond, Total(Time, []tspan{s(10, 5)}), "a reversed span counts negative")
	assert.Equal(t, 5*time.Millisecond, Total(Time, []tspan{s(10, 5), s(20, 30)}))
	far := tspan{Start: time.Time{}, End: t0}
	assert.Equal(t, time.Duration(math.MaxInt64), Total(Time, []tspan{far}), "Sub saturates")
}

func TestIntersect(t *testing.T) {
	a := []tspan{s(0, 100), s(140, 200)}
	b := []tspan{s(50, 150), s(190, 300)}
	assert.Equal(t, []tspan{s(50, 100), s(140, 150), s(190, 200)}, Intersect(Time, a, b))
	assert.Empty(t, Intersect(Time, a, []tspan{s(100, 140)}), "touching is not overlapping")
	assert.Empty(t, Intersect(Time, []tspan{s(10, 5)}, []tspan{s(0, 30)}), "a reversed span intersects nothing")
}

func TestMaxParallel(t *testing.T) {
	assert.Equal(t, 1, MaxParallel(Time, []tspan{s(0, 10), s(10, 20)}), "ends before starts at the same instant")
	assert.Equal(t, 2, MaxParallel(Time, []tspan{s(0, 10), s(5, 20)}))
	assert.Equal(t, 0, MaxParallel(Time, []tspan{s(10, 5)}), "a reversed span: -1 at 5, then +1 at 10")
	assert.Equal(t, 0, MaxParallel(Time, []tspan{s(10, 5), s(7, 9)}), "its early end cancels the other span's start")
	assert.Equal(t, 0, MaxParallel(Time, nil))
}

// Merge keeps equal starts in their order, which decides whether a
// reversed span merges with the spans that share its start. Small inputs
// do not show it (the sort is an insertion sort below 13 elements), so
// compare with a stable reference on larger ones.
func TestMergeIsStable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		in := make([]tspan, 13+r.IntN(40))
		for i := range in {
			start := r.IntN(4) * 10
			in[i] = s(start, start+r.IntN(30)-15)
		}
		ref := slices.Clone(in)
		for i := 1; i < len(ref); i++ { // insertion sort: stable
			for j := i; j > 0 && ref[j].Start.Before(ref[j-1].Start); j-- {
				ref[j], ref[j-1] = ref[j-1], ref[j]
			}
		}
		var want []tspan
		for _, x := range ref {
			if n := len(want); n > 0 && !x.Start.After(want[n-1].End) {
				want[n-1].End = Later(want[n-1].End, x.End)
				continue
			}
			want = append(want, x)
		}
		require.Equal(t, want, Merge(Time, slices.Clone(in)), "input %v", in)
	}
}

func TestLanes(t *testing.T) {
	at := time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)
	b := func(s, e int) tspan {
		return tspan{at.Add(time.Duration(s) * time.Millisecond), at.Add(time.Duration(e) * time.Millisecond)}
	}
	lanes, more := Lanes([]tspan{b(0, 10), b(1, 5), b(2, 3), b(5, 9), b(3, 4), b(11, 12), b(4, 20)}, 3)
	// 0:[0,10] 1:[1,5] 2:[2,3]; at 3 lane 2 is free again; at 4 lane 2
	// frees (3–4 ended) and is taken by [4,20]; at 5 lane 1 frees; at 11
	// lane 0 frees.
	assert.Equal(t, []int{0, 1, 2, 1, 2, 0, 2}, lanes)
	assert.Zero(t, more)
	lanes, more = Lanes([]tspan{b(0, 9), b(1, 9), b(2, 9)}, 1)
	assert.Equal(t, []int{0, 1, 1}, lanes, "beyond the limit, spans go to the limit lane")
	assert.Equal(t, 2, more)
}
