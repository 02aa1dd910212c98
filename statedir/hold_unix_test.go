//go:build unix && !solaris && !illumos && !aix

package statedir

import (
	"os"
	"path/filepath"
	"syscall"
)

// hold takes session's lock in the state directory home, as uagent does
// while a run goes on; release lets go of it.
func hold(home, session string) (release func(), err error) {
	if err := os.MkdirAll(filepath.Join(home, SessionsDir), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(home, SessionsDir, session+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
