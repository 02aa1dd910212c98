//go:build unix && !solaris && !illumos && !aix

package statedir

import (
	"errors"
	"os"
	"syscall"
)

// lockHeld probes a lock file without waiting: held when another holds
// an exclusive flock on it; a missing file is held by nobody.
func lockHeld(path string) (held, known bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, true
	}
	if err != nil {
		return false, false
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return false, false
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	switch {
	case errors.Is(err, syscall.EWOULDBLOCK):
		return true, true
	case err != nil:
		return false, false
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false, true
}
