package ssestream

import (
	"bytes"
	"context"
	"encoding/json"
	"hash/maphash"
	"html"
	"iter"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/internal/safetext"
	"github.com/uagentkit/stream/internal/webguard"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/uahstream"
)

// Defaults of a [History].
const (
	// HistoryPage is how many sessions /api/sessions answers at most (its
	// limit parameter may ask for fewer, or for up to 1,000).
	HistoryPage = 100
	// HistoryPages is how many run and session pages a History keeps
	// recorded at once; the one used longest ago goes first.
	HistoryPages = 8
	// FollowEvery is how often a History looks for what changed in the
	// history (and a run page follows its run).
	FollowEvery = time.Second
)

// History serves a person's history (the history package's Index) to
// browsers: the page of [Handler], with more routes.
//
//   - GET /: the sessions, the latest activity first, subagents and
//     reviewers under their parent, filters and a search, a page at a time.
//   - GET /sessions/ID/: the session's runs in order, as the page shows a
//     session stream (each run as a run; the runs' totals), its subagents
//     and reviewers linked (/sessions/ID/children); /sessions/ID/events,
//     /summary, /intervals, /session as [Handler] serves them;
//     /sessions/ID/about, the session as ls --json lists it (its title,
//     source and cost) and run_list, its runs as ls --runs --json lists
//     them.
//   - GET /runs/ID/: a run, as serve FILE shows one; a run still going is
//     followed until its summary says it ended; /runs/ID/about, the run as
//     ls --runs --json lists it.
//   - GET /usage: tokens and the cost estimate by day, a chart and the
//     table of uagent-stream usage (?since=, ?until=, ?workspace=, ?model=,
//     ?tz= as /api/usage).
//   - GET /api/sessions: the objects of ls --json (history.SessionJSON),
//     filtered by ?since=, ?until=, ?workspace=, ?model=, ?status=,
//     ?source=, searched by ?q=; a page of ?limit= (default HistoryPage)
//     from ?offset=, X-Next-Offset naming the next page's when there is one.
//   - GET /api/usage: usage --json ({by, timezone, estimate, rows, total};
//     ?by=, ?tz=, ?breakdown=1, and the filters), and periods, the chart's
//     axis (history.Periods) by day, week or month.
//   - GET /api/events: text/event-stream: a "changed" event (data: the
//     history's version) each time the history changes (a run begins, goes
//     on or ends; a sidecar changes), looked for every FollowEvery by
//     history.Index.Reopen, which reads only what is new or going on.
//
// Access is [Handler]'s (WithToken, WithMaxClients for every event stream
// together; without a token, only a local Host), and a request a browser
// sends for a page of another site or origin (Sec-Fetch-Site cross-site
// or same-site, or an Origin not the server's) is refused (403) before
// any work, but for a top-level navigation to / or /usage (the page's
// static HTML) and its script and style. Every string of the
// history reaches the page as text, never markup. It is safe for
// concurrent use; Close stops what it follows.
type History struct {
	access *Handler // the options, and the authorization of every request

	mu      sync.Mutex
	x       *history.Index
	version int64
	changed chan struct{}
	pages   map[string]*recordedPage // by "runs/ID" or "sessions/ID"
	used    []string                 // the pages' keys, the one used longest ago first
	closed  bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// recordedPage is a run or a session recorded for its page.
type recordedPage struct {
	rec *Recording
	h   *Handler
	// stop stops the run it follows; done is closed when it has stopped.
	stop context.CancelFunc
	done chan struct{}
}

// NewHistory returns a History of x, which it follows (Reopen) every
// FollowEvery until Close.
func NewHistory(x *history.Index, opts ...Option) *History {
	access := NewHandler(nil, opts...)
	ctx, cancel := context.WithCancel(context.Background())
	h := &History{access: access, x: x, changed: make(chan struct{}), pages: map[string]*recordedPage{}, ctx: ctx, cancel: cancel}
	h.wg.Go(h.follow)
	return h
}

// Index is the history as it stands.
func (h *History) Index() *history.Index {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.x
}

// follow reads the history again every FollowEvery, and says when it
// changed.
func (h *History) follow() {
	t := time.NewTicker(FollowEvery)
	defer t.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-t.C:
		}
		old := h.Index()
		x := old.Reopen()
		if sign(x) == sign(old) {
			continue
		}
		h.mu.Lock()
		h.x = x
		h.version++
		close(h.changed)
		h.changed = make(chan struct{})
		h.mu.Unlock()
	}
}

