// Command uagent-stream renders, checks, summarizes, draws, runs, serves
// and exports uagent v1 JSONL streams, and puts uagent in editors.
//
//	uagent-stream cat [-f] [--no-color] [--no-reasoning] [--tool-output] [--prices FILE] [--state-dir DIR]… FILE|-
//	uagent-stream validate [--json] [--strict] [--exit-code N] [--state-dir DIR]… FILE…
//	uagent-stream stats [--check] [--allow-errors] [--json] [--state-dir DIR]… FILE…
//	uagent-stream timeline [-o OUT.svg] [--state-dir DIR]… FILE|-
//	uagent-stream run [--json] [--no-color] [--grace D] [--save FILE] [--otel [--otel-content]] -- COMMAND ARGS…
//	uagent-stream serve [--addr HOST:PORT] [--public] [--token-file FILE] [--max-clients N] [--grace D] [--otel [--otel-content]] [--state-dir DIR]… [--prices FILE] [FILE|- | -- COMMAND ARGS…]
//	uagent-stream html [-o FILE] [--state-dir DIR]… FILE|-|ID
//	uagent-stream acp [--grace D] [--state-dir DIR]… [--models M,…] [--context-window N] -- COMMAND ARGS…
//	uagent-stream a2a [--addr HOST:PORT] [--public] [--token-file FILE] [--grace D] [--state-dir DIR]… -- COMMAND ARGS…
//	uagent-stream mcp [--http HOST:PORT [--public] [--token-file FILE]] [--max-bytes N] [--timezone TZ] [--prices FILE] [--state-dir DIR]…
//	uagent-stream ls [--runs] [--search TEXT] [--since WHEN] [--until WHEN] [--workspace DIR] [--model M] [--status S] [--source S] [--limit N] [--timezone TZ] [--prices FILE] [--json] [--state-dir DIR]…
//	uagent-stream usage [--by day|week|month|session|model|workspace] [--breakdown] [--since WHEN] [--until WHEN] [--workspace DIR] [--model M] [--timezone TZ] [--prices FILE] [--json] [--state-dir DIR]…
//	uagent-stream prices [--prices FILE] [--json]
//	uagent-stream export [-o DIR] [--content] [--allow-errors] [--state-dir DIR]… [FILE|DIR…]
//	uagent-stream otel [--content] [--state-dir DIR]… FILE…
//	uagent-stream convert [-o FILE] [--state-dir DIR]… RUN_DIR|ID
//	uagent-stream schema [--strict] [TYPE]
//	uagent-stream version
//
// It exits 0 on success, 1 on findings or failure and 2 on a usage error;
// run exits with the command's own code (see the README). Colour is used
// only on a terminal, never when NO_COLOR is set, and every string from a
// stream is sanitized before it reaches any output.
//
// Wherever a command reads a FILE, it also reads a run directory of
// uagent's state directory, as the stream uagent would have written of it,
// and a FILE that is no path is a run or a session of the history (uagent's
// state directory and uah's home): its id, a unique prefix, or latest.
//
// The command is a thin shell: it parses flags and wires the module's
// packages, each stream read once into its session (uahstream) and handed
// to the views (termstream, timeline, ssestream, otelstream,
// parquetstream, acpstream, mcpstream). What a Go program would want too is in a
// package: a FILE or an id opened (history.OpenInput), a growing file
// (follow), processes reaped and the terminal handed over (execstream),
// tables and numbers for people (termstream). One file per command
// (cat.go, validate.go, stats.go, timeline.go, run.go, serve.go, acp.go, mcp.go,
// export.go, otel.go, convert.go, schema.go, version.go), and one per
// concern they share: resolve.go (a FILE argument, the history's homes),
// outcome.go (a run's outcome line, for run and serve), tracing.go (the
// live export of run --otel and serve --otel), history.go (ls's and
// usage's flags) and sanitize.go.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/uagentkit/stream/internal/cliflag"
	"github.com/uagentkit/stream/termstream"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is one subcommand: its synopsis and what it does.
type command struct{ name, synopsis, summary string }

