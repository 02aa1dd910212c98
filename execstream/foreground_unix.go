//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package execstream

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"unsafe"
)

// Foreground hands the terminal to the command's process group for the
// run, as a shell does, when stdin is the controlling terminal and this
// process is in its foreground: the command can then read the terminal
// (no SIGTTIN), and Ctrl-C reaches it at once. The returned function gives
// the terminal back; call it once the run has ended. When stdin is not a
// terminal in the foreground, nothing changes.
func Foreground(cmd *exec.Cmd, stdin io.Reader) (restore func()) {
	f, ok := stdin.(*os.File)
	if !ok {
		return func() {}
	}
	fd := int(f.Fd())
	pgrp, err := tcgetpgrp(fd)
	if err != nil || pgrp != syscall.Getpgrp() {
		return func() {}
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// The child makes its new group the foreground one before it execs.
	cmd.SysProcAttr.Foreground, cmd.SysProcAttr.Ctty = true, fd
	return func() {
		// This process is in the background now: setting the foreground
		// group would stop it with SIGTTOU unless the signal is ignored.
		signal.Ignore(syscall.SIGTTOU)
		defer signal.Reset(syscall.SIGTTOU)
		_ = tcsetpgrp(fd, syscall.Getpgrp())
	}
}

func tcgetpgrp(fd int) (int, error) {
	var pgrp int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(syscall.TIOCGPGRP), uintptr(unsafe.Pointer(&pgrp))); e != 0 {
		return 0, e
	}
	return int(pgrp), nil
}

func tcsetpgrp(fd, pgrp int) error {
	p := int32(pgrp)
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(syscall.TIOCSPGRP), uintptr(unsafe.Pointer(&p))); e != 0 {
		return e
	}
	return nil
}
