package ssestream

import (
	"time"

	"github.com/uagentkit/stream/internal/span"
)

// MaxToolLanes is how many tool lanes /intervals lays operations out in;
// operations beyond them go to one more lane, counted in "more". The
// command's SVG timeline lays them out with the same limit.
const MaxToolLanes = 24

// intervals is what GET /intervals serves: the run's fold as a picture
// needs it. Times are milliseconds since origin.
type intervals struct {
	Origin  time.Time `json:"origin"` // the first line's time
	End     float64   `json:"end"`    // where the picture ends: the last line, or an interval's end if later
	Turns   []bar     `json:"turns"`
	Tools   []bar     `json:"tools"`
	Lanes   int       `json:"lanes"` // tool lanes used, "more" not counted
	More    int       `json:"more"`  // operations in the lane after them
	Notices []notice  `json:"notices"`
}

// bar is one interval of the fold.
type bar struct {
	Start  float64 `json:"start"`
	End    float64 `json:"end"`
	Open   bool    `json:"open"`
	Turn   int     `json:"turn,omitempty"`
	Lane   int     `json:"lane"`
	OK     bool    `json:"ok"`
	Label  string  `json:"label,omitempty"`
	Detail string  `json:"detail,omitempty"`
}

// notice is a preflight warning or runner error, coalesced by
// stream.Notices: the line it first came on, and how many times it came.
type notice struct {
	Line  int `json:"line"`
	Count int `json:"count"`
}

// buildIntervals lays out the record's fold: its turns and operations, in
// tool lanes, its notices; times in milliseconds from the fold's first
// time.
func (rec *Recording) buildIntervals() intervals {
	f := &rec.fold
	origin, last := f.Times()
	ms := func(t time.Time) float64 { return float64(t.Sub(origin)) / float64(time.Millisecond) }
	out := intervals{Origin: origin, End: ms(last), Turns: []bar{}, Tools: []bar{}, Notices: []notice{}}
	for i, n := range f.Notices() {
		out.Notices = append(out.Notices, notice{Line: rec.noticeLines[i], Count: n.Count})
	}
	for i, iv := range f.Turns() {
		failure := rec.turnFailures[i]
		out.Turns = append(out.Turns, bar{Start: ms(iv.Start), End: ms(iv.End), Open: iv.Open, Turn: iv.Turn, OK: failure == "", Detail: failure})
		out.End = max(out.End, ms(iv.End), ms(iv.Start))
	}
	tools := f.Tools()
	spans := make([]span.Span[time.Time], len(tools))
	for i, iv := range tools {
		spans[i] = span.Span[time.Time]{Start: iv.Start, End: iv.End}
	}
	lanes, more := span.Lanes(spans, MaxToolLanes)
	out.More = more
	for i, iv := range tools {
		out.Tools = append(out.Tools, bar{Start: ms(iv.Start), End: ms(iv.End), Open: iv.Open, Turn: iv.Turn, Lane: lanes[i], OK: iv.OK,
			Label: rec.ops[i].label, Detail: rec.ops[i].detail})
		out.End = max(out.End, ms(iv.End), ms(iv.Start))
		if lanes[i] < MaxToolLanes {
			out.Lanes = max(out.Lanes, lanes[i]+1)
		}
	}
	return out
}
