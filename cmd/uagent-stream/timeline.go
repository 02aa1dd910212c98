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
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/span"
)

func cmdTimeline(e env, args []string) error {
	fs := flags(e, "timeline", "[-o OUT.svg] FILE|-")
	out := fs.String("o", "", "write the SVG to this file instead of standard output")
	_, in, err := parseInput(e, fs, args)
	if err != nil {
		return err
	}
	defer in.Close()
	tl, err := buildTimeline(stream.NewDecoder(in))
	if err != nil {
		return err
	}
	svg := tl.svg()
	if *out == "" {
		_, err = e.stdout.Write(svg)
		return err
	}
	return os.WriteFile(*out, svg, 0o644)
}

// Bar kinds, which are also the SVG classes of the bars.
const (
	barModel   = "model"
	barOverlap = "overlap"
	barTool    = "tool"
	barFailed  = "failed"
	barRunning = "running"
)

type bar struct {
	lane       int
	kind       string
	label      string
	start, end time.Time
}

type timeline struct {
	title      string
	origin     time.Time
	end        time.Time
	lanes      []string
	bars       []bar
	lineErrors int
}

// buildTimeline reads a stream into bars: one lane for model turns, one for
// the time tools ran while the model was generating, and as many tool lanes
// as tools ran at once. Pairing follows the stats rules: a second
// turn_started replaces the start, the first tool_started of an op wins.
func buildTimeline(dec *stream.Decoder) (*timeline, error) {
	tl := &timeline{lanes: []string{"model", "overlap"}}
	type openTurn struct {
		turn  int
		start time.Time
	}
	var (
		turn     *openTurn
		tools    []bar
		opIndex  = map[string]int{}
		finished bool
	)
	seen := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if tl.origin.IsZero() || t.Before(tl.origin) {
			tl.origin = t
		}
		if t.After(tl.end) {
			tl.end = t
		}
	}
	for dto, err := range dec.All() {
		if err != nil {
			if _, ok := errors.AsType[*stream.LineError](err); !ok {
				return nil, err
			}
			tl.lineErrors++
			continue
		}
		if finished {
			continue
		}
		switch d := dto.(type) {
		case stream.RunStartedDTO:
			tl.title = fmt.Sprintf("%s · %s %s", d.RunID, d.Provider, d.Model)
			seen(d.At)
		case stream.TurnStartedDTO:
			seen(d.At)
			turn = &openTurn{d.Turn, d.At}
		case stream.ModelRespondedDTO:
			seen(d.At)
			if turn != nil {
				tl.bars = append(tl.bars, bar{lane: 0, kind: barModel, label: fmt.Sprintf("turn %d", turn.turn), start: turn.start, end: d.At})
				turn = nil
			}
		case stream.ToolStartedDTO:
			seen(d.At)
			if _, ok := opIndex[d.OpID]; !ok && d.OpID != "" {
				opIndex[d.OpID] = len(tools)
				tools = append(tools, bar{kind: barRunning, label: d.Name + ": " + d.Label, start: d.At})
			}
		case stream.ToolFinishedDTO:
			seen(d.At)
			if i, ok := opIndex[d.OpID]; ok && tools[i].kind == barRunning {
				tools[i].end, tools[i].kind = d.At, barTool
				if !d.OK {
					tools[i].kind = barFailed
				}
				tools[i].label += " · " + d.Detail
			}
		case stream.RunFinishedDTO:
			seen(d.At)
			finished = true
		case stream.UnknownDTO:
		default:
			if ev, ok := stream.DTOToEvent(dto); ok {
				seen(ev.OccurredAt())
			}
		}
	}
	if turn != nil {
		tl.bars = append(tl.bars, bar{lane: 0, kind: barModel, label: fmt.Sprintf("turn %d (unanswered)", turn.turn), start: turn.start, end: tl.end})
	}
	for i := range tools {
		if tools[i].kind == barRunning {
			tools[i].end = tl.end
			tools[i].label += " · still running"
		}
	}
	// Parallel tools go on separate lanes: each tool takes the first lane
	// free at its start.
	slices.SortStableFunc(tools, func(a, b bar) int { return a.start.Compare(b.start) })
	var laneEnds []time.Time
	for i := range tools {
		lane := slices.IndexFunc(laneEnds, func(end time.Time) bool { return !end.After(tools[i].start) })
		if lane < 0 {
			lane = len(laneEnds)
			laneEnds = append(laneEnds, time.Time{})
			tl.lanes = append(tl.lanes, fmt.Sprintf("tools %d", lane+1))
		}
		laneEnds[lane] = tools[i].end
		tools[i].lane = lane + 2
	}
	tl.bars = append(tl.bars, overlapBars(tl.bars, tools)...)
	tl.bars = append(tl.bars, tools...)
	return tl, nil
}

// overlapBars are the times tools ran while the model was generating,
// computed as the stats compute tool_model_overlap_ms.
func overlapBars(model, tools []bar) []bar {
	spans := func(bs []bar) []span.Span {
		out := make([]span.Span, len(bs))
		for i, b := range bs {
			out[i] = span.Span{Start: b.start, End: b.end}
		}
		return span.Merge(out)
	}
	var out []bar
	for _, s := range span.Intersect(spans(model), spans(tools)) {
		out = append(out, bar{lane: 1, kind: barOverlap, label: "tools ran while the model generated", start: s.Start, end: s.End})
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

func (tl *timeline) x(t time.Time) float64 {
	span := tl.end.Sub(tl.origin)
	if span <= 0 {
		return plotLeft
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
.model{fill:#4c78a8}.tool{fill:#54a24b}.failed{fill:#e45756}.running{fill:#eeca3b}.overlap{fill:#b279a2}
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
