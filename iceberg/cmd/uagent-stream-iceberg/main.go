// Command uagent-stream-iceberg appends uagent runs to Apache Iceberg
// tables (the package icebergstream says what an export guarantees). It
// is what `uagent-stream export --catalog …` runs, with its arguments;
// run by itself it takes the same ones:
//
//	uagent-stream-iceberg [export] --catalog URI [--warehouse URI] [--namespace NS]
//		[--content] [--allow-errors] [--state-dir DIR]… [FILE|DIR…]
//
// With no FILE or DIR it exports the history (uagent's state directory,
// under its new name and its old one, and uah's home). Exit 0: every
// ended run is in the tables; 1: an input could not be read, or the
// export failed (what was committed before stays, whole); 2: usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/iceberg/icebergstream"
	"github.com/uagentkit/stream/parquetstream"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/termstream"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// dirs is a flag given again for each directory.
type dirs []string

func (d *dirs) String() string     { return strings.Join(*d, ",") }
func (d *dirs) Set(v string) error { *d = append(*d, v); return nil }

func run(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	say := func(format string, a ...any) {
		fmt.Fprintf(stderr, "uagent-stream-iceberg: %s\n", termstream.Sanitize(fmt.Sprintf(format, a...), false))
	}
	if len(args) > 0 && args[0] == "export" {
		args = args[1:]
	}
	fl := flag.NewFlagSet("uagent-stream-iceberg", flag.ContinueOnError)
	fl.SetOutput(stderr)
	cat := fl.String("catalog", "", "append to the tables of this catalog: sqlite:`PATH`, postgres://…, or http(s)://… (REST)")
	warehouse := fl.String("warehouse", "", "where new tables live: s3://bucket/prefix or file:///path (default for sqlite: warehouse beside its file)")
	ns := fl.String("namespace", "uagent", "the `namespace` of the tables")
	content := fl.Bool("content", false, "also export what people and models wrote: the messages table, tool arguments, the answer")
	allowErrors := fl.Bool("allow-errors", false, "exit 0 even when an input cannot be read")
	connect := fl.Duration("connect-timeout", icebergstream.DefaultConnectTimeout, "give up on a connection to the catalog or the store not made within `D`")
	request := fl.Duration("timeout", icebergstream.DefaultRequestTimeout, "give up on a request of the catalog or the store not answered, whole, within `D`")
	var stateDirs dirs
	fl.Var(&stateDirs, "state-dir", "with no FILE or DIR, export the history of this state `directory`; again for another")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *cat == "" {
		say("export: --catalog is needed (sqlite:PATH, postgres://…, http(s)://…)")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	code := 0
	problem := func(err error) {
		say("%s", err)
		if !*allowErrors && !errors.Is(err, icebergstream.ErrNotEnded) && !errors.Is(err, parquetstream.ErrNameNotUTF8) &&
			!errors.Is(err, statedir.ErrTwoCopies) && !errors.Is(err, history.ErrParent) {
			code = 1
		}
	}
	inputs := fl.Args()
	if len(inputs) == 0 {
		homes, err := statedir.Homes(stateDirs)
		if err != nil {
			say("%s", err)
			return 1
		}
		inputs = homes
	}
	x, err := icebergstream.Open(ctx, icebergstream.Config{Catalog: *cat, Warehouse: *warehouse, Namespace: *ns,
		Content: *content, CreatedBy: "uagent-stream-iceberg " + version(), ConnectTimeout: *connect, RequestTimeout: *request})
	if err != nil {
		say("export: %s", err)
		if errors.Is(err, icebergstream.ErrUsage) {
			return 2
		}
		return 1
	}
	defer x.Close()
	srcs := parquetstream.Sources(inputs, problem)
	rep, err := x.Export(ctx, srcs, problem)
	if err != nil {
		if ctx.Err() != nil {
			say("export interrupted: %d runs appended before it (whole); the next export appends the rest", rep.Appended)
			return stream.ExitInterrupted
		}
		say("export: %s (%d runs appended before it, whole)", err, rep.Appended)
		return 1
	}
	msg := fmt.Sprintf("appended %d runs to %s.runs", rep.Appended, *ns)
	if rep.Already > 0 {
		msg += fmt.Sprintf(" (%d it held already)", rep.Already)
	}
	say("%s", msg)
	_ = stdout
	return code
}

// version is the module's version as the build recorded it.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
