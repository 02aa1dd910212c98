// Package ssestream serves a uagent stream over HTTP: the run's lines as
// Server-Sent Events, its summary and its intervals as JSON, and a page
// that shows the run live in a browser.
//
//	rec := ssestream.NewRecording(nil)
//	go func() { rec.Consume(r); rec.End(nil) }()
//	ssestream.Serve(ctx, listener, ssestream.NewHandler(rec), 2*time.Second)
//
// It is a package of its own, on top of the stream package, so that a
// program that only reads streams links no HTTP server.
package ssestream

import (
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/webguard"
	"github.com/uagentkit/stream/uahstream"
)

// The SSE event names that the server makes itself. No stream line is
// sent under them: a line is sent under its type only when that is one of
// the contract's event types (the stream package's Type… names), else as
// EventUnknown.
const (
	EventEnd       = "end"        // after the last line: how the run ended
	EventLineError = "line_error" // a line that could not be read
	EventUnknown   = "unknown"    // a line of a type the contract does not name
	// EventLive follows a line of a session stream of the harness that
	// streamed text (step "streamed": the delta is the line's), replaced
	// streamed text with its response's ("replaced", same when the texts
	// are the same), voided it ("void") or ended a run with text no
	// response replaced ("unreplaced"), naming the session's streamed
	// items by their number: {"step","same","items":[{"index","item_id",
	// "part","reasoning"}]}, under the line's id.
	EventLive = "live"
)

// Defaults of a [Handler].
const (
	// KeepAlive is how often a comment is written to an idle client.
	KeepAlive = 15 * time.Second
	// WriteTimeout is how long one write to a client may take before the
	// client is dropped (it may resume with Last-Event-ID).
	WriteTimeout = 10 * time.Second
	// MaxClients is how many event streams are served at once; one more
	// is answered 503.
	MaxClients = 256
)

// TokenCookie is the cookie in which a browser keeps the token of a
// Handler that requires one.
const TokenCookie = "uagent_stream_token"

// eventName is the SSE event name of a decoded line: its type when the
// contract names it, or, in a session stream, the harness does (a Reader
// returns every other type as an UnknownDTO), else EventUnknown, so that
// a line can neither break the framing nor pass for an event the server
// makes.
func eventName(dto any) string {
	if _, unknown := dto.(stream.UnknownDTO); unknown {
		return EventUnknown
	}
	return uahstream.TypeOf(dto) // the contract's, or the harness's in a session stream: a fixed set of names
}

//go:embed web
var web embed.FS

// Option configures a [Handler].
type Option func(*Handler)

// WithToken makes the Handler answer only requests that carry token: as
// ?token=, as "Authorization: Bearer TOKEN" (the scheme in any case), or
// in the TokenCookie cookie. A page request with a valid ?token= gets the
// cookie (HttpOnly, SameSite=Strict) and a redirect to the same URL
// without the token, so that the token stays out of the address bar, the
// history and Referer headers; the cookie holds a value derived from the
// token (hex, so any token the caller chooses can be carried by a cookie),
// not the token. Any other request is answered 401, with nothing of the
// run. Tokens are compared in constant time. With a token, a request is
// answered whatever Host it names (the token guards the run, as it does
// behind a reverse proxy that forwards its own Host); without one, only
// local ones are. An empty token requires none.
func WithToken(token string) Option {
	return func(h *Handler) {
		if token != "" {
			h.token = webguard.NewToken(token)
			c := sha256.Sum256([]byte("uagent-stream cookie\x00" + token))
			h.cookie = hex.EncodeToString(c[:])
		}
	}
}

// WithMaxClients sets how many event streams are served at once (default
// MaxClients); a client above it is answered 503 and may retry.
func WithMaxClients(n int) Option { return func(h *Handler) { h.maxClients = int64(n) } }

