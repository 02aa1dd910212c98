package corpus

import (
	"bytes"
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
