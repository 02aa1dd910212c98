package termstream

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/sessions"
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

// Render renders a stream whole, its end said by the session's verdict;
// it reports a run still going at the end, and returns the reader's own
// error, not a line's.
func TestRender(t *testing.T) {
	b, err := os.ReadFile("../testdata/run.jsonl")
	require.NoError(t, err)
	var whole bytes.Buffer
	rd := uahstream.NewReader(bytes.NewReader(b))
	running, err := New(&whole, rd.Session(), Options{}).Render(rd)
	require.NoError(t, err)
	assert.False(t, running)
	var byHand countingWriter
	renderAll(&byHand, b, Options{})
	assert.Equal(t, byHand.String(), whole.String(), "as Add and Finish render it")

	cut := b[:bytes.LastIndex(b, []byte(`{"v":1,"type":"run_finished"`))]
	broken := errors.New("the disk went away")
	rd = uahstream.NewReader(io.MultiReader(bytes.NewReader(cut), iotest.ErrReader(broken)))
	var out bytes.Buffer
	running, err = New(&out, rd.Session(), Options{}).Render(rd)
	assert.ErrorIs(t, err, broken)
	assert.True(t, running, "cut off: a run was going")
	assert.Contains(t, out.String(), "cut_off")
}

// cat reads with borrowed strings: what it shows of a stream read a byte
// at a time (every read writes over the line before) is what it shows of
// the stream read with strings of their own, answers and sessions
// included.
func TestRendersBorrowedStringsAlike(t *testing.T) {
	streams := map[string][]byte{"session": sessions.Write(sessions.Options{Runs: []sessions.Run{
		{Message: "Run ls twice", Answer: "DONE", Calls: 2, Queued: true},
		{Message: "And again?", Answer: "Again", Calls: 1, Reset: true},
	}})}
	paths, _ := filepath.Glob("../testdata/*.jsonl")
	conf, _ := filepath.Glob("../../shared/conformance/*.jsonl")
	for _, p := range append(paths, conf...) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		streams[filepath.Base(p)] = b
	}
	show := func(rd *uahstream.Reader, o Options) string {
		var out bytes.Buffer
		r := New(&out, rd.Session(), o)
		for l := range rd.Lines() {
			r.Add(l)
		}
		r.Finish(rd.Session().Verdict())
		r.Flush()
		return out.String()
	}
	for name, b := range streams {
		for _, o := range []Options{{}, {ToolOutput: true}} {
			want := show(uahstream.NewReader(bytes.NewReader(b)), o)
			got := show(uahstream.NewReader(iotest.OneByteReader(bytes.NewReader(b)), stream.WithBorrowedStrings()), o)
			require.Equal(t, want, got, name)
		}
	}
}
