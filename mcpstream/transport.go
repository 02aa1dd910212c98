package mcpstream

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uagentkit/stream/internal/safetext"
	"github.com/uagentkit/stream/internal/webguard"
)

// ServeStdio serves srv to one client over MCP's stdio transport:
// newline-delimited JSON-RPC read from in and written to out, each
// message escaped (safetext.EscapeJSON). It returns when in ends (the
// client closed it: nil) or ctx is done (ctx's error), with the session
// closed and its goroutines ended.
func ServeStdio(ctx context.Context, srv *mcp.Server, in io.ReadCloser, out io.WriteCloser) error {
	err := srv.Run(ctx, &mcp.IOTransport{Reader: in, Writer: escapingCloser{safetext.JSONWriter{W: out}, out}})
	if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// escapingCloser escapes what is written (safetext.JSONWriter: each Write
// of the SDK is a whole message), with the Close of the writer under it.
type escapingCloser struct {
	safetext.JSONWriter
	io.Closer
}

// HTTP serves a server over MCP's Streamable HTTP transport: see
// NewHTTP.
type HTTP struct {
	srv *mcp.Server
	h   http.Handler
}

// IdleSession is how long a client's session over HTTP is kept without
// a request.
const IdleSession = 30 * time.Minute

// NewHTTP returns the handler of srv over MCP's Streamable HTTP
// transport, under the access rules of the module's other servers
// (internal/webguard): with a token, only a request that carries it
// ("Authorization: Bearer TOKEN"); without one (loopback), only a request
// whose Host names the server locally, against DNS rebinding; and never
// one a browser sends for a page of another site. Its responses are JSON,
// escaped as ServeStdio's messages are. A client's session ends when the
// client ends it, after IdleSession without a request, or at Close. It
// is safe for concurrent use.
func NewHTTP(srv *mcp.Server, token string) *HTTP {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		JSONResponse:   true,
		SessionTimeout: IdleSession,
		// The Host is checked below, as the module's other servers check
		// it: without a token only. A token guards a server beyond
		// loopback whatever the Host.
		DisableLocalhostProtection: true,
	})
	t := webguard.NewToken(token)
	return &HTTP{srv: srv, h: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case t != nil && !t.Bearer(r):
			w.Header().Set("WWW-Authenticate", `Bearer realm="uagent-stream mcp"`)
			http.Error(w, "a token is required: Authorization: Bearer TOKEN", http.StatusUnauthorized)
		case t == nil && !webguard.LocalHost(r):
			http.Error(w, "this server answers requests for its own address only", http.StatusMisdirectedRequest)
		case webguard.CrossSite(r):
			http.Error(w, "a page of another site cannot ask this server", http.StatusForbidden)
		default:
			h.ServeHTTP(&escapingResponse{ResponseWriter: w}, r)
		}
	})}
}

// ServeHTTP answers a request of a client.
func (h *HTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.h.ServeHTTP(w, r) }

// Close ends every session of the server's clients, and waits for each
// to end.
func (h *HTTP) Close() error {
	for ss := range h.srv.Sessions() {
		ss.Close()
		ss.Wait()
	}
	return nil
}

// escapingResponse escapes what is written to a response as ServeStdio
// escapes its messages (each Write of the SDK is a whole message or event).
type escapingResponse struct{ http.ResponseWriter }

func (e *escapingResponse) Write(p []byte) (int, error) {
	return safetext.JSONWriter{W: e.ResponseWriter}.Write(p)
}

// Unwrap lets http.ResponseController reach the response's Flush.
func (e *escapingResponse) Unwrap() http.ResponseWriter { return e.ResponseWriter }
