//go:build before

package main

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used so far, user and system,
// every thread's (the collector's workers included): what a reader costs
// on a shared machine, where wall time depends on the neighbours.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
