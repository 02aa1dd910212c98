//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import (
	"io"
	"os/exec"
)

// foreground does nothing here: this platform has no terminal process
// groups to hand over.
func foreground(*exec.Cmd, io.Reader) (restore func()) { return func() {} }

// termSize is the size of the terminal w is: here, only what $COLUMNS
// and $LINES say of one (see width).
func termSize(any) (cols, rows int, ok bool) { return 0, 0, false }
