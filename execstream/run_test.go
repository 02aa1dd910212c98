//go:build linux

package execstream

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/testenv"
	"go.uber.org/goleak"
)

func fake(args ...string) *exec.Cmd { return exec.Command(fakeUagent, args...) }

var t0 = time.Date(2026, 9, 23, 12, 39, 18, 960000000, time.UTC)

// write emits evs through a Sink and returns its bytes.
func write(t testing.TB, evs []stream.Event) []byte {
	var b bytes.Buffer
	s := stream.NewSink(&b)
	for _, e := range evs {
		s.Emit(e)
	}
	require.NoError(t, s.Err())
	return b.Bytes()
}

// decodeAll decodes a file's lines.
func decodeAll(t testing.TB, path string) []any {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []any
	for dto, err := range stream.NewDecoder(f).All() {
		require.NoError(t, err)
		out = append(out, dto)
	}
	return out
}

// events are the run's lines as the Decoder returns them, a DTO and its
// error, without the end.
func events(r *Run) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for l := range r.Lines() {
			if !l.End && !yield(l.DTO, l.Err) {
				return
			}
		}
	}
}

// collect ranges over the run's events, then waits.
func collect(t *testing.T, r *Run) ([]any, []error, Outcome) {
	t.Helper()
	var dtos []any
	var errs []error
	for dto, err := range events(r) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		dtos = append(dtos, dto)
	}
	o, err := r.Wait()
	require.NoError(t, err)
	return dtos, errs, o
}

func TestStartFinished(t *testing.T) {
	r, err := Start(context.Background(), fake("-replay", "../testdata/run.jsonl", "-delay", "1ms", "-stderr", "diagnostics\n"))
	require.NoError(t, err)
	dtos, errs, o := collect(t, r)
	assert.Empty(t, errs)
	assert.Len(t, dtos, 21)
	assert.IsType(t, stream.RunStartedDTO{}, dtos[0])
	assert.IsType(t, stream.RunFinishedDTO{}, dtos[20])
	assert.Equal(t, stream.EndFinished, o.Ending)
	assert.Equal(t, stream.StatusOK, o.Status)
	assert.Equal(t, 0, o.ExitCode)
	assert.Nil(t, o.Signal)
	require.NotNil(t, o.Summary)
	assert.Equal(t, "a.txt has 3 lines; b.txt does not exist.", o.Summary.Answer)
	assert.Equal(t, "diagnostics\n", string(o.Stderr))
	assert.Equal(t, 21, o.Lines)
	assert.Equal(t, 0, o.LineErrors)
	again, err := r.Wait()
	require.NoError(t, err)
	assert.Equal(t, o, again, "Wait returns the same outcome")
}

func TestStartEndings(t *testing.T) {
	for _, c := range []struct {
		name   string
		args   []string
		kind   stream.Ending
		status stream.Status
		code   int
		lines  int
	}{
		{"preflight blocked", []string{"-exit", "2", "-stderr", "preflight: credentials expired\n"}, stream.EndPreflightBlocked, stream.StatusError, 2, 0},
		{"start failed", []string{"-replay", "../testdata/run.jsonl", "-lines", "2", "-exit", "1", "-stderr", "runner: cannot start\n"}, stream.EndStartFailed, stream.StatusError, 1, 2},
		{"no line, exit 1", []string{"-exit", "1"}, stream.EndCutOff, stream.StatusError, 1, 0},
		{"run_started only, exit 0", []string{"-replay", "../testdata/run.jsonl", "-lines", "1"}, stream.EndCutOff, stream.StatusError, 0, 1},
		{"died mid-line", []string{"-replay", "../testdata/run.jsonl", "-lines", "12", "-cut", "-exit", "1"}, stream.EndCutOff, stream.StatusError, 1, 13},
		{"finished with an error status", []string{"-replay", "../testdata/every-event.jsonl", "-exit", "1"}, stream.EndFinished, stream.StatusError, 1, 27},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Start(context.Background(), fake(c.args...))
			require.NoError(t, err)
			o, err := r.Wait()
			require.NoError(t, err)
			assert.Equal(t, c.kind, o.Ending, "kind %s", o.Ending)
			assert.Equal(t, c.status, o.Status)
			assert.Equal(t, c.code, o.ExitCode)
			assert.Equal(t, c.lines, o.Lines)
		})
	}
	t.Run("died mid-line reports the cut line", func(t *testing.T) {
		r, err := Start(context.Background(), fake("-replay", "../testdata/run.jsonl", "-lines", "12", "-cut"))
		require.NoError(t, err)
		dtos, errs, o := collect(t, r)
		assert.Len(t, dtos, 12)
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], stream.ErrTruncated)
		assert.Equal(t, 1, o.LineErrors)
	})
}

