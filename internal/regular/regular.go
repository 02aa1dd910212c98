// Package regular opens the files of a history only when they are
// regular files: a FIFO, a device or a socket in a state directory (where
// summary.json, a sidecar or events.jsonl should be) would block a read
// forever or never end, and is refused instead, as is a file over the
// bound its kind has.
package regular

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotRegular is the cause of what Open and Read say of a file that is
// not a regular one (a FIFO, a device, a socket, a directory).
var ErrNotRegular = errors.New("not a regular file (left out)")

// ErrTooLarge is the cause of what Read says of a file over its bound.
var ErrTooLarge = errors.New("larger than a file of its kind can be (left out)")

// Open opens path for reading when it is a regular file (a link to one
// is one); a FIFO is not opened, so that the call cannot block.
func Open(path string) (*os.File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if now, err := f.Stat(); err != nil || !now.Mode().IsRegular() || !os.SameFile(info, now) {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular) // replaced between the two looks
	}
	return f, nil
}

// Read reads path whole when it is a regular file of at most max bytes.
func Read(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w (%d bytes at most)", path, ErrTooLarge, max)
	}
	return b, nil
}
