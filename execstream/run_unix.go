//go:build unix

package execstream

import (
	"os"
	"os/exec"
	"syscall"
)

// procGroup is the process group Start put the process in.
type procGroup struct{ pgid int }

// prepare puts the process in a process group of its own, keeping what the
// caller set in cmd.SysProcAttr.
func prepare(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	return nil
}

func attach(p *os.Process) procGroup { return procGroup{pgid: p.Pid} }

// interrupt and kill signal the whole group; an error (the group is gone)
// is not one.
func (g procGroup) interrupt() { _ = syscall.Kill(-g.pgid, syscall.SIGINT) }
func (g procGroup) kill()      { _ = syscall.Kill(-g.pgid, syscall.SIGKILL) }
func (g procGroup) release()   {}

// exitSignal is the signal that killed the process, or nil.
func exitSignal(s *os.ProcessState) os.Signal {
	if ws, ok := s.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal()
	}
	return nil
}

// isStopSignal reports the signals that ask a process to stop.
func isStopSignal(sig os.Signal) bool {
	return sig == syscall.SIGINT || sig == syscall.SIGTERM || sig == syscall.SIGHUP
}