// sign is what a page of the history shows of it changing, hashed: each
// run's id, status, wall time and tokens, each session's title, parent
// and source (a hash, not a copy of them, every FollowEvery).
func sign(x *history.Index) uint64 {
	var h maphash.Hash
	h.SetSeed(signSeed)
	for _, r := range x.Runs() {
		h.WriteString(r.ID)
		h.WriteByte(0)
		h.WriteString(r.Status)
		h.WriteByte(0)
		maphash.WriteComparable(&h, [2]int64{r.WallMS, r.Tokens.Input + r.Tokens.Output})
	}
	for _, s := range x.Sessions() {
		for _, f := range []string{s.ID, s.Title, s.Parent, s.Source} {
			h.WriteString(f)
			h.WriteByte(0)
		}
	}
	return h.Sum64()
}

var signSeed = maphash.MakeSeed()

// Close stops following the history and its runs, and closes the pages'
// recordings.
func (h *History) Close() error {
	h.mu.Lock()
	h.closed = true // no page is made, nor evicted, after this
	pages := h.pages
	h.pages, h.used = map[string]*recordedPage{}, nil
	h.mu.Unlock()
	h.cancel()
	for _, p := range pages {
		p.close()
	}
	h.wg.Wait() // the follower, and the pages being closed apart
	return nil
}

func (p *recordedPage) close() {
	p.stop()
	<-p.done
	p.rec.Close()
}

// ServeHTTP implements http.Handler.
func (h *History) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a := h.access
	if !a.guard(w, r) {
		return
	}
	p := r.URL.Path
	if webguard.CrossSite(r) && !(webguard.Navigation(r) && (p == "/" || p == "/usage")) && p != "/app.js" && p != "/app.css" {
		// A page of another site may open the index, and nothing else: a
		// search it could time, a run it could find by its answer's
		// length, a stream it could hold open are refused before any work.
		http.Error(w, "forbidden: a request from another site", http.StatusForbidden)
		return
	}
	switch {
	case p == "/":
		h.page(w, r, "index", "/")
	case p == "/usage":
		h.page(w, r, "usage", "/")
	case p == "/app.js" || p == "/app.css":
		a.mux.ServeHTTP(w, r)
	case p == "/api/sessions":
		h.sessions(w, r)
	case p == "/api/usage":
		h.usage(w, r)
	case p == "/api/events":
		h.events(w, r)
	case strings.HasPrefix(p, "/runs/"), strings.HasPrefix(p, "/sessions/"):
		h.record(w, r)
	default:
		http.NotFound(w, r)
	}
}

