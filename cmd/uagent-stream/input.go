package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/statedir"
)

// open opens a FILE argument, wherever a command reads a stream: "-" is
// standard input, a run directory of uagent's state directory is read as
// the v1 stream uagent would have written of it (see statedir), anything
// else is a file.
func open(e env, name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(e.stdin), nil
	}
	if info, err := os.Stat(name); err == nil && info.IsDir() {
		if !statedir.IsRun(name) {
			return nil, fmt.Errorf("%s: a directory that is not a run directory (one with events.jsonl, summary.json or request.json)", name)
		}
		r, err := statedir.OpenRun(name)
		if err != nil {
			return nil, err
		}
		return newRunStream(r, r.Write), nil
	}
	return os.Open(name)
}

// followRun reads the run directory name as its v1 stream while uagent
// writes it (statedir.Run.Follow), until it ends or ctx does.
func followRun(ctx context.Context, name string) (*runStream, error) {
	r, err := statedir.OpenRun(name)
	if err != nil {
		return nil, err
	}
	return newRunStream(r, func(w io.Writer) error {
		sink := stream.NewSink(w)
		for e := range r.Follow(ctx, pollInterval) {
			sink.Emit(e)
		}
		return sink.Err()
	}), nil
}

// runStream is a run directory read as its v1 stream: the lines are
// written into a pipe as they are read, so that a run of any length is
// never held whole.
type runStream struct {
	*io.PipeReader
	run  *statedir.Run
	done chan struct{}
}

// newRunStream reads what write writes of r.
func newRunStream(r *statedir.Run, write func(io.Writer) error) *runStream {
	pr, pw := io.Pipe()
	s := &runStream{PipeReader: pr, run: r, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		pw.CloseWithError(write(pw))
	}()
	return s
}

// Close stops the writing (if the reader stopped early) and waits for it.
func (s *runStream) Close() error {
	s.PipeReader.Close()
	<-s.done
	return nil
}

// problems returns what could not be read of the run, once it has been
// read (after Close).
func (s *runStream) problems() []error {
	<-s.done
	return s.run.Problems()
}

// problemsOf returns what could not be read of a run directory read
// through in, once it has been read: nothing for a file.
func problemsOf(in io.Reader) []error {
	if s, ok := in.(*runStream); ok {
		return s.problems()
	}
	return nil
}

// serious reports a problem that is more than the run being cut off or
// being written: a file of the run that could not be read.
func serious(p error) bool {
	return !errors.Is(p, statedir.ErrNoSummary) && !errors.Is(p, statedir.ErrRunning) && !errors.Is(p, statedir.ErrWriteInProgress)
}

// reportProblems says on stderr what could not be read of a run directory
// read through in, and reports whether any of it is serious.
func reportProblems(e env, in io.Reader) (anySerious bool) {
	for _, p := range problemsOf(in) {
		fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(p.Error(), false))
		anySerious = anySerious || serious(p)
	}
	return anySerious
}
