//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/testenv"
)

func TestRunCommand(t *testing.T) {
	_, want, _ := runCmd(t, "", "cat", runFile)
	code, stdout, stderr := runCmd(t, "", "run", "--", fakeUagent, "-replay", runFile, "-delay", "1ms", "-stderr", "diag\n")
	assert.Equal(t, 0, code)
	assert.Equal(t, want, stdout, "renders live like cat")
	assert.Equal(t, "diag\nuagent-stream: "+fakeUagent+": finished, status ok, exit 0, 21 lines\n", stderr)

	code, stdout, stderr = runCmd(t, "", "run", "--json", "--", fakeUagent, "-replay", runFile, "-exit", "3")
	assert.Equal(t, 3, code, "the command's exit code")
	raw, err := os.ReadFile(runFile)
	require.NoError(t, err)
	assert.Equal(t, string(raw), stdout, "--json passes the stream through unchanged")
	assert.Contains(t, stderr, "finished, status ok, exit 3, 21 lines")

	code, _, stderr = runCmd(t, "", "run", "--", fakeUagent, "-exit", "2", "-stderr", "preflight: blocked\n")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "preflight: blocked\n")
	assert.Contains(t, stderr, "preflight_blocked, status error, exit 2, 0 lines")

	code, stdout, stderr = runCmd(t, "", "run", "--", "sh", "-c", `head -3 `+runFile+`; kill -KILL $$`)
	assert.Equal(t, 128+9, code, "128+signal when killed")
	assert.Contains(t, stderr, "cut_off, status error, killed by signal 9 (killed), 3 lines")
	assert.Contains(t, stdout, "no run_finished")

	code, _, stderr = runCmd(t, "", "run", "--", filepath.Join(t.TempDir(), "missing"))
	assert.Equal(t, 127, code, "a command that does not exist, as shells say")
	assert.Contains(t, stderr, "uagent-stream: stream: start ")
	code, _, _ = runCmd(t, "", "run", "--", "no-such-command-in-path")
	assert.Equal(t, 127, code)
	notExec := filepath.Join(t.TempDir(), "script")
	require.NoError(t, os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644))
	code, _, _ = runCmd(t, "", "run", "--", notExec)
	assert.Equal(t, 126, code, "a command that cannot be executed")

	code, _, stderr = runCmd(t, "", "run", "--", fakeUagent, "-replay", runFile, "-stderr", "no newline at the end")
	assert.Equal(t, 0, code)
	assert.Contains(t, stderr, "no newline at the end\nuagent-stream: ", "the outcome line starts on a line of its own")

	code, _, _ = runCmd(t, "", "run")
	assert.Equal(t, 2, code)
}

