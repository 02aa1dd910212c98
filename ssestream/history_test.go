package ssestream

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/statedir"
)

// served is a History of a fixture's history, on a test server.
func servedHistory(t *testing.T, opts ...Option) (historytest.Fixture, *httptest.Server, *History) {
	t.Helper()
	f, err := historytest.WriteFixture(t.TempDir())
	require.NoError(t, err)
	release, err := f.HoldLive() // its run goes on
	require.NoError(t, err)
	t.Cleanup(release)
	h := NewHistory(history.Open(history.DefaultPrices(), f.Dirs()...), opts...)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close() // ends its event streams, which a browser keeps open
		srv.Close()
	})
	return f, srv, h
}

func fetch(t *testing.T, url string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 5 * time.Second}
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res, string(b)
}

// routes are every route of a History, one of each kind.
var routes = []string{"/", "/usage", "/app.js", "/api/sessions", "/api/usage", "/runs/20261102-002000-a1f1a2b3/",
	"/runs/20261102-002000-a1f1a2b3/summary", "/sessions/" + historytest.Flaky + "/", "/sessions/" + historytest.Flaky + "/children",
	"/sessions/" + historytest.Flaky + "/intervals", "/sessions/" + historytest.Flaky + "/session", "/sessions/" + historytest.Flaky + "/about",
	"/runs/20261102-002000-a1f1a2b3/about"}

// Every route is guarded as serve's are: without a token, a Host that
// does not name the server locally is refused (403); with one, a request
// without it is refused (401), and one with it is served.
func TestHistoryAccess(t *testing.T) {
	_, srv, _ := servedHistory(t)
	for _, r := range routes {
		res, _ := fetch(t, srv.URL+r, nil)
		assert.Equal(t, http.StatusOK, res.StatusCode, r)
		res, _ = fetch(t, srv.URL+r, map[string]string{"Host": "evil.example:80"})
		assert.Equal(t, http.StatusForbidden, res.StatusCode, "%s: DNS rebinding", r)
	}
	_, tsrv, _ := servedHistory(t, WithToken("s3cret"))
	for _, r := range routes {
		res, _ := fetch(t, tsrv.URL+r, nil)
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode, r)
		res, _ = fetch(t, tsrv.URL+r, map[string]string{"Authorization": "Bearer s3cret"})
		assert.Equal(t, http.StatusOK, res.StatusCode, r)
		res, _ = fetch(t, tsrv.URL+r, map[string]string{"Authorization": "Bearer s3cret", "Host": "anywhere.example:80"})
		assert.Equal(t, http.StatusOK, res.StatusCode, "%s: the token guards it, whatever the Host", r)
	}
	res, _ := fetch(t, tsrv.URL+"/api/sessions?token=s3cret", nil)
	assert.Equal(t, http.StatusOK, res.StatusCode, "a program's ?token=")
	res, _ = fetch(t, tsrv.URL+"/?token=s3cret", nil)
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "a page's ?token= is a cookie and a redirect")
}

// Nothing from the history reaches a route unescaped: the JSON routes
// carry its strings as \u escapes (no control, no markup character, no
// invisible one raw); the pages are the page, its view and base as
// attributes; the estimate header is one line of text.
func TestHistoryRoutesEscape(t *testing.T) {
	_, srv, _ := servedHistory(t)
	for _, r := range append(routes, "/api/sessions?q=say+hi", "/api/usage?by=model&breakdown=1", "/api/usage?by=workspace",
		"/runs/20261103-120000-f6071829/summary", "/sessions/"+historytest.Unpriced+"/session", "/sessions/"+historytest.Unpriced+"/intervals",
		"/sessions/"+historytest.Unpriced+"/about", "/runs/20261103-120000-f6071829/about") {
		res, body := fetch(t, srv.URL+r, nil)
		require.Equal(t, http.StatusOK, res.StatusCode, r)
		if strings.HasSuffix(r, "f6071829/summary") || strings.HasSuffix(r, historytest.Unpriced+"/session") {
			// The recording reads the run as the route is first asked
			// for: asked again until it holds the run's hostile strings.
			require.Eventually(t, func() bool {
				res, body = fetch(t, srv.URL+r, nil)
				return strings.Contains(body, "llama-9")
			}, 20*time.Second, 10*time.Millisecond, "%s holds the run", r)
		}
		for _, bad := range []string{"\x1b", "\x07", "\x00", "\u202e", "\u200b", "<script>&"} {
			assert.NotContains(t, body, bad, "%s holds %q raw", r, bad)
		}
		for k, vs := range res.Header {
			for _, v := range vs {
				assert.NotContains(t, v, "\x1b", "%s: header %s", r, k)
			}
		}
	}
	_, body := fetch(t, srv.URL+"/api/sessions?q=say+hi", nil)
	var got []history.SessionJSON
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	require.Len(t, got, 1)
	assert.Equal(t, "Say hi "+historytest.Hostile, got[0].Title, "the same string, escaped")
	require.Len(t, got[0].Matches, 1)
	assert.Contains(t, got[0].Matches[0].Snippet, historytest.Hostile)

	res, _ := fetch(t, srv.URL+"/sessions/<script>/", nil)
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
	res, _ = fetch(t, srv.URL+"/runs/20261102-002000-a1f1a2b3", nil)
	assert.Equal(t, http.StatusMovedPermanently, res.StatusCode)
	assert.Equal(t, "/runs/20261102-002000-a1f1a2b3/", res.Header.Get("Location"))
}

