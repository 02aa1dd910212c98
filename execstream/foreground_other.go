//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package execstream

import (
	"io"
	"os/exec"
)

// Foreground does nothing here: this platform has no terminal process
// groups to hand over. The returned function does nothing either.
func Foreground(*exec.Cmd, io.Reader) (restore func()) { return func() {} }