// run --save keeps the raw stream while rendering it; run --json escapes
// what a terminal would act on, line by line, keeping the JSON values.
func TestRunSaveAndJSON(t *testing.T) {
	raw, err := os.ReadFile(runFile)
	require.NoError(t, err)
	saved := filepath.Join(t.TempDir(), "saved.jsonl")
	_, want, _ := runCmd(t, "", "cat", runFile)
	code, stdout, _ := runCmd(t, "", "run", "--save", saved, "--", fakeUagent, "-replay", runFile)
	assert.Equal(t, 0, code)
	assert.Equal(t, want, stdout, "rendered")
	got, err := os.ReadFile(saved)
	require.NoError(t, err)
	assert.Equal(t, string(raw), string(got), "saved byte for byte")

	tricky := sinkFile(t, stream.RunStarted{At: t1, Model: "m\u009b\u202e"}, stream.RunFinished{At: t1, Result: stream.Result{Status: stream.StatusOK}})
	code, stdout, _ = runCmd(t, "", "run", "--json", "--save", saved, "--", fakeUagent, "-replay", tricky)
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"model":"m\u009b\u202e"`)
	assert.NotContains(t, stdout, "\u202e")
	got, err = os.ReadFile(saved)
	require.NoError(t, err)
	rawTricky, err := os.ReadFile(tricky)
	require.NoError(t, err)
	assert.Equal(t, string(rawTricky), string(got), "--save keeps the raw bytes")
}

// Ctrl-C on cat -f says that the run was still going.
func TestCatFollowInterrupted(t *testing.T) {
	full, err := os.ReadFile(runFile)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "live.jsonl")
	require.NoError(t, os.WriteFile(path, bytes.Join(bytes.SplitAfter(full, []byte("\n"))[:5], nil), 0o644))
	cmd := exec.Command(self(t), "cat", "-f", path)
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "user: List the files") }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	assert.Equal(t, 130, waitExit(t, cmd), errOut.String())
	assert.Contains(t, out.String(), "── interrupted: the run was still going (no run_finished yet)")
}

var (
	selfOnce sync.Once
	selfPath string
	selfErr  error
)

// self builds the command once, for the tests that run it as a process of
// its own: at a terminal, under signals, as the parent of orphans.
func self(t *testing.T) string {
	t.Helper()
	selfOnce.Do(func() {
		var cleanup func()
		selfPath, cleanup, selfErr = testenv.Build(".", "uagent-stream")
		if selfErr == nil {
			cleanupSelf = cleanup
		}
	})
	require.NoError(t, selfErr)
	return selfPath
}

// syncBuffer is a buffer one goroutine writes while another reads it.
type syncBuffer = testenv.SyncBuffer

// waitExit waits for cmd with a deadline and returns its exit code.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("uagent-stream did not exit")
	}
	return cmd.ProcessState.ExitCode()
}

// pgrpOf returns the process group of pid, from /proc.
func pgrpOf(t *testing.T, pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	pgrp, err := strconv.Atoi(fields[2])
	require.NoError(t, err)
	return pgrp
}

// groupAlive lists the live processes of process group pgrp.
func groupAlive(pgrp int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) > 2 && fields[0] != "Z" && fields[2] == strconv.Itoa(pgrp) {
			out = append(out, pid)
		}
	}
	return out
}

// At an interactive terminal, the run's process group gets the terminal:
// the command reads what is typed, and Ctrl-C reaches it at once.
func TestRunAtATerminal(t *testing.T) {
	bin := self(t)
	t.Run("the command reads the terminal", func(t *testing.T) {
		cmd := exec.Command(bin, "run", "--no-color", "--", fakeUagent, "-replay", runFile, "-prompt")
		ptmx, err := pty.Start(cmd)
		require.NoError(t, err)
		defer ptmx.Close()
		var out syncBuffer
		go io.Copy(&out, ptmx)
		require.Eventually(t, func() bool { return strings.Contains(out.String(), "run 20260923T123918Z-demo") }, 10*time.Second, 10*time.Millisecond)
		_, err = ptmx.Write([]byte("hello from the terminal\n"))
		require.NoError(t, err)
		assert.Equal(t, 0, waitExit(t, cmd), out.String())
		assert.Eventually(t, func() bool { return strings.Contains(out.String(), "user: hello from the terminal") }, 5*time.Second, 10*time.Millisecond, out.String())
		assert.Eventually(t, func() bool { return strings.Contains(out.String(), "finished, status ok") }, 5*time.Second, 10*time.Millisecond, "%s", out.String())
	})
	t.Run("Ctrl-C interrupts the run", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
		cmd := exec.Command(bin, "run", "--no-color", "--grace", "500ms", "--", fakeUagent, "-replay", runFile, "-lines", "3", "-hang", "-grandchild", pidFile)
		ptmx, err := pty.Start(cmd)
		require.NoError(t, err)
		defer ptmx.Close()
		var out syncBuffer
		go io.Copy(&out, ptmx)
		grandchild := testenv.ReadPid(t, pidFile)
		group := pgrpOf(t, grandchild)
		require.Eventually(t, func() bool { return strings.Contains(out.String(), "control") }, 10*time.Second, 10*time.Millisecond)
		_, err = ptmx.Write([]byte{0x03})
		require.NoError(t, err)
		assert.Equal(t, 130, waitExit(t, cmd), out.String())
		// The pty delivers the last lines after the process has exited.
		assert.Eventually(t, func() bool { return strings.Contains(out.String(), "cut_off, status interrupted") }, 5*time.Second, 10*time.Millisecond, "%s", out.String())
		assert.Eventually(t, func() bool { return len(groupAlive(group)) == 0 }, 5*time.Second, 10*time.Millisecond, "no process of the group survives")
	})
}

// A SIGINT to uagent-stream interrupts the run; the run exits 130 even when
// the command itself then exits 0.
func TestRunInterruptedExits130(t *testing.T) {
	cmd := exec.Command(self(t), "run", "--no-color", "--", fakeUagent, "-replay", runFile, "-lines", "3", "-hang", "-on-int", "exit0")
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "control") }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	assert.Equal(t, 130, waitExit(t, cmd), errOut.String())
	assert.Contains(t, errOut.String(), "cut_off, status interrupted, exit 0")
}

// A descendant that leaves the process group (setsid) and keeps the pipe
// open neither fails the run nor outlives it.
func TestRunSetsidDescendant(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux lets the command adopt orphaned descendants")
	}
	for _, holds := range []bool{false, true} {
		t.Run(fmt.Sprint("holds stdout ", holds), func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "setsid.pid")
			args := []string{"run", "--grace", "300ms", "--", fakeUagent, "-replay", runFile, "-setsid-grandchild", pidFile}
			if holds {
				args = append(args, "-setsid-holds")
			}
			cmd := exec.Command(self(t), args...)
			var out, errOut syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			require.NoError(t, cmd.Start())
			orphan := testenv.ReadPid(t, pidFile)
			assert.Equal(t, 0, waitExit(t, cmd), errOut.String())
			assert.NotContains(t, errOut.String(), "read", "no read error")
			assert.Contains(t, errOut.String(), "finished, status ok")
			assert.False(t, testenv.Alive(orphan), "the setsid descendant was stopped")
		})
	}
}

// An unreachable OTLP endpoint never breaks run: it exits with the
// command's own status, and says what failed.
func TestRunOtelUnreachable(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	code, stdout, stderr := runCmd(t, "", "run", "--otel", "--", fakeUagent, "-replay", runFile, "-exit", "3")
	assert.Equal(t, 3, code)
	assert.Contains(t, stdout, "answer: a.txt has 3 lines")
	assert.Contains(t, stderr, "uagent-stream: otel: export to http://127.0.0.1:1 failed")
}

// run and run --json into a pipe read far more slowly than the grace
// period deliver every line and the run's end: the reader's pace never
// decides what is lost.
func TestRunIntoASlowPipe(t *testing.T) {
	const n = 3001
	events := []stream.Event{stream.RunStarted{At: t1, RunID: "r1"}}
	for i := 1; i < n-1; i++ {
		events = append(events, stream.UserMessage{At: t1.Add(time.Duration(i) * time.Millisecond), ID: fmt.Sprint("u", i), Text: strings.Repeat("x", 40)})
	}
	events = append(events, stream.RunFinished{At: t1.Add(time.Hour), Result: stream.Result{Status: stream.StatusOK}})
	path := sinkFile(t, events...)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Greater(t, len(raw), 4*64<<10, "several times a pipe's capacity")
	for _, asJSON := range []bool{true, false} {
		t.Run(fmt.Sprint("json ", asJSON), func(t *testing.T) {
			args := []string{"run", "--grace", "100ms"}
			if asJSON {
				args = append(args, "--json")
			}
			cmd := exec.Command(self(t), append(args, "--", "cat", path)...)
			pr, pw, err := os.Pipe()
			require.NoError(t, err)
			defer pr.Close()
			var errOut syncBuffer
			cmd.Stdout, cmd.Stderr = pw, &errOut
			require.NoError(t, cmd.Start())
			pw.Close()
			var out bytes.Buffer
			buf := make([]byte, 2<<10)
			start := time.Now()
			for {
				k, err := pr.Read(buf)
				out.Write(buf[:k])
				if err != nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			assert.Equal(t, 0, waitExit(t, cmd), errOut.String())
			assert.Greater(t, time.Since(start), 5*100*time.Millisecond, "the reading took far longer than the grace period")
			assert.Contains(t, errOut.String(), fmt.Sprintf("finished, status ok, exit 0, %d lines\n", n))
			if asJSON {
				assert.Equal(t, len(raw), out.Len())
				assert.True(t, bytes.Equal(raw, out.Bytes()), "every byte passed through")
			} else {
				assert.Equal(t, n-2, strings.Count(out.String(), strings.Repeat("x", 40)), "every message rendered")
			}
		})
	}
}

// run --json holds no more than the line limit of a line: a longer one is
// passed on as it comes and reported.
// (64 MiB through the instrumented byte loops takes a minute under -race:
// CI runs it without.)
func TestRunJSONOverlongLine(t *testing.T) {
	if raceEnabled {
		t.Skip("slow under -race; .ci/run runs it without")
	}
	n := stream.DefaultMaxLineSize + 1<<20
	code, stdout, stderr := runCmd(t, "", "run", "--json", "--", "sh", "-c", fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x; echo; echo tail", n))
	assert.Equal(t, 0, code, "the command's exit code")
	assert.Equal(t, n+len("\ntail\n"), len(stdout), "every byte passed on")
	assert.True(t, strings.HasSuffix(stdout, "x\ntail\n"))
	assert.Contains(t, stderr, fmt.Sprintf("uagent-stream: line 1 is longer than %d bytes: passed on as it comes\n", stream.DefaultMaxLineSize))
}
