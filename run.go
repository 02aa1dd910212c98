package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Ending says how a run's stream ended.
type Ending int

// The endings of a stream.
const (
	// EndFinished: a run_finished line arrived.
	EndFinished Ending = iota + 1
	// EndPreflightBlocked: no line was written and the exit code is 2.
	EndPreflightBlocked
	// EndStartFailed: the stream stopped after run_started (and preflight
	// warnings) and the exit code is 1: the runner could not start.
	EndStartFailed
	// EndCutOff: any other ending without run_finished: the process was
	// killed, crashed, or closed its stdout early.
	EndCutOff
)

// String returns the ending's name: finished, preflight_blocked,
// start_failed or cut_off.
func (k Ending) String() string {
	switch k {
	case EndFinished:
		return "finished"
	case EndPreflightBlocked:
		return "preflight_blocked"
	case EndStartFailed:
		return "start_failed"
	case EndCutOff:
		return "cut_off"
	}
	return fmt.Sprintf("Ending(%d)", int(k))
}

// StderrTail is how much of a process's stderr an [Outcome] keeps: the last
// 64 KiB.
const StderrTail = 64 << 10

// Outcome is how a run ended.
type Outcome struct {
	Ending Ending
	// Status is the status the contract implies: the summary's for
	// EndFinished; for a cut-off run, timeout when the context's deadline
	// passed, interrupted when the context was cancelled or the process was
	// interrupted (SIGINT, SIGTERM, SIGHUP), error otherwise;
	// error for EndPreflightBlocked and EndStartFailed.
	Status Status
	// ExitCode is the process's exit code, -1 when a signal killed it. For a
	// replay (see Open) it is the exit code the contract gives the ending.
	ExitCode int
	// Signal is the signal that killed the process, or nil.
	Signal os.Signal
	// Summary is the run_finished summary, when one arrived.
	Summary *SummaryDTO
	// Stderr is the last StderrTail bytes the process wrote to stderr.
	Stderr []byte
	// Lines counts the lines read; LineErrors those that could not be
	// decoded.
	Lines, LineErrors int
	// Replayed reports an outcome of Open rather than of a process.
	Replayed bool
}

// Run is a uagent stream being read: a process started by [Start], or a
// recording replayed by [Open].
//
// Receive its events by ranging over [Run.Events]; then call [Run.Wait] for
// the outcome. Wait may be called without ranging: the events not received
// are read and discarded, so the process never blocks on its stdout. Events
// and Wait may be called from different goroutines.
type Run struct {
	cfg   options
	opts  []Option // for the Decoder
	items chan runItem
	drain chan struct{} // closed by Wait: stop delivering events
	done  chan struct{} // closed when the stream has been read to its end

	// Set by the reading goroutine before done is closed.
	summary           *SummaryDTO
	lines, lineErrors int
	onlyStart         bool // every line so far was run_started or preflight_warning
	readErr           error

	// Set for a process.
	ctx    context.Context
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has exited
	waited error         // cmd.Wait's error
	stderr *tailBuffer
	errEOF chan struct{} // closed when stderr is drained

	waitOnce sync.Once
	outcome  Outcome
	err      error
}

type runItem struct {
	dto any
	err error
}

// Start starts cmd, a command that writes a uagent stream to its stdout
// (such as `uagent --stream …`), in a process group of its own. cmd.Stdout
// must be nil: Start reads it. Stderr is always drained; its last 64 KiB go
// to the Outcome, and to cmd.Stderr too when that is set.
//
// When ctx ends, Start sends SIGINT to the process group, waits the grace
// period (see WithGrace), then sends SIGKILL to the group, so that no child
// or grandchild survives. A grandchild that keeps stdout or stderr open
// after the process exits is killed after the grace period too.
func Start(ctx context.Context, cmd *exec.Cmd, opts ...Option) (*Run, error) {
	if cmd.Stdout != nil {
		return nil, errors.New("stream: start: cmd.Stdout is already set")
	}
	if cmd.Process != nil {
		return nil, errors.New("stream: start: the command was already started")
	}
	r := newRun(opts)
	r.ctx, r.cmd = ctx, cmd
	r.exited, r.errEOF = make(chan struct{}), make(chan struct{})
	r.stderr = &tailBuffer{max: StderrTail}

	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stream: start %s: %w", cmd.Path, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("stream: start %s: %w", cmd.Path, err)
	}
	userStderr := cmd.Stderr
	cmd.Stdout, cmd.Stderr = outW, errW
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("stream: start %s: %w", cmd.Path, err)
	}

	go func() { // stderr: always drained
		defer close(r.errEOF)
		defer errR.Close()
		var w io.Writer = r.stderr
		if userStderr != nil {
			w = io.MultiWriter(r.stderr, userStderr)
		}
		io.Copy(w, errR)
	}()
	go func() { // the process
		r.waited = cmd.Wait()
		close(r.exited)
	}()
	go r.watch(outR, errR)
	go r.read(outR, nil)
	return r, nil
}