// /api/sessions is ls --json's objects, a page at a time: ?limit= and
// ?offset=, X-Next-Offset naming the next page; every session once over
// the pages; the filters as parameters.
func TestHistoryPages(t *testing.T) {
	dirs, err := historytest.Many(t.TempDir(), 1250)
	require.NoError(t, err)
	h := NewHistory(history.Open(history.DefaultPrices(), dirs...))
	srv := httptest.NewServer(h)
	defer func() { h.Close(); srv.Close() }()
	seen := map[string]bool{}
	pages := 0
	for next := "0"; next != ""; pages++ {
		res, body := fetch(t, srv.URL+"/api/sessions?offset="+next, nil)
		require.Equal(t, http.StatusOK, res.StatusCode)
		var page []history.SessionJSON
		require.NoError(t, json.Unmarshal([]byte(body), &page))
		assert.LessOrEqual(t, len(page), HistoryPage)
		for _, s := range page {
			assert.False(t, seen[s.SessionID], "%s twice", s.SessionID)
			seen[s.SessionID] = true
		}
		next = res.Header.Get("X-Next-Offset")
	}
	assert.Len(t, seen, 250)
	assert.Equal(t, 3, pages)

	_, body := fetch(t, srv.URL+"/api/sessions?limit=5&workspace=/home/dev/p3&since=2026-09-01", nil)
	var page []history.SessionJSON
	require.NoError(t, json.Unmarshal([]byte(body), &page))
	assert.Len(t, page, 5)
	for _, s := range page {
		assert.Equal(t, "/home/dev/p3", s.Workspace)
	}
	res, _ := fetch(t, srv.URL+"/api/sessions?since=yesterday", nil)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	res, _ = fetch(t, srv.URL+"/api/usage?by=year", nil)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
}

// A run that starts while the history is served is said on /api/events
// within two FollowEvery, and so is its end; the index has it.
func TestHistoryIsLive(t *testing.T) {
	f, srv, _ := servedHistory(t)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/events", nil)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	changed := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "event: changed") {
				changed <- sc.Text()
			}
		}
		close(changed)
	}()
	run := historytest.Run{Homes: []string{f.Uagent}, ID: "20261106-000000-c0c0c0c0", Session: "c0c0c0c0-0000-4000-8000-000000000000",
		Start: time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC), Status: "running", Provider: "openai", Model: "gpt-5.4", Prompt: "a new one"}
	release, err := historytest.Hold(f.Uagent, run.Session) // uagent's, while it runs
	require.NoError(t, err)
	defer release()
	require.NoError(t, historytest.Write([]historytest.Run{run}, nil))
	select {
	case <-changed:
	case <-time.After(2*FollowEvery + 5*time.Second): // a loaded machine
		t.Fatal("no changed event within two seconds of a new run")
	}
	_, body := fetch(t, srv.URL+"/api/sessions?limit=1", nil)
	assert.Contains(t, body, `"status":"running"`)
	assert.Contains(t, body, "c0c0c0c0")
	run.Status = "ok"
	require.NoError(t, historytest.Write([]historytest.Run{run}, nil))
	select {
	case <-changed:
	case <-time.After(2*FollowEvery + 5*time.Second): // a loaded machine
		t.Fatal("no changed event when the run ended")
	}
	_, body = fetch(t, srv.URL+"/api/sessions?limit=1", nil)
	assert.Contains(t, body, `"status":"ok"`)
}

