package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/statedir"
)

func cmdCat(e env, args []string) error {
	fs := flags(e, "cat")
	follow := fs.Bool("f", false, "follow a growing file until run_finished, like tail -f; wait for it to appear, start over when it is replaced")
	noColor := fs.Bool("no-color", false, "never colour the output (NO_COLOR also turns colour off)")
	noReasoning := fs.Bool("no-reasoning", false, "hide the reasoning lines")
	toolOutput := fs.Bool("tool-output", false, "under each finished tool, print the last lines of its out_path and err_path files, where they exist on this machine")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.usageError("want one FILE or -")
	}
	name := fs.Arg(0)
	if *follow && name == "-" {
		return fs.usageError("-f follows a FILE; standard input cannot be followed")
	}
	r := newRenderer(e.stdout, useColor(e.stdout, *noColor), *follow)
	r.noReasoning, r.toolOutput = *noReasoning, *toolOutput
	defer r.flush()
	if !*follow {
		in, err := open(e, name)
		if err != nil {
			return err
		}
		defer in.Close()
		err = r.renderAll(stream.NewDecoder(in))
		in.Close()
		if reportProblems(e, in) && err == nil {
			err = exitError{1}
		}
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r.interrupted = func() bool { return ctx.Err() != nil }
	if statedir.IsRun(name) { // a run directory: followed until its summary says it ended
		in, err := followRun(ctx, name)
		if err != nil {
			return err
		}
		defer in.Close()
		err = r.renderEach(stream.NewDecoder(in).All())
		r.finish(r.verdict())
		in.Close()
		serious := reportProblems(e, in)
		switch {
		case err != nil:
			return err
		case ctx.Err() != nil && !r.finished.Load():
			return exitError{stream.ExitInterrupted}
		case serious || r.errs > 0:
			return exitError{1}
		}
		return nil
	}
	// A run's stream is followed until its run_finished; a session's (the
	// harness's, with no closing event) until Ctrl-C.
	done := func() bool { return r.session == nil && r.finished.Load() }
	fr := &follower{ctx: ctx, path: name, done: done, waiting: func() {
		fmt.Fprintf(e.stderr, "uagent-stream: waiting for %s to appear\n", sanitize(name, false))
	}}
	defer fr.close()
	for {
		err := r.renderEach(stream.NewDecoder(fr).All())
		if errors.Is(err, errReplaced) {
			r.finish(r.verdict())
			r.printf("%s── %s was replaced or truncated: a new run starts ──%s\n", r.pal.yellow, sanitize(name, false), r.pal.reset)
			r.restart()
			continue
		}
		r.finish(r.verdict())
		if err != nil {
			return err
		}
		break
	}
	switch {
	case ctx.Err() != nil && r.session != nil && r.session.s.Fold() != nil: // a session, during a run
		return exitError{stream.ExitInterrupted}
	case ctx.Err() != nil && r.session == nil && !r.finished.Load():
		return exitError{stream.ExitInterrupted}
	case r.errs > 0:
		return exitError{1}
	}
	return nil
}
