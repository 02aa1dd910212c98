package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/uagentkit/stream/otelstream"
	"github.com/uagentkit/stream/uahstream"
)

// cmdOtel exports recorded runs as OpenTelemetry traces.
func cmdOtel(e env, args []string) error {
	fs := flags(e, "otel")
	fs.stateDirFlag("")
	content := fs.Bool("content", false, "also export message texts, tool arguments and the answer (left out by default: they may be sensitive)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fs.usageError("want at least one FILE or -")
	}
	t, err := otelstream.NewTracing(context.Background())
	if err != nil {
		return err
	}
	var opts []otelstream.Option
	if *content {
		opts = append(opts, otelstream.WithContent())
	}
	var failed error
	for _, name := range fs.Args() {
		in, err := openInput(e, name, nil)
		if err != nil {
			failed = errors.Join(failed, err)
			continue
		}
		x := otelstream.New(t.Provider(), opts...) // a trace per run
		if err := readInto(in.Reader, func(l uahstream.Line) { x.Add(l) }); err != nil {
			failed = errors.Join(failed, fmt.Errorf("%s: %w", name, err))
		}
		x.End(in.Status()) // a run directory's state: running or cut_off, not "error"
		in.Close()
		if reportProblems(e, in) {
			failed = errors.Join(failed, fmt.Errorf("%s: parts of the run directory could not be read", name))
		}
	}
	if err := t.Shutdown(); err != nil {
		failed = errors.Join(failed, err)
	}
	return failed
}