// A History keeps the pages used last, HistoryPages of them, and lets go
// of the others (their recordings closed).
func TestHistoryKeepsThePagesUsedLast(t *testing.T) {
	dirs, err := historytest.Many(t.TempDir(), 60)
	require.NoError(t, err)
	h := NewHistory(history.Open(history.DefaultPrices(), dirs...))
	srv := httptest.NewServer(h)
	defer func() { h.Close(); srv.Close() }()
	runs := h.Index().Runs()
	for _, r := range runs[:HistoryPages+4] {
		res, body := fetch(t, srv.URL+"/runs/"+r.ID+"/summary", nil)
		require.Equal(t, http.StatusOK, res.StatusCode)
		_ = body
	}
	h.mu.Lock()
	n := len(h.pages)
	h.mu.Unlock()
	assert.Equal(t, HistoryPages, n)
}

// A run's page of the history serves the run as serve serves it: its
// events end with the end event, and its summary is the run's.
func TestHistoryRunPage(t *testing.T) {
	_, srv, _ := servedHistory(t)
	_, body := fetch(t, srv.URL+"/runs/20261102-002000-a1f1a2b3/events", nil)
	assert.True(t, strings.HasPrefix(body, "id: 1\nevent: run_started\n"), body)
	assert.Contains(t, body, "event: end\ndata: {\"ending\":\"finished\",\"status\":\"ok\",\"exit_code\":0}")
	var sum stream.SummaryDTO
	_, body = fetch(t, srv.URL+"/runs/20261102-002000-a1f1a2b3/summary", nil)
	require.NoError(t, json.Unmarshal([]byte(body), &sum))
	assert.Equal(t, int64(500000), sum.Stats.Tokens.Input)
	_, body = fetch(t, srv.URL+"/sessions/"+historytest.Flaky+"/events", nil)
	assert.True(t, strings.HasPrefix(body, "id: 1\nevent: session_opened\ndata: {\"v\":1,\"type\":\"session_opened\",\"at\":\"2026-11-01T23:50:00Z\",\"id\":\""+historytest.Flaky+"\""), body[:min(len(body), 300)])
	assert.Equal(t, 2, strings.Count(body, "event: run_started"))
	_, body = fetch(t, srv.URL+"/sessions/"+historytest.Flaky+"/children", nil)
	var kids []history.SessionJSON
	require.NoError(t, json.Unmarshal([]byte(body), &kids))
	require.Len(t, kids, 2)
	assert.Equal(t, []string{historytest.Reviewer, historytest.Sub}, []string{kids[0].SessionID, kids[1].SessionID})
}