func newRun(opts []Option) *Run {
	r := &Run{
		cfg:       newOptions(opts),
		opts:      opts,
		items:     make(chan runItem),
		drain:     make(chan struct{}),
		done:      make(chan struct{}),
		onlyStart: true,
	}
	return r
}

// signalGroup signals the process group; errors (the group is gone) are
// ignored.
func (r *Run) signalGroup(sig syscall.Signal) {
	_ = syscall.Kill(-r.cmd.Process.Pid, sig)
}

// watch stops the process group when ctx ends. Once the process has
// exited, it gives the descendants that still hold stdout or stderr open the
// grace period, then kills the group; if a pipe is still open after that (a
// descendant left the group), it closes the pipe, so that Wait returns.
func (r *Run) watch(stdout, stderr *os.File) {
	drained := make(chan struct{})
	go func() {
		<-r.done
		<-r.errEOF
		close(drained)
	}()
	select {
	case <-r.ctx.Done():
		r.signalGroup(syscall.SIGINT)
		select {
		case <-r.exited:
		case <-time.After(r.cfg.grace):
		}
		r.signalGroup(syscall.SIGKILL) // whatever is left of the group goes now
	case <-r.exited:
		select {
		case <-drained:
			return
		case <-time.After(r.cfg.grace):
		case <-r.ctx.Done():
		}
		r.signalGroup(syscall.SIGKILL)
	}
	select {
	case <-drained:
	case <-time.After(r.cfg.grace):
		stdout.Close()
		stderr.Close()
	}
}

// read decodes the stream and delivers its events until the end, or until
// Wait stops the delivery. pace, when set, waits before each event.
func (r *Run) read(src io.ReadCloser, pace func(at time.Time) bool) {
	defer close(r.done)
	defer close(r.items)
	defer src.Close()
	var in io.Reader = src
	if r.cfg.copyTo != nil {
		in = io.TeeReader(src, r.cfg.copyTo)
	}
	dec := NewDecoder(in, r.opts...)
	for {
		dto, err := dec.Decode()
		if err == io.EOF {
			return
		}
		if err != nil {
			if _, ok := errors.AsType[*LineError](err); !ok {
				r.readErr = err
				return
			}
			r.lines++
			r.lineErrors++
			r.onlyStart = false
		} else {
			r.lines++
			switch d := dto.(type) {
			case RunStartedDTO:
				r.onlyStart = r.onlyStart && r.lines == 1
			case PreflightWarningDTO:
			case RunFinishedDTO:
				if r.summary == nil {
					r.summary = &d.Summary
				}
				r.onlyStart = false
			default:
				r.onlyStart = false
			}
			if pace != nil {
				if e, ok := DTOToEvent(dto); ok && !pace(e.OccurredAt()) {
					pace = nil // Wait asked to drain: no more waiting
				}
			}
		}
		select {
		case r.items <- runItem{dto, err}:
		case <-r.drain:
		}
	}
}

// Events returns an iterator over the run's events as they arrive: each
// step yields a DTO (as the Decoder returns it) and a nil error, or nil and
// a *LineError for a line that could not be decoded. It ends when the stream
// ends: the process closed its stdout, or the replay reached the end of the
// file. Events is meant to be ranged over once; a second range, or a range
// after Wait, yields what is left, if anything.
func (r *Run) Events() iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for it := range r.items {
			if !yield(it.dto, it.err) {
				return
			}
		}
	}
}

