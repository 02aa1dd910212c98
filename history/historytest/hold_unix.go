//go:build unix && !solaris && !illumos && !aix

package historytest

import (
	"os"
	"path/filepath"
	"syscall"
)

// Hold takes the session lock of session in the state directory home, as
// uagent does for as long as a run of the session goes on (flock on
// sessions/<id>.lock), so that its last run reads as running
// (statedir.StateRunning); release lets go of it. Where there is no
// flock, it does nothing: a summary saying running is then taken at its
// word.
func Hold(home, session string) (release func(), err error) {
	dir := filepath.Join(home, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, session+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
