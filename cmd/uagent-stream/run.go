package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/uagentkit/stream"
)

// cmdRun runs a command that writes a stream, renders it live (or passes it
// through with --json), prints one outcome line to stderr and exits with
// the command's exit code, 128+signal when a signal killed it.
func cmdRun(e env, args []string) error {
	fs := flags(e, "run", "[--json] [--no-color] [--grace D] -- COMMAND ARGS…")
	asJSON := fs.Bool("json", false, "pass the JSONL through unchanged instead of rendering it")
	noColor := fs.Bool("no-color", false, "never colour the output")
	grace := fs.Duration("grace", 5*time.Second, "on interrupt, how long to wait after SIGINT before SIGKILL")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError(e, fs, "want a COMMAND to run")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Stdin = e.stdin
	cmd.Stderr = e.stderr
	opts := []stream.Option{stream.WithGrace(*grace)}
	if *asJSON {
		opts = append(opts, stream.WithStdoutCopy(e.stdout))
	}
	run, err := stream.Start(ctx, cmd, opts...)
	if err != nil {
		return err
	}
	var renderErr error
	if *asJSON {
		for range run.Events() {
		}
	} else {
		renderErr = newRenderer(e.stdout, useColor(e.stdout, *noColor)).renderEach(run.Events())
	}
	o, err := run.Wait()
	if err == nil {
		err = renderErr
	}
	code := o.ExitCode
	how := fmt.Sprintf("exit %d", o.ExitCode)
	if sig, ok := o.Signal.(syscall.Signal); ok {
		code = 128 + int(sig)
		how = fmt.Sprintf("killed by signal %d (%s)", int(sig), sig)
	}
	errs := ""
	if o.LineErrors > 0 {
		errs = fmt.Sprintf(", %d bad", o.LineErrors)
	}
	fmt.Fprintf(e.stderr, "uagent-stream: %s: %s, status %s, %s, %d lines%s\n", sanitize(fs.Arg(0), false), o.Ending, o.Status, how, o.Lines, errs)
	if err != nil {
		fmt.Fprintf(e.stderr, "uagent-stream: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	if code == 0 {
		return nil
	}
	return exitError{code}
}
