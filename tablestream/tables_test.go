package tablestream

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/internal/runs"
	"github.com/uagentkit/stream/internal/sessions"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The rows add up to the run's stats, from the same fold: summing the
// turns' tokens gives the run's tokens, counting distinct call_ids by name
// gives tools_by_name, every call appears, failed calls are the calls with
// call_failed; the turn rows with a start are the fold's intervals. On the
// bundled and conformance streams, the edge cases and 3,000 random runs.
func TestRowsAddUpToTheStats(t *testing.T) {
	cases, err := runs.Cases("..", 3000)
	require.NoError(t, err)
	for name, b := range cases {
		sum, err := stream.Summarize(bytes.NewReader(b))
		require.NoError(t, err)
		st := sum.Summary.Stats
		tbs, err := Read(bytes.NewReader(b))
		require.NoError(t, err)
		require.Len(t, tbs, 1, "%s: a run's stream is one run", name)
		tb := tbs[0]

		var tok Tokens
		for _, r := range tb.Turns {
			tok.TokensInput += r.TokensInput
			tok.TokensCachedInput += r.TokensCachedInput
			tok.TokensCacheWriteInput += r.TokensCacheWriteInput
			tok.TokensOutput += r.TokensOutput
			tok.TokensReasoning += r.TokensReasoning
		}
		want := Tokens{st.Tokens.Input, st.Tokens.CachedInput, st.Tokens.CacheWriteInput, st.Tokens.Output, st.Tokens.Reasoning}
		require.Equal(t, want, tok, "%s: the turns' tokens are the run's", name)
		require.Equal(t, want, tb.Run.Tokens, name)

		byName := map[string]map[string]bool{}
		failed := map[string]bool{}
		for _, r := range tb.ToolCalls {
			if byName[r.Name] == nil {
				byName[r.Name] = map[string]bool{}
			}
			byName[r.Name][r.CallID] = true
			if r.CallFailed {
				failed[r.CallID] = true
			}
		}
		counted := map[string]int{}
		calls := map[string]bool{}
		for n, ids := range byName {
			counted[n] = len(ids)
			for id := range ids {
				calls[id] = true
			}
		}
		require.Equal(t, st.ToolsByName, counted, "%s: distinct call_ids by name are tools_by_name", name)
		require.Len(t, calls, st.ToolCalls, "%s: every call appears", name)
		require.Len(t, failed, st.FailedToolCalls, "%s: failed calls", name)
		require.Equal(t, st.ToolCalls, int(tb.Run.ToolCalls))

		var wantTurns, gotTurns []string
		var wantTools, gotTools []string
		for _, iv := range runs.Expected(b) {
			s := iv.Kind + " " + col(ts(iv.Start)) + " " + col(ts(iv.End))
			if iv.Kind == "turn" {
				wantTurns = append(wantTurns, s)
			} else {
				wantTools = append(wantTools, s)
			}
		}
		for _, r := range tb.Turns {
			if r.DurationMS != nil { // a turn, not a response that closed none
				gotTurns = append(gotTurns, "turn "+col(r.StartedAt)+" "+col(r.EndedAt))
			}
		}
		for _, r := range tb.ToolCalls[:len(wantTools)] {
			gotTools = append(gotTools, "tool "+col(r.StartedAt)+" "+col(r.EndedAt))
		}
		slices.Sort(wantTurns)
		slices.Sort(gotTurns)
		require.Equal(t, wantTurns, gotTurns, "%s: the turn rows are the fold's turns", name)
		require.Equal(t, wantTools, gotTools, "%s: the first tool rows are the fold's operations, in order", name)
	}
}

// Without content, no text a person or a model wrote is in a row; with
// it, the messages, tool arguments and the answer are.
func TestContentOnlyWhenAsked(t *testing.T) {
	b := runs.Write(append(runs.Edges()["replaced turn"][:1],
		stream.UserMessage{At: runs.T0, ID: "u", Text: "secret prompt"},
		stream.ToolCalled{At: runs.T0, CallID: "c", Name: "Bash", Label: "ls", Arguments: `{"secret":"args"}`},
		stream.AssistantMessage{At: runs.T0, Text: "secret answer", Final: true},
		stream.RunFinished{At: runs.T0, Result: stream.Result{Status: stream.StatusOK, Answer: "secret answer"}}))
	tb := readOne(t, bytes.NewReader(b))
	assert.Empty(t, tb.Messages)
	assert.Nil(t, tb.Run.Answer)
	require.Len(t, tb.ToolCalls, 1)
	assert.Nil(t, tb.ToolCalls[0].Arguments)
	assert.Nil(t, tb.ToolCalls[0].OK, "never finished")
	tb = readOne(t, bytes.NewReader(b), WithContent(), WithFile("f.jsonl"))
	require.Len(t, tb.Messages, 2)
	assert.Equal(t, "secret prompt", tb.Messages[0].Text)
	assert.Equal(t, "assistant", tb.Messages[1].Role)
	assert.Equal(t, "secret answer", *tb.Run.Answer)
	assert.Equal(t, `{"secret":"args"}`, *tb.ToolCalls[0].Arguments)
	assert.Equal(t, "f.jsonl", tb.Run.File)
}

