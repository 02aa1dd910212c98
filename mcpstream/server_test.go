package mcpstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/termstream"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixture is the history the tests ask: historytest's fixture.
func fixture(t *testing.T) (historytest.Fixture, *history.Live) {
	t.Helper()
	f, err := historytest.WriteFixture(t.TempDir())
	require.NoError(t, err)
	return f, history.NewLive(history.DefaultPrices(), f.Dirs()...)
}

// connect serves srv in memory to a client of the SDK, until the test
// ends.
func connect(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call calls a tool and decodes its structured answer into out; it
// returns the result's text.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, out any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err, tool)
	require.Len(t, res.Content, 1, tool)
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError && out != nil {
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, out), tool)
	}
	return text, res.IsError
}

// jsonOf is v as JSON, decoded into a value of type T: what a client
// reads of it.
func jsonOf[T any](t *testing.T, v any) T {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out T
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func TestToolsAreReadOnlyWithSchemas(t *testing.T) {
	_, live := fixture(t)
	cs := connect(t, NewServer(live))
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		assert.NotNil(t, tool.InputSchema, tool.Name)
		assert.NotNil(t, tool.OutputSchema, tool.Name)
		require.NotNil(t, tool.Annotations, tool.Name)
		assert.True(t, tool.Annotations.ReadOnlyHint, tool.Name)
	}
	assert.ElementsMatch(t, []string{"sessions", "search", "get", "usage"}, names)
}

func TestSessionsAreTheListings(t *testing.T) {
	f, live := fixture(t)
	cs := connect(t, NewServer(live))
	x := history.Open(history.DefaultPrices(), f.Dirs()...)
	var want []history.SessionJSON
	for _, l := range x.List(history.Filter{}) {
		want = append(want, l.JSON())
	}
	var out SessionsOut
	call(t, cs, "sessions", nil, &out)
	assert.Empty(t, cmp.Diff(jsonOf[[]history.SessionJSON](t, want), out.Sessions))
	assert.Equal(t, len(want), out.Total)
	assert.Empty(t, out.NextCursor)

	// A page at a time, the pages are the listing.
	var paged []history.SessionJSON
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 20)
		var p SessionsOut
		_, isErr := call(t, cs, "sessions", map[string]any{"limit": 2, "cursor": cursor}, &p)
		require.False(t, isErr)
		require.LessOrEqual(t, len(p.Sessions), 2)
		paged = append(paged, p.Sessions...)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	assert.Empty(t, cmp.Diff(out.Sessions, paged))

	// The filters are ls's.
	var filtered SessionsOut
	call(t, cs, "sessions", map[string]any{"source": "subagent"}, &filtered)
	var wantSub []string
	for _, l := range x.List(history.Filter{Source: "subagent"}) {
		wantSub = append(wantSub, l.ID)
	}
	var gotSub []string
	for _, s := range filtered.Sessions {
		gotSub = append(gotSub, s.SessionID)
	}
	assert.Equal(t, wantSub, gotSub)
	assert.NotEmpty(t, gotSub)

	for _, bad := range []map[string]any{{"status": "failed"}, {"source": "cli"}, {"since": "yesterday"}, {"workspace": "rel/dir"}, {"cursor": "x"}, {"limit": 5000}} {
		text, isErr := call(t, cs, "sessions", bad, nil)
		assert.True(t, isErr, "%v", bad)
		assert.True(t, strings.HasPrefix(text, "stream: mcp: "), text)
	}
}

func TestSearchHitsAreLsSearchs(t *testing.T) {
	f, live := fixture(t)
	cs := connect(t, NewServer(live))
	x := history.Open(history.DefaultPrices(), f.Dirs()...)
	found, errs := x.Find(context.Background(), history.Filter{}, "the cache")
	require.Empty(t, errs)
	var want []Hit
	for _, l := range found.Sessions {
		for _, r := range l.Runs {
			if m, ok := found.Matches[r.ID]; ok {
				j := m.JSON()
				want = append(want, Hit{SessionID: l.ID, RunID: j.RunID, At: j.At, Line: j.Line, Snippet: j.Snippet})
			}
		}
	}
	require.NotEmpty(t, want)
	var out SearchOut
	call(t, cs, "search", map[string]any{"text": "THE CACHE"}, &out)
	assert.Empty(t, cmp.Diff(jsonOf[[]Hit](t, want), out.Hits))
	assert.Equal(t, len(want), out.Total)

	var none SearchOut
	call(t, cs, "search", map[string]any{"text": "no such words anywhere"}, &none)
	assert.Empty(t, none.Hits)
	_, isErr := call(t, cs, "search", map[string]any{"text": "  "}, nil)
	assert.True(t, isErr, "an empty text")
}

