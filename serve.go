package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// IsTerminal reports whether dto ends a stream: a run_finished line.
func IsTerminal(dto any) bool {
	_, ok := dto.(RunFinishedDTO)
	return ok
}

// NoticeKey returns the key under which repeated notices coalesce: a
// preflight_warning by its code and message, a runner_error by its message.
// ok is false for every other line. Front-ends show a notice once, with the
// number of times it came; the command's cat and the serve page share this
// rule.
func NoticeKey(dto any) (key string, ok bool) {
	switch d := dto.(type) {
	case PreflightWarningDTO:
		return TypePreflightWarning + "\x00" + d.Code + "\x00" + d.Message, true
	case RunnerErrorDTO:
		return TypeRunnerError + "\x00" + d.Message, true
	}
	return "", false
}

// Notices counts repeated notices by [NoticeKey]. The zero Notices is
// ready. It is not safe for concurrent use.
type Notices struct{ seen map[string]int }

// Add counts dto and returns how many times its notice has come, this time
// included; ok is false, and nothing is counted, for a line that is not a
// notice.
func (n *Notices) Add(dto any) (count int, ok bool) {
	key, ok := NoticeKey(dto)
	if !ok {
		return 0, false
	}
	if n.seen == nil {
		n.seen = map[string]int{}
	}
	n.seen[key]++
	return n.seen[key], true
}

// Recording is the shared, append-only record of one stream's lines that a
// [Handler] serves: each line is kept once, by offset in one buffer, and
// every client reads it at its own pace. Lines arrive through ReadFrom;
// End marks the end of the stream and says how the run ended.
//
// A Recording is safe for concurrent use: one writer (ReadFrom, End) and
// any number of readers.
type Recording struct {
	mu      sync.Mutex
	data    []byte        // the lines' bytes, one after the other
	lines   []recLine     // by index: line number - 1 is not the index, see recLine.num
	changed chan struct{} // closed, and replaced, on every change
	ended   bool
	end     []byte // the end event's JSON
	sum     Summarizer
}

// recLine is one line of the record: its number in the stream (counting
// blank lines, which are not recorded), where its bytes are, the SSE event
// name and, for a line that could not be read, the error's JSON.
type recLine struct {
	num        int
	start, end int
	event      string
	errJSON    []byte
}

// NewRecording returns an empty Recording.
func NewRecording() *Recording { return &Recording{changed: make(chan struct{})} }

func (rec *Recording) notify() {
	close(rec.changed)
	rec.changed = make(chan struct{})
}

// Consume reads a stream from r, through a [Decoder] with opts, into the
// record until r ends. It does not end the record: call End. An error of r
// is returned after every line before it. Consume is the record's one
// writer: do not call it from two goroutines at once.
func (rec *Recording) Consume(r io.Reader, opts ...Option) error {
	dec := NewDecoder(r, opts...)
	for {
		dto, err := dec.Decode()
		if err == io.EOF {
			return nil
		}
		var le *LineError
		if err != nil && !errors.As(err, &le) {
			return err
		}
		rec.add(dec.Line(), dto, le, dec.Raw())
	}
}

func (rec *Recording) add(num int, dto any, le *LineError, raw []byte) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	l := recLine{num: num, start: len(rec.data)}
	if le != nil {
		l.event = "line_error"
		l.errJSON, _ = json.Marshal(struct {
			Line  int    `json:"line"`
			Error string `json:"error"`
		}{num, le.Error()})
		rec.sum.Add(nil, le, nil)
	} else {
		l.event = eventName(TypeOf(dto))
		rec.data = append(rec.data, raw...)
		rec.sum.Add(dto, nil, raw)
	}
	l.end = len(rec.data)
	rec.lines = append(rec.lines, l)
	rec.notify()
}

// End marks the end of the stream. outcome is the payload of the SSE end
// event, encoded as JSON; see [EndOf] and [EndOfRun]. Only the first End
// counts.
func (rec *Recording) End(outcome any) {
	b, err := json.Marshal(outcome)
	if err != nil {
		b = []byte(`{}`)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.ended {
		return
	}
	rec.ended, rec.end = true, b
	rec.notify()
}

// Summary returns the summary recomputed from the lines so far.
func (rec *Recording) Summary() Recomputed {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.sum.Recomputed()
}

// Finished reports whether a run_finished line has been recorded. It is
// cheap: a follower asks it at every end of the file.
func (rec *Recording) Finished() bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.sum.out.Recorded != nil
}

// eventName is the SSE event name of a line of type typ: the type itself
// when it is a plain name (letters, digits, _ . -), else "unknown", so that
// a hostile type cannot break the framing of the event stream.
func eventName(typ string) string {
	if typ == "" || len(typ) > 64 {
		return "unknown"
	}
	for _, c := range []byte(typ) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return "unknown"
		}
	}
	return typ
}

// EndEvent is the payload of the SSE end event: how the run ended.
type EndEvent struct {
	Ending   string `json:"kind"`      // finished, preflight_blocked, start_failed or cut_off
	Status   string `json:"status"`    // the run's status
	ExitCode int    `json:"exit_code"` // the process's, or what the contract gives the ending
}

// EndOf is the end event of a recorded stream, from what the stream says:
// its run_finished summary, or a cut-off ending.
func EndOf(rec *Recording) EndEvent {
	r := rec.Summary()
	if r.Recorded == nil {
		return EndEvent{Ending: EndCutOff.String(), Status: string(StatusError), ExitCode: -1}
	}
	return EndEvent{Ending: EndFinished.String(), Status: r.Recorded.Status, ExitCode: ExitCode(Status(r.Recorded.Status))}
}

