package uahstream

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/sessions"
)

func validate(t *testing.T, b []byte, opts ...stream.ValidateOption) []string {
	t.Helper()
	findings, err := Validate(bytes.NewReader(b), opts...)
	require.NoError(t, err)
	var out []string
	for _, f := range findings {
		out = append(out, f.String())
	}
	return out
}

var twoRuns = sessions.Options{Runs: []sessions.Run{
	{Message: "Run ls twice", Answer: "DONE", Calls: 2, Queued: true},
	{Message: "And again?", Answer: "Again", Calls: 1, Reset: true},
	{Message: "x", CannotStart: true},
}}

// A valid session, in DESIGN.md's order (a queued message starting the
// next run at once, a reset stream, a run that could not start, a resumed
// session), has no finding, strict or not; each run alone is a valid
// stream.
func TestAValidSession(t *testing.T) {
	for _, o := range []sessions.Options{twoRuns, {Resumed: true, Runs: twoRuns.Runs[:1]}} {
		b := sessions.Write(o)
		assert.Empty(t, validate(t, b))
		assert.Empty(t, validate(t, b, stream.WithStrict()))
		for _, run := range runLines(b) {
			f, err := stream.Validate(bytes.NewReader(run), stream.WithStrict())
			require.NoError(t, err)
			assert.Empty(t, f)
		}
	}
}

// lineOf is the 1-based line of the first line of b that holds s.
func lineOf(b []byte, s string) int {
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	return 0
}

// Each session rule, on a session broken for it alone.
func TestTheSessionsRules(t *testing.T) {
	good := sessions.Write(twoRuns)
	lines := strings.SplitAfter(string(good), "\n")
	without := func(typ string) []byte {
		var b strings.Builder
		for _, l := range lines {
			if !strings.Contains(l, `"type":"`+typ+`"`) {
				b.WriteString(l)
			}
		}
		return []byte(b.String())
	}

	t.Run("a stream whose first line is not session_opened is a run's", func(t *testing.T) {
		got := validate(t, without("session_opened"))
		require.NotEmpty(t, got)
		assert.Equal(t, "1: the first line is instructions_loaded, want run_started (first)", got[0])
		for _, f := range got {
			assert.NotContains(t, f, "[run ", "no run of a session")
		}
		assert.Equal(t, []string{"0: no line: only a run blocked in preflight (exit 2) writes none (ended)"}, validate(t, nil))
	})
	t.Run("a run_started while a run is open", func(t *testing.T) {
		var b strings.Builder
		dropped := false
		for _, l := range lines {
			if !dropped && strings.Contains(l, `"type":"run_finished"`) {
				dropped = true // the first run loses its run_finished
				continue
			}
			b.WriteString(l)
		}
		in := []byte(b.String())
		second := lineOf(in, `"run_id":"20261001-215706-294542e3"`)
		got := validate(t, in)
		require.Len(t, got, 2, "%q", got)
		assert.Contains(t, got, itoa(second)+": run_started while run 1 (line 5) is open: it has no run_finished (run-open)")
		assert.Contains(t, got, `5: no run_finished: the stream was cut off after line `+itoa(second-1)+` (run-finished) [run 1 "20261001-215705-294542e3"]`,
			"the run's own finding, at its run_started, counting the session's lines")
	})
	t.Run("input_delivered of a message never sent", func(t *testing.T) {
		in := without("input_sent")
		got := validate(t, in)
		require.Len(t, got, 2, "%q", got)
		assert.Equal(t, itoa(lineOf(in, `"type":"input_delivered"`))+`: input_delivered of "m1", which no input_sent sent (delivered)`, got[0])
	})
	t.Run("a uagent event outside a run", func(t *testing.T) {
		in := append(append([]byte(nil), good...), []byte(`{"v":1,"type":"assistant_message","at":"2026-10-01T18:58:00Z","turn":1,"text":"stray"}`+"\n")...)
		assert.Equal(t, []string{itoa(len(lines)) + ": assistant_message outside a run: uagent's events stand between run_started and run_finished (in-run)"}, validate(t, in))
	})
	t.Run("a harness line of the wrong types", func(t *testing.T) {
		in := bytes.Replace(good, []byte(`"ids":["m1"]`), []byte(`"ids":"m1"`), 1)
		got := validate(t, in)
		require.NotEmpty(t, got)
		assert.Regexp(t, `^4: byte \d+: input_sent: field "ids": wrong JSON type: want array, got string \(json\)$`, got[0])
	})
	t.Run("a run's own rules, named by the run", func(t *testing.T) {
		in := bytes.Replace(good, []byte(`"turns":2`), []byte(`"turns":7`), 1)
		got := validate(t, in)
		require.Len(t, got, 1)
		assert.Equal(t, itoa(lineOf(in, `"turns":7`))+`: stats.turns is 7, recomputed 2 (stats) [run 1 "20261001-215705-294542e3"]`, got[0])
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// Read with borrowed strings, a byte a read (every read writes over the
// line before), a session's findings are those read with strings of
// their own: what the checks keep past a line, they copy.
func TestValidateWithBorrowedStrings(t *testing.T) {
	b := sessions.Write(twoRuns)
	var cut []byte // every run without its run_finished: findings that name runs
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !strings.Contains(l, `"type":"run_finished"`) {
			cut = append(cut, l...)
		}
	}
	for _, in := range [][]byte{b, cut} {
		want, err := NewReader(bytes.NewReader(in), stream.WithFoldOnly()).Validate()
		require.NoError(t, err)
		got, err := NewReader(iotest.OneByteReader(bytes.NewReader(in)), stream.WithFoldOnly(), stream.WithBorrowedStrings()).Validate()
		require.NoError(t, err)
		require.Equal(t, want, got)
		if bytes.Equal(in, cut) {
			require.True(t, slices.ContainsFunc(got, func(f Finding) bool { return f.RunID != "" }), "a finding names its run: %v", got)
		}
	}
}
