package ssestream

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/runs"
)

// referenceBars are the intervals of a stream's run by the independent
// reference (runs.Expected), as /intervals and the page's bars carry them:
// kind, start and end in milliseconds since the first line with a time.
func referenceBars(t testing.TB, b []byte) []string {
	var origin time.Time
	for _, l := range lines(b) {
		if len(l) == 0 {
			continue
		}
		var h struct{ At time.Time }
		if json.Unmarshal(l, &h) == nil && !h.At.IsZero() {
			origin = h.At
			break
		}
	}
	out := []string{}
	for _, iv := range runs.Expected(b) {
		out = append(out, iv.Kind+" "+msString(iv.Start.Sub(origin))+" "+msString(iv.End.Sub(origin)))
	}
	return out
}

func msString(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64)
}

// intervalBars reads /intervals as the page does.
func intervalBars(t testing.TB, body []byte) []string {
	var iv struct {
		Turns, Tools []struct{ Start, End float64 }
	}
	require.NoError(t, json.Unmarshal(body, &iv))
	out := []string{}
	for _, kind := range []struct {
		name string
		bars []struct{ Start, End float64 }
	}{{"turn", iv.Turns}, {"tool", iv.Tools}} {
		for _, b := range kind.bars {
			out = append(out, kind.name+" "+strconv.FormatFloat(b.Start, 'f', -1, 64)+" "+strconv.FormatFloat(b.End, 'f', -1, 64))
		}
	}
	return out
}

// /intervals shows the run's intervals as the reference pairs them, on the
// bundled and conformance streams, the edge cases and 2,000 random runs.
func TestIntervalsAreTheReferences(t *testing.T) {
	cases, err := runs.Cases("..", 2000)
	require.NoError(t, err)
	for name, b := range cases {
		rec := recorded(t, b)
		body, err := rec.intervalsJSON()
		require.NoError(t, err)
		want, got := referenceBars(t, b), intervalBars(t, body)
		if !slices.Equal(want, got) {
			t.Fatalf("%s: /intervals (-reference +served):\n%s", name, cmp.Diff(want, got))
		}
	}
}

// /intervals over HTTP: lanes as the SVG timeline lays them out, and the
// notices counted by the package's rule, each at the line it first came on.
func TestIntervalsOverHTTP(t *testing.T) {
	ms := func(n int) time.Time { return runs.T0.Add(time.Duration(n) * time.Millisecond) }
	b := runs.Write([]stream.Event{
		stream.RunStarted{At: ms(0)},
		stream.PreflightWarning{At: ms(1), Code: "a", Message: "m"},
		stream.RunnerError{At: ms(2), Message: "m"},
		stream.PreflightWarning{At: ms(3), Code: "a", Message: "m"},
		stream.ToolStarted{At: ms(10), CallID: "c1", OpID: "o1", Name: "Bash"},
		stream.ToolStarted{At: ms(15), CallID: "c3", OpID: "o3", Name: "Read"},
		stream.ToolFinished{At: ms(20), CallID: "c1", OpID: "o1", OK: true},
		stream.ToolStarted{At: ms(30), CallID: "c2", OpID: "o2", Name: "Bash"},
		stream.ToolFinished{At: ms(40), CallID: "c3", OpID: "o3", OK: false, Detail: "exit 1"},
	})
	srv := httptest.NewServer(NewHandler(recorded(t, b)))
	defer srv.Close()
	res := get(t, srv, "/intervals")
	defer res.Body.Close()
	assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	var iv intervals
	require.NoError(t, json.Unmarshal(body, &iv))
	require.Len(t, iv.Tools, 3)
	assert.Equal(t, []int{0, 1, 0}, []int{iv.Tools[0].Lane, iv.Tools[1].Lane, iv.Tools[2].Lane}, "o2 starts after o1 ended: o1's lane")
	assert.Equal(t, 2, iv.Lanes)
	assert.Equal(t, []bool{false, false, true}, []bool{iv.Tools[0].Open, iv.Tools[1].Open, iv.Tools[2].Open})
	assert.Equal(t, float64(40), iv.End, "the cut-off run ends at its last line")
	assert.Equal(t, []notice{{Line: 2, Count: 2}, {Line: 3, Count: 1}}, iv.Notices, "coalesced by the fold's rule")
	assert.Equal(t, referenceBars(t, b), intervalBars(t, body))
}