// Handler serves a [Recording] over HTTP, for browsers and other
// front-ends:
//
//   - GET /events: text/event-stream, one event per recorded line: id the
//     line number (1-based, counting every line of the stream, blank ones
//     too; blank lines send nothing), event the line's type when the
//     contract names it, else "unknown", data the line's bytes, a carriage
//     return (JSON white space, but a line end to an SSE client) sent as a
//     space, so that the data's JSON value is the line's. A line that could
//     not be read is event line_error with data {"line":N,"error":"…"}.
//     After the last line of an ended stream, one end event whose data is
//     {"ending":"finished","status":"ok","exit_code":0} (see
//     [Recording.End]), then the response ends. A comment (": keep-alive")
//     every KeepAlive while idle. A request with Last-Event-ID: N (what
//     EventSource sends when it reconnects) or ?after=N gets the lines
//     after line N: nothing lost, nothing doubled.
//   - GET /summary: application/json, the summary recomputed from the lines
//     so far, in the shape of summary.json (at most 100 ms old while the
//     stream goes on).
//   - GET /intervals: application/json, the fold's model turns and tool
//     operations (times in milliseconds since the first line's), the tools
//     laid out in lanes as the SVG timeline lays them out, and the notices
//     as stream.Notices coalesces them, each at the line it first came on;
//     computed as /summary is. The page draws from it: it pairs nothing
//     itself.
//   - GET /: the page that shows the run live, and its script and style.
//
// Every client reads the shared record at its own pace; one that cannot
// take a write within WriteTimeout is dropped and may resume. Without a
// token (see [WithToken]), the Handler answers only requests whose Host
// names it locally (localhost, a loopback address, or the address the
// request came in on), 403 otherwise, so that a web page elsewhere cannot
// read a run through DNS rebinding; it sends
// no CORS headers, and every response has a Content-Security-Policy that
// allows the server's own scripts, styles and connections and no inline
// script. It is safe for concurrent use.
type Handler struct {
	rec          *Recording
	mux          *http.ServeMux
	keepAlive    time.Duration
	writeTimeout time.Duration
	maxClients   int64
	clients      *atomic.Int64   // event streams being served (a History's pages count together)
	token        *webguard.Token // nil without one
	cookie       string          // the cookie's value, derived from the token
}

// NewHandler returns a Handler serving rec.
func NewHandler(rec *Recording, opts ...Option) *Handler {
	h := &Handler{rec: rec, mux: http.NewServeMux(), keepAlive: KeepAlive, writeTimeout: WriteTimeout, maxClients: MaxClients, clients: new(atomic.Int64)}
	for _, o := range opts {
		o(h)
	}
	sub, _ := fs.Sub(web, "web")
	h.mux.HandleFunc("GET /events", h.events)
	h.mux.HandleFunc("GET /summary", h.summary)
	h.mux.HandleFunc("GET /intervals", h.intervals)
	h.mux.HandleFunc("GET /session", h.session)
	h.mux.Handle("GET /", http.FileServerFS(sub))
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.guard(w, r) {
		h.mux.ServeHTTP(w, r)
	}
}

// guard answers what may not be served (a Host that is not local without
// a token, a request without the token), sets the headers of what may,
// and reports which it was.
func (h *Handler) guard(w http.ResponseWriter, r *http.Request) bool {
	if h.token == nil && !webguard.LocalHost(r) { // a token guards the run itself, whatever the Host
		http.Error(w, "forbidden: not a local host", http.StatusForbidden)
		return false
	}
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	return h.token == nil || h.authorized(w, r)
}

// api reports the paths that programs ask for, which take ?token= as it is;
// every other path is a page, redirected without it.
func api(p string) bool {
	return strings.HasPrefix(p, "/api/") || slices.Contains([]string{"events", "summary", "intervals", "session", "children"}, path.Base(p))
}

