package ssestream

import (
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/timeline"
)

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

// buildIntervals lays out the session's open run (else its last) as the
// timeline package lays a run out (timeline.Of): its turns and
// operations, in tool lanes, its notices; times in milliseconds from the
// fold's first time. Called with rec.mu held.
func (rec *Recording) buildIntervals() intervals {
	var l timeline.Layout
	var notices []stream.Notice
	rec.s.Fold(func(f *stream.Fold) { l, notices = timeline.Of(f), f.Notices() })
	ms := func(t time.Time) float64 { return float64(t.Sub(l.Origin)) / float64(time.Millisecond) }
	out := intervals{Origin: l.Origin, End: ms(l.End), Turns: []bar{}, Tools: []bar{}, Notices: []notice{}, Lanes: l.Lanes, More: l.More}
	for i, n := range notices {
		line := 0
		if i < len(rec.noticeLines) {
			line = rec.noticeLines[i]
		}
		out.Notices = append(out.Notices, notice{Line: line, Count: n.Count})
	}
	for _, iv := range l.Turns {
		out.Turns = append(out.Turns, bar{Start: ms(iv.Start), End: ms(iv.End), Open: iv.Open, Turn: iv.Turn, OK: iv.OK, Detail: iv.Detail})
		out.End = max(out.End, ms(iv.End), ms(iv.Start))
	}
	for _, iv := range l.Tools {
		out.Tools = append(out.Tools, bar{Start: ms(iv.Start), End: ms(iv.End), Open: iv.Open, Turn: iv.Turn, Lane: iv.Lane, OK: iv.OK,
			Label: iv.Label, Detail: iv.Detail})
		out.End = max(out.End, ms(iv.End), ms(iv.Start))
	}
	return out
}
