package timeline

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/uagentkit/stream/internal/safetext"
	"github.com/uagentkit/stream/uahstream"
)

// Timeline draws the runs of a stream as one SVG, each run from its own
// fold, one below the other: a lane of model turns, one of the time tools
// ran while the model generated, and a lane for each tool that ran at
// once, up to MaxToolLanes and then a "+N more" lane; bars that would
// touch within a pixel are merged into one that counts them, so that a
// run of any length is a picture of bounded size. Every string from the
// stream is sanitized and XML-escaped. The zero Timeline is empty and
// ready; it is not safe for concurrent use.
type Timeline struct {
	runs       []picture
	lineErrors int
}

// Add takes a line of the stream, as its session folded it: a run is
// laid out when it ends (the Line's Ended), from its fold; lines that
// could not be decoded are counted. The session should keep what its
// lines say of each operation (uahstream.Session.KeepText) for the bars
// to have their labels and details.
func (t *Timeline) Add(l uahstream.Line) {
	if l.Err != nil && !l.End {
		t.lineErrors++
	}
	if l.Ended != nil {
		t.runs = append(t.runs, draw(Of(l.Ended.Fold)))
	}
}

// Runs counts the runs laid out.
func (t *Timeline) Runs() int { return len(t.runs) }

// Bar kinds, which are also the SVG classes of the bars.
const (
	barModel   = "model"
	barOverlap = "overlap"
	barTool    = "tool"
	barFailed  = "failed"
	barRunning = "running"
	barMore    = "more"
)

type bar struct {
	lane       int
	kind       string
	label      string
	start, end time.Time
	count      int // operations drawn as this bar, when more than one
}

// picture is a run as drawn: its lanes and its bars, merged.
type picture struct {
	title       string
	origin, end time.Time
	lanes       []string
	paired      []bar // the bars of what the fold paired, before merging
	bars        []bar
}

// draw makes a run's picture from its layout.
func draw(l Layout) picture {
	p := picture{title: l.Title, origin: l.Origin, end: l.End, lanes: []string{"model", "overlap"}}
	var bars []bar
	for _, iv := range l.Turns {
		label := fmt.Sprintf("turn %d", iv.Turn)
		if iv.Open {
			label += " (unanswered)"
		}
		bars = append(bars, bar{lane: 0, kind: barModel, label: label, start: iv.Start, end: iv.End})
	}
	for i := range min(l.Lanes, MaxToolLanes) {
		p.lanes = append(p.lanes, fmt.Sprintf("tools %d", i+1))
	}
	if l.More > 0 {
		p.lanes = append(p.lanes, fmt.Sprintf("+%d more", l.More))
	}
	for _, o := range l.Overlaps {
		bars = append(bars, bar{lane: 1, kind: barOverlap, label: "tools ran while the model generated", start: o[0], end: o[1]})
	}
	for _, iv := range l.Tools {
		b := bar{lane: iv.Lane + 2, kind: barTool, label: iv.Label + " · " + iv.Detail, start: iv.Start, end: iv.End}
		switch {
		case iv.Open:
			b.kind, b.label = barRunning, iv.Label+" · still running"
		case !iv.OK:
			b.kind = barFailed
		}
		bars = append(bars, b)
	}
	p.paired = slices.Clone(bars)
	p.bars = p.coalesce(bars)
	return p
}

