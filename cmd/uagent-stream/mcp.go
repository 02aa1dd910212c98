package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/internal/webguard"
	"github.com/uagentkit/stream/mcpstream"
	"github.com/uagentkit/stream/ssestream"
)

// cmdMCP serves the history to agents over the Model Context Protocol
// (the package mcpstream): on standard input and output, as an MCP client
// starts it, until its input ends; or, with --http, over Streamable HTTP
// until interrupted. It reads the history ls reads, read-only.
func cmdMCP(e env, args []string) error {
	fl := flags(e, "mcp")
	h := historyFlags{state: fl.stateDirFlag(", and the history served")}
	fl.StringVar(&h.prices, "prices", "", "a price table `FILE` whose rows add to or replace the built-in ones")
	fl.StringVar(&h.timezone, "timezone", "", "the time zone `TZ` of usage's days, weeks and months (default: the local one)")
	addr := fl.String("http", "", "serve MCP's Streamable HTTP transport on `host:port` (a loopback one without --public) instead of stdio")
	public := fl.Bool("public", false, "with --http, allow an address other than a loopback one; the server then requires its token")
	tokenFile := fl.String("token-file", "", "with --http, require the token in this `file` (its first line) as Authorization: Bearer, also on loopback")
	maxBytes := fl.Int("max-bytes", mcpstream.DefaultMaxBytes, "bound each answer's JSON to `N` bytes: a longer listing or transcript comes in pages")
	if err := fl.parse(args); err != nil {
		return err
	}
	if fl.NArg() > 0 {
		return fl.usageError("takes no FILE: it serves the history (--state-dir)")
	}
	loc, err := h.location()
	if err != nil {
		return fl.usageError(err.Error())
	}
	dirs, prices, err := h.table()
	if err != nil {
		return err
	}
	srv := mcpstream.NewServer(history.NewLive(prices, dirs...), mcpstream.WithLocation(loc), mcpstream.WithMaxBytes(*maxBytes), mcpstream.WithVersion(versionString()))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		err := mcpstream.ServeStdio(ctx, srv, io.NopCloser(e.stdin), nopCloser{e.stdout})
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	token, err := serveAccess(fl, "mcp", *addr, *public, *tokenFile, "serve the history beyond this machine, readable with its token")
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("mcp: cannot listen on %s: %w", *addr, err)
	}
	hh := mcpstream.NewHTTP(srv, token)
	defer hh.Close()
	fmt.Fprintf(e.stderr, "uagent-stream: serving MCP at %s\n", webguard.URL(l.Addr(), "/", ""))
	if token != "" && *tokenFile == "" && os.Getenv(tokenEnv) == "" {
		fmt.Fprintf(e.stderr, "uagent-stream: its token (Authorization: Bearer): %s\n", token)
	}
	return ssestream.Serve(ctx, l, hh, 2*time.Second)
}

// nopCloser is a writer whose Close does nothing: the command's stdout
// is its caller's to close.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
