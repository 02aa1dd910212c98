package execstream

import (
	"errors"
	"io/fs"
	"os/exec"
	"syscall"

	"github.com/uagentkit/stream"
)

// ShellExitCode is the code a program that ran the command exits with, as
// a shell gives it: the command's own, 128+N when signal N killed it, 130
// (stream.ExitInterrupted) when the run was interrupted.
func (o Outcome) ShellExitCode() int {
	code := o.ExitCode
	if sig, ok := o.Signal.(syscall.Signal); ok {
		code = 128 + int(sig)
	}
	if o.Status == stream.StatusInterrupted {
		code = stream.ExitInterrupted
	}
	return code
}

// StartExitCode is the code for a command that could not start (the error
// of Start), as shells say it: 127 when it does not exist, 126 when it
// cannot be executed, 1 otherwise.
func StartExitCode(err error) int {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, exec.ErrNotFound):
		return 127
	case errors.Is(err, fs.ErrPermission):
		return 126
	}
	return 1
}
