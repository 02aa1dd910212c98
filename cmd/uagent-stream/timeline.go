package main

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/span"
	"github.com/uagentkit/stream/ssestream"
)

func cmdTimeline(e env, args []string) error {
	fs := flags(e, "timeline")
	out := fs.String("o", "", "write the SVG to this `file` instead of standard output")
	_, in, err := fs.parseInput(args)
	if err != nil {
		return err
	}
	defer in.Close()
	tl, err := buildTimeline(stream.NewDecoder(in))
	if err != nil {
		return err
	}
	in.Close()
	serious := reportProblems(e, in)
	svg := tl.svg()
	if *out == "" {
		_, err = e.stdout.Write(svg)
	} else {
		err = os.WriteFile(*out, svg, 0o644)
	}
	if err == nil && serious {
		err = exitError{1}
	}
	return err
}

// Bar kinds, which are also the SVG classes of the bars.
const (
	barModel   = "model"
	barOverlap = "overlap"
	barTool    = "tool"
	barFailed  = "failed"
	barRunning = "running"
	barMore    = "more"
)

// maxToolLanes is how many tool lanes the picture draws; operations that
// would need more go to one "+N more" lane. It is the page's limit.
const maxToolLanes = ssestream.MaxToolLanes

type bar struct {
	lane       int
	kind       string
	label      string
	start, end time.Time
	count      int // operations drawn as this bar, when more than one
}

type timeline struct {
	paired     []bar // the bars of what the fold paired, before coalescing
	title      string
	origin     time.Time
	end        time.Time
	lanes      []string
	bars       []bar
	lineErrors int
}

// buildTimeline reads a stream through the run's fold (as stats reads it)
// and draws what it paired: one lane for model turns, one for the time
// tools ran while the model was generating, and a lane for each tool that
// ran at once, up to maxToolLanes, laid out as the page lays them out;
// from the fold's first time to its last. The picture and the stats come
// from the same fold; what the fold hands over only in a line's Change
// (an operation's label and detail) is kept here.
func buildTimeline(dec *stream.Decoder) (*timeline, error) {
	tl := &timeline{lanes: []string{"model", "overlap"}}
	var f stream.Fold
	type opText struct{ label, detail string }
	var ops []opText
	for dto, err := range dec.All() {
		if err != nil {
			if _, ok := errors.AsType[*stream.LineError](err); !ok {
				return nil, err
			}
			tl.lineErrors++
		}
		ch := f.Add(dto, err)
		switch ch.ToolStep {
		case stream.Opened:
			iv := f.Tool(ch.ToolIndex)
			ops = append(ops, opText{label: iv.Name + ": " + iv.Label})
		case stream.Closed:
			ops[ch.ToolIndex].detail = f.Tool(ch.ToolIndex).Detail
		}
	}
	if d := f.Started(); d != nil {
		tl.title = fmt.Sprintf("%s · %s %s", d.RunID, d.Provider, d.Model)
	}
	tl.origin, tl.end = f.Times()
	for _, iv := range f.Turns() {
		label := fmt.Sprintf("turn %d", iv.Turn)
		if iv.Open {
			label += " (unanswered)"
		}
		tl.bars = append(tl.bars, bar{lane: 0, kind: barModel, label: label, start: iv.Start, end: iv.End})
	}
	tools := f.Tools()
	toolBars := make([]bar, len(tools))
	spans := make([]span.Span[time.Time], len(tools))
	for i, iv := range tools {
		b := bar{kind: barTool, label: ops[i].label + " · " + ops[i].detail, start: iv.Start, end: iv.End}
		switch {
		case iv.Open:
			b.kind, b.label = barRunning, ops[i].label+" · still running"
		case !iv.OK:
			b.kind = barFailed
		}
		toolBars[i], spans[i] = b, span.Span[time.Time]{Start: iv.Start, End: iv.End}
	}
	lanes, more := span.Lanes(spans, maxToolLanes)
	used := 0
	for i := range toolBars {
		toolBars[i].lane = lanes[i] + 2
		used = max(used, lanes[i]+1)
	}
	for i := range min(used, maxToolLanes) {
		tl.lanes = append(tl.lanes, fmt.Sprintf("tools %d", i+1))
	}
	if more > 0 {
		tl.lanes = append(tl.lanes, fmt.Sprintf("+%d more", more))
	}
	for start, end := range f.Overlaps() {
		tl.bars = append(tl.bars, bar{lane: 1, kind: barOverlap, label: "tools ran while the model generated", start: start, end: end})
	}
	tl.bars = append(tl.bars, toolBars...)
	tl.paired = slices.Clone(tl.bars)
	tl.bars = tl.coalesce(tl.bars)
	return tl, nil
}

// coalesce merges, lane by lane, the bars that would touch within a pixel
// into one bar that counts them, so that the picture stays readable and
// small whatever the number of operations: a lane holds at most about one
// bar per pixel of its width. Bars of the "+N more" lane are always merged.
func (tl *timeline) coalesce(bars []bar) []bar {
	slices.SortStableFunc(bars, func(a, b bar) int {
		return cmp.Or(cmp.Compare(a.lane, b.lane), a.start.Compare(b.start))
	})
	moreLane := -1
	if n := len(tl.lanes); n > 0 && strings.HasPrefix(tl.lanes[n-1], "+") {
		moreLane = n - 1
	}
	var out []bar
	for _, b := range bars {
		if b.lane == moreLane {
			b.kind = barMore
		}
		if n := len(out); n > 0 && out[n-1].lane == b.lane && (b.lane == moreLane || tl.x(b.start)-tl.x(out[n-1].end) < 1) &&
			(b.lane == moreLane || tl.x(b.end)-tl.x(b.start) < 1 || tl.x(out[n-1].end)-tl.x(out[n-1].start) < 1) {
			last := &out[n-1]
			last.count = max(last.count, 1) + 1
			if b.end.After(last.end) {
				last.end = b.end
			}
			if last.kind != b.kind {
				last.kind = barMore
			}
			continue
		}
		out = append(out, b)
	}
	for i := range out {
		if out[i].count > 1 {
			out[i].label = fmt.Sprintf("%d operations", out[i].count)
			if out[i].lane < 2 {
				out[i].label = fmt.Sprintf("%d turns", out[i].count)
			}
		}
	}
	return out
}

