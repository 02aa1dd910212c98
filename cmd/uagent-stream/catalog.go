package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/uagentkit/stream"
)

// icebergCommand is the command that appends runs to Iceberg tables: a
// module of its own (github.com/uagentkit/stream/iceberg), so that those
// who never use a catalog do not build iceberg-go and the cloud SDKs.
const icebergCommand = "uagent-stream-iceberg"

// icebergInstall is how to install it.
//
// It is built from a clone: the module requires the main module of its
// own checkout (a replace directive), which go install PKG@VERSION
// refuses until the main module is tagged and the Iceberg module
// requires that tag.
const icebergInstall = "git clone https://github.com/uagentkit/stream && cd stream/iceberg && go install ./cmd/uagent-stream-iceberg"

// wantsCatalog reports an export to a catalog: --catalog among its
// arguments before a "--".
func wantsCatalog(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case a == "-catalog", a == "--catalog", strings.HasPrefix(a, "-catalog="), strings.HasPrefix(a, "--catalog="):
			return true
		}
	}
	return false
}

// findIceberg finds the Iceberg command as git finds git-foo: beside the
// running binary, else on PATH.
func findIceberg() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), icebergCommand+exeSuffix())
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p, nil
		}
	}
	return exec.LookPath(icebergCommand)
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// cmdExportCatalog runs the Iceberg command with export's arguments, its
// standard streams this command's, and passes its exit code through; the
// signals this process is sent reach it too.
func cmdExportCatalog(e env, args []string) error {
	path, err := findIceberg()
	if err != nil {
		return fmt.Errorf("export --catalog: %s is not installed (beside uagent-stream or on PATH); install it with: %s", icebergCommand, icebergInstall)
	}
	cmd := exec.Command(path, append([]string{"export"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("export --catalog: %w", err)
	}
	done := make(chan struct{})
	var signaled atomic.Bool
	go func() {
		for {
			select {
			case s := <-sigs:
				signaled.Store(true)
				cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code := ee.ExitCode()
		switch {
		case code >= 0:
		case signaled.Load(): // ended by the signal it was passed
			code = stream.ExitInterrupted
		default: // ended by another's signal
			code = 1
		}
		return exitError{code}
	}
	if err != nil {
		return fmt.Errorf("export --catalog: %w", err)
	}
	return nil
}
