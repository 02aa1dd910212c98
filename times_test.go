package stream_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/uagentkit/stream"
)

// A summary whose times cannot be right is said, as a warning: a negative
// wall_ms, a started_at after its run_finished.
func TestTimesThatCannotBeAreWarnings(t *testing.T) {
	run, err := os.ReadFile("testdata/run.jsonl")
	require.NoError(t, err)
	for _, c := range []struct{ from, to, want string }{
		{`"wall_ms":5521`, `"wall_ms":-600000`, `wall_ms is -600000, want 0 or more (a run's wall time)`},
		{`"started_at":"2026-09-23T12:39:18.96Z"`, `"started_at":"2026-09-23T12:40:00Z"`,
			`started_at is "2026-09-23T12:40:00Z", want at or before the run_finished line's at, "2026-09-23T12:39:24.481Z" (the times run backwards)`},
	} {
		lying := strings.Replace(string(run), c.from, c.to, 1)
		require.NotEqual(t, string(run), lying)
		findings, err := stream.Validate(bytes.NewReader([]byte(lying)))
		require.NoError(t, err)
		require.Len(t, findings, 1, c.to)
		assert.Equal(t, stream.RuleTimes, findings[0].Rule)
		assert.True(t, findings[0].Warning())
		assert.Equal(t, c.want, findings[0].Message)
	}
	findings, err := stream.Validate(bytes.NewReader(run))
	require.NoError(t, err)
	assert.Empty(t, findings, "the recorded run's times are right")
}