// commands lists the subcommands, in the order of the help: their names
// and words (the functions that run them are in runners, so that a
// command's flags can look its words up here).
var commands = []command{
	{"cat", "[-f] [--no-color] [--no-reasoning] [--tool-output] [--prices FILE] [--state-dir DIR]… FILE|-", "render a run for people (live with -f), then what it would cost at API prices"},
	{"validate", "[--json] [--strict] [--exit-code N] [--state-dir DIR]… FILE…", "report every violation of the stream rules"},
	{"stats", "[--check] [--allow-errors] [--json] [--state-dir DIR]… FILE…", "print the summary recomputed from the events (of a run directory: the runner's summary, recomputed)"},
	{"timeline", "[-o OUT.svg] [--state-dir DIR]… FILE|-", "draw the run as an SVG"},
	{"run", "[--json] [--no-color] [--grace D] [--save FILE] [--otel [--otel-content]] -- COMMAND ARGS…", "run a command that writes a stream, render it live"},
	{"serve", "[--addr HOST:PORT] [--public] [--token-file FILE] [--max-clients N] [--grace D] [--otel [--otel-content]] [--state-dir DIR]… [--prices FILE] [FILE|- | -- COMMAND ARGS…]", "serve a run to browsers, live, over Server-Sent Events, with a page that shows it; with no FILE and no COMMAND, the history: its sessions, runs and usage"},
	{"html", "[-o FILE] [--state-dir DIR]… FILE|-|ID", "write a run or a session as one self-contained HTML file: the serve page, its events inside, readable offline"},
	{"acp", "[--grace D] [--state-dir DIR]… [--models M,…] [--context-window N] -- COMMAND ARGS…", "be an Agent Client Protocol agent on stdin and stdout: each prompt runs COMMAND (such as uagent --stream) for editors"},
	{"a2a", "[--addr HOST:PORT] [--public] [--token-file FILE] [--grace D] [--state-dir DIR]… -- COMMAND ARGS…", "serve COMMAND (such as uagent --stream) to other agents over A2A: each task a run, each context a uagent session"},
	{"mcp", "[--http HOST:PORT [--public] [--token-file FILE]] [--max-bytes N] [--timezone TZ] [--prices FILE] [--state-dir DIR]…", "serve the history to agents over the Model Context Protocol (stdio; --http for Streamable HTTP): sessions, search, transcripts and usage, read-only"},
	{"ls", "[--runs] [--search TEXT] [--since WHEN] [--until WHEN] [--workspace DIR] [--model M] [--status S] [--source S] [--limit N] [--timezone TZ] [--prices FILE] [--json] [--state-dir DIR]…", "list the history's sessions (or runs), the latest first, with tokens and an API-price estimate; filter and search them"},
	{"usage", "[--by day|week|month|session|model|workspace] [--breakdown] [--since WHEN] [--until WHEN] [--workspace DIR] [--model M] [--timezone TZ] [--prices FILE] [--json] [--state-dir DIR]…", "add up the history's tokens and what they would cost at API prices"},
	{"prices", "[--prices FILE] [--json]", "print the price table in force: each model's rates per million tokens, the day they apply from, the long-context rule, where they came from and when they were checked"},
	{"export", "[-o DIR] [--content] [--allow-errors] [--state-dir DIR]… [FILE|DIR…]", "write runs as Parquet tables (runs, turns, tool_calls, notices) for DuckDB, Spark or BigQuery"},
	{"otel", "[--content] [--state-dir DIR]… FILE…", "export recorded runs as OpenTelemetry traces (OTLP, configured by the OTEL_* variables)"},
	{"convert", "[-o FILE] [--state-dir DIR]… RUN_DIR|ID", "write a run directory of uagent's state directory as the v1 stream uagent would have written"},
	{"schema", "[--strict] [TYPE]", "print the JSON Schema of a line, of one event type, or of what ls (ls, ls-runs) and usage (usage) write"},
	{"version", "", "print the version and the VCS revision"},
}

// runners runs each subcommand, by name.
var runners = map[string]func(env, []string) error{
	"cat":      cmdCat,
	"validate": cmdValidate,
	"stats":    cmdStats,
	"timeline": cmdTimeline,
	"run":      cmdRun,
	"serve":    cmdServe,
	"html":     cmdHTML,
	"acp":      cmdACP,
	"a2a":      cmdA2A,
	"mcp":      cmdMCP,
	"ls":       cmdLs,
	"usage":    cmdUsage,
	"prices":   cmdPrices,
	"export":   cmdExport,
	"otel":     cmdOtel,
	"convert":  cmdConvert,
	"schema":   cmdSchema,
	"version":  cmdVersion,
}

