package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/execstream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/termstream"
)

// cmdRun runs a command that writes a stream, renders it live (or passes it
// through with --json), prints one outcome line to stderr and exits with
// the command's exit code: 128+signal when a signal killed it, 130 when the
// run was interrupted, 127 when the command does not exist and 126 when it
// cannot be executed.
func cmdRun(e env, args []string) error {
	fl := flags(e, "run")
	fl.interleave = false // what follows COMMAND is the command's own
	asJSON := fl.Bool("json", false, "pass the JSONL through instead of rendering it (control, bidi and invisible characters written as \\u escapes: the same JSON values)")
	save := fl.String("save", "", "also write the raw stream, byte for byte, to this `file` (as tee would)")
	otelOn := fl.Bool("otel", false, "also export the run live as OpenTelemetry spans (OTLP, configured by the OTEL_* variables)")
	otelContent := fl.Bool("otel-content", false, "with --otel, also export message texts, tool arguments and the answer")
	noColor := fl.Bool("no-color", false, "never colour the output")
	grace := fl.Duration("grace", 5*time.Second, "on interrupt, how long to wait before killing what is left")
	if err := fl.parse(args); err != nil {
		return err
	}
	if fl.NArg() == 0 {
		return fl.usageError("want a COMMAND to run")
	}
	// The command owns its process: descendants that leave the run's
	// process group are reparented here (Linux) and stopped at the end.
	execstream.BecomeSubreaper()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	name := fl.Arg(0)
	cmd := exec.Command(name, fl.Args()[1:]...)
	cmd.Stdin = e.stdin
	stderr := &lastByte{w: e.stderr}
	cmd.Stderr = stderr
	var copies []io.Writer
	if *save != "" {
		f, err := os.Create(*save)
		if err != nil {
			return err
		}
		defer f.Close()
		copies = append(copies, f)
	}
	var jsonLines *termstream.LineWriter
	if *asJSON {
		jsonLines = termstream.NewLineWriter(jsonOut{W: e.stdout}, stream.DefaultMaxLineSize, func(line int) {
			stderr.newline()
			fmt.Fprintf(stderr, "uagent-stream: line %d is longer than %d bytes: passed on as it comes\n", line, stream.DefaultMaxLineSize)
		})
		copies = append(copies, jsonLines)
	}
	opts := []execstream.Option{execstream.WithGrace(*grace)}
	if len(copies) > 0 {
		opts = append(opts, execstream.WithStdoutCopy(io.MultiWriter(copies...)))
	}
	restore := execstream.Foreground(cmd, e.stdin)
	run, err := execstream.Start(ctx, cmd, opts...)
	if err != nil {
		restore()
		fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(err.Error(), false))
		return exitError{execstream.StartExitCode(err)}
	}
	export := newLiveExport(e, *otelOn, *otelContent)
	var r *termstream.Renderer
	if !*asJSON {
		r = termstream.New(e.stdout, run.Session(), termstream.Options{Color: useColor(e.stdout, *noColor), Live: true, Prices: new(history.DefaultPrices())})
	}
	for l := range run.Lines() {
		export.add(l)
		if r != nil {
			r.Add(l)
		}
	}
	o, err := run.Wait()
	if r != nil {
		r.Finish(o.Verdict) // the closing line says what the outcome line says
	}
	restore() // the terminal first: nothing below needs the child
	execstream.ReapOrphans(*grace)
	if jsonLines != nil {
		jsonLines.Flush()
	}
	export.end(e, o.Status) // a bounded flush, beside the run's own result
	code := reportOutcome(e, stderr, name, o, err)
	if code == 0 {
		return nil
	}
	return exitError{code}
}
