//go:build !unix || solaris || illumos || aix

package parquetstream

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/uagentkit/stream/internal/safetext"
)

// lockDir takes the lock of an export directory: a file only one export
// can create, removed when it ends (one that was killed leaves it: remove
// it by hand).
func lockDir(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("another export into the directory is running (or one was killed: remove %s)", safetext.OneLine(path, 200))
	}
	if err != nil {
		return nil, err
	}
	f.Close()
	return func() { os.Remove(path) }, nil
}
