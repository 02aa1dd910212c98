// Package execstream drives a command that writes a uagent stream, such
// as uagent --stream (or a session stream of the harness, such as uah
// exec --json), on every platform Go targets: [Start] runs it in a
// process group of its own, reads its stream once into its one fold (a
// uahstream.Session), delivers each line as it was folded, loses none to
// a slow reader, stops the whole process tree on cancel, and reports its
// [Outcome], whose verdict is the fold's. [Open] replays a recording
// through the same interface, for testing front-ends.
package execstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/uahstream"
)

// Outcome is how a run ended.
type Outcome struct {
	// Ending, Status and ExitCode are the run's verdict, the fold's
	// (stream.Fold.VerdictOf for a process, stream.Fold.Verdict for a
	// replay; for a session stream of the harness uah, whose first line
	// is session_opened, uah exec's rule on its last run's: see
	// uahstream.Session.Verdict): the summary's status for EndFinished; for a cut-off run,
	// timeout when the context's deadline passed or the process exited
	// 124, interrupted when the context was cancelled, the Run was closed,
	// a signal that asks a process to stop (SIGINT, SIGTERM, SIGHUP)
	// killed it or it exited 130, error otherwise; error for
	// EndPreflightBlocked and EndStartFailed. ExitCode is the process's,
	// -1 when a signal killed it; for a replay, the one the contract gives
	// the ending.
	stream.Verdict
	// Signal is the signal that killed the process, or nil (always nil on
	// Windows and for a replay).
	Signal os.Signal
	// Summary is the run_finished summary, when one arrived (the last
	// run's, for a session stream).
	Summary *stream.SummaryDTO
	// Stderr is the last StderrTail bytes the process wrote to stderr.
	Stderr []byte
	// Lines counts the lines read; LineErrors those that could not be
	// decoded (as uahstream.Session.Lines counts them).
	Lines, LineErrors int
	// Replayed reports an outcome of Open rather than of a process.
	Replayed bool
}

// Run is a uagent stream being read: a process started by [Start], or a
// recording replayed by [Open].
//
// Lifecycle: range over [Run.Lines] to receive the lines as they arrive,
// then call [Run.Wait] for the outcome; or call [Run.Close] to stop early.
// One of Wait or Close must be called: until then the Run holds goroutines,
// the process's pipes or the replayed file. After either returns, nothing
// of the Run remains running or open.
//
// Lines may be ranged over from one goroutine while Wait or Close is
// called from another. Breaking out of the range blocks nothing: the lines
// not received are read, folded and discarded when Wait or Close is
// called, so the process never blocks on its stdout. Wait and Close may be
// called more than once and concurrently; all calls return the same
// result.
type Run struct {
	cfg    config
	items  chan uahstream.Line
	drain  chan struct{} // closed by Wait and Close: stop delivering lines
	done   chan struct{} // closed when the stream has been read to its end
	stop   atomic.Bool   // Close of a replay: stop reading
	closed atomic.Bool   // the pipes were closed by force: a read error is the end

	ready   chan struct{}      // closed once session is set
	session *uahstream.Session // the one fold of the lines, safe for concurrent use
	readErr error              // set by the reading goroutine before done is closed

	// Set for a process.
	ctx    context.Context
	cancel context.CancelFunc
	cmd    *exec.Cmd
	proc   procGroup     // the platform's hold on the process tree
	exited chan struct{} // closed when the process has exited
	waited error         // cmd.Wait's error
	stderr *tailBuffer
	errEOF chan struct{} // closed when stderr is drained
	exit   chan struct{} // closed when the watcher has returned

	waitOnce sync.Once
	result   Outcome
	err      error
}