// Wait waits for the run to end and returns its outcome. Events not yet
// received are discarded. The error is nil when the process ran, whatever
// its exit code; it reports a failure to read the stream or to wait for the
// process. Wait may be called more than once; it returns the same result.
func (r *Run) Wait() (Outcome, error) {
	r.waitOnce.Do(func() {
		close(r.drain)
		if r.cmd == nil {
			<-r.done
			r.outcome, r.err = r.replayOutcome(), r.readErr
			return
		}
		<-r.exited
		<-r.done
		<-r.errEOF
		r.outcome, r.err = r.processOutcome()
	})
	return r.outcome, r.err
}

func (r *Run) baseOutcome() Outcome {
	o := Outcome{Summary: r.summary, Lines: r.lines, LineErrors: r.lineErrors}
	switch {
	case r.summary != nil:
		o.Ending, o.Status = EndFinished, Status(r.summary.Status)
	case r.lines == 0:
		o.Ending, o.Status = EndPreflightBlocked, StatusError
	case r.onlyStart:
		o.Ending, o.Status = EndStartFailed, StatusError
	default:
		o.Ending, o.Status = EndCutOff, StatusError
	}
	return o
}

func (r *Run) processOutcome() (Outcome, error) {
	o := r.baseOutcome()
	o.Stderr = r.stderr.Bytes()
	state := r.cmd.ProcessState
	var err error
	if state == nil {
		return o, fmt.Errorf("stream: wait %s: %w", r.cmd.Path, r.waited)
	}
	o.ExitCode = state.ExitCode()
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		o.Signal = ws.Signal()
	}
	switch o.Ending {
	case EndPreflightBlocked:
		if o.ExitCode != ExitUsage {
			o.Ending = EndCutOff
		}
	case EndStartFailed:
		if o.ExitCode != ExitError {
			o.Ending = EndCutOff
		}
	}
	if o.Ending == EndCutOff {
		switch {
		case errors.Is(r.ctx.Err(), context.DeadlineExceeded):
			o.Status = StatusTimeout
		case r.ctx.Err() != nil, o.Signal == syscall.SIGINT, o.Signal == syscall.SIGTERM, o.Signal == syscall.SIGHUP:
			o.Status = StatusInterrupted
		default:
			o.Status = StatusError
		}
	}
	if r.readErr != nil {
		err = r.readErr
	}
	return o, err
}

func (r *Run) replayOutcome() Outcome {
	o := r.baseOutcome()
	o.Replayed = true
	switch o.Ending {
	case EndFinished:
		o.ExitCode = ExitCode(o.Status)
	case EndPreflightBlocked:
		o.ExitCode = ExitUsage
	case EndStartFailed:
		o.ExitCode = ExitError
	default:
		o.ExitCode = -1
	}
	return o
}

// Open replays a recorded stream (an events.jsonl, or what `uagent
// --stream` wrote) through the same interface as Start, so that a front-end
// can be tested against a recording. With WithTiming the events come with
// their original spacing (by their at), sped up by the given factor; Wait
// stops the pacing and returns at once.
func Open(path string, opts ...Option) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("stream: open replay: %w", err)
	}
	r := newRun(opts)
	var pace func(time.Time) bool
	if r.cfg.speed > 0 {
		var prev time.Time
		pace = func(at time.Time) bool {
			defer func() {
				if at.After(prev) {
					prev = at
				}
			}()
			if prev.IsZero() || !at.After(prev) {
				return true
			}
			t := time.NewTimer(time.Duration(float64(at.Sub(prev)) / r.cfg.speed))
			defer t.Stop()
			select {
			case <-t.C:
				return true
			case <-r.drain:
				return false
			}
		}
	}
	go r.read(f, pace)
	return r, nil
}

// tailBuffer keeps the last max bytes written to it. It is safe for
// concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return n, nil
}

// Bytes returns a copy of the last max bytes.
func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf[max(0, len(t.buf)-t.max):]...)
}
