package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// peakEnv makes a test binary, re-run by PeakRSS, run the command in its
// arguments and print the command's peak resident size instead of
// testing.
const peakEnv = "UAGENT_STREAM_TESTENV_PEAK"

// PeakRSS runs argv and returns its peak resident size in bytes, the
// whole process's, with its combined output. It measures through a fresh
// process (this test binary, re-run): Linux carries a process's peak over
// into what it execs, and a child started from this test process would
// report this process's peak if it was higher. It works where the
// platform reports the peak of a child (Linux, the BSDs, macOS).
func PeakRSS(t testing.TB, argv ...string) (int64, []byte) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$"}, argv...)...)
	cmd.Env = append(os.Environ(), peakEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("measuring %s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	head, body, _ := strings.Cut(string(out), "\n")
	n, err := strconv.ParseInt(head, 10, 64)
	if err != nil {
		t.Fatalf("measuring %s: %q", strings.Join(argv, " "), head)
	}
	return n, []byte(body)
}

// peakHelper is the other side of PeakRSS: in the re-run test binary, it
// runs the command, prints its peak resident size and its output, and
// exits with the command's status.
func peakHelper() {
	if os.Getenv(peakEnv) == "" {
		return
	}
	args := os.Args[2:] // after -test.run=^$
	cmd := exec.Command(args[0], args[1:]...)
	out, err := cmd.CombinedOutput()
	peak, ok := maxRSS(cmd.ProcessState)
	if !ok {
		fmt.Println("-1")
		os.Exit(1)
	}
	fmt.Printf("%d\n%s", peak, out)
	if err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}
