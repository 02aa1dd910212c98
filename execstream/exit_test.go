package execstream

import (
	"errors"
	"io/fs"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/uagentkit/stream"
)

// The exit codes a shell would give: the command's, 128+signal, 130 for
// an interrupted run; 127 and 126 for a command that cannot start.
func TestExitCodes(t *testing.T) {
	assert.Equal(t, 3, Outcome{Verdict: stream.Verdict{ExitCode: 3, Status: stream.StatusDiskLimit}}.ShellExitCode())
	assert.Equal(t, 128+9, Outcome{Verdict: stream.Verdict{ExitCode: -1, Status: stream.StatusError}, Signal: syscall.Signal(9)}.ShellExitCode())
	assert.Equal(t, 130, Outcome{Verdict: stream.Verdict{ExitCode: -1, Status: stream.StatusInterrupted}, Signal: syscall.Signal(15)}.ShellExitCode())
	assert.Equal(t, 127, StartExitCode(exec.ErrNotFound))
	assert.Equal(t, 127, StartExitCode(&fs.PathError{Op: "fork/exec", Path: "x", Err: fs.ErrNotExist}))
	assert.Equal(t, 126, StartExitCode(fs.ErrPermission))
	assert.Equal(t, 1, StartExitCode(errors.New("other")))
}
