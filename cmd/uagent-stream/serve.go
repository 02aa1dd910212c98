package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/uagentkit/stream"
)

//go:embed web
var web embed.FS

// page serves the viewer page: index.html, its script and its style, all
// embedded, with the package's local-only guard and CSP.
func page() http.Handler {
	sub, _ := fs.Sub(web, "web")
	return http.FileServerFS(sub)
}

// serveMux is the whole HTTP interface: the page, and the stream's events
// and summary from the package's Handler.
func serveMux(rec *stream.Recording) http.Handler {
	mux := http.NewServeMux()
	h := stream.NewHandler(rec)
	mux.Handle("GET /events", h)
	mux.Handle("GET /summary", h)
	mux.Handle("GET /", page())
	return stream.LocalOnly(mux)
}

// cmdServe serves a run to browsers: a file being written (followed until
// its run_finished), standard input, or a command started as run starts
// it. It keeps serving after the run has ended, until interrupted.
func cmdServe(e env, args []string) error {
	fl := flags(e, "serve")
	addr := fl.String("addr", "127.0.0.1:8080", "listen on this `host:port`")
	public := fl.Bool("public", false, "allow --addr to be an address other than a loopback one (the run is then readable by anyone who can reach it)")
	grace := fl.Duration("grace", 5*time.Second, "for a command: how long an interrupted run gets before what is left of it is killed")
	otelOn := fl.Bool("otel", false, "also export the run live as OpenTelemetry spans (OTLP, configured by the OTEL_* variables)")
	otelContent := fl.Bool("otel-content", false, "with --otel, also export message texts, tool arguments and the answer")
	if err := fl.parse(args); err != nil {
		return err
	}
	var command []string
	if i := slices.Index(args, "--"); i >= 0 {
		command = args[i+1:]
	}
	switch {
	case command == nil && fl.NArg() != 1:
		return fl.usageError("want one FILE or -, or -- COMMAND ARGS…")
	case command != nil && len(command) == 0:
		return fl.usageError("want a COMMAND after --")
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return fl.usageError(fmt.Sprintf("--addr %q: %v", *addr, err))
	}
	if ip := net.ParseIP(host); !*public && !(host == "localhost" || ip != nil && ip.IsLoopback()) {
		return fl.usageError(fmt.Sprintf("--addr %s is not a loopback address: add --public to serve the run beyond this machine", *addr))
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: cannot listen on %s: %w", *addr, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rec := stream.NewRecording()
	served := make(chan error, 1)
	go func() { served <- stream.ServeUntil(ctx, l, serveMux(rec), 2*time.Second) }()
	fmt.Fprintf(e.stderr, "uagent-stream: serving http://%s/\n", l.Addr())

	export := newLiveExport(e, *otelOn, *otelContent)
	code := 0
	switch {
	case command != nil:
		var status string
		code, status = serveCommand(ctx, e, rec, command, *grace, export)
		export.end(e, status)
	default:
		var in io.Reader = e.stdin
		if fl.Arg(0) != "-" {
			fr := &follower{ctx: ctx, path: fl.Arg(0), done: rec.Finished, waiting: func() {
				fmt.Fprintf(e.stderr, "uagent-stream: waiting for %s to appear\n", sanitize(fl.Arg(0), false))
			}}
			defer fr.close()
			in = fr
		}
		in, exported := export.reader(in)
		if err := rec.Consume(in); err != nil && !errors.Is(err, errReplaced) {
			fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(err.Error(), false))
		}
		exported()
		rec.End(stream.EndOf(rec))
		export.end(e, "")
	}
	if ctx.Err() == nil {
		fmt.Fprintln(e.stderr, "uagent-stream: the run has ended; serving until interrupted (Ctrl-C)")
	}
	<-ctx.Done()
	if err := <-served; err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// serveCommand runs the command as run does, records its stream live and
// ends the record with its outcome; it returns run's exit code.
func serveCommand(ctx context.Context, e env, rec *stream.Recording, command []string, grace time.Duration, export *liveExport) (int, string) {
	becomeSubreaper()
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdin = e.stdin
	stderr := &lastByte{w: e.stderr}
	cmd.Stderr = stderr
	pr, pw := io.Pipe()
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		rec.Consume(pr)
		io.Copy(io.Discard, pr) // whatever Consume left, so the run never blocks
	}()
	restore := foreground(cmd, e.stdin) // as run does: the command reads the terminal, Ctrl-C reaches it
	run, err := stream.Start(ctx, cmd, stream.WithGrace(grace), stream.WithStdoutCopy(pw))
	if err != nil {
		restore()
		pw.Close()
		<-consumed
		fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(err.Error(), false))
		rec.End(stream.EndEvent{Ending: stream.EndCutOff.String(), Status: string(stream.StatusError), ExitCode: -1})
		return startFailure(err), string(stream.StatusError)
	}
	for range export.tap(run.Events()) {
	}
	o, err := run.Wait()
	restore()
	pw.Close()
	<-consumed
	reapOrphans(grace)
	rec.End(stream.EndOfRun(o))
	return reportOutcome(e, stderr, command[0], o, err), string(o.Status)
}
