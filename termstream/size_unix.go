//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package termstream

import (
	"os"
	"syscall"
	"unsafe"
)

// Size is the size of the terminal w is, in columns and rows; ok false
// when w is not a terminal (or the platform cannot tell).
func Size(w any) (cols, rows int, ok bool) {
	f, isFile := w.(*os.File)
	if !isFile || !IsTerminal(w) {
		return 0, 0, false
	}
	var ws struct{ rows, cols, x, y uint16 }
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws))); e != 0 || ws.cols == 0 {
		return 0, 0, false
	}
	return int(ws.cols), int(ws.rows), true
}
