package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/parquetstream"
	"github.com/uagentkit/stream/statedir"
)

// cmdExport writes runs as a Parquet dataset (the package parquetstream
// says what an export guarantees).
func cmdExport(e env, args []string) error {
	if wantsCatalog(args) {
		return cmdExportCatalog(e, args)
	}
	fl := flags(e, "export")
	out := fl.String("o", ".", "write the tables under this `dir`")
	content := fl.Bool("content", false, "also export what people and models wrote: messages, tool arguments, the answer")
	allowErrors := fl.Bool("allow-errors", false, "exit 0 even when an input cannot be read, is not a stream, was cut off, or has lines that could not be read")
	stateDirs := fl.stateDirFlag(", and, with no FILE or DIR, the history exported")
	fl.String("catalog", "", "append to the Iceberg tables of this catalog (sqlite:PATH, postgres://…, http(s)://…) instead, with "+icebergCommand+" (see docs/tables.md); its flags: --warehouse, --namespace, --content, --allow-errors, --state-dir")
	if err := fl.parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	code := 0
	problem := func(err error) {
		fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(err.Error(), false))
		// A run still going or stopped, a name that is not UTF-8, a run whose two
		// copies differ and a subagent whose parent is not there are said,
		// not faults: the nightly export of a history where someone works
		// succeeds.
		if !*allowErrors && !errors.Is(err, parquetstream.ErrLive) && !errors.Is(err, parquetstream.ErrStopped) && !errors.Is(err, parquetstream.ErrNameNotUTF8) &&
			!errors.Is(err, statedir.ErrTwoCopies) && !errors.Is(err, history.ErrParent) {
			code = 1
		}
	}
	var inputs []string
	for _, a := range fl.Args() { // an id of the history: its run's directory, or its session's
		found, ok, err := lookupHistory(e, a)
		switch {
		case errors.Is(err, history.ErrNotFound): // said as a file that cannot be read
			inputs = append(inputs, a)
		case err != nil:
			problem(err)
		case ok && found.Run != nil:
			inputs = append(inputs, found.Run.Dir)
		case ok:
			for _, r := range found.Session.Runs {
				inputs = append(inputs, r.Dir)
			}
		default:
			inputs = append(inputs, a)
		}
	}
	if len(fl.Args()) == 0 {
		dirs, err := statedir.Homes(*stateDirs)
		if err != nil {
			return err
		}
		inputs = dirs
	}
	srcs := parquetstream.Sources(inputs, problem)
	opts := []parquetstream.Option{parquetstream.WithCreatedBy("uagent-stream", versionString())}
	if *content {
		opts = append(opts, parquetstream.WithContent())
	}
	x, err := parquetstream.Open(*out, opts...)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer x.Close()
	if err := x.Write(ctx, srcs, problem); err != nil {
		x.Abort()
		if ctx.Err() != nil {
			fmt.Fprintf(e.stderr, "uagent-stream: export interrupted: nothing of it was published to %s\n", sanitize(*out, false))
			return exitError{stream.ExitInterrupted}
		}
		return fmt.Errorf("export: %w (nothing of this export was published)", err)
	}
	if err := x.Publish(); err != nil {
		return fmt.Errorf("export: publishing to %s: %w", *out, err)
	}
	fmt.Fprintf(e.stderr, "uagent-stream: exported %d runs to %s", x.Exported(), sanitize(*out, false))
	if held := x.Already(); held > 0 {
		fmt.Fprintf(e.stderr, " (%d it held already)", held)
	}
	fmt.Fprintln(e.stderr)
	if code != 0 {
		return exitError{code}
	}
	return nil
}
