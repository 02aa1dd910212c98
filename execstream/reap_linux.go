//go:build linux

package execstream

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

// BecomeSubreaper makes this process the parent of every orphaned
// descendant (one that called setsid, or whose parent died), instead of
// init, so that ReapOrphans can find and stop them. Only a program that
// owns its process may call it (a command, not a library it links): it
// changes what the whole process is the parent of.
func BecomeSubreaper() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// ReapOrphans stops the descendants that outlived the run: those that left
// its process group and were reparented to this process. They get SIGTERM
// and the grace period, then SIGKILL; every one is reaped. Call it after
// the run's Wait, when this process has no child of its own left. It
// returns how many it reaped.
func ReapOrphans(grace time.Duration) int { return reapChildren(grace, nil) }

// ReapMarked stops, as ReapOrphans does, the children of this process
// whose environment has RunMarker=marker: the orphans of that run alone.
func ReapMarked(marker string, grace time.Duration) int {
	want := []byte(RunMarker + "=" + marker)
	return reapChildren(grace, func(pid int) bool {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		return err == nil && slices.ContainsFunc(bytes.Split(env, []byte{0}), func(kv []byte) bool { return bytes.Equal(kv, want) })
	})
}

// reapChildren stops and reaps the children of this process that match
// (all when match is nil): SIGTERM, the grace period, then SIGKILL, again
// for what they leave behind as they die.
func reapChildren(grace time.Duration, match func(pid int) bool) (n int) {
	children := func() []int {
		kids := children()
		if match != nil {
			kids = slices.DeleteFunc(kids, func(pid int) bool { return !match(pid) })
		}
		return kids
	}
	kids := children()
	if len(kids) == 0 {
		return 0
	}
	for _, pid := range kids {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) && len(kids) > 0 {
		n += reap(kids)
		time.Sleep(20 * time.Millisecond)
		kids = children()
	}
	// What is left, and what it leaves behind as it dies, goes now.
	for tries := 0; tries < 100 && len(kids) > 0; tries++ {
		for _, pid := range kids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range kids {
			var ws syscall.WaitStatus
			if p, _ := syscall.Wait4(pid, &ws, 0, nil); p == pid {
				n++
			}
		}
		kids = children()
	}
	return n
}

// reap collects the children that have exited, without waiting.
func reap(pids []int) (n int) {
	for _, pid := range pids {
		var ws syscall.WaitStatus
		if p, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); p == pid {
			n++
		}
	}
	return n
}

// children lists the processes whose parent is this process.
func children() []int {
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		rest := stat[bytes.LastIndexByte(stat, ')')+1:]
		fields := bytes.Fields(rest)
		if len(fields) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(string(fields[1])); ppid == self {
			out = append(out, pid)
		}
	}
	return out
}
