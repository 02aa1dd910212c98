package mcpstream

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/internal/safetext"
	"github.com/uagentkit/stream/termstream"
)

// GetIn is what the get tool takes.
type GetIn struct {
	ID     string `json:"id" jsonschema:"a run id, a session id, a prefix of exactly one of them, or latest (the run that started last)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the next_cursor of the page before"`
}

// GetOut is what the get tool answers: what the id names (a run or a
// session, as ls --runs --json and ls --json write them), its status and
// the estimate of its cost, and a page of its transcript as `uagent-stream
// cat` renders it without colour, from byte Offset of the whole; the
// cursor of the next page is "" on the last.
type GetOut struct {
	Kind       string               `json:"kind" jsonschema:"run or session"`
	ID         string               `json:"id"`
	Status     string               `json:"status"`
	Run        *history.RunJSON     `json:"run,omitempty"`
	Session    *history.SessionJSON `json:"session,omitempty"`
	CostUSD    *float64             `json:"cost_usd" jsonschema:"the API-price estimate of its tokens, null when none could be priced"`
	Estimate   string               `json:"estimate" jsonschema:"what the cost is, and what it leaves out"`
	Text       string               `json:"text" jsonschema:"a page of the transcript"`
	Offset     int64                `json:"offset" jsonschema:"where the page begins in the whole transcript, in bytes"`
	NextCursor string               `json:"next_cursor,omitempty"`
}

func (s *server) get(ctx context.Context, _ *mcp.CallToolRequest, in GetIn) (*mcp.CallToolResult, GetOut, error) {
	out, more, err := s.page(in.ID, in.Cursor, s.max/2) // the text is twice in a result: content, and structured
	if err != nil {
		return nil, GetOut{}, err
	}
	res, _ := fit(s.max, len(out.Text), func(n int) (GetOut, string) {
		o := out
		if n < len(out.Text) || more {
			o.Text = cut(out.Text[:n])
			o.NextCursor = strconv.FormatInt(o.Offset+int64(len(o.Text)), 10)
		}
		return o, heading(o) + o.Text + trailer(o)
	})
	return res.result, res.out, res.err
}

// page reads what id names and the page of its transcript that starts at
// cursor, at most limit bytes; more reports text beyond them.
func (s *server) page(id, cursor string, limit int) (out GetOut, more bool, err error) {
	var from int64
	if cursor != "" {
		if from, err = strconv.ParseInt(cursor, 10, 64); err != nil || from < 0 {
			return out, false, fmt.Errorf("stream: mcp: cursor %q: not one this server gave", cursor)
		}
	}
	x := s.live.Index()
	found, err := x.Resolve(id)
	if err != nil {
		return out, false, &idError{id, err}
	}
	var est history.Estimate // of the listing's figure, rounded as it is
	switch {
	case found.Run != nil:
		j := found.Run.JSON()
		out.Kind, out.ID, out.Status, out.Run, out.CostUSD = "run", j.RunID, j.Status, &j, j.CostUSD
		est.Add(found.Run)
	default:
		j := found.Session.JSON()
		out.Kind, out.ID, out.Status, out.Session, out.CostUSD = "session", j.SessionID, j.Status, &j, j.CostUSD
		est = found.Session.Cost
	}
	out.Estimate = est.Note()
	in, err := found.Open(nil)
	if err != nil {
		return out, false, fmt.Errorf("stream: mcp: %s %s: %w", out.Kind, out.ID, err)
	}
	defer in.Close()
	w := &pageWriter{skip: from, limit: limit}
	if err := rendered(in, w, s.live.Index().Prices()); err != nil {
		return out, false, fmt.Errorf("stream: mcp: %s %s: %w", out.Kind, out.ID, err)
	}
	if from > w.total {
		return out, false, fmt.Errorf("stream: mcp: cursor %q: past the transcript's %d bytes", cursor, w.total)
	}
	out.Text, out.Offset = string(w.buf), from
	return out, w.total > from+int64(len(w.buf)), nil
}

// cut is a page cut at its last line break, or, in a line longer than
// the page, at the last whole character.
func cut(t string) string {
	if i := strings.LastIndexByte(t, '\n'); i >= 0 {
		return t[:i+1]
	}
	for len(t) > 0 {
		if r, size := utf8.DecodeLastRuneInString(t); r != utf8.RuneError || size > 1 {
			return t
		}
		t = t[:len(t)-1]
	}
	return t
}

