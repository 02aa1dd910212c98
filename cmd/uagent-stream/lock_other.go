//go:build !unix

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// lockDir takes the lock of an export directory: a file only one export
// can create, removed when it ends (one that was killed leaves it: remove
// it by hand).
func lockDir(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("another export into the directory is running (or one was killed: remove %s)", sanitize(path, false))
	}
	if err != nil {
		return nil, err
	}
	f.Close()
	return func() { os.Remove(path) }, nil
}
