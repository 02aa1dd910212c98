package corpus

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
)

func TestRealCorpusHasItsShape(t *testing.T) {
	b := Generate(Real(16 << 20))
	assert.Equal(t, b, Generate(Real(16<<20)), "deterministic")
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	var sorted, escaped, long, longBytes int
	for _, l := range lines {
		if !bytes.HasPrefix(l, []byte(`{"v":1,"type":`)) { // the writer's order starts so; sorted keys do not
			sorted++
		}
		if bytes.Contains(l, []byte(`\u00e9`)) {
			escaped++
		}
		if len(l) >= 1<<20 {
			long++
			longBytes += len(l)
		}
	}
	assert.InDelta(t, 0.25, float64(sorted)/float64(len(lines)), 0.03, "a quarter of the lines have sorted keys")
	assert.Positive(t, escaped, "some non-ASCII is written as \\uXXXX")
	assert.Equal(t, 4, long, "four lines of 1–4 MB")
	assert.InDelta(t, 1.0/3, float64(longBytes)/float64(len(b)), 0.08, "holding about a third of the bytes")
	// Every run of the corpus is a valid stream.
	var runs [][]byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if bytes.Contains(l, []byte(`"type":"run_started"`)) {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], l...)
	}
	require.Greater(t, len(runs), 10)
	for i, run := range runs {
		findings, err := stream.Validate(bytes.NewReader(run))
		require.NoError(t, err)
		require.Empty(t, findings[:min(3, len(findings))], "run %d", i)
	}
}

func TestRecordsHaveTheirShape(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, WriteRecords(&a, Real(4<<20)))
	require.NoError(t, WriteRecords(&b, Real(4<<20)))
	assert.Equal(t, a.Bytes(), b.Bytes(), "deterministic")
	assert.GreaterOrEqual(t, a.Len(), 4<<20)
	var responses, attributed, lenient, statuses, whole int
	for l := range bytes.SplitSeq(bytes.TrimSuffix(a.Bytes(), []byte("\n")), []byte("\n")) {
		require.True(t, json.Valid(l), "every record is JSON")
		switch {
		case bytes.Contains(l, []byte(`"Kind":"model_response"`)):
			responses++
			if bytes.Contains(l, []byte(`"attribution":{"items":{`)) {
				attributed++
			}
			if bytes.Contains(l, []byte(`"InputTokens":"`)) {
				lenient++
			}
		case bytes.Contains(l, []byte(`"Kind":"tool_call_status"`)):
			statuses++
			if bytes.Contains(l, []byte(`"Status":"completed","State":{"Input":{"Command":`)) && bytes.Contains(l, []byte(`"Result":{"Out":`)) {
				whole++
			}
		}
	}
	assert.Equal(t, responses-1, attributed, "every response but the last carries the raw attribution")
	assert.Positive(t, lenient, "some records need the lenient reading")
	assert.Less(t, lenient, responses/50)
	assert.Equal(t, statuses/3, whole, "each operation is recorded three times, the last with its whole state")
}
