//go:build unix

package testenv

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is a finished process's peak resident size in bytes.
func maxRSS(s *os.ProcessState) (int64, bool) {
	if s == nil {
		return 0, false
	}
	ru, ok := s.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss), true // bytes there
	}
	return int64(ru.Maxrss) << 10, true // KiB elsewhere
}