// Start starts cmd, a command that writes a uagent stream to its stdout
// (such as `uagent --stream …`), in a process group of its own. cmd.Stdout
// must be nil: Start reads it. Stderr is always drained; its last 64 KiB go
// to the Outcome, and to cmd.Stderr too when that is set. Fields of
// cmd.SysProcAttr that the caller set are kept.
//
// Nothing the process tree wrote is lost to a slow reader: while the
// process runs, the reader's pace holds its writes back, as a pipe does;
// from its exit (or the interrupt) on, stdout is read to its end at once
// and held for the reader, however slowly it ranges over [Run.Events].
//
// When ctx ends or [Run.Close] is called, Start interrupts the process
// tree, waits the grace period (see [WithGrace]) for the process to exit,
// then kills what is left of the tree. Once the process has exited,
// descendants that still hold stdout or stderr open get the grace period,
// counted from the exit, then the group is killed. A descendant that left
// the group and still holds a pipe a grace period after that loses what it
// writes from then on: the pipes are closed. What was written before stays
// readable. What each platform guarantees:
//
//   - Unix: the process and its descendants are one process group: the
//     interrupt is SIGINT to the group, the kill SIGKILL to the group. A
//     descendant that leaves the group (setsid, setpgid) is out of reach;
//     the command uagent-stream reaps and kills those too, as a subreaper
//     on Linux, which a library cannot do behind its host's back.
//   - Windows: the process starts in a new process group and is assigned
//     to a job object that kills every member when closed: the interrupt
//     is CTRL_BREAK_EVENT to the group (for a console process), the kill
//     terminates the job, descendants included. A descendant that the
//     process starts before it is assigned to the job (a moment after
//     start) escapes the job.
//   - js/wasm, wasip1 and other platforms without processes: Start returns
//     an error that wraps errors.ErrUnsupported; Open works everywhere.
//
// Of the options, Start reads [WithGrace], [WithStdoutCopy] and
// [WithDecoder].
func Start(ctx context.Context, cmd *exec.Cmd, opts ...Option) (*Run, error) {
	if cmd.Stdout != nil {
		return nil, errors.New("stream: start: cmd.Stdout is already set")
	}
	if cmd.Process != nil {
		return nil, errors.New("stream: start: the command was already started")
	}
	if err := prepare(cmd); err != nil {
		return nil, fmt.Errorf("stream: start %s: %w", cmd.Path, err)
	}
	r := newRun(opts)
	r.ctx, r.cancel = context.WithCancel(ctx)
	r.cmd = cmd
	r.exited, r.errEOF, r.exit = make(chan struct{}), make(chan struct{}), make(chan struct{})
	r.stderr = &tailBuffer{max: StderrTail}

	outR, outW, err := os.Pipe()
	if err != nil {
		r.cancel()
		return nil, fmt.Errorf("stream: start %s: %w", cmd.Path, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		r.cancel()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("stream: start %s: %w", cmd.Path, err)
	}
	userStderr := cmd.Stderr
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		r.cancel()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("stream: start %s: %w", cmd.Path, err)
	}
	r.proc = attach(cmd.Process)

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
	out := newPump(outR, r.closed.Load)
	go r.watch(out, outR, errR)
	go r.read(out, nil)
	return r, nil
}

func newRun(opts []Option) *Run {
	return &Run{
		cfg:   newConfig(opts),
		items: make(chan uahstream.Line),
		drain: make(chan struct{}),
		done:  make(chan struct{}),
		ready: make(chan struct{}),
	}
}

// watch stops the process tree when the context ends, and ends the run
// when the process has exited. From the process's exit (or the interrupt)
// on, the pump reads stdout to its end without waiting for the reader, so
// that the reader's pace never decides what is lost. The grace period
// counts from the exit and is for the descendants that still hold stdout
// or stderr open: when it runs out, the group is killed; if a pipe is still
// open a grace period after that (a descendant left the group), the pipes
// are closed, so that Wait returns. What was read by then stays readable.
func (r *Run) watch(out *pump, stdout, stderr *os.File) {
	defer close(r.exit)
	drained := make(chan struct{})
	go func() {
		<-out.eof
		<-r.errEOF
		close(drained)
	}()
	select {
	case <-r.ctx.Done():
		out.unbound()
		r.proc.interrupt()
		grace := time.NewTimer(r.cfg.grace)
		select {
		case <-r.exited:
		case <-grace.C:
		}
		grace.Stop()
		r.proc.kill() // whatever is left of the tree goes now
		<-r.exited
	case <-r.exited:
		out.unbound()
		grace := time.NewTimer(r.cfg.grace)
		select {
		case <-drained:
			grace.Stop()
			r.proc.release()
			return
		case <-grace.C:
		case <-r.ctx.Done():
		}
		grace.Stop()
		r.proc.kill()
	}
	late := time.NewTimer(r.cfg.grace)
	defer late.Stop()
	select {
	case <-drained:
	case <-late.C:
		r.closed.Store(true)
		stdout.Close()
		stderr.Close()
		<-drained
	}
	r.proc.release()
}

// read reads the stream into the run's session and delivers each line
// as it was folded, until the end, or until Wait or Close stops the
// delivery (the rest is still read and folded). pace, when set, waits
// before each line that has a time.
func (r *Run) read(src io.ReadCloser, pace func(at time.Time) bool) {
	defer close(r.done)
	defer close(r.items)
	defer src.Close()
	var in io.Reader = src
	if r.cfg.copyTo != nil {
		in = io.TeeReader(src, r.cfg.copyTo)
	}
	s := r.cfg.session
	if s == nil {
		s = new(uahstream.Session)
	}
	rd := s.Reader(in, r.cfg.decoder...)
	r.session = rd.Session()
	close(r.ready)
	defer func() {
		if err := rd.Err(); err != nil && !r.closed.Load() && !r.stop.Load() { // not the end we caused
			r.readErr = err
		}
	}()
	for l := range rd.Lines() {
		if r.cfg.raw {
			l.Raw = bytes.Clone(l.Raw)
		} else {
			l.Raw = nil
		}
		if l.Err == nil && pace != nil {
			if _, at, ok := stream.HeaderOf(l.DTO); ok && !pace(at) {
				pace = nil // Wait asked to drain: no more waiting
			}
		}
		select {
		case r.items <- l:
		case <-r.drain:
		}
		if r.stop.Load() {
			return
		}
	}
}

