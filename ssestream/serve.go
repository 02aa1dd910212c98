package ssestream

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"time"
)

// Timeouts of the server [Serve] runs.
const (
	ReadHeaderTimeout = 10 * time.Second
	IdleTimeout       = 60 * time.Second
)

// Serve serves h on l until ctx ends, then shuts the server down: event
// streams are cut at once (they never finish by themselves), other
// requests get grace to finish, and whatever is still open after grace is
// closed by force. It returns when every connection is closed. The server
// logs nothing: requests carry tokens, and its errors are the clients'.
func Serve(ctx context.Context, l net.Listener, h http.Handler, grace time.Duration) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleTimeout,
		ErrorLog: log.New(io.Discard, "", 0)}
	baseCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv.BaseContext = func(net.Listener) context.Context { return baseCtx }
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	cancel() // ends the event streams
	sctx, stop := context.WithTimeout(context.Background(), grace)
	defer stop()
	err := srv.Shutdown(sctx)
	if err != nil {
		srv.Close() // the grace is over: close what is left
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