// coalesce merges, lane by lane, the bars that would touch within a pixel
// into one bar that counts them, so that the picture stays readable and
// small whatever the number of operations: a lane holds at most about one
// bar per pixel of its width. Bars of the "+N more" lane are always merged.
func (p *picture) coalesce(bars []bar) []bar {
	slices.SortStableFunc(bars, func(a, b bar) int {
		return cmp.Or(cmp.Compare(a.lane, b.lane), a.start.Compare(b.start))
	})
	moreLane := -1
	if n := len(p.lanes); n > 0 && strings.HasPrefix(p.lanes[n-1], "+") {
		moreLane = n - 1
	}
	var out []bar
	for _, b := range bars {
		if b.lane == moreLane {
			b.kind = barMore
		}
		if n := len(out); n > 0 && out[n-1].lane == b.lane && (b.lane == moreLane || p.x(b.start)-p.x(out[n-1].end) < 1) &&
			(b.lane == moreLane || p.x(b.end)-p.x(b.start) < 1 || p.x(out[n-1].end)-p.x(out[n-1].start) < 1) {
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

// Layout of the SVG, in pixels; a run's section begins where the one
// before it ended, and the legend follows the last.
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
func (p *picture) x(t time.Time) float64 {
	span := p.end.Sub(p.origin)
	if span <= 0 || !t.After(p.origin) {
		return plotLeft
	}
	if t.After(p.end) {
		t = p.end
	}
	return plotLeft + float64(t.Sub(p.origin))/float64(span)*(svgWidth-plotLeft-plotRight)
}

func laneY(lane int) int { return laneTop + lane*(laneHeight+laneGap) }

// height is the height of a run's section.
func (p *picture) height() int { return laneY(len(p.lanes)) }

// SVG draws the runs laid out so far.
func (t *Timeline) SVG() []byte {
	var b bytes.Buffer
	height := 0
	for _, p := range t.runs {
		height += p.height()
	}
	if len(t.runs) == 0 {
		height = laneTop
	}
	legendY := height + 10
	total := legendY + 40
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="ui-monospace, monospace" font-size="12">`+"\n",
		svgWidth, total, svgWidth, total)
	b.WriteString(`<style>
.model{fill:#4c78a8}.more{fill:#9d9d9d}.tool{fill:#54a24b}.failed{fill:#e45756}.running{fill:#eeca3b}.overlap{fill:#b279a2}
.lane{fill:#f4f4f4}.axis{stroke:#888}.label{fill:#222}.barlabel{fill:#fff}.tick{fill:#555;font-size:10px}
</style>` + "\n")
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", svgWidth, total)
	top := 0
	for i, p := range t.runs {
		title := "uagent run"
		if p.title != "" {
			title = p.title
		}
		if len(t.runs) > 1 {
			title = fmt.Sprintf("run %d · %s", i+1, title)
		}
		p.svg(&b, top, title)
		top += p.height()
	}
	legend := []struct{ kind, text string }{{barModel, "model turn"}, {barTool, "tool ok"}, {barFailed, "tool failed"},
		{barRunning, "still running"}, {barOverlap, "tool–model overlap"}}
	for i, l := range legend {
		x := plotLeft + i*170
		fmt.Fprintf(&b, `<rect class="%s" x="%d" y="%d" width="14" height="14"/><text class="label" x="%d" y="%d">%s</text>`+"\n",
			l.kind, x, legendY, x+20, legendY+12, l.text)
	}
	if t.lineErrors > 0 {
		fmt.Fprintf(&b, `<text class="label" x="10" y="%d" fill="#e45756">%d lines could not be read</text>`+"\n", legendY+32, t.lineErrors)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// svg draws a run's section, top pixels down.
func (p *picture) svg(b *bytes.Buffer, top int, title string) {
	fmt.Fprintf(b, `<text class="label" x="10" y="%d" font-size="14">%s · %s</text>`+"\n", top+22, esc(safetext.OneLine(title, 120)), p.end.Sub(p.origin).Round(time.Millisecond))
	// The time axis.
	fmt.Fprintf(b, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`+"\n", plotLeft, top+axisY, svgWidth-plotRight, top+axisY)
	span := p.end.Sub(p.origin)
	step := tickStep(span)
	for t := time.Duration(0); step > 0 && t <= span; t += step {
		x := p.x(p.origin.Add(t))
		fmt.Fprintf(b, `<line class="axis" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/><text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n",
			x, top+axisY-4, x, top+axisY, x, top+axisY-8, t)
	}
	for i, name := range p.lanes {
		fmt.Fprintf(b, `<rect class="lane" x="%d" y="%d" width="%d" height="%d"/><text class="label" x="10" y="%d">%s</text>`+"\n",
			plotLeft, top+laneY(i), svgWidth-plotLeft-plotRight, laneHeight, top+laneY(i)+15, esc(name))
	}
	for _, br := range p.bars {
		x0, x1 := p.x(br.start), p.x(br.end)
		x0, x1 = min(x0, x1), max(x0, x1) // a reversed interval is drawn where it lies
		w := math.Max(x1-x0, 1)
		dur := br.end.Sub(br.start).Round(time.Millisecond)
		fmt.Fprintf(b, `<rect class="bar %s" x="%.1f" y="%d" width="%.1f" height="%d"><title>%s · %s</title></rect>`+"\n",
			br.kind, x0, top+laneY(br.lane), w, laneHeight, esc(safetext.OneLine(br.label, 200)), dur)
		if chars := int(w / 7); chars >= 4 && br.kind != barOverlap {
			fmt.Fprintf(b, `<text class="barlabel" x="%.1f" y="%d" pointer-events="none">%s</text>`+"\n", x0+3, top+laneY(br.lane)+15, esc(safetext.OneLine(br.label, chars)))
		}
	}
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

// esc XML-escapes text (after safetext, which removes what XML cannot
// hold).
func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
