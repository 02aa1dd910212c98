// Package tail reads the last lines of a tool's output file, for the views
// that show them (cat --tool-output, the editor's tool updates).
package tail

import (
	"strings"

	"github.com/uagentkit/stream/internal/regular"
)

// How much of a file Lines reads and returns.
const (
	Count = 5
	Bytes = 16 << 10
)

// Lines returns the last Count lines of a tool's output file, read
// from at most its last Bytes, or none when it cannot be read or is not
// a regular file (a FIFO, a device: never waited on).
func Lines(path string) []string {
	if path == "" {
		return nil
	}
	f, err := regular.Open(path) // a FIFO out_path is not opened: that would wait for a writer
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	off := max(0, info.Size()-Bytes)
	buf := make([]byte, info.Size()-off)
	n, _ := f.ReadAt(buf, off)
	lines := strings.Split(strings.TrimRight(string(buf[:n]), "\n"), "\n")
	if off > 0 && len(lines) > 1 {
		lines = lines[1:] // the first is cut
	}
	lines = lines[max(0, len(lines)-Count):]
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	return lines
}