func TestGetARunAndASession(t *testing.T) {
	_, live := fixture(t)
	cs := connect(t, NewServer(live))
	var run GetOut
	text, isErr := call(t, cs, "get", map[string]any{"id": "20261101-235000"}, &run)
	require.False(t, isErr, text)
	assert.Equal(t, "run", run.Kind)
	assert.Contains(t, run.Text, "Fix the flaky test in parser_test.go")
	assert.Contains(t, run.Text, "It races on the cache.")
	assert.Contains(t, text, run.Text, "the text is the page")
	assert.Equal(t, "ok", run.Status)
	require.NotNil(t, run.Run)
	require.NotNil(t, run.CostUSD)
	assert.Contains(t, run.Estimate, "estimate")
	assert.Empty(t, run.NextCursor)

	var sess GetOut
	call(t, cs, "get", map[string]any{"id": historytest.Flaky}, &sess)
	assert.Equal(t, "session", sess.Kind)
	require.NotNil(t, sess.Session)
	assert.Equal(t, historytest.Flaky, sess.ID)
	assert.Contains(t, sess.Text, "Now make it Straße-proof")

	var latest GetOut
	call(t, cs, "get", map[string]any{"id": "latest"}, &latest)
	assert.Equal(t, "run", latest.Kind)

	// An unknown id is the tool's error, naming it; the next call works.
	text, isErr = call(t, cs, "get", map[string]any{"id": "nothing-\u202e-here"}, nil)
	assert.True(t, isErr)
	assert.Contains(t, text, `nothing-\u202e-here`)
	assert.NotContains(t, text, "\u202e")
	assert.Contains(t, text, "no run or session")
	_, isErr = call(t, cs, "get", map[string]any{"id": historytest.Flaky}, nil)
	assert.False(t, isErr)
}

// A transcript longer than a result's bound comes in pages, each result
// within the bound, which together are what cat renders (CI's client
// reads a 5 MB one at the default bound).
func TestGetPagesABigRun(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "uagent")
	big := strings.Repeat("all work and no play, <said> \"Jack\" & went on\n", 256<<10/46)
	require.NoError(t, historytest.Write([]historytest.Run{{Homes: []string{home}, ID: "20261201-100000-0a0b0c0d", Session: "big",
		Start: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Wall: time.Minute, Status: "ok", Provider: "openai", Model: "gpt-5.4",
		Prompt: "write a lot", Answer: big}}, nil))
	live := history.NewLive(history.DefaultPrices(), home)
	const bound = 16 << 10
	cs := connect(t, NewServer(live, WithMaxBytes(bound)))

	var whole bytes.Buffer
	in, err := history.Found{Run: live.Index().Run("20261201-100000-0a0b0c0d")}.Open(nil)
	require.NoError(t, err)
	_, err = termstream.New(&whole, in.Reader.Session(), termstream.Options{Prices: new(history.DefaultPrices())}).Render(in.Reader)
	require.NoError(t, err)
	require.Greater(t, whole.Len(), 256<<10)

	var got strings.Builder
	cursor, pages := "", 0
	for {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get", Arguments: map[string]any{"id": "20261201-100000-0a0b0c0d", "cursor": cursor}})
		require.NoError(t, err)
		require.False(t, res.IsError)
		b, err := json.Marshal(res)
		require.NoError(t, err)
		require.LessOrEqual(t, len(b), bound, "page %d", pages)
		out := jsonOf[GetOut](t, res.StructuredContent)
		assert.Equal(t, int64(got.Len()), out.Offset)
		got.WriteString(out.Text)
		pages++
		require.Less(t, pages, 400)
		if cursor = out.NextCursor; cursor == "" {
			break
		}
		assert.True(t, strings.HasSuffix(out.Text, "\n"), "a page ends at a line's end")
	}
	assert.Greater(t, pages, (256<<10)/bound, "in pages")
	if whole.String() != got.String() {
		w, g := whole.String(), got.String()
		i := 0
		for i < min(len(w), len(g)) && w[i] == g[i] {
			i++
		}
		t.Errorf("the pages are not the whole transcript (%d bytes, got %d): from byte %d, want %q, got %q", len(w), len(g), i, w[max(0, i-100):min(len(w), i+200)], g[max(0, i-100):min(len(g), i+200)])
	}
}

func TestUsageIsUsageJSONs(t *testing.T) {
	f, live := fixture(t)
	cs := connect(t, NewServer(live, WithLocation(time.UTC)))
	x := history.Open(history.DefaultPrices(), f.Dirs()...)
	for _, by := range history.Groupings() {
		rows, total, err := x.Usage(history.Filter{}, by, time.UTC, true)
		require.NoError(t, err)
		want := history.Report(by, time.UTC, rows, total)
		var out UsageOut
		text, isErr := call(t, cs, "usage", map[string]any{"by": by, "breakdown": true}, &out)
		require.False(t, isErr, text)
		assert.Empty(t, cmp.Diff(jsonOf[[]history.UsageJSON](t, want.Rows), out.Rows), by)
		assert.Empty(t, cmp.Diff(jsonOf[history.UsageJSON](t, want.Total), out.Total), by)
		assert.Equal(t, want.Estimate, out.Estimate)
		assert.Contains(t, out.Estimate, "estimate")
	}
	var out UsageOut
	call(t, cs, "usage", nil, &out)
	assert.Equal(t, history.ByDay, out.By)
	assert.Contains(t, out.Unpriced, "local/llama-9"+historytest.Hostile, "the unpriced model said")
	assert.Positive(t, out.Total.UnpricedTokens)
	_, isErr := call(t, cs, "usage", map[string]any{"by": "year"}, nil)
	assert.True(t, isErr)
}

