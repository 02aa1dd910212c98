package span

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

var t0 = time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)

func s(a, b int) Span {
	return Span{t0.Add(time.Duration(a) * time.Millisecond), t0.Add(time.Duration(b) * time.Millisecond)}
}

func TestMerge(t *testing.T) {
	got := Merge([]Span{s(50, 60), s(0, 10), s(10, 20), s(5, 8), s(30, 40), s(35, 70)})
	assert.Equal(t, []Span{s(0, 20), s(30, 70)}, got, "touching and overlapping spans merge, in start order")
	assert.Equal(t, 60*time.Millisecond, Total(got))
	assert.Empty(t, Merge(nil))
}

func TestIntersect(t *testing.T) {
	a := []Span{s(0, 100), s(140, 200)}
	b := []Span{s(50, 150), s(190, 300)}
	assert.Equal(t, []Span{s(50, 100), s(140, 150), s(190, 200)}, Intersect(a, b))
	assert.Empty(t, Intersect(a, []Span{s(100, 140)}), "touching is not overlapping")
	assert.Equal(t, time.Duration(0), Total([]Span{s(10, 5)}), "a reversed span is empty")
}
