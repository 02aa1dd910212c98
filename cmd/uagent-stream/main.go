// Command uagent-stream renders, checks, summarizes, draws and runs uagent v1
// JSONL streams.
//
//	uagent-stream cat [-f] [--no-color] FILE|-
//	uagent-stream validate [--json] [--exit-code N] FILE…
//	uagent-stream stats [--check] FILE|-
//	uagent-stream timeline [-o OUT.svg] FILE|-
//	uagent-stream run [--json] [--no-color] [--grace D] -- COMMAND ARGS…
//	uagent-stream schema [TYPE]
//
// It exits 0 on success, 1 on findings or failure and 2 on a usage error:
// cat exits 1 when a line could not be read, validate when it reports a
// violation, stats --check when the stats differ. run exits with the
// command's own exit code, or 128+signal when a signal killed it.
//
// Colour is used only on a terminal, never when NO_COLOR is set, and every
// string from a stream is sanitized before it reaches a terminal or an SVG.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: uagent-stream COMMAND [flags] [FILE|-]

commands:
  cat [-f] [--no-color] FILE|-     render a run for people
  validate [--json] FILE…          report every violation of the stream rules
  stats [--check] FILE|-           print the summary recomputed from the events
  timeline [-o OUT.svg] FILE|-     draw the run as an SVG
  run [--json] -- COMMAND ARGS…    run a command that writes a stream, render it live
  schema [TYPE]                    print the JSON Schema of a line, or of one event type

Run 'uagent-stream COMMAND -h' for a command's flags.
`

// errUsage marks a usage error: exit 2.
var errUsage = errors.New("usage")

// exitError carries an exit code without a message of its own.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// env is what a command needs of its process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	e := env{stdin: stdin, stdout: stdout, stderr: stderr}
	cmds := map[string]func(env, []string) error{
		"cat":      cmdCat,
		"validate": cmdValidate,
		"stats":    cmdStats,
		"timeline": cmdTimeline,
		"run":      cmdRun,
		"schema":   cmdSchema,
	}
	name := args[0]
	if name == "-h" || name == "-help" || name == "--help" || name == "help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	cmd, ok := cmds[name]
	if !ok {
		fmt.Fprintf(stderr, "uagent-stream: unknown command %q\n%s", name, usage)
		return 2
	}
	err := cmd(e, args[1:])
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.As(err, &ee):
		return ee.code
	}
	fmt.Fprintf(stderr, "uagent-stream: %s\n", strings.TrimPrefix(err.Error(), "uagent-stream: "))
	return 1
}

// flags returns a FlagSet that prints its usage to stderr and reports
// errors as usage errors.
func flags(e env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: uagent-stream %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags; a bad flag is a usage error, -h is not an error.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// usageError prints msg and the command's usage and returns errUsage.
func usageError(e env, fs *flag.FlagSet, msg string) error {
	fmt.Fprintf(e.stderr, "uagent-stream: %s\n", msg)
	fs.Usage()
	return errUsage
}

// open opens a FILE argument; "-" is standard input.
func open(e env, name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(e.stdin), nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// parseInput parses the flags of a command that reads one FILE or -, and
// opens it.
func parseInput(e env, fs *flag.FlagSet, args []string) (string, io.ReadCloser, error) {
	if err := parse(fs, args); err != nil {
		return "", nil, err
	}
	if fs.NArg() != 1 {
		return "", nil, usageError(e, fs, "want one FILE or -")
	}
	in, err := open(e, fs.Arg(0))
	return fs.Arg(0), in, err
}

// useColor reports whether to colour output to w: only on a terminal, never
// with NO_COLOR set, and not when the user said no.
func useColor(w io.Writer, noColor bool) bool {
	if noColor || os.Getenv("NO_COLOR") != "" {
		return false
	}
	if os.Getenv("UAGENT_STREAM_FORCE_COLOR") != "" { // for tests of the coloured output
		return true
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
