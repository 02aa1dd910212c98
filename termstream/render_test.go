package termstream

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/uahstream"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// countingWriter counts the Write calls.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	return c.Buffer.Write(p)
}

// renderAll renders a whole stream, as cat does.
func renderAll(w *countingWriter, b []byte, o Options) {
	rd := uahstream.NewReader(bytes.NewReader(b))
	r := New(w, rd.Session(), o)
	for l := range rd.Lines() {
		r.Add(l)
	}
	r.Finish(rd.Session().Verdict())
	r.Flush()
}

func TestWritesThroughABuffer(t *testing.T) {
	b, err := os.ReadFile("../testdata/run.jsonl")
	require.NoError(t, err)
	var w countingWriter
	renderAll(&w, b, Options{})
	assert.Equal(t, 1, w.writes, "one write for the whole run")

	var live countingWriter
	renderAll(&live, b, Options{Live: true})
	assert.GreaterOrEqual(t, live.writes, 15, "live, every event that prints is flushed as it comes")
	assert.Equal(t, w.String(), live.String())
}
