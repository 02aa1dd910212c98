//go:build unix && !solaris && !illumos && !aix

package parquetstream

import (
	"fmt"
	"os"
	"syscall"

	"github.com/uagentkit/stream/internal/safetext"
)

// lockDir takes the lock of an export directory for this process: the
// system lets go of it when the process ends, however it ends.
func lockDir(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("another export into %s is running", safetext.OneLine(path[:len(path)-len("/.lock")], 200))
	}
	return func() { f.Close() }, nil
}