// Lines returns an iterator over the run's lines as they arrive, each
// folded into the run's [Run.Session] first: its DTO and a nil error, or
// nil and a *stream.LineError, and what it changed (see uahstream.Line;
// Raw only with [WithRaw]); then the session's end (a Line whose
// Change.End is set, and Ended the run still open). It ends when the
// stream ends: the process closed its stdout, the replay reached the end
// of the file, or Close stopped the run. Once Wait or Close has been
// called, lines not yet received may be discarded instead of delivered.
// Lines is meant to be ranged over once; a second range yields what is
// left, if anything.
func (r *Run) Lines() iter.Seq[uahstream.Line] {
	return func(yield func(uahstream.Line) bool) {
		for l := range r.items {
			if !yield(l) {
				return
			}
		}
	}
}

// Session is the run's session: the one fold of its lines (a run's
// stream is a session of one run), safe for concurrent use; what it says
// is of the lines read so far.
func (r *Run) Session() *uahstream.Session {
	<-r.ready
	return r.session
}

// Wait waits for the run to end and returns its outcome. Lines not yet
// received are discarded. The error is nil when the process ran, whatever
// its exit code; it reports a failure to read the stream or to wait for the
// process. After Wait returns, the process and every goroutine and file of
// the Run are gone (descendants that left the process group aside; see
// Start).
//
// How long Wait takes: until the process exits, then until its pipes close,
// at most two grace periods after the exit (one for the descendants in the
// group, one more for those that left it), plus the time to decode what is
// still held. After the context ends, the process gets one grace period to
// exit before the group is killed.
func (r *Run) Wait() (Outcome, error) {
	r.waitOnce.Do(func() {
		close(r.drain)
		if r.cmd == nil {
			<-r.done
			r.result, r.err = r.replayOutcome(), r.readErr
			return
		}
		<-r.exited
		<-r.done
		<-r.errEOF
		<-r.exit
		r.result, r.err = r.processOutcome()
		r.cancel()
	})
	return r.result, r.err
}

// Close stops the run and releases everything it holds, then returns what
// Wait returns. For a process it does what the end of the context does
// (interrupt, the grace period, kill), and the outcome's status is
// interrupted unless the run had already finished; for a replay it stops
// reading and closes the file. Close may be called more than once, and
// concurrently with Wait.
func (r *Run) Close() error {
	if r.cancel != nil {
		r.cancel()
	}
	r.stop.Store(true)
	_, err := r.Wait()
	return err
}

// outcome is what the lines say of the run, beside its verdict.
func (r *Run) outcome(v stream.Verdict) Outcome {
	lines, lineErrors := r.session.Lines()
	var summary *stream.SummaryDTO
	r.session.Fold(func(f *stream.Fold) { summary = f.Recomputed().Recorded })
	return Outcome{Verdict: v, Summary: summary, Lines: lines, LineErrors: lineErrors}
}

func (r *Run) processOutcome() (Outcome, error) {
	state := r.cmd.ProcessState
	if state == nil {
		o := r.outcome(r.session.VerdictOf(-1, ""))
		o.Stderr = r.stderr.Bytes()
		return o, fmt.Errorf("stream: wait %s: %w", r.cmd.Path, r.waited)
	}
	sig := exitSignal(state)
	var stop stream.Status
	switch {
	case errors.Is(r.ctx.Err(), context.DeadlineExceeded):
		stop = stream.StatusTimeout
	case r.ctx.Err() != nil, isStopSignal(sig):
		stop = stream.StatusInterrupted
	}
	o := r.outcome(r.session.VerdictOf(state.ExitCode(), stop))
	o.Signal, o.Stderr = sig, r.stderr.Bytes()
	return o, r.readErr
}

func (r *Run) replayOutcome() Outcome {
	o := r.outcome(r.session.Verdict())
	o.Replayed = true
	return o
}

// Open replays a recorded stream (an events.jsonl, or what `uagent
// --stream` wrote) through the same interface as Start, so that a front-end
// can be tested against a recording. With [WithTiming] the events come with
// their original spacing (by their at), sped up by the given factor; Wait
// stops the pacing and returns when the rest of the file has been read,
// Close at once. The file is closed when the Run ends. Of the options, Open
// reads [WithTiming], [WithStdoutCopy] and [WithDecoder].
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
