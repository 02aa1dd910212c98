package termstream

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/uagentkit/stream/uahstream"
)

// RenderUntil stops at the line after which enough says so, and says no
// end; with nil it renders what Render renders.
func TestRenderUntilStops(t *testing.T) {
	f, err := os.Open("../testdata/run.jsonl")
	require.NoError(t, err)
	defer f.Close()
	var whole strings.Builder
	s := new(uahstream.Session)
	_, err = New(&whole, s, Options{}).RenderUntil(s.Reader(f), nil)
	require.NoError(t, err)

	_, err = f.Seek(0, 0)
	require.NoError(t, err)
	var part strings.Builder
	s = new(uahstream.Session)
	lines := 0
	_, err = New(&part, s, Options{}).RenderUntil(s.Reader(f), func() bool { lines++; return lines == 3 })
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(whole.String(), part.String()), "the start of the whole")
	assert.Less(t, part.Len(), whole.Len())
	assert.NotContains(t, part.String(), "── ok", "no end said")
	assert.Contains(t, whole.String(), "── ok")
}