// A file that is not a stream, a cut-off run and unreadable lines are rows
// that say what they are.
func TestBadInputIsARow(t *testing.T) {
	tb := readOne(t, strings.NewReader("not a stream\nat all\n"))
	assert.Equal(t, int64(2), tb.Run.LineErrors)
	assert.Equal(t, int64(2), tb.Run.Lines, "lines, of which none could be read")
	assert.True(t, tb.Run.CutOff)
	tb = readOne(t, bytes.NewReader(runs.Write(runs.Edges()["cut off"])))
	assert.True(t, tb.Run.CutOff)
	require.Len(t, tb.Turns, 1)
	assert.True(t, tb.Turns[0].Open)
	require.Len(t, tb.ToolCalls, 1)
	assert.Nil(t, tb.ToolCalls[0].OK, "still running")
	assert.Equal(t, "edge", tb.Turns[0].RunID)
	boom := errors.New("boom")
	_, err := Read(iotest.ErrReader(boom))
	assert.ErrorIs(t, err, boom)
}

// WithStreamOptions reaches the Decoder: a line over its limit is a line
// error of the run.
func TestWithStreamOptions(t *testing.T) {
	b, err := os.ReadFile("../testdata/run.jsonl")
	require.NoError(t, err)
	all := readOne(t, bytes.NewReader(b))
	assert.Zero(t, all.Run.LineErrors)
	limited := readOne(t, bytes.NewReader(b), WithStreamOptions(stream.WithMaxLineSize(200)))
	assert.Positive(t, limited.Run.LineErrors, "lines over 200 bytes")
	assert.Equal(t, all.Run.Lines, limited.Run.Lines)
}

// readOne reads a run's stream: one run's tables.
func readOne(t *testing.T, r io.Reader, opts ...Option) Tables {
	t.Helper()
	tbs, err := Read(r, opts...)
	require.NoError(t, err)
	require.Len(t, tbs, 1)
	return tbs[0]
}

// col shows a nullable time column.
func col(t *time.Time) string {
	if t == nil {
		return "null"
	}
	return t.Format(time.RFC3339Nano)
}

// A session stream's runs are each a run's rows, as if its lines stood
// alone: the runs rows equal those of each run read alone, and nothing of
// the session's own lines is a row.
func TestASessionIsARunsRows(t *testing.T) {
	b := sessions.Write(sessions.Options{Runs: []sessions.Run{
		{Message: "one", Answer: "A", Calls: 2}, {Message: "two", Answer: "B", Calls: 1, Failed: true}, {Message: "x", CannotStart: true}}})
	got, err := Read(bytes.NewReader(b), WithContent())
	require.NoError(t, err)
	require.Len(t, got, 2, "a Tables for each run")
	var alone [][]byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if bytes.Contains(l, []byte(`"type":"run_started"`)) {
			alone = append(alone, nil)
		}
		if len(alone) > 0 && !bytes.Contains(l, []byte(`"type":"input_`)) && !bytes.Contains(l, []byte(`_delta"`)) &&
			!bytes.Contains(l, []byte(`"type":"idle"`)) && !bytes.Contains(l, []byte(`"type":"notice"`)) {
			alone[len(alone)-1] = append(alone[len(alone)-1], l...)
		}
	}
	for i, tb := range got {
		want := readOne(t, bytes.NewReader(alone[i]), WithContent())
		want.Run.Lines, tb.Run.Lines = 0, 0 // the session's run has its harness lines too
		assert.Equal(t, want, tb, "run %d", i+1)
	}
	assert.Equal(t, int64(1), got[1].Run.FailedToolCalls)
}

// A run's row says what it would cost: by the built-in table (gpt-6-sol
// of openai-codex, testdata/run.jsonl: 843×2 + 512×0.20 + 80×10 per
// million), or by the table WithPrices gives; null for a model with no
// row.
func TestRunRowCost(t *testing.T) {
	read := func(opts ...Option) RunRow {
		f, err := os.Open("../testdata/run.jsonl")
		require.NoError(t, err)
		defer f.Close()
		tables, err := Read(f, opts...)
		require.NoError(t, err)
		require.Len(t, tables, 1)
		return tables[0].Run
	}
	row := read()
	require.NotNil(t, row.CostUSD)
	assert.InDelta(t, 0.0025884, *row.CostUSD, 1e-12)
	assert.Equal(t, "2026-10-06", row.PricesChecked)
	other, err := history.ParsePrices(strings.NewReader(`[{"provider": "openai-codex", "model": "gpt-6-sol", "checked": "2026-12-01", "input": 1, "cached_input": 1, "cache_write_input": null, "output": 1}]`))
	require.NoError(t, err)
	row = read(WithPrices(other))
	require.NotNil(t, row.CostUSD)
	assert.InDelta(t, (1355.0+80)/1e6, *row.CostUSD, 1e-12)
	assert.Equal(t, "2026-12-01", row.PricesChecked)
	row = read(WithPrices(history.Prices{}))
	assert.Nil(t, row.CostUSD, "no row: null, never 0")
	assert.Empty(t, row.PricesChecked)
}