func TestResources(t *testing.T) {
	f, live := fixture(t)
	cs := connect(t, NewServer(live))
	x := history.Open(history.DefaultPrices(), f.Dirs()...)
	var uris []string
	for r, err := range cs.Resources(context.Background(), nil) {
		require.NoError(t, err)
		uris = append(uris, r.URI)
		assert.NotContains(t, r.Title, "\u202e")
	}
	assert.Len(t, uris, len(x.Sessions())+len(x.Runs()))
	assert.Contains(t, uris, "uagent://session/"+historytest.Flaky)
	assert.Contains(t, uris, "uagent://run/20261101-235000-a1f1a2b3")

	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "uagent://run/20261101-235000-a1f1a2b3"})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	assert.Contains(t, res.Contents[0].Text, "It races on the cache.")
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "uagent://run/nothing"})
	assert.Error(t, err)
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "uagent://session/" + historytest.Flaky})
	assert.NoError(t, err, "the server goes on")
}

// Over stdio, as a client starts it: no byte of the history's hostile
// strings goes out raw, every value means what it did, and the server
// ends when its stdin closes.
func TestStdioEscapesAndEndsWithItsInput(t *testing.T) {
	_, live := fixture(t)
	cr, sw := io.Pipe() // the server's output, the client's input
	sr, cw := io.Pipe()
	var wire bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- ServeStdio(context.Background(), NewServer(live), sr, sw) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(cr, &wire)), Writer: cw}, nil)
	require.NoError(t, err)
	var out SessionsOut
	text, _ := call(t, cs, "sessions", nil, &out)
	var titles []string
	for _, s := range out.Sessions {
		titles = append(titles, s.Title)
	}
	assert.Contains(t, titles, "Say hi "+historytest.Hostile, "the structured value is the history's")
	call(t, cs, "get", map[string]any{"id": historytest.Unpriced}, nil)
	call(t, cs, "search", map[string]any{"text": "say hi"}, nil)
	for _, bad := range []string{"\x1b", "\x07", "\x00", "\u202e", "\u200b"} {
		assert.NotContains(t, text, bad, "the text")
		assert.NotContains(t, wire.String(), bad, "the wire")
	}
	assert.Contains(t, wire.String(), `\u202e`)
	require.NoError(t, cw.Close()) // the client closes the server's stdin
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the server goes on after its stdin closed")
	}
	cs.Close()
	cr.Close()
}

func TestHTTPAccess(t *testing.T) {
	_, live := fixture(t)
	srv := NewServer(live)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	post := func(url string, h map[string]string) int {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(init))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range h {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	h := NewHTTP(srv, "")
	defer h.Close()
	open := httptest.NewServer(h)
	defer open.Close()
	assert.Equal(t, http.StatusOK, post(open.URL, nil))
	assert.Equal(t, http.StatusMisdirectedRequest, post(open.URL, map[string]string{"Host": "evil.example"}), "DNS rebinding")
	assert.Equal(t, http.StatusForbidden, post(open.URL, map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}), "another site's page")
	g := NewHTTP(srv, "s3cret")
	defer g.Close()
	guarded := httptest.NewServer(g)
	defer guarded.Close()
	assert.Equal(t, http.StatusUnauthorized, post(guarded.URL, nil))
	assert.Equal(t, http.StatusOK, post(guarded.URL, map[string]string{"Authorization": "Bearer s3cret", "Host": "anywhere.example"}))
	open.CloseClientConnections()
	guarded.CloseClientConnections()
}

// The server keeps the index, not the runs: what it holds after reading
// every run's transcript is about what it held before.
func TestMemoryIsTheIndexNotTheRuns(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "uagent")
	var runs []historytest.Run
	for i := range 40 {
		runs = append(runs, historytest.Run{Homes: []string{home}, ID: fmt.Sprintf("20261201-10%04d-%08x", i, i), Session: fmt.Sprintf("s%d", i),
			Start: time.Date(2026, 12, 1, 10, 0, i, 0, time.UTC), Wall: time.Second, Status: "ok", Provider: "openai", Model: "gpt-5.4",
			Prompt: "go", Answer: strings.Repeat("x", 256<<10)})
	}
	require.NoError(t, historytest.Write(runs, nil))
	live := history.NewLive(history.DefaultPrices(), home)
	cs := connect(t, NewServer(live))
	call(t, cs, "sessions", nil, nil)
	before := heap()
	for _, r := range runs {
		_, isErr := call(t, cs, "get", map[string]any{"id": r.ID}, nil)
		require.False(t, isErr)
	}
	after := heap()
	assert.Less(t, after-before, int64(2<<20), "40 runs of 256 KiB read; the heap grew by %d bytes", after-before)
}

func heap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
