package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/uagentkit/stream/a2astream"
	"github.com/uagentkit/stream/execstream"
	"github.com/uagentkit/stream/ssestream"
	"github.com/uagentkit/stream/statedir"
)

// cmdA2A serves COMMAND to other agents over A2A (the package a2astream
// says how): each task is a run of it, each context a uagent session. It
// serves until interrupted, then stops the runs still going.
func cmdA2A(e env, args []string) error {
	fl := flags(e, "a2a")
	fl.interleave = false // what follows COMMAND is the command's own
	addr := fl.String("addr", "127.0.0.1:8080", "listen on this `host:port` (port 0: any free one)")
	public := fl.Bool("public", false, "allow --addr to be an address other than a loopback one; the agent then needs its token")
	tokenFile := fl.String("token-file", "", "require the token in this `file` (its first line) as a bearer token; also on loopback")
	grace := fl.Duration("grace", 5*time.Second, "on cancel, how long the run gets before what is left of it is killed")
	stateDirs := fl.stateDirFlag(", and where the tasks' runs are")
	if err := fl.parse(args); err != nil {
		return err
	}
	if fl.NArg() == 0 {
		return fl.usageError("want a COMMAND to run for each task, such as: -- uagent --stream")
	}
	token, err := serveAccess(fl, "a2a", *addr, *public, *tokenFile, "serve the agent beyond this machine, with its token")
	if err != nil {
		return err
	}
	execstream.BecomeSubreaper()
	opts := []a2astream.Option{a2astream.WithInfo("uagent", versionString()), a2astream.WithLog(e.stderr), a2astream.WithToken(token)}
	if dirs, err := statedir.Homes(*stateDirs); err == nil {
		opts = append(opts, a2astream.WithStateDir(dirs...))
	}
	agent := a2astream.New(reapedStarter(fl.Args(), *grace), opts...)
	defer agent.Close()
	if err := agent.Notes(); err != nil {
		return err // tasks that would not outlive the process: said at the start, not found missing later
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("a2a: cannot listen on %s: %w", *addr, err)
	}
	url := serveURL(l.Addr(), "")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- ssestream.Serve(ctx, l, agent.Handler(url), 2*time.Second) }()
	fmt.Fprintf(e.stderr, "uagent-stream: serving %s\n", url)
	if token != "" && *tokenFile == "" && os.Getenv(tokenEnv) == "" {
		fmt.Fprintf(e.stderr, "uagent-stream: the token (Authorization: Bearer …): %s\n", token)
	}
	<-ctx.Done()
	// The runs still going are interrupted at once (and end within the
	// grace) while the server shuts down: what slow clients had not taken
	// yet does not hold either up.
	closed := make(chan struct{})
	go func() { agent.Close(); close(closed) }()
	err = <-served
	<-closed
	if err != nil {
		return fmt.Errorf("a2a: %w", err)
	}
	return nil
}