// A run still going is followed, as serve FILE follows a file: its page's
// events go on until its summary says it ended, then end.
func TestHistoryFollowsARunStillGoing(t *testing.T) {
	_, srv, h := servedHistory(t)
	live := h.Index().Run("20261104-080000-a7182930")
	require.Equal(t, "running", live.Status)
	got := make(chan string, 1)
	go func() {
		res, err := http.Get(srv.URL + "/runs/" + live.ID + "/events")
		if err != nil {
			got <- err.Error()
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		got <- string(b)
	}()
	time.Sleep(300 * time.Millisecond)
	select {
	case b := <-got:
		t.Fatalf("the events of a run going on ended: %s", b)
	default:
	}
	require.NoError(t, stream.SummaryDTO{V: 1, Status: "ok",
		RunID: live.ID, SessionID: live.SessionID, StartedAt: live.StartedAt, WallMS: 400}.WriteFile(filepath.Join(live.Dir, "summary.json")))
	select {
	case b := <-got:
		assert.Contains(t, b, "event: run_finished")
		assert.Contains(t, b, "event: end\ndata: {\"ending\":\"finished\",\"status\":\"ok\"")
	case <-time.After(20 * time.Second):
		t.Fatal("the run ended and its events did not")
	}
}

// A page of another site gets nothing of the history: every route that
// reads it is refused before any work when the browser says the request
// is cross-site or same-site, or its Origin is not the server's; a
// top-level navigation to the index (its static HTML) still works, and so
// does every request of the page itself and of a program that is no
// browser.
func TestHistoryRefusesOtherSites(t *testing.T) {
	_, srv, _ := servedHistory(t)
	run := "/runs/20261103-090000-e5f60718/"
	own := srv.URL
	for _, c := range []struct {
		path string
		hdr  map[string]string
		code int
	}{
		{"/api/sessions?q=sk-", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}, http.StatusForbidden},
		{"/api/sessions?q=sk-", map[string]string{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors"}, http.StatusForbidden},
		{"/api/sessions?q=sk-", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"/api/sessions?q=sk-", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"/api/usage", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"/api/events", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{run + "events", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{run, map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, http.StatusForbidden},
		{"/usage", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"}, http.StatusForbidden},
		{"/", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, http.StatusOK},
		{"/usage", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, http.StatusOK},
		{"/api/sessions?q=sk-", map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}, http.StatusOK},
		{"/api/sessions?q=sk-", map[string]string{"Origin": own}, http.StatusOK},
		{"/api/sessions?q=sk-", map[string]string{"Sec-Fetch-Site": "none"}, http.StatusOK},
		{"/api/sessions?q=sk-", nil, http.StatusOK}, // a program
		{run + "summary", nil, http.StatusOK},
	} {
		res, body := fetch(t, srv.URL+c.path, c.hdr)
		assert.Equal(t, c.code, res.StatusCode, "%s %v: %s", c.path, c.hdr, body)
	}
}

// An offset or a limit of any size, or none that parses, is a page (an
// empty one past the end), never a panic that drops the connection.
func TestHistoryOffsetsOfAnySize(t *testing.T) {
	_, srv, _ := servedHistory(t)
	for _, q := range []string{"offset=9223372036854775807", "offset=99999999999999999999999", "offset=-5", "offset=abc",
		"limit=9223372036854775807&offset=9223372036854775806", "limit=-1", "offset=2147483647&limit=1000"} {
		res, body := fetch(t, srv.URL+"/api/sessions?"+q, nil)
		require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", q, body)
		var got []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(body), &got), q)
	}
	_, body := fetch(t, srv.URL+"/api/sessions?offset=9223372036854775807", nil)
	assert.Equal(t, "[]", strings.TrimSpace(body), "past the end: an empty page")
}

// A page evicted while a browser follows it (HistoryPages others opened
// after it) ends that browser's event stream at once, with no end event:
// the run did not end, and an EventSource asks again from its last id,
// which makes the page anew.
func TestHistoryEvictedPageEndsItsStreams(t *testing.T) {
	dirs, err := historytest.Many(t.TempDir(), 20)
	require.NoError(t, err)
	live := historytest.Run{Homes: []string{dirs[0]}, ID: "20261106-000000-e0e0e0e0", Session: "e0e0e0e0-0000-4000-8000-000000000000",
		Start: time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC), Status: "running", Provider: "openai", Model: "gpt-5.4", Prompt: "still going"}
	release, err := historytest.Hold(dirs[0], live.Session) // uagent's, while it runs
	require.NoError(t, err)
	defer release()
	require.NoError(t, historytest.Write([]historytest.Run{live}, nil))
	h := NewHistory(history.Open(history.DefaultPrices(), dirs...))
	srv := httptest.NewServer(h)
	defer func() { h.Close(); srv.Close() }()

	res, err := http.Get(srv.URL + "/runs/" + live.ID + "/events")
	require.NoError(t, err)
	defer res.Body.Close()
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(res.Body) // until the server ends the stream
		got <- string(b)
	}()
	for _, r := range h.Index().Runs()[:HistoryPages] { // HistoryPages others: the live one is used longest ago
		if r.ID != live.ID {
			res, _ := fetch(t, srv.URL+"/runs/"+r.ID+"/summary", nil)
			require.Equal(t, http.StatusOK, res.StatusCode)
		}
	}
	select {
	case body := <-got:
		assert.Contains(t, body, "event: run_started", "what it had sent")
		assert.NotContains(t, body, "event: end", "the run did not end")
	case <-time.After(10 * time.Second):
		t.Fatal("the evicted page's stream went on")
	}
}

// An idle stream of the history gets its keep-alive comments: the
// history's changes (/api/events) and a run page's events while its run
// says nothing.
func TestHistoryIdleStreamsKeepAlive(t *testing.T) {
	dirs, err := historytest.Many(t.TempDir(), 5)
	require.NoError(t, err)
	live := historytest.Run{Homes: []string{dirs[0]}, ID: "20261106-000000-e1e1e1e1", Session: "e1e1e1e1-0000-4000-8000-000000000000",
		Start: time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC), Status: "running", Provider: "openai", Model: "gpt-5.4", Prompt: "quiet"}
	release, err := historytest.Hold(dirs[0], live.Session)
	require.NoError(t, err)
	defer release()
	require.NoError(t, historytest.Write([]historytest.Run{live}, nil))
	h := NewHistory(history.Open(history.DefaultPrices(), dirs...))
	h.access.keepAlive = 20 * time.Millisecond
	srv := httptest.NewServer(h)
	defer func() { h.Close(); srv.Close() }()
	for _, path := range []string{"/api/events", "/runs/" + live.ID + "/events"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		sc := bufio.NewScanner(res.Body)
		kept := 0
		for kept < 2 && sc.Scan() {
			if sc.Text() == ": keep-alive" {
				kept++
			}
		}
		cancel()
		res.Body.Close()
		assert.Equal(t, 2, kept, "%s: keep-alives while idle", path)
	}
}

