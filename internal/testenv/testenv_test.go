//go:build !js && !wasip1

package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Golden reports.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatalf(format string, a ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, a...))
}

func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	r := &recorder{TB: t}
	Golden(r, path, []byte("one\n"), false)
	if len(r.failures) != 1 || !strings.Contains(r.failures[0], "go test -update creates it") {
		t.Fatalf("a missing golden file must fail: %q", r.failures)
	}
	r.failures = nil
	Golden(r, path, []byte("one\n"), true)
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\n" {
		t.Fatalf("update did not write the file: %q, %v", b, err)
	}
	Golden(r, path, []byte("one\n"), false)
	Golden(r, path, []byte("two\n"), false)
	if len(r.failures) != 1 || !strings.Contains(r.failures[0], `"two\n"`) {
		t.Fatalf("only the differing bytes fail, with a diff: %q", r.failures)
	}
}

func TestBuildFake(t *testing.T) {
	path, cleanup, err := BuildFake("../../testdata/fakeuagent")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	cleanup()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("cleanup left %s: %v", path, err)
	}
}
