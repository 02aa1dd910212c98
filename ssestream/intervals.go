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
	// Runs are a session's runs, each a bar (Turn its number, Detail its
	// status), its turns and tools among the others: a session's picture
	// is of every run, from the first one's start. Empty for a run.
	Runs []bar `json:"runs"`
}

// pastRun is a run of a session that ended, laid out.
type pastRun struct {
	layout timeline.Layout
	status string
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

// buildIntervals lays out a run as the timeline package lays a run out
// (timeline.Of): its turns and operations, in tool lanes, its notices;
// times in milliseconds from the fold's first time. A session (of the
// harness, with a run that ended) is laid out whole: each run a bar, and
// every run's turns and operations, from the first run's start; its
// notices are its open run's (else its last's). Called with rec.mu held.
func (rec *Recording) buildIntervals() intervals {
	var l timeline.Layout
	var notices []stream.Notice
	rec.s.Fold(func(f *stream.Fold) { l, notices = timeline.Of(f), f.Notices() })
	origin := l.Origin
	session := rec.s.Harness() && len(rec.past) > 0
	if session {
		origin = rec.past[0].layout.Origin
	}
	ms := func(t time.Time) float64 { return float64(t.Sub(origin)) / float64(time.Millisecond) }
	out := intervals{Origin: origin, End: ms(l.End), Turns: []bar{}, Tools: []bar{}, Notices: []notice{}, Runs: []bar{}, Lanes: l.Lanes, More: l.More}
	for i, n := range notices {
		line := 0
		if i < len(rec.noticeLines) {
			line = rec.noticeLines[i]
		}
		out.Notices = append(out.Notices, notice{Line: line, Count: n.Count})
	}
	add := func(l timeline.Layout) {
		for _, iv := range l.Turns {
			out.Turns = append(out.Turns, bar{Start: ms(iv.Start), End: ms(iv.End), Open: iv.Open, Turn: iv.Turn, OK: iv.OK, Detail: iv.Detail})
			out.End = max(out.End, ms(iv.End), ms(iv.Start))
		}
		for _, iv := range l.Tools {
			out.Tools = append(out.Tools, bar{Start: ms(iv.Start), End: ms(iv.End), Open: iv.Open, Turn: iv.Turn, Lane: iv.Lane, OK: iv.OK,
				Label: iv.Label, Detail: iv.Detail})
			out.End = max(out.End, ms(iv.End), ms(iv.Start))
		}
	}
	if !session {
		add(l)
		return out
	}
	// A session: every run that ended, then the one going on, if any.
	out.Lanes, out.More = 0, 0
	layouts := make([]timeline.Layout, 0, len(rec.past)+1)
	for i, p := range rec.past {
		layouts = append(layouts, p.layout)
		out.Runs = append(out.Runs, bar{Start: ms(p.layout.Origin), End: ms(p.layout.End), Turn: i + 1, OK: p.status == string(stream.StatusOK), Detail: p.status})
	}
	if rec.s.Open() {
		layouts = append(layouts, l)
		out.Runs = append(out.Runs, bar{Start: ms(l.Origin), End: ms(l.End), Turn: len(rec.past) + 1, Open: true, Detail: "running"})
	}
	for _, l := range layouts {
		add(l)
		out.Lanes, out.More = max(out.Lanes, l.Lanes), out.More+l.More
		out.End = max(out.End, ms(l.End))
	}
	return out
}
