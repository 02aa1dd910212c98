package main

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"os"
	"os/signal"
	"syscall"

	"github.com/uagentkit/stream/follow"
	"github.com/uagentkit/stream/history"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/termstream"
	"github.com/uagentkit/stream/uahstream"
)

func cmdCat(e env, args []string) error {
	fs := flags(e, "cat")
	fs.stateDirFlag("")
	live := fs.Bool("f", false, "follow a growing file until run_finished, like tail -f; wait for it to appear, start over when it is replaced")
	noColor := fs.Bool("no-color", false, "never colour the output (NO_COLOR also turns colour off)")
	noReasoning := fs.Bool("no-reasoning", false, "hide the reasoning lines")
	toolOutput := fs.Bool("tool-output", false, "under each finished tool, print the last lines of its out_path and err_path files, where they exist on this machine")
	pricesFile := fs.String("prices", "", pricesUsage)
	if err := fs.parse(args); err != nil {
		return err
	}
	prices, err := history.PricesWith(*pricesFile)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.usageError("want one FILE or -")
	}
	name := fs.Arg(0)
	if *live && name == "-" {
		return fs.usageError("-f follows a FILE; standard input cannot be followed")
	}
	o := termstream.Options{Color: useColor(e.stdout, *noColor), Live: *live, NoReasoning: *noReasoning, ToolOutput: *toolOutput, Prices: &prices}
	if !*live {
		in, err := openInput(e, name, nil, stream.WithBorrowedStrings()) // each line is shown before the next
		if err != nil {
			return err
		}
		defer in.Close()
		o.Going = in.Going
		r := termstream.New(e.stdout, in.Reader.Session(), o)
		err = render(r, in.Reader)
		attempts(e, in)
		if reportProblems(e, in) && err == nil {
			err = exitError{1}
		}
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o.Interrupted = func() bool { return ctx.Err() != nil }
	found, ok, err := lookupHistory(e, name)
	switch {
	case errors.Is(err, history.ErrNotFound): // a file still to come: waited for
		ok = false
	case err != nil:
		return err
	case ok && found.Run != nil:
		name = found.Run.Dir
	}
	if statedir.IsRun(name) || ok { // a run directory (or a session's runs): followed until its summary says it ended
		in := &history.Input{}
		var rd *uahstream.Reader
		if ok && found.Session != nil { // its runs in order, the last followed
			last := func(r *statedir.Run) iter.Seq[stream.Event] { return r.Follow(ctx, pollInterval) }
			if rd, in.Runs, err = found.Session.Reader(new(uahstream.Session), last); err != nil {
				return err
			}
		} else {
			if in.Run, err = statedir.OpenRun(name); err != nil {
				return err
			}
			rd = uahstream.ReadEvents(in.Run.Follow(ctx, pollInterval))
		}
		r := termstream.New(e.stdout, rd.Session(), o)
		err = render(r, rd)
		serious := reportProblems(e, in)
		switch {
		case ctx.Err() != nil && !rd.Session().Finished():
			return exitError{stream.ExitInterrupted}
		case serious && err == nil:
			return exitError{1}
		}
		return err
	}
	// A run's stream is followed until its run_finished; a session's (the
	// harness's, with no closing event) until Ctrl-C. A file replaced or
	// truncated starts over, with a separator, whatever it held.
	s := new(uahstream.Session)
	fr := followFile(ctx, e, name, func() bool { return s.Finished() })
	defer fr.Close()
	r := termstream.New(e.stdout, s, o)
	running := false // a run was going on when the stream ended
	for {
		rd := s.Reader(fr)
		running, err = r.Render(rd)
		if !errors.Is(err, follow.ErrReplaced) {
			break
		}
		r.Note(name + " was replaced or truncated: a new run starts")
		s = new(uahstream.Session)
		r.Restart(s)
	}
	switch {
	case err != nil:
		return err
	case ctx.Err() != nil && running:
		return exitError{stream.ExitInterrupted}
	case r.Errors() > 0:
		return exitError{1}
	}
	return nil
}

// pollInterval is how often a followed file or run directory is looked
// at for more.
var pollInterval = follow.DefaultPoll

// followFile follows the file at path (follow.Reader) until done, saying
// on stderr when it waits for the file to appear.
func followFile(ctx context.Context, e env, path string, done func() bool) *follow.Reader {
	fr := follow.NewReader(ctx, path)
	fr.Done, fr.Poll = done, pollInterval
	fr.Waiting = func() { fmt.Fprintf(e.stderr, "uagent-stream: waiting for %s to appear\n", sanitize(path, false)) }
	return fr
}

// render renders every line rd reads and how the stream ended
// (termstream.Renderer.Render), with what its runs would cost. Line
// errors are shown where they occur and make the result an exit 1; an
// error of the reader is returned.
func render(r *termstream.Renderer, rd *uahstream.Reader) error {
	switch _, err := r.Render(rd); {
	case err != nil:
		return err
	case r.Errors() > 0:
		return exitError{1}
	}
	return nil
}

// attempts says, after a run directory's transcript, how its model
// attempts ended (stderr.log), when it says.
func attempts(e env, in *history.Input) {
	if a := in.Attempts(); a.Total() > 0 {
		fmt.Fprintf(e.stdout, "%s (stderr.log)\n", a)
	}
}

// readInto hands every line rd reads to add, the session's end included,
// and returns the error of the reader, if any.
func readInto(rd *uahstream.Reader, add func(uahstream.Line)) error {
	for l := range rd.Lines() {
		add(l)
	}
	return rd.Err()
}
