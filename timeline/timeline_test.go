package timeline

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/runs"
	"github.com/uagentkit/stream/internal/sessions"
	"github.com/uagentkit/stream/internal/testenv"
	"github.com/uagentkit/stream/uahstream"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// lay reads b through its session (keeping the texts the bars show) into
// a Timeline.
func lay(t testing.TB, b []byte) *Timeline {
	t.Helper()
	rd := uahstream.NewReader(bytes.NewReader(b))
	rd.Session().KeepText()
	var tl Timeline
	for l := range rd.Lines() {
		tl.Add(l)
	}
	return &tl
}

func parseSVG(t *testing.T, b []byte) testenv.SVG { return testenv.ParseSVG(t, b) }

func TestParallelToolsGetTheirOwnLanes(t *testing.T) {
	var buf bytes.Buffer
	s := stream.NewSink(&buf)
	at := time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return at.Add(time.Duration(n) * time.Millisecond) }
	s.Emit(stream.RunStarted{At: ms(0)})
	s.Emit(stream.TurnStarted{At: ms(0), Turn: 1})
	start := func(op string, n int) { s.Emit(stream.ToolStarted{At: ms(n), CallID: op, OpID: op, Name: "T"}) }
	finish := func(op string, n int) {
		s.Emit(stream.ToolFinished{At: ms(n), CallID: op, OpID: op, Name: "T", OK: true})
	}
	start("a", 10)
	start("b", 20)
	finish("b", 30)
	start("c", 30)
	s.Emit(stream.ModelResponded{At: ms(40), Turn: 1})
	finish("a", 50)
	start("d", 50)
	finish("c", 60)
	finish("d", 70)
	p := lay(t, buf.Bytes()).runs[0]
	var lanes []int
	var overlap []string
	slices.SortStableFunc(p.bars, func(a, b bar) int { return a.start.Compare(b.start) })
	for _, b := range p.bars {
		switch b.kind {
		case barTool:
			lanes = append(lanes, b.lane)
		case barOverlap:
			overlap = append(overlap, fmt.Sprint(b.start.Sub(at), "-", b.end.Sub(at)))
		}
	}
	assert.Equal(t, []int{2, 3, 3, 2}, lanes, "back-to-back tools share a lane; overlapping ones do not")
	assert.Equal(t, []string{"10ms-40ms"}, overlap)
	sum, err := stream.Summarize(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, int64(30), sum.Summary.Stats.ToolModelOverlapMS, "the picture and the stats agree")
}

// manyOps writes a run with n tool operations: all open at once when
// parallel, else one after the other.
func manyOps(t testing.TB, n int, parallel bool) []byte {
	var buf bytes.Buffer
	s := stream.NewSink(&buf)
	at := time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)
	ms := func(i int) time.Time { return at.Add(time.Duration(i) * time.Millisecond) }
	s.Emit(stream.RunStarted{At: at})
	for i := range n {
		id := strconv.Itoa(i)
		if parallel {
			s.Emit(stream.ToolStarted{At: ms(i), CallID: id, OpID: id, Name: "Bash", Label: "sleep"})
			continue
		}
		s.Emit(stream.ToolStarted{At: ms(2 * i), CallID: id, OpID: id, Name: "Bash", Label: "true"})
		s.Emit(stream.ToolFinished{At: ms(2*i + 1), CallID: id, OpID: id, Name: "Bash", Label: "true", OK: i%7 != 0, Detail: "exit 0"})
	}
	if parallel {
		for i := range n {
			id := strconv.Itoa(i)
			s.Emit(stream.ToolFinished{At: ms(n + i), CallID: id, OpID: id, Name: "Bash", OK: true})
		}
	}
	s.Emit(stream.RunFinished{At: ms(2 * n), Result: stream.Result{Status: stream.StatusOK}})
	require.NoError(t, s.Err())
	return buf.Bytes()
}

