// Package cputime is the clock of the benchmark programs: CPU time, not
// wall time.
package cputime

import (
	"syscall"
	"time"
)

// Now is the CPU time the process has used so far, user and system, every
// thread's (the collector's workers included): what a reader costs on a
// shared machine, where wall time depends on the neighbours.
func Now() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