// Layout of the SVG, in pixels.
const (
	svgWidth   = 1200
	plotLeft   = 110
	plotRight  = 20
	axisY      = 56
	laneTop    = 70
	laneHeight = 22
	laneGap    = 6
)

// x is the horizontal position of t, clamped to the plot.
func (tl *timeline) x(t time.Time) float64 {
	span := tl.end.Sub(tl.origin)
	if span <= 0 || !t.After(tl.origin) {
		return plotLeft
	}
	if t.After(tl.end) {
		t = tl.end
	}
	return plotLeft + float64(t.Sub(tl.origin))/float64(span)*(svgWidth-plotLeft-plotRight)
}

func laneY(lane int) int { return laneTop + lane*(laneHeight+laneGap) }

// svg draws the timeline. Every string from the stream is sanitized and
// XML-escaped.
func (tl *timeline) svg() []byte {
	var b bytes.Buffer
	legendY := laneY(len(tl.lanes)) + 10
	height := legendY + 40
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="ui-monospace, monospace" font-size="12">`+"\n",
		svgWidth, height, svgWidth, height)
	b.WriteString(`<style>
.model{fill:#4c78a8}.more{fill:#9d9d9d}.tool{fill:#54a24b}.failed{fill:#e45756}.running{fill:#eeca3b}.overlap{fill:#b279a2}
.lane{fill:#f4f4f4}.axis{stroke:#888}.label{fill:#222}.barlabel{fill:#fff}.tick{fill:#555;font-size:10px}
</style>` + "\n")
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", svgWidth, height)
	title := "uagent run"
	if tl.title != "" {
		title = tl.title
	}
	fmt.Fprintf(&b, `<text class="label" x="10" y="22" font-size="14">%s · %s</text>`+"\n", esc(oneLine(title, 120)), tl.end.Sub(tl.origin).Round(time.Millisecond))
	// The time axis.
	fmt.Fprintf(&b, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`+"\n", plotLeft, axisY, svgWidth-plotRight, axisY)
	span := tl.end.Sub(tl.origin)
	step := tickStep(span)
	for t := time.Duration(0); step > 0 && t <= span; t += step {
		x := tl.x(tl.origin.Add(t))
		fmt.Fprintf(&b, `<line class="axis" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/><text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n",
			x, axisY-4, x, axisY, x, axisY-8, t)
	}
	for i, name := range tl.lanes {
		fmt.Fprintf(&b, `<rect class="lane" x="%d" y="%d" width="%d" height="%d"/><text class="label" x="10" y="%d">%s</text>`+"\n",
			plotLeft, laneY(i), svgWidth-plotLeft-plotRight, laneHeight, laneY(i)+15, esc(name))
	}
	for _, br := range tl.bars {
		x0, x1 := tl.x(br.start), tl.x(br.end)
		x0, x1 = min(x0, x1), max(x0, x1) // a reversed interval is drawn where it lies
		w := math.Max(x1-x0, 1)
		dur := br.end.Sub(br.start).Round(time.Millisecond)
		fmt.Fprintf(&b, `<rect class="bar %s" x="%.1f" y="%d" width="%.1f" height="%d"><title>%s · %s</title></rect>`+"\n",
			br.kind, x0, laneY(br.lane), w, laneHeight, esc(oneLine(br.label, 200)), dur)
		if chars := int(w / 7); chars >= 4 && br.kind != barOverlap {
			fmt.Fprintf(&b, `<text class="barlabel" x="%.1f" y="%d" pointer-events="none">%s</text>`+"\n", x0+3, laneY(br.lane)+15, esc(oneLine(br.label, chars)))
		}
	}
	legend := []struct{ kind, text string }{{barModel, "model turn"}, {barTool, "tool ok"}, {barFailed, "tool failed"},
		{barRunning, "still running"}, {barOverlap, "tool–model overlap"}}
	for i, l := range legend {
		x := plotLeft + i*170
		fmt.Fprintf(&b, `<rect class="%s" x="%d" y="%d" width="14" height="14"/><text class="label" x="%d" y="%d">%s</text>`+"\n",
			l.kind, x, legendY, x+20, legendY+12, l.text)
	}
	if tl.lineErrors > 0 {
		fmt.Fprintf(&b, `<text class="label" x="10" y="%d" fill="#e45756">%d lines could not be read</text>`+"\n", legendY+32, tl.lineErrors)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// tickStep picks a round step that gives at most about 10 ticks.
func tickStep(span time.Duration) time.Duration {
	if span <= 0 {
		return 0
	}
	for _, base := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond, time.Second, 10 * time.Second, time.Minute, 10 * time.Minute, time.Hour} {
		for _, m := range []time.Duration{1, 2, 5} {
			if s := base * m; span/s <= 10 {
				return s
			}
		}
	}
	return cmp.Or(span/10, time.Hour)
}

// esc XML-escapes text (after sanitize, which removes what XML cannot hold).
func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
