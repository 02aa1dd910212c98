package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/execstream"
	"github.com/uagentkit/stream/follow"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/internal/webguard"
	"github.com/uagentkit/stream/ssestream"
	"github.com/uagentkit/stream/uahstream"
)

// cmdServe serves a run to browsers: a file being written (followed until
// its run_finished), standard input, a run or session of the history by
// its id, or a command started as run starts it; with none of these, the
// history. It keeps serving after the run has ended, until interrupted.
func cmdServe(e env, args []string) error {
	fl := flags(e, "serve")
	addr := fl.String("addr", "127.0.0.1:8080", "listen on this `host:port`")
	public := fl.Bool("public", false, "allow --addr to be an address other than a loopback one; the run is then readable only with its token")
	tokenFile := fl.String("token-file", "", "require the token in this `file` (its first line) instead of a random one; also on loopback")
	maxClients := fl.Int("max-clients", ssestream.MaxClients, "serve at most this many event streams at once; one more is answered 503")
	grace := fl.Duration("grace", 5*time.Second, "for a command: how long an interrupted run gets before what is left of it is killed")
	otelOn := fl.Bool("otel", false, "also export the run live as OpenTelemetry spans (OTLP, configured by the OTEL_* variables)")
	otelContent := fl.Bool("otel-content", false, "with --otel, also export message texts, tool arguments and the answer")
	stateDirs := fl.stateDirFlag(", and, with no FILE and no COMMAND, the history served")
	prices := fl.String("prices", "", "with no FILE and no COMMAND, a price table `FILE` whose rows add to or replace the built-in ones")
	if err := fl.parse(args); err != nil {
		return err
	}
	var command []string
	if i := slices.Index(args, "--"); i >= 0 {
		command = args[i+1:]
	}
	switch {
	case command == nil && fl.NArg() == 0:
		return serveHistory(e, fl, *addr, *public, *tokenFile, *maxClients, historyFlags{dirs: *stateDirs, prices: *prices})
	case command == nil && fl.NArg() != 1:
		return fl.usageError("want one FILE or -, or -- COMMAND ARGS…, or nothing (the history)")
	case command != nil && len(command) == 0:
		return fl.usageError("want a COMMAND after --")
	}
	token, err := serveAccess(fl, "serve", *addr, *public, *tokenFile, "serve the run beyond this machine, readable with its token")
	if err != nil {
		return err
	}
	sess := new(uahstream.Session) // the one fold of the stream, which the page is given
	rec := ssestream.NewRecording(sess)
	defer rec.Close()
	var in *history.Input // standard input, a run directory or an id of the history (read as it is now); a file is followed
	_, named, lerr := lookupHistory(e, fl.Arg(0))
	named = named && !errors.Is(lerr, history.ErrNotFound) // a file still to come is waited for
	if info, err := os.Stat(fl.Arg(0)); command == nil && (fl.Arg(0) == "-" || named || err == nil && info.IsDir()) {
		if in, err = openInput(e, fl.Arg(0), sess); err != nil {
			return err
		}
		defer in.Close()
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: cannot listen on %s: %w", *addr, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	h := ssestream.NewHandler(rec, ssestream.WithToken(token), ssestream.WithMaxClients(*maxClients))
	served := make(chan error, 1)
	go func() { served <- ssestream.Serve(ctx, l, h, 2*time.Second) }()
	fmt.Fprintf(e.stderr, "uagent-stream: serving %s\n", serveURL(l.Addr(), token))

	export := newLiveExport(e, *otelOn, *otelContent)
	code := 0
	switch {
	case command != nil:
		var status stream.Status
		code, status = serveCommand(ctx, e, rec, sess, command, *grace, export)
		export.end(e, status)
	default:
		var rd *uahstream.Reader
		if in != nil {
			rd = in.Reader
		} else { // a file, followed while it grows until its run_finished
			fr := followFile(ctx, e, fl.Arg(0), sess.Finished)
			defer fr.Close()
			rd = sess.Reader(fr)
			in = &history.Input{}
		}
		err := readInto(rd, func(l uahstream.Line) {
			rec.Add(l)
			export.add(l)
		})
		if err != nil && !errors.Is(err, follow.ErrReplaced) {
			fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(err.Error(), false))
		}
		reportProblems(e, in)
		rec.End(nil)
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

// serveCommand runs the command as run does, records its stream live
// (folded once, into sess, which the record was made with) and ends the
// record with its outcome; it returns run's exit code.
func serveCommand(ctx context.Context, e env, rec *ssestream.Recording, sess *uahstream.Session, command []string, grace time.Duration, export *liveExport) (int, stream.Status) {
	execstream.BecomeSubreaper()
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdin = e.stdin
	stderr := &lastByte{w: e.stderr}
	cmd.Stderr = stderr
	restore := execstream.Foreground(cmd, e.stdin) // as run does: the command reads the terminal, Ctrl-C reaches it
	run, err := execstream.Start(ctx, cmd, execstream.WithGrace(grace), execstream.WithSession(sess), execstream.WithRaw())
	if err != nil {
		restore()
		fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(err.Error(), false))
		code := execstream.StartExitCode(err)
		v := sess.VerdictOf(code, "") // the fold's, as for a run: no line, and run's exit code
		rec.End(&v)
		return code, v.Status
	}
	for l := range run.Lines() {
		rec.Add(l)
		export.add(l)
	}
	o, err := run.Wait()
	restore()
	execstream.ReapOrphans(grace)
	rec.End(&o.Verdict)
	return reportOutcome(e, stderr, command[0], o, err), o.Status
}

// serveHistory serves the history (ssestream.History) until Ctrl-C or
// SIGTERM.
func serveHistory(e env, fl *flagSet, addr string, public bool, tokenFile string, maxClients int, hf historyFlags) error {
	token, err := serveAccess(fl, "serve", addr, public, tokenFile, "serve the history beyond this machine, readable with its token")
	if err != nil {
		return err
	}
	x, err := hf.open(e)
	if err != nil {
		return err
	}
	h := ssestream.NewHistory(x, ssestream.WithToken(token), ssestream.WithMaxClients(maxClients))
	defer h.Close()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: cannot listen on %s: %w", addr, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(e.stderr, "uagent-stream: serving %s\n", serveURL(l.Addr(), token))
	return ssestream.Serve(ctx, l, h, 2*time.Second)
}

// tokenEnv names the variable that gives serve its token, as --token-file
// does.
const tokenEnv = "UAGENT_STREAM_TOKEN"

// serveAccess checks the --addr of command (serve, a2a, mcp): a loopback
// address, or any with --public (beyond says what --public allows), and
// returns the token the server requires (webguard.Access: --token-file,
// else $UAGENT_STREAM_TOKEN, else a random one beyond loopback).
func serveAccess(fl *flagSet, command, addr string, public bool, file, beyond string) (string, error) {
	token, err := webguard.Access(addr, public, file, tokenEnv)
	if u, ok := errors.AsType[*webguard.UsageError](err); ok {
		if public || strings.HasPrefix(u.Msg, "--addr \"") {
			return "", fl.usageError(u.Msg)
		}
		return "", fl.usageError(u.Msg + ": add --public to " + beyond)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", command, err)
	}
	return token, nil
}

// serveURL is the page's URL (webguard.URL).
func serveURL(a net.Addr, token string) string { return webguard.URL(a, "/", token) }
