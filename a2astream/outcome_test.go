package a2astream

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/execstream"
)

// Cancel acts on the run, not on what a client has read: a task whose
// run had ended on its own when CancelTask came keeps the run's state
// (completed for ok, failed for a run that failed); one whose run the
// cancel interrupted (interrupted, or cut off by the kill after the
// grace) is canceled.
func TestCancelActsOnTheRun(t *testing.T) {
	for _, c := range []struct {
		ending stream.Ending
		status stream.Status
		want   a2a.TaskState
	}{
		{stream.EndFinished, stream.StatusOK, a2a.TaskStateCompleted},
		{stream.EndFinished, stream.StatusError, a2a.TaskStateFailed},
		{stream.EndFinished, stream.StatusInterrupted, a2a.TaskStateCanceled},
		{stream.EndCutOff, stream.StatusInterrupted, a2a.TaskStateCanceled},
	} {
		o := execstream.Outcome{Verdict: stream.Verdict{Ending: c.ending, Status: c.status}}
		got, _ := outcome(o, nil, true)
		assert.Equal(t, c.want, got, "a canceled task whose run ended %s, %s", c.ending, c.status)
	}
}
