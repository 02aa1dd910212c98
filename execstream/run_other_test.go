//go:build !unix && !windows

package execstream

import (
	"context"
	"errors"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
)

// Where there are no processes, Start says so, and Open still replays.
func TestStartIsUnsupported(t *testing.T) {
	_, err := Start(context.Background(), exec.Command("uagent", "--stream"))
	require.ErrorIs(t, err, errors.ErrUnsupported)
	assert.Contains(t, err.Error(), "stream: start ")

	r, err := Open("../testdata/run.jsonl")
	require.NoError(t, err)
	o, err := r.Wait()
	require.NoError(t, err)
	assert.Equal(t, stream.EndFinished, o.Ending)
	assert.Equal(t, 21, o.Lines)
}