func TestTimelineCapsLanesAndBars(t *testing.T) {
	const n = 20000
	t.Run("all at once", func(t *testing.T) {
		tl := lay(t, manyOps(t, n, true))
		p := tl.runs[0]
		require.Len(t, p.lanes, 2+MaxToolLanes+1)
		assert.Equal(t, fmt.Sprintf("+%d more", n-MaxToolLanes), p.lanes[len(p.lanes)-1])
		svg := tl.SVG()
		assert.Less(t, len(svg), 1<<20)
		doc := parseSVG(t, svg)
		var more []string
		for _, r := range doc.Rects {
			if r.Class == "bar more" {
				more = append(more, r.Title)
			}
		}
		assert.Equal(t, []string{fmt.Sprintf("%d operations · 39.975s", n-MaxToolLanes)}, more, "the overflow lane is one bar that counts")
	})
	t.Run("one after the other", func(t *testing.T) {
		tl := lay(t, manyOps(t, n, false))
		p := tl.runs[0]
		require.Len(t, p.lanes, 3, "back-to-back operations share one lane")
		svg := tl.SVG()
		assert.Less(t, len(svg), 1<<20, "sub-pixel bars are merged")
		total := 0
		for _, b := range p.bars {
			if b.lane == 2 {
				total += max(b.count, 1)
			}
		}
		assert.Equal(t, n, total, "every operation is counted in some bar")
	})
}

// The timeline's bars, before bars within a pixel are merged, are the
// run's intervals as the independent reference pairs them: on the bundled
// and conformance streams, the edge cases and 2,000 random runs.
func TestTimelineBarsAreTheReferences(t *testing.T) {
	cases, err := runs.Cases("..", 2000)
	require.NoError(t, err)
	for name, b := range cases {
		tl := lay(t, b)
		require.Len(t, tl.runs, 1, "a run's stream is one run")
		var want, got []string
		for _, iv := range runs.Expected(b) {
			want = append(want, iv.String())
		}
		for _, br := range tl.runs[0].paired {
			switch {
			case br.lane == 0:
				got = append(got, runs.Interval{Kind: "turn", Start: br.start, End: br.end}.String())
			case br.kind != barOverlap:
				got = append(got, runs.Interval{Kind: "tool", Start: br.start, End: br.end}.String())
			}
		}
		if !slices.Equal(want, got) {
			t.Fatalf("%s: timeline (-reference +bars):\n%s", name, cmp.Diff(want, got))
		}
	}
}

// A session's runs are each drawn from their own fold, one below the
// other: the turns of one run are not the other's (each run's turns count
// from 1), and each section has its run's title.
func TestASessionIsARunPerSection(t *testing.T) {
	b := sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "one", Answer: "A", Calls: 2}, {Message: "two", Answer: "B"}}})
	tl := lay(t, b)
	require.Len(t, tl.runs, 2)
	assert.Equal(t, 2, tl.Runs())
	for i, p := range tl.runs {
		var turns []string
		for _, br := range p.paired {
			if br.lane == 0 {
				turns = append(turns, br.label)
			}
		}
		want := []string{"turn 1", "turn 2"}[:2-i]
		assert.Equal(t, want, turns, "run %d: its own turns", i+1)
		assert.Contains(t, p.title, fmt.Sprintf("20261001-2157%02d-294542e3", 5+i))
	}
	doc := parseSVG(t, tl.SVG())
	var titles []string
	for _, txt := range doc.Texts {
		if strings.HasPrefix(txt, "run ") {
			titles = append(titles, txt[:5])
		}
	}
	assert.Equal(t, []string{"run 1", "run 2"}, titles)
	one := lay(t, b[:bytes.Index(b, []byte(`"type":"idle"`))]) // the first run alone, in a session
	require.Len(t, one.runs, 1)
	assert.NotContains(t, string(one.SVG()), ">run 1 ·", "one run is drawn as a run's stream is")
}