// heading is the line above a page of a transcript: what it is, its
// status and cost.
func heading(o GetOut) string {
	unpriced := o.Session != nil && o.Session.UnpricedTokens > 0 // a run is priced whole, or not
	h := fmt.Sprintf("%s %s · %s · %s (API-price estimate)", o.Kind, o.ID, o.Status, termstream.Money(o.CostUSD, unpriced))
	if o.Offset > 0 {
		h += fmt.Sprintf(" · from byte %d", o.Offset)
	}
	return safetext.OneLine(h, 400) + "\n\n"
}

// trailer says how to read on, after a page that is not the last.
func trailer(o GetOut) string {
	if o.NextCursor == "" {
		return ""
	}
	return "\n… more: call get with id " + strconv.Quote(o.ID) + " and cursor " + strconv.Quote(o.NextCursor) + "\n"
}

// pageWriter keeps the bytes written in [skip, skip+limit), and counts
// them all.
type pageWriter struct {
	skip  int64
	limit int
	buf   []byte
	total int64
}

// full reports that the page is whole and more was written after it.
func (w *pageWriter) full() bool { return w.total > w.skip+int64(w.limit) }

func (w *pageWriter) Write(p []byte) (int, error) {
	start, end := w.total, w.total+int64(len(p))
	w.total = end
	lo, hi := max(start, w.skip), min(end, w.skip+int64(w.limit))
	if lo < hi {
		w.buf = append(w.buf, p[lo-start:hi-start]...)
	}
	return len(p), nil
}

// readResource answers resources/read of a run's or a session's URI: the
// first page of its transcript.
func (s *server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	rest, ok := strings.CutPrefix(uri, Scheme+"://")
	kind, id, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || (kind != "run" && kind != "session") || id == "" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	x := s.live.Index()
	if (kind == "run" && x.Run(id) == nil) || (kind == "session" && x.Session(id) == nil) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	out, more, err := s.page(id, "", s.max/2)
	if err != nil {
		return nil, err
	}
	if more {
		out.Text = cut(out.Text)
		out.NextCursor = strconv.Itoa(len(out.Text))
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: heading(out) + out.Text + trailer(out)}}}, nil
}

// resourcesPage is how many resources one resources/list answer names.
const resourcesPage = 200

// listResources answers resources/list from the history as it stands:
// its sessions, the latest activity first, then its runs, the latest
// first, a page at a time.
func (s *server) listResources(req mcp.Request) (*mcp.ListResourcesResult, error) {
	var cursor string
	if p, ok := req.GetParams().(*mcp.ListResourcesParams); ok && p != nil {
		cursor = p.Cursor
	}
	from, _, err := page(cursor, 0)
	if err != nil {
		return nil, err
	}
	x := s.live.Index()
	sessions, runs := x.Sessions(), x.Runs()
	n := len(sessions) + len(runs)
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	for i := from; i < min(n, from+resourcesPage); i++ {
		if i < len(sessions) {
			ss := sessions[i]
			res.Resources = append(res.Resources, &mcp.Resource{URI: Scheme + "://session/" + ss.ID, Name: ss.ID, MIMEType: "text/plain",
				Title: safetext.OneLine(ss.Title, 200), Description: safetext.OneLine(fmt.Sprintf("session · %d runs · %s · %s", len(ss.Runs), ss.Status, ss.Model), 200)})
			continue
		}
		r := runs[len(runs)-1-(i-len(sessions))]
		res.Resources = append(res.Resources, &mcp.Resource{URI: Scheme + "://run/" + r.ID, Name: r.ID, MIMEType: "text/plain",
			Title: safetext.OneLine(r.Title, 200), Description: safetext.OneLine(fmt.Sprintf("run %d of session %s · %s · %s", r.Seq, r.SessionID, r.Status, r.Model), 200)})
	}
	if from+resourcesPage < n {
		res.NextCursor = strconv.Itoa(from + resourcesPage)
	}
	return res, nil
}

// idError is an id that names nothing of the history, or more than one
// thing: its message says the id (as the client gave it) and what is
// wrong, sanitized, on one line.
type idError struct {
	id  string
	err error
}

func (e *idError) Error() string {
	what := e.err.Error()
	if errors.Is(e.err, history.ErrNotFound) {
		what = history.ErrNotFound.Error()
	}
	return safetext.OneLine("stream: mcp: id "+strconv.Quote(e.id)+": "+what, 2000)
}

func (e *idError) Unwrap() error { return e.err }