func lookup(name string) (command, bool) {
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == name })
	if i < 0 {
		return command{}, false
	}
	return commands[i], true
}

func usage() string {
	var b strings.Builder
	b.WriteString("usage: uagent-stream COMMAND [flags] [FILE|-]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-10s %s\n  %-10s   %s\n", c.name, c.synopsis, "", c.summary)
	}
	b.WriteString("\nA FILE may also be a run directory, or a run or session of your history: its id, a unique prefix of it, or latest.\n")
	b.WriteString("Run 'uagent-stream help COMMAND' for a command's flags; 'uagent-stream --version' for the version.\n")
	return b.String()
}

// errUsage marks a usage error whose message was printed: exit 2.
var errUsage = errors.New("usage")

// exitError carries an exit code without a message of its own.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// env is what a command needs of its process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// dirs are the state directories an id is looked up in (see
	// lookupHistory): the command's --state-dir (see
	// flagSet.stateDirFlag), else statedir.Homes'.
	dirs *dirsFlag
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := env{stdin: stdin, stdout: stdout, stderr: stderr, dirs: new(dirsFlag)}
	if len(args) == 0 {
		fmt.Fprintf(stderr, "uagent-stream: want a COMMAND\n%s", usage())
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage())
		return 0
	case "-version", "--version":
		name = "version"
	case "help":
		if len(args) == 1 {
			fmt.Fprint(stdout, usage())
			return 0
		}
		c, ok := lookup(args[1])
		if !ok {
			fmt.Fprintf(stderr, "uagent-stream: unknown command %q\n%s", sanitize(args[1], false), usage())
			return 2
		}
		args = []string{c.name, "-h"}
		name = c.name
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "uagent-stream: unknown command %q\n%s", sanitize(name, false), usage())
		return 2
	}
	err := runners[c.name](e, args[1:])
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
	fmt.Fprintf(stderr, "uagent-stream: %s\n", sanitize(strings.TrimPrefix(err.Error(), "uagent-stream: "), false))
	return 1
}

// dirsFlag is a flag that may be given more than once, each a directory.
type dirsFlag []string

func (d *dirsFlag) String() string { return strings.Join(*d, ",") }

func (d *dirsFlag) Set(dir string) error {
	*d = append(*d, dir)
	return nil
}

// stateDirFlag adds --state-dir to the command's flags: the state
// directories of the history, where an id is looked up and what a
// command of the history reads (again for another; the default,
// statedir.Homes'). what says what else the command does with them.
func (fs *flagSet) stateDirFlag(what string) *dirsFlag {
	fs.Var(fs.e.dirs, "state-dir", "a state `directory` of the history, where an id is looked up"+what+"; again for another (default: $UAGENT_STATE_DIR, else uagent's own and uah's home)")
	return fs.e.dirs
}

// flagSet is a command's flags, with the help and usage errors it prints.
type flagSet struct {
	*flag.FlagSet
	e   env
	cmd command
	// interleave lets flags follow the positional arguments (cat FILE
	// --no-color); run sets it false, since what follows its COMMAND is the
	// command's own.
	interleave bool
}

// flags returns the flag set of the named command.
func flags(e env, name string) *flagSet {
	c, _ := lookup(name)
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the messages are printed by parse, with one prefix
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, e: e, cmd: c, interleave: true}
}

// help writes the command's synopsis and flags (cliflag.Help).
func (fs *flagSet) help(w io.Writer) {
	cliflag.Help(w, fs.FlagSet, fs.cmd.name, fs.cmd.synopsis, fs.cmd.summary)
}

// given reports whether the flag name was given.
func (fs *flagSet) given(name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// parse parses the flags: -h prints the help on stdout (flag.ErrHelp, exit
// 0); a bad flag prints one message and the help on stderr (exit 2).
func (fs *flagSet) parse(args []string) error {
	if fs.interleave {
		args = cliflag.Permute(fs.FlagSet, args)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.help(fs.e.stdout)
			return err
		}
		return fs.usageError(err.Error())
	}
	return nil
}

// usageError prints msg and the command's help to stderr and returns
// errUsage.
func (fs *flagSet) usageError(msg string) error {
	fmt.Fprintf(fs.e.stderr, "uagent-stream: %s: %s\n", fs.cmd.name, sanitize(msg, false))
	fs.help(fs.e.stderr)
	return errUsage
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
	return termstream.IsTerminal(w)
}
