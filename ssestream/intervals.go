package ssestream

import (
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/span"
)

// MaxToolLanes is how many tool lanes /intervals lays operations out in;
// operations beyond them go to one more lane, counted in "more". It is the
// SVG timeline's limit too.
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

// buildIntervals lays out the fold of sum. origin is the first line's time,
// last the last line's.
func buildIntervals(f *stream.StatsCollector, origin, last time.Time, notices []notice) intervals {
	ms := func(t time.Time) float64 { return float64(t.Sub(origin)) / float64(time.Millisecond) }
	out := intervals{Origin: origin, End: ms(last), Turns: []bar{}, Tools: []bar{}, Notices: notices}
	if out.Notices == nil {
		out.Notices = []notice{}
	}
	for _, iv := range f.ModelIntervals() {
		out.Turns = append(out.Turns, bar{Start: ms(iv.Start), End: ms(iv.End), Open: iv.Open, Turn: iv.Turn, OK: iv.Failure == "", Detail: iv.Failure})
		out.End = max(out.End, ms(iv.End), ms(iv.Start))
	}
	tools := f.ToolIntervals()
	spans := make([]span.Span, len(tools))
	for i, iv := range tools {
		spans[i] = span.Span{Start: iv.Start, End: iv.End}
	}
	lanes, more := span.Lanes(spans, MaxToolLanes)
	out.More = more
	for i, iv := range tools {
		out.Tools = append(out.Tools, bar{Start: ms(iv.Start), End: ms(iv.End), Open: iv.Open, Turn: iv.Turn, Lane: lanes[i], OK: iv.OK,
			Label: iv.Name + ": " + iv.Label, Detail: iv.Detail})
		out.End = max(out.End, ms(iv.End), ms(iv.Start))
		if lanes[i] < MaxToolLanes {
			out.Lanes = max(out.Lanes, lanes[i]+1)
		}
	}
	return out
}