// page is the page, showing view, its routes under base.
func (h *History) page(w http.ResponseWriter, r *http.Request, view, base string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	b, err := web.ReadFile("web/index.html")
	if err != nil {
		http.Error(w, "no page", http.StatusInternalServerError)
		return
	}
	attrs := ` data-history="1" data-view="` + html.EscapeString(view) + `" data-base="` + html.EscapeString(base) + `"`
	if tz := os.Getenv("TZ"); tz != "" { // the zone the command's times are in, when it has a name
		if _, err := time.LoadLocation(tz); err == nil {
			attrs += ` data-tz="` + html.EscapeString(tz) + `"`
		}
	}
	b = bytes.Replace(b, []byte("<body>"), []byte("<body"+attrs+">"), 1)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

// record serves /runs/ID/… and /sessions/ID/…: the page, or the routes of
// the recording of that run or session.
func (h *History) record(w http.ResponseWriter, r *http.Request) {
	// Cut as the page escaped it (encodeURIComponent): an id may hold a
	// slash of its own.
	kind, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	escaped, sub, slash := strings.Cut(rest, "/")
	id, err := url.PathUnescape(escaped)
	if err != nil {
		http.Error(w, "not an id", http.StatusBadRequest)
		return
	}
	if sub, err = url.PathUnescape(sub); err != nil {
		http.Error(w, "not a route", http.StatusBadRequest)
		return
	}
	x := h.Index()
	var found history.Found
	switch kind {
	case "runs":
		found.Run = x.Run(id)
	case "sessions":
		found.Session = x.Session(id)
	}
	if found.Run == nil && found.Session == nil {
		http.Error(w, "no such "+strings.TrimSuffix(kind, "s")+" in the history", http.StatusNotFound)
		return
	}
	base := "/" + kind + "/" + url.PathEscape(id) + "/"
	switch {
	case !slash:
		http.Redirect(w, r, base, http.StatusMovedPermanently)
		return
	case sub == "":
		h.page(w, r, "run", base)
		return
	case sub == "about": // what the listings say of it: title, source, cost, its session
		var v any
		var tried statedir.Attempts // how its model attempts ended (stderr.log)
		if found.Run != nil {
			tried, _ = found.Run.Attempts()
			v = struct {
				history.RunJSON
				Attempts statedir.Attempts `json:"attempts"`
			}{found.Run.JSON(), tried}
		} else { // and its runs, each with its cost
			runs := make([]history.RunJSON, len(found.Session.Runs))
			for i, r := range found.Session.Runs {
				runs[i] = r.JSON()
			}
			tried = found.Session.Attempts()
			v = struct {
				history.SessionJSON
				RunList  []history.RunJSON `json:"run_list"`
				Attempts statedir.Attempts `json:"attempts"`
			}{found.Session.JSON(), runs, tried}
		}
		b, err := json.Marshal(v)
		writeJSON(w, safetext.EscapeJSON(b), err)
		return
	case sub == "children" && found.Session != nil:
		var kids []history.SessionJSON
		for _, c := range found.Session.Children {
			kids = append(kids, c.JSON())
		}
		b, err := json.Marshal(kids)
		writeJSON(w, safetext.EscapeJSON(b), err)
		return
	}
	p, err := h.recording(kind+"/"+id, found)
	if err != nil {
		http.Error(w, "the "+strings.TrimSuffix(kind, "s")+" cannot be read", http.StatusInternalServerError)
		return
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/" + sub
	p.h.mux.ServeHTTP(w, r2)
}

// kept is the page kept of key, nil when there is none; context.Canceled
// once the History is closed.
func (h *History) kept(key string) (*recordedPage, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.keptLocked(key)
}

func (h *History) keptLocked(key string) (*recordedPage, error) {
	if h.closed {
		return nil, context.Canceled
	}
	p := h.pages[key]
	if p != nil {
		h.used = append(slices.DeleteFunc(h.used, func(k string) bool { return k == key }), key)
	}
	return p, nil
}

// recording is the page's recording of a run or a session: made when it
// is first asked for, reading the run (followed while it goes on) or the
// session's runs (the last followed) into it; kept among the
// HistoryPages used last. The page used longest ago is closed apart,
// its reader stopped at once and its clients' streams ended (their
// browsers ask again, from their last id).
func (h *History) recording(key string, found history.Found) (*recordedPage, error) {
	if p, err := h.kept(key); p != nil || err != nil {
		return p, err
	}
	// Made without the lock: a session's runs' files are read here, and
	// no other request waits for them.
	ctx, stop := context.WithCancel(h.ctx)
	follow := func(r *statedir.Run) iter.Seq[stream.Event] {
		if r.Finished() {
			return r.Events()
		}
		return r.Follow(ctx, FollowEvery/2)
	}
	s := new(uahstream.Session)
	var rd *uahstream.Reader
	if found.Run != nil {
		sr, err := statedir.OpenRun(found.Run.Dir)
		if err != nil {
			stop()
			return nil, err
		}
		rd = s.EventReader(follow(sr))
	} else {
		var err error
		if rd, _, err = found.Session.Reader(s, follow); err != nil {
			stop()
			return nil, err
		}
	}
	rec := NewRecording(s)
	p := &recordedPage{rec: rec, h: NewHandler(rec), stop: stop, done: make(chan struct{})}
	p.h.maxClients, p.h.clients = h.access.maxClients, h.access.clients
	p.h.keepAlive, p.h.writeTimeout = h.access.keepAlive, h.access.writeTimeout
	h.mu.Lock()
	defer h.mu.Unlock()
	if q, err := h.keptLocked(key); q != nil || err != nil { // made by another request meanwhile, or closing
		stop()
		rec.Close()
		return q, err
	}
	go func() {
		defer close(p.done)
		for l := range rd.Lines() {
			if ctx.Err() != nil { // evicted, or the server stopping: a finished run's reader stops here too
				return
			}
			rec.Add(l)
		}
		if ctx.Err() == nil { // a run followed until the page was closed has not ended
			rec.End(nil)
		}
	}()
	h.pages[key] = p
	h.used = append(h.used, key)
	for len(h.used) > HistoryPages {
		old := h.pages[h.used[0]]
		delete(h.pages, h.used[0])
		h.used = h.used[1:]
		// Closed apart: waiting for its reader to stop holds no lock that
		// another request waits on (Close waits for it).
		old.stop()
		h.wg.Go(old.close)
	}
	return p, nil
}

// filter is the filter a request's parameters ask for.
func filter(q url.Values, loc *time.Location, now time.Time) (history.Filter, error) {
	return history.Asked{Since: q.Get("since"), Until: q.Get("until"), Workspace: q.Get("workspace"), Model: q.Get("model"),
		Status: q.Get("status"), Source: q.Get("source")}.Filter(loc, now)
}

// query is what a request's parameters ask for: the time zone (?tz=)
// and the filter; false when they are not what they should be (answered
// 400).
func query(w http.ResponseWriter, r *http.Request) (url.Values, *time.Location, history.Filter, bool) {
	q := r.URL.Query()
	loc := time.Local
	if tz := q.Get("tz"); tz != "" {
		var err error
		if loc, err = time.LoadLocation(tz); err != nil {
			http.Error(w, "tz: not a time zone", http.StatusBadRequest)
			return nil, nil, history.Filter{}, false
		}
	}
	f, err := filter(q, loc, time.Now())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest) // "since wants …": a field of the address, not of the history
		return nil, nil, history.Filter{}, false
	}
	return q, loc, f, true
}