// authorized checks the request's token. A page request with a valid
// ?token= is answered with the cookie and a redirect; a request without a
// valid token, 401.
func (h *Handler) authorized(w http.ResponseWriter, r *http.Request) bool {
	q := r.URL.Query()
	if qt := q.Get("token"); q.Has("token") && h.token.Valid(qt) {
		if api(r.URL.Path) {
			return true
		}
		http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: h.cookie, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q.Del("token")
		u := url.URL{Path: path.Clean("/" + r.URL.Path), RawQuery: q.Encode()} // never //host
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, u.String(), http.StatusSeeOther)
		return false
	}
	if h.token.Bearer(r) {
		return true
	}
	for _, c := range r.CookiesNamed(TokenCookie) {
		if subtle.ConstantTimeCompare([]byte(c.Value), []byte(h.cookie)) == 1 {
			return true
		}
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="uagent-stream"`)
	http.Error(w, "unauthorized: this run needs its token", http.StatusUnauthorized)
	return false
}

func (h *Handler) summary(w http.ResponseWriter, _ *http.Request) {
	b, err := h.rec.summaryJSON()
	writeJSON(w, b, err)
}

func (h *Handler) session(w http.ResponseWriter, _ *http.Request) {
	b, err := h.rec.sessionJSON()
	writeJSON(w, b, err)
}

func (h *Handler) intervals(w http.ResponseWriter, _ *http.Request) {
	b, err := h.rec.intervalsJSON()
	writeJSON(w, b, err)
}

// writeJSON answers with b, computed from the record, or with the error of
// computing it.
func writeJSON(w http.ResponseWriter, b []byte, err error) {
	if err != nil {
		http.Error(w, "cannot encode the answer", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

// after reads where a client resumes: Last-Event-ID, or ?after=N.
func after(r *http.Request) int {
	for _, v := range []string{r.Header.Get("Last-Event-ID"), r.URL.Query().Get("after")} {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// beginStream admits one more event stream (one above maxClients is
// answered 503) and sends its headers; end lets it go. ok is false when
// the stream is not to be served.
func (h *Handler) beginStream(w http.ResponseWriter) (rc *http.ResponseController, end func(), ok bool) {
	if h.clients.Add(1) > h.maxClients {
		h.clients.Add(-1)
		w.Header().Set("Retry-After", "5")
		http.Error(w, "too many clients", http.StatusServiceUnavailable)
		return nil, nil, false
	}
	end = func() { h.clients.Add(-1) }
	rc = http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil { // the headers, before any event
		end()
		return nil, nil, false
	}
	return rc, end, true
}

func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	rc, end, ok := h.beginStream(w)
	if !ok {
		return
	}
	defer end()
	skip := after(r)
	keep := time.NewTimer(h.keepAlive)
	defer keep.Stop()
	buf := make([]byte, 64<<10)
	sendBytes := func(b []byte) bool {
		rc.SetWriteDeadline(time.Now().Add(h.writeTimeout))
		_, err := w.Write(b)
		return err == nil
	}
	// off is where the next event to send begins in the record's spool;
	// found, that the events of the lines up to skip were passed.
	var off int64
	found := skip <= 0
	for {
		size, end, changed := h.rec.state()
		if h.rec.isClosed() { // its page was closed (evicted, the server stopping): asked again from the last id
			return
		}
		if !found {
			var err error
			if off, found, err = h.rec.seek(skip, off, size); err != nil {
				return
			}
		}
		if found && off < size {
			for off < size { // the events as the spool has them, a buffer at a time
				n, err := h.rec.spool.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
				if n > 0 && !sendBytes(buf[:n]) {
					return
				}
				off += int64(n)
				if err != nil && n == 0 {
					return
				}
			}
			if rc.Flush() != nil {
				return
			}
			continue // the end, or more lines, may already be there
		}
		if end != nil {
			b := append([]byte("event: "+EventEnd+"\ndata: "), end...)
			if sendBytes(append(b, "\n\n"...)) {
				rc.Flush()
			}
			return
		}
		select {
		case <-changed:
		case <-keep.C:
			if !sendBytes([]byte(": keep-alive\n\n")) || rc.Flush() != nil {
				return
			}
			keep.Reset(h.keepAlive)
		case <-r.Context().Done():
			return
		}
	}
}