func TestStartCancellation(t *testing.T) {
	finish := string(write(t, []stream.Event{stream.RunFinished{At: t0, Result: stream.Result{Status: stream.StatusInterrupted, RunnerExitCode: 130}}}))
	for _, c := range []struct {
		name   string
		onInt  string
		kind   stream.Ending
		status stream.Status
		code   int
		signal os.Signal
	}{
		{"exits on SIGINT", "die", stream.EndCutOff, stream.StatusInterrupted, 130, nil},
		{"finishes on SIGINT", "finish", stream.EndFinished, stream.StatusInterrupted, 130, nil},
		{"ignores SIGINT: killed after the grace", "ignore", stream.EndCutOff, stream.StatusInterrupted, -1, syscall.SIGKILL},
	} {
		t.Run(c.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r, err := Start(ctx, fake("-replay", "../testdata/run.jsonl", "-lines", "5", "-hang", "-on-int", c.onInt,
				"-finish-line", strings.TrimSpace(finish), "-grandchild", pidFile), WithGrace(300*time.Millisecond))
			require.NoError(t, err)
			grandchild := testenv.ReadPid(t, pidFile)
			require.True(t, testenv.Alive(grandchild))

			seen := 0
			ended := make(chan struct{})
			go func() {
				defer close(ended)
				for range events(r) {
					if seen++; seen == 5 {
						cancel()
					}
				}
			}()
			select {
			case <-ended:
			case <-time.After(10 * time.Second):
				t.Fatal("the reader of the events did not see their end")
			}
			o, err := r.Wait()
			require.NoError(t, err)
			assert.Equal(t, c.kind, o.Ending, "kind %s", o.Ending)
			assert.Equal(t, c.status, o.Status)
			assert.Equal(t, c.code, o.ExitCode)
			assert.Equal(t, c.signal, o.Signal)
			assert.Eventually(t, func() bool { return !testenv.Alive(grandchild) }, 5*time.Second, 10*time.Millisecond, "the grandchild survived")
		})
	}
	t.Run("deadline is a timeout", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		r, err := Start(ctx, fake("-replay", "../testdata/run.jsonl", "-lines", "3", "-hang"))
		require.NoError(t, err)
		o, err := r.Wait()
		require.NoError(t, err)
		assert.Equal(t, stream.EndCutOff, o.Ending)
		assert.Equal(t, stream.StatusTimeout, o.Status)
	})
}

func TestStartGrandchildHoldingAPipe(t *testing.T) {
	for _, holds := range []string{"stdout", "stderr"} {
		t.Run(holds, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
			r, err := Start(context.Background(), fake("-replay", "../testdata/run.jsonl", "-grandchild", pidFile, "-grandchild-holds", holds),
				WithGrace(200*time.Millisecond))
			require.NoError(t, err)
			done := make(chan Outcome)
			go func() {
				for range events(r) {
				}
				o, _ := r.Wait()
				done <- o
			}()
			select {
			case o := <-done:
				assert.Equal(t, stream.EndFinished, o.Ending)
			case <-time.After(10 * time.Second):
				t.Fatal("Wait did not return")
			}
			pid := testenv.ReadPid(t, pidFile)
			assert.Eventually(t, func() bool { return !testenv.Alive(pid) }, 5*time.Second, 10*time.Millisecond)
		})
	}
}

func TestStartStderrTail(t *testing.T) {
	var all bytes.Buffer
	cmd := fake("-stderr-bytes", "300000", "-replay", "../testdata/run.jsonl")
	cmd.Stderr = &all
	r, err := Start(context.Background(), cmd)
	require.NoError(t, err)
	o, err := r.Wait()
	require.NoError(t, err)
	assert.Equal(t, stream.EndFinished, o.Ending, "a child writing much stderr does not block")
	assert.Len(t, o.Stderr, StderrTail)
	assert.True(t, bytes.HasSuffix(all.Bytes(), o.Stderr), "the tail is the end of stderr")
	assert.Greater(t, all.Len(), 300000, "cmd.Stderr gets everything")
}

