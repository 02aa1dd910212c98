//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import (
	"io"
	"os/exec"
)

// foreground does nothing here: this platform has no terminal process
// groups to hand over.
func foreground(*exec.Cmd, io.Reader) (restore func()) { return func() {} }
