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
		r.end(r.fold.Verdict())
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
	fr := &follower{ctx: ctx, path: name, done: r.finished.Load, waiting: func() {
		fmt.Fprintf(e.stderr, "uagent-stream: waiting for %s to appear\n", sanitize(name, false))
	}}
	defer fr.close()
	for {
		err := r.renderEach(stream.NewDecoder(fr).All())
		if errors.Is(err, errReplaced) {
			r.end(r.fold.Verdict())
			r.printf("%s── %s was replaced or truncated: a new run starts ──%s\n", r.pal.yellow, sanitize(name, false), r.pal.reset)
			r.reset()
			continue
		}
		r.end(r.fold.Verdict())
		if err != nil {
			return err
		}
		break
	}
	switch {
	case ctx.Err() != nil && !r.finished.Load():
		return exitError{stream.ExitInterrupted}
	case r.errs > 0:
		return exitError{1}
	}
	return nil
}