func TestStartHugeLineInALiveStream(t *testing.T) {
	r, err := Start(context.Background(), fake("-replay", "../testdata/run.jsonl", "-delay", "1ms", "-big", "10000000"))
	require.NoError(t, err)
	dtos, errs, o := collect(t, r)
	assert.Empty(t, errs)
	require.Len(t, dtos, 22)
	big := dtos[10].(stream.ToolCalledDTO)
	assert.Len(t, big.Arguments, 10000000)
	assert.Equal(t, stream.EndFinished, o.Ending)
}

// WithDecoder reaches the Decoder: a line longer than its limit is that
// line's error, the lines around it read.
func TestStartWithDecoder(t *testing.T) {
	r, err := Start(context.Background(), fake("-replay", "../testdata/run.jsonl", "-big", "100000"), WithDecoder(stream.WithMaxLineSize(64<<10)))
	require.NoError(t, err)
	dtos, errs, _ := collect(t, r)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], stream.ErrLineTooLong)
	assert.Len(t, dtos, 21)
}

func TestStartErrors(t *testing.T) {
	_, err := Start(context.Background(), exec.Command(filepath.Join(t.TempDir(), "no-such-uagent")))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "stream: start "), err.Error())
	cmd := fake()
	cmd.Stdout = os.Stdout
	_, err = Start(context.Background(), cmd)
	assert.EqualError(t, err, "stream: start: cmd.Stdout is already set")
}

func TestStartStdoutCopy(t *testing.T) {
	var copied bytes.Buffer
	r, err := Start(context.Background(), fake("-replay", "../testdata/run.jsonl"), WithStdoutCopy(&copied))
	require.NoError(t, err)
	_, err = r.Wait()
	require.NoError(t, err)
	want, err := os.ReadFile("../testdata/run.jsonl")
	require.NoError(t, err)
	assert.Equal(t, string(want), copied.String())
}

func TestOpenReplays(t *testing.T) {
	r, err := Open("../testdata/run.jsonl")
	require.NoError(t, err)
	dtos, errs, o := collect(t, r)
	assert.Empty(t, errs)
	want := decodeAll(t, "../testdata/run.jsonl")
	if d := cmp.Diff(want, dtos, cmp.Exporter(func(reflect.Type) bool { return true })); d != "" {
		t.Fatal(d)
	}
	assert.Equal(t, Outcome{Verdict: stream.Verdict{Ending: stream.EndFinished, Status: stream.StatusOK, ExitCode: 0}, Summary: o.Summary, Lines: 21, Replayed: true}, o)

	t.Run("with timing", func(t *testing.T) {
		r, err := Open("../testdata/run.jsonl", WithTiming(100)) // 5.5 s of events in about 55 ms
		require.NoError(t, err)
		start := time.Now()
		dtos, _, _ := collect(t, r)
		assert.Len(t, dtos, 21)
		assert.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond, "the original spacing, sped up")
	})
	t.Run("Wait stops the pacing", func(t *testing.T) {
		r, err := Open("../testdata/run.jsonl", WithTiming(0.001)) // would take hours
		require.NoError(t, err)
		done := make(chan Outcome)
		go func() { o, _ := r.Wait(); done <- o }()
		select {
		case o := <-done:
			assert.Equal(t, stream.EndFinished, o.Ending)
		case <-time.After(10 * time.Second):
			t.Fatal("Wait did not stop the pacing")
		}
	})
	t.Run("cut-off recording", func(t *testing.T) {
		r, err := Open("../testdata/invalid/run-finished-missing.jsonl")
		require.NoError(t, err)
		o, err := r.Wait()
		require.NoError(t, err)
		assert.Equal(t, stream.EndCutOff, o.Ending)
		assert.Equal(t, -1, o.ExitCode)
	})
	_, err = Open("../testdata/nope.jsonl")
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(entries)
}