// EndOfRun is the end event of a run started by [Start]: its outcome.
func EndOfRun(o Outcome) EndEvent {
	return EndEvent{Ending: o.Ending.String(), Status: string(o.Status), ExitCode: o.ExitCode}
}

// wait returns the lines from index i on, the record's bytes, the end event
// if the stream has ended, and a channel closed on the next change. Nothing
// is copied: lines and bytes are only ever appended, so the entries and
// bytes returned never change, and the capped slices keep the writer's
// appends out of the reader's view.
func (rec *Recording) wait(i int) ([]recLine, []byte, []byte, chan struct{}) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	n := len(rec.lines)
	return rec.lines[min(i, n):n:n], rec.data[:len(rec.data):len(rec.data)], rec.end, rec.changed
}

// KeepAlive is how often a [Handler] writes a comment to an idle client,
// and WriteTimeout how long one write to a client may take before the
// client is dropped (it may resume with Last-Event-ID).
const (
	KeepAlive    = 15 * time.Second
	WriteTimeout = 10 * time.Second
)

// Handler serves a [Recording] over HTTP, for browsers and other
// front-ends:
//
//   - GET /events: text/event-stream, one event per recorded line: id the
//     line number (1-based, counting every line of the stream, blank ones
//     too; blank lines send nothing), event the line's type (a type that is
//     not a plain name of letters, digits, _ . - is sent as "unknown"), data
//     the line's bytes exactly as in the stream. A line that could not be read is event line_error with
//     data {"line":N,"error":"…"}. After the last line of an ended stream,
//     one end event whose data is an [EndEvent], then the response ends. A
//     comment (": keep-alive") every KeepAlive while idle. A request with
//     Last-Event-ID: N (what EventSource sends when it reconnects) or
//     ?after=N gets the lines after line N: nothing lost, nothing doubled.
//   - GET /summary: application/json, the summary recomputed from the lines
//     so far, in the shape of summary.json.
//
// Every client reads the shared record at its own pace; one that cannot
// take a write within WriteTimeout is dropped and may resume. The Handler
// answers only requests for a local Host (see [LocalOnly]) and sends no
// CORS headers. It is safe for concurrent use.
type Handler struct {
	rec          *Recording
	mux          *http.ServeMux
	keepAlive    time.Duration
	writeTimeout time.Duration
}

// NewHandler returns a Handler serving rec.
func NewHandler(rec *Recording) *Handler {
	h := &Handler{rec: rec, mux: http.NewServeMux(), keepAlive: KeepAlive, writeTimeout: WriteTimeout}
	h.mux.HandleFunc("GET /events", h.events)
	h.mux.HandleFunc("GET /summary", h.summary)
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { LocalOnly(h.mux).ServeHTTP(w, r) }

func (h *Handler) summary(w http.ResponseWriter, _ *http.Request) {
	b, err := MarshalSummary(h.rec.Summary().Summary)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
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

func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	skip := after(r)
	next := 0 // index of the next line to look at
	keep := time.NewTimer(h.keepAlive)
	defer keep.Stop()
	var buf bytes.Buffer
	sendBytes := func(b []byte) bool {
		rc.SetWriteDeadline(time.Now().Add(h.writeTimeout))
		_, err := w.Write(b)
		return err == nil
	}
	send := func() bool {
		if buf.Len() > 0 && !sendBytes(buf.Bytes()) {
			return false
		}
		buf.Reset()
		return rc.Flush() == nil
	}
	for {
		lines, data, end, changed := h.rec.wait(next)
		next += len(lines)
		for _, l := range lines {
			if l.num <= skip {
				continue
			}
			buf.WriteString("id: ")
			buf.WriteString(strconv.Itoa(l.num))
			buf.WriteString("\nevent: ")
			buf.WriteString(l.event)
			buf.WriteString("\ndata: ")
			switch line := data[l.start:l.end]; {
			case l.errJSON != nil:
				buf.Write(l.errJSON)
			case len(line) > 16<<10: // a long line is written from the record, not copied
				if !send() || !sendBytes(line) {
					return
				}
			default:
				buf.Write(line)
			}
			buf.WriteString("\n\n")
			if buf.Len() >= 64<<10 && !send() {
				return
			}
		}
		if len(lines) == 0 && end != nil {
			buf.WriteString("event: end\ndata: ")
			buf.Write(end)
			buf.WriteString("\n\n")
			send()
			return
		}
		if !send() {
			return
		}
		if len(lines) > 0 {
			continue // the end, or more lines, may already be there
		}
		select {
		case <-changed:
		case <-keep.C:
			buf.WriteString(": keep-alive\n\n")
			if !send() {
				return
			}
			keep.Reset(h.keepAlive)
		case <-r.Context().Done():
			return
		}
	}
}

// LocalOnly wraps h so that it answers only requests whose Host is the
// address the request came in on, or localhost or a loopback address with
// its port, and answers 403 to any other: a web page elsewhere cannot read a
// run through DNS rebinding. Every response gets a Content-Security-Policy
// that allows nothing but the server's own scripts, styles and
// connections, and no inline script.
func LocalOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !localHost(r) {
			http.Error(w, "forbidden: not a local host", http.StatusForbidden)
			return
		}
		hdr := w.Header()
		hdr.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		hdr.Set("X-Content-Type-Options", "nosniff")
		hdr.Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// localHost reports whether the request's Host names the server locally.
func localHost(r *http.Request) bool {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		return false
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil {
		return false
	}
	lhost, lport, err := net.SplitHostPort(local.String())
	if err != nil || port != lport {
		return false
	}
	if host == lhost || strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// ServeUntil serves h on l until ctx ends, then shuts the server down
// gracefully, giving open requests grace to finish (event streams are cut
// at once: they never finish by themselves).
func ServeUntil(ctx context.Context, l net.Listener, h http.Handler, grace time.Duration) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
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
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