// A session whose id holds a slash (summary.json says what it says) is
// reached by the link the page makes of it (encodeURIComponent), as is
// its run.
func TestHistorySessionIDWithASlash(t *testing.T) {
	home := t.TempDir()
	run := historytest.Run{Homes: []string{home}, ID: "20261106-000000-abcdefab", Session: "evil/../x", Start: time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC),
		Wall: time.Second, Provider: "openai", Model: "gpt-5.4", Prompt: "p", Answer: "a"}
	require.NoError(t, historytest.Write([]historytest.Run{run}, nil))
	h := NewHistory(history.Open(history.DefaultPrices(), home))
	srv := httptest.NewServer(h)
	defer func() { h.Close(); srv.Close() }()
	for _, p := range []string{"/sessions/" + url.PathEscape(run.Session) + "/", "/sessions/evil%2F..%2Fx/summary", "/sessions/evil%2F..%2Fx/events"} {
		res, body := fetch(t, srv.URL+p, nil)
		assert.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", p, body)
	}
}

// Evicting a page whose reader has not stopped yet (a long run still being
// read) holds no lock another request waits on: the index answers at
// once, and the page is let go of when its reader ends.
func TestHistoryEvictionBlocksNothing(t *testing.T) {
	dirs, err := historytest.Many(t.TempDir(), 20)
	require.NoError(t, err)
	h := NewHistory(history.Open(history.DefaultPrices(), dirs...))
	srv := httptest.NewServer(h)
	reader := make(chan struct{}) // the slow page's reader, still reading until closed
	defer func() {
		close(reader)
		h.Close()
		srv.Close()
	}()
	h.mu.Lock()
	slow := &recordedPage{rec: NewRecording(nil), stop: func() {}, done: reader}
	slow.h = NewHandler(slow.rec)
	h.pages["runs/slow"], h.used = slow, append([]string{"runs/slow"}, h.used...)
	h.mu.Unlock()
	for _, r := range h.Index().Runs()[:HistoryPages] { // the slow page, used longest ago, is evicted
		res, body := fetch(t, srv.URL+"/runs/"+r.ID+"/summary", nil)
		require.Equal(t, http.StatusOK, res.StatusCode, body)
	}
	res, body := fetch(t, srv.URL+"/api/sessions", nil) // fetch's client gives up after 5 s
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	h.mu.Lock()
	_, kept := h.pages["runs/slow"]
	h.mu.Unlock()
	assert.False(t, kept, "evicted")
}

// A run's and a session's about say how their model attempts ended (the
// runs' stderr.log), and a session's what it spent apart from its runs
// (its subagent and reviewer).
func TestAboutSaysAttemptsAndWhatWasSpentApart(t *testing.T) {
	f, srv, _ := servedHistory(t)
	require.NoError(t, os.WriteFile(filepath.Join(f.Uah, "runs", "20261102-002000-a1f1a2b3", "stderr.log"),
		[]byte(`{"diag":"model_attempt","result":"retry"}`+"\n"+`{"diag":"model_attempt","result":"ok"}`+"\n"), 0o644))
	var run struct {
		RunID    string            `json:"run_id"`
		Attempts statedir.Attempts `json:"attempts"`
	}
	_, body := fetch(t, srv.URL+"/runs/20261102-002000-a1f1a2b3/about", nil)
	require.NoError(t, json.Unmarshal([]byte(body), &run))
	assert.Equal(t, statedir.Attempts{OK: 1, Retry: 1}, run.Attempts)
	var sess struct {
		Attempts  statedir.Attempts  `json:"attempts"`
		Subagents *history.SpentJSON `json:"subagents"`
	}
	_, body = fetch(t, srv.URL+"/sessions/"+historytest.Flaky+"/about", nil)
	require.NoError(t, json.Unmarshal([]byte(body), &sess))
	assert.Equal(t, statedir.Attempts{OK: 1, Retry: 1}, sess.Attempts, "its runs' together")
	require.NotNil(t, sess.Subagents)
	assert.Equal(t, 2, sess.Subagents.Sessions)
}