// A Run releases everything it holds after Close or Wait, however its
// events were (or were not) read.
func TestRunCloseReleasesEverything(t *testing.T) {
	replay := func(t *testing.T) *Run {
		r, err := Open("../testdata/run.jsonl", WithTiming(0.5)) // slow: the replay is still going when closed
		require.NoError(t, err)
		return r
	}
	process := func(t *testing.T) *Run {
		r, err := Start(context.Background(), fake("-replay", "../testdata/run.jsonl", "-delay", "20ms", "-hang"), WithGrace(time.Second))
		require.NoError(t, err)
		return r
	}
	for name, start := range map[string]func(*testing.T) *Run{"open": replay, "start": process} {
		t.Run(name, func(t *testing.T) {
			check := func(t *testing.T, fds int, r *Run) {
				t.Helper()
				goleak.VerifyNone(t)
				assert.Equal(t, fds, openFDs(t), "every file and pipe of the run is closed")
				if r.cmd != nil {
					assert.False(t, testenv.Alive(r.cmd.Process.Pid), "the process is gone")
				}
			}
			t.Run("break out of Events, then Close", func(t *testing.T) {
				fds := openFDs(t)
				r := start(t)
				n := 0
				for range events(r) {
					if n++; n == 2 {
						break
					}
				}
				require.NoError(t, r.Close())
				check(t, fds, r)
				o, err := r.Wait()
				require.NoError(t, err, "Wait after Close gives the same result")
				if r.cmd != nil {
					assert.Equal(t, stream.StatusInterrupted, o.Status)
				}
			})
			t.Run("Close without reading", func(t *testing.T) {
				fds := openFDs(t)
				r := start(t)
				require.NoError(t, r.Close())
				check(t, fds, r)
			})
			t.Run("Close twice", func(t *testing.T) {
				fds := openFDs(t)
				r := start(t)
				require.NoError(t, r.Close())
				require.NoError(t, r.Close())
				check(t, fds, r)
			})
			t.Run("Close while Wait and Events run", func(t *testing.T) {
				fds := openFDs(t)
				r := start(t)
				var wg sync.WaitGroup
				wg.Go(func() {
					for range events(r) {
					}
				})
				wg.Go(func() { _, _ = r.Wait() })
				time.Sleep(50 * time.Millisecond)
				require.NoError(t, r.Close())
				wg.Wait()
				check(t, fds, r)
			})
			t.Run("break out of Events, then Wait", func(t *testing.T) {
				if name == "start" {
					t.Skip("the process hangs until stopped: Wait would wait for it")
				}
				fds := openFDs(t)
				r := start(t)
				for range events(r) {
					break
				}
				o, err := r.Wait()
				require.NoError(t, err)
				assert.Equal(t, stream.EndFinished, o.Ending, "Wait reads the rest")
				check(t, fds, r)
			})
		})
	}
}

// slowStream writes a finished run of n lines of about 100 bytes to a file.
func slowStream(t *testing.T, n int) string {
	t.Helper()
	events := []stream.Event{stream.RunStarted{At: t0, RunID: "r1"}}
	for i := 1; i < n-1; i++ {
		events = append(events, stream.UserMessage{At: t0.Add(time.Duration(i) * time.Millisecond), ID: fmt.Sprint("u", i), Text: strings.Repeat("x", 40)})
	}
	events = append(events, stream.RunFinished{At: t0.Add(time.Hour), Result: stream.Result{Status: stream.StatusOK}})
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, write(t, events), 0o600))
	return path
}

// The reader's pace never decides what is delivered: a reader far slower
// than the grace period, on a stream several times a pipe's capacity, gets
// every line and the run's end.
func TestStartSlowReaderLosesNothing(t *testing.T) {
	const n = 3001
	path := slowStream(t, n)
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Greater(t, st.Size(), int64(4*64<<10), "several times a pipe's capacity")
	r, err := Start(context.Background(), exec.Command("cat", path), WithGrace(100*time.Millisecond))
	require.NoError(t, err)
	var got int
	var errs []error
	start := time.Now()
	for _, err := range events(r) {
		if err != nil {
			errs = append(errs, err)
		}
		got++
		time.Sleep(time.Millisecond)
	}
	o, err := r.Wait()
	require.NoError(t, err)
	require.Greater(t, time.Since(start), 10*100*time.Millisecond, "the reading took far longer than the grace period")
	assert.Empty(t, errs)
	assert.Equal(t, n, got)
	assert.Equal(t, stream.EndFinished, o.Ending)
	assert.Equal(t, stream.StatusOK, o.Status)
	assert.Equal(t, n, o.Lines)
}

// A new session id is a random UUID, version 4 (the variant bits set),
// as uagent's own session ids are.
func TestNewSessionID(t *testing.T) {
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 100 {
		id := NewSessionID()
		require.Regexp(t, v4, id)
		require.False(t, seen[id], "ids repeat")
		seen[id] = true
	}
}