// sessions answers /api/sessions.
func (h *History) sessions(w http.ResponseWriter, r *http.Request) {
	q, _, f, ok := query(w, r)
	if !ok {
		return
	}
	// Any number the address holds, too big to parse included, is a page:
	// an offset past the end an empty one, never a panic.
	offset, err := strconv.Atoi(q.Get("offset"))
	if err != nil && q.Has("offset") && strings.Trim(q.Get("offset"), "0123456789") == "" {
		offset = 1 << 30 // digits too many to parse: past every history's end
	}
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit <= 0 {
		limit = HistoryPage
	}
	limit, offset = min(limit, 1000), min(max(offset, 0), 1<<30) // offset+limit fits an int of 32 bits
	res, _ := h.Index().Find(r.Context(), f, q.Get("q"))         // a run that cannot be read is one the page does not find
	listed, found := res.Sessions, res.Matches
	var est history.Estimate
	for _, s := range listed {
		est.Merge(s.Cost)
	}
	if offset+limit < len(listed) {
		w.Header().Set("X-Next-Offset", strconv.Itoa(offset+limit))
	}
	w.Header().Set("X-Estimate", headerSafe(est.Note()))
	page := listed[min(offset, len(listed)):min(offset+limit, len(listed))]
	out := make([]history.SessionJSON, 0, len(page))
	for _, s := range page {
		j := s.JSON()
		for _, r := range s.Runs {
			if m, ok := found[r.ID]; ok {
				j.Matches = append(j.Matches, m.JSON())
			}
		}
		out = append(out, j)
	}
	b, err := json.Marshal(out)
	writeJSON(w, safetext.EscapeJSON(b), err)
}

// headerSafe is s with what a header cannot carry escaped.
func headerSafe(s string) string { return safetext.OneLine(s, 4096) }

// usage answers /api/usage.
func (h *History) usage(w http.ResponseWriter, r *http.Request) {
	q, loc, f, ok := query(w, r)
	if !ok {
		return
	}
	by := q.Get("by")
	if by == "" {
		by = history.ByDay
	}
	rows, total, err := h.Index().Usage(f, by, loc, q.Get("breakdown") != "")
	if err != nil {
		http.Error(w, "by: want one of "+strings.Join(history.Groupings(), ", "), http.StatusBadRequest)
		return
	}
	rep := struct {
		history.UsageReport
		// Periods are the chart's axis: every day, week or month from the
		// first row's to the last's, those without a run too.
		Periods []string `json:"periods,omitempty"`
	}{UsageReport: history.Report(by, loc, rows, total)}
	if len(rows) > 0 {
		rep.Periods = history.Periods(by, rows[0].Period, rows[len(rows)-1].Period)
	}
	b, err := json.Marshal(rep)
	writeJSON(w, safetext.EscapeJSON(b), err)
}

// events answers /api/events: "changed" each time the history changes.
func (h *History) events(w http.ResponseWriter, r *http.Request) {
	a := h.access
	rc, end, ok := a.beginStream(w)
	if !ok {
		return
	}
	defer end()
	keep := time.NewTimer(a.keepAlive)
	defer keep.Stop()
	send := func(b string) bool {
		rc.SetWriteDeadline(time.Now().Add(a.writeTimeout))
		_, err := w.Write([]byte(b))
		return err == nil && rc.Flush() == nil
	}
	h.mu.Lock()
	seen := h.version
	h.mu.Unlock()
	for {
		h.mu.Lock()
		version, changed := h.version, h.changed
		h.mu.Unlock()
		if version != seen { // the latest: a page asks for the history as it stands
			seen = version
			if !send("event: changed\ndata: " + strconv.FormatInt(version, 10) + "\n\n") {
				return
			}
			continue
		}
		select {
		case <-changed:
		case <-keep.C:
			if !send(": keep-alive\n\n") {
				return
			}
			keep.Reset(a.keepAlive)
		case <-r.Context().Done():
			return
		case <-h.ctx.Done():
			return
		}
	}
}
