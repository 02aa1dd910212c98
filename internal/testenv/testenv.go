// Package testenv holds what the tests of the module's packages share: the
// golden-file check and the build of the fake uagent.
package testenv

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/google/go-cmp/cmp"
)

// Golden compares got with the file at path byte for byte; with update, it
// rewrites the file instead.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", path, cmp.Diff(string(want), string(got)))
	}
}

// MainWithFake is a TestMain body for tests that run the fake uagent: it
// builds it from src (where the platform starts processes), stores its path
// in *path, runs the tests, checks with goleak that they left no goroutine
// behind, removes the build, runs the after functions and exits with the
// tests' code.
func MainWithFake(m *testing.M, src string, path *string, after ...func()) {
	peakHelper()
	away := isolateHistory()
	cleanup := func() { os.RemoveAll(away) }
	if runtime.GOOS != "js" && runtime.GOOS != "wasip1" {
		p, c, err := BuildFake(src)
		if err != nil {
			fmt.Fprintln(os.Stderr, "building the fake uagent:", err)
			os.Exit(1)
		}
		*path, cleanup = p, func() { c(); os.RemoveAll(away) }
	}
	// signal.Notify starts one loop for the life of the process; under WASI
	// it shows another top frame than goleak's default ignore expects.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("os/signal.loop"), goleak.Cleanup(func(code int) {
		cleanup()
		for _, f := range after {
			f()
		}
		os.Exit(code)
	}))
}

// isolateHistory points the places a person's history is looked for
// (uagent's state directory, uah's home) at a directory of their own,
// which does not exist, so that no test reads the history of whoever runs
// it, and returns that directory. A test that needs a history sets
// UAGENT_STATE_DIR or the others itself.
func isolateHistory() string {
	away, err := os.MkdirTemp("", "no-history")
	if err != nil {
		fmt.Fprintln(os.Stderr, "isolating the history:", err)
		os.Exit(1)
	}
	os.Unsetenv("UAGENT_STATE_DIR")
	os.Unsetenv("UAH_HOME")
	os.Setenv("XDG_STATE_HOME", filepath.Join(away, "xdg"))
	os.Setenv("UAH_STATE_DIR", filepath.Join(away, "uah"))
	return away
}

// BuildFake builds the fake uagent from its source directory into a
// temporary directory and returns its path and a function that removes it.
func BuildFake(src string) (path string, cleanup func(), err error) { return Build(src, "fakeuagent") }

// Build builds the command in the source directory src into a temporary
// directory, as name, and returns its path and a function that removes it.
func Build(src, name string) (path string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", name)
	if err != nil {
		return "", nil, err
	}
	path = filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", path, src)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return path, func() { os.RemoveAll(dir) }, nil
}

// ReadPid waits up to ten seconds for a file holding a process ID, as the
// fake uagent writes for its descendants, and returns the ID.
func ReadPid(t testing.TB, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			if pid, err := strconv.Atoi(string(b)); err == nil {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no process ID in %s", path)
			return 0
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Alive reports whether pid is a live process, from /proc (Linux): a
// zombie is dead.
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// SVG is what the tests read of an SVG picture: its rectangles (with
// their classes, places and titles) and its texts.
type SVG struct {
	Rects []struct {
		Class string  `xml:"class,attr"`
		X     float64 `xml:"x,attr"`
		Y     float64 `xml:"y,attr"`
		Width float64 `xml:"width,attr"`
		Title string  `xml:"title"`
	} `xml:"rect"`
	Texts []string `xml:"text"`
}

// ParseSVG reads an SVG picture.
func ParseSVG(t testing.TB, b []byte) SVG {
	t.Helper()
	var doc SVG
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not an SVG: %v", err)
	}
	return doc
}
