package ssestream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/corpus"
	"github.com/uagentkit/stream/internal/safetext"
	"github.com/uagentkit/stream/uahstream"
	"go.uber.org/goleak"
)

// runFile is the bundled example run; its summary's numbers are pinned by
// hand in the root package's tests.
const runFile = "../testdata/run.jsonl"

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// recorded returns an ended Recording of b.
func recorded(t testing.TB, b []byte) *Recording {
	rec := NewRecording(nil)
	t.Cleanup(func() { rec.Close() })
	require.NoError(t, rec.Consume(bytes.NewReader(b)))
	rec.End(nil)
	return rec
}

func get(t testing.TB, srv *httptest.Server, path string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	return res
}

func events(t testing.TB, srv *httptest.Server, path string, header ...string) []sseEvent {
	t.Helper()
	res := get(t, srv, path, header...)
	defer res.Body.Close()
	evs, _ := parseSSE(res.Body)
	return evs
}

func TestEventsGiveEveryLineThenTheEnd(t *testing.T) {
	run := readFile(t, runFile)
	// A blank line, a line that does not decode and an unknown type, too.
	s := append([]byte("\n"), run[:len(run)-1]...)
	i := bytes.LastIndexByte(s, '\n')
	s = append(append(append([]byte{}, s[:i+1]...), "{bad\n"+`{"v":1,"type":"hologram","at":"2026-09-23T12:39:24Z"}`+"\n"...), s[i+1:]...)
	s = append(s, '\n')
	srv := httptest.NewServer(NewHandler(recorded(t, s)))
	defer srv.Close()
	res := get(t, srv, "/events")
	defer res.Body.Close()
	assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	assert.Empty(t, res.Header.Get("Access-Control-Allow-Origin"), "no CORS")
	evs, _ := parseSSE(res.Body)

	var want []sseEvent
	for n, l := range lines(s) {
		switch {
		case len(l) == 0:
			continue // a blank line sends nothing, but counts
		case string(l) == "{bad":
			want = append(want, sseEvent{strconv.Itoa(n + 1), "line_error",
				fmt.Sprintf(`{"line":%d,"error":"stream: line %d, byte %d: invalid JSON: unexpected 'b', want a string key"}`, n+1, n+1, bytes.Index(s, l)+1)})
		case bytes.Contains(l, []byte("hologram")):
			want = append(want, sseEvent{strconv.Itoa(n + 1), "unknown", string(l)})
		default:
			var typ struct{ Type string }
			require.NoError(t, json.Unmarshal(l, &typ))
			want = append(want, sseEvent{strconv.Itoa(n + 1), typ.Type, string(l)})
		}
	}
	want = append(want, sseEvent{want[len(want)-1].id, "end", `{"ending":"finished","status":"ok","exit_code":0}`})
	if d := cmp.Diff(want, evs, cmp.AllowUnexported(sseEvent{})); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}

// A stream cannot forge the server's own events nor break a frame: every
// line of a hostile matrix arrives as exactly one event, with its line
// number, under its type only when the contract names it, with data whose
// JSON value equals the line's; end comes only from the server, once, last.
func TestEventsCannotBeForged(t *testing.T) {
	const at = `"at":"2026-09-23T12:00:00Z"`
	matrix := []string{}
	for _, l := range lines(readFile(t, "../testdata/every-event.jsonl")) {
		matrix = append(matrix, string(l))
	}
	for _, typ := range []string{"end", "line_error", "message", "", "unknown", "a b", `a\nb`, `a\rb`, `x\nevent: end\ndata: {}`, `\u2028`} {
		matrix = append(matrix, `{"v":1,"type":"`+typ+`",`+at+`}`)
	}
	for _, esc := range []string{`\r`, `\r\n`, `\n\n`, `\u2028`, "\u2028", `\u0000`, `\u0085`, "data: x"} {
		matrix = append(matrix, `{"v":1,"type":"user_message",`+at+`,"id":"u","text":"a`+esc+`b"}`)
	}
	matrix = append(matrix,
		`{"v":1,"type":"user_message",`+at+`,`+"\r"+`"id":"u1","text":"hi"}`, // CR as white space
		"{\"v\":1,\r\"type\":\"end\",\r"+at+"}\r",                            // CR everywhere, a forged end
		`{"v":1,"type":"tool_called",`+at+`,"call_id":"c","name":"n","label":"l","arguments":"`+strings.Repeat("x", 1<<20)+`"}`,
		`{"v":1,"type":"user_message",`+at+`,"text":"broken`, // invalid
		"{\"v\":1,\"type\":\"end\",\"at\":\"x\"}\x00",        // invalid, with NUL
	)
	body := strings.Join(matrix, "\n") + "\n"
	srv := httptest.NewServer(NewHandler(recorded(t, []byte(body))))
	defer srv.Close()
	evs := events(t, srv, "/events")
	require.Len(t, evs, len(matrix)+1, "one event per line, and the end")
	names := map[string]bool{}
	for _, n := range contractTypes {
		names[n] = true
	}
	for i, l := range matrix {
		ev := evs[i]
		assert.Equal(t, strconv.Itoa(i+1), ev.id, "line %d's id", i+1)
		var want any
		if err := json.Unmarshal([]byte(l), &want); err != nil {
			assert.Equal(t, "line_error", ev.event, "line %d is invalid", i+1)
			var le struct{ Line int }
			require.NoError(t, json.Unmarshal([]byte(ev.data), &le))
			assert.Equal(t, i+1, le.Line)
			continue
		}
		typ, _ := want.(map[string]any)["type"].(string)
		wantName := "unknown"
		if names[typ] {
			wantName = typ
		}
		assert.Equal(t, wantName, ev.event, "line %d of type %q", i+1, typ)
		var got any
		require.NoError(t, json.Unmarshal([]byte(ev.data), &got), "line %d arrives as JSON", i+1)
		assert.True(t, cmp.Equal(want, got), "line %d: the same JSON value", i+1)
	}
	for _, ev := range evs[:len(evs)-1] {
		assert.NotEqual(t, "end", ev.event, "no line is an end event")
		assert.NotEqual(t, "message", ev.event)
	}
	assert.Equal(t, "end", evs[len(evs)-1].event)
	assert.JSONEq(t, `{"ending":"finished","status":"error","exit_code":1}`, evs[len(evs)-1].data, "every-event.jsonl's run_finished")
}

func TestEventsResume(t *testing.T) {
	srv := httptest.NewServer(NewHandler(recorded(t, readFile(t, runFile))))
	defer srv.Close()
	all := events(t, srv, "/events")
	for _, n := range []int{0, 1, 7, 20, 21, 99} {
		for _, how := range []string{"header", "query"} {
			var got []sseEvent
			if how == "header" {
				got = events(t, srv, "/events", "Last-Event-ID", strconv.Itoa(n))
			} else {
				got = events(t, srv, "/events?after="+strconv.Itoa(n))
			}
			want := all[min(n, len(all)-1):]
			assert.Equal(t, len(want), len(got), "after line %d (%s)", n, how)
			for i := range min(len(want), len(got)) {
				assert.Equal(t, want[i].event, got[i].event)
				assert.Equal(t, want[i].data, got[i].data, "after line %d (%s): nothing lost, nothing doubled", n, how)
			}
		}
	}
}

func TestFollowsALiveRecording(t *testing.T) {
	run := lines(readFile(t, runFile))
	rec := NewRecording(nil)
	defer rec.Close()
	h := NewHandler(rec)
	h.keepAlive = 20 * time.Millisecond
	srv := httptest.NewServer(h)
	defer srv.Close()
	pr, pw := io.Pipe()
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		rec.Consume(pr)
		rec.End(&stream.Verdict{Ending: stream.EndFinished, Status: stream.StatusOK, ExitCode: 0})
	}()
	done := make(chan []sseEvent)
	var comments int
	go func() {
		res := get(t, srv, "/events")
		defer res.Body.Close()
		var evs []sseEvent
		evs, comments = parseSSE(res.Body)
		done <- evs
	}()
	for _, l := range run {
		pw.Write(append(l, '\n'))
		time.Sleep(3 * time.Millisecond)
		// The summary so far, while the run goes on.
		if bytes.Contains(l, []byte(`"turn_started"`)) {
			time.Sleep(summaryEvery) // the summary may be this old
			var s stream.SummaryDTO
			res := get(t, srv, "/summary")
			require.Equal(t, "application/json", res.Header.Get("Content-Type"))
			require.NoError(t, json.NewDecoder(res.Body).Decode(&s))
			res.Body.Close()
			assert.Positive(t, s.Stats.Turns)
			assert.Equal(t, int64(-1), int64(s.RunnerExitCode), "not finished yet: cut off so far")
		}
	}
	time.Sleep(60 * time.Millisecond) // idle: keep-alives
	pw.Close()
	<-consumed
	evs := <-done
	require.Len(t, evs, len(run)+1)
	assert.Equal(t, "end", evs[len(evs)-1].event)
	assert.Positive(t, comments, "keep-alive comments while idle")
	var s stream.SummaryDTO
	res := get(t, srv, "/summary")
	require.NoError(t, json.NewDecoder(res.Body).Decode(&s))
	res.Body.Close()
	assert.Equal(t, "ok", s.Status)
	assert.Equal(t, int64(5355), s.Stats.ModelMS, "the summary of the whole run, once it has ended")
}

// Clients asking for the summary cost the writer nothing per request: it is
// recomputed only after a change, and while the run goes on at most every
// summaryEvery.
func TestSummaryIsComputedOncePerChange(t *testing.T) {
	run := lines(readFile(t, runFile))
	rec := NewRecording(nil)
	defer rec.Close()
	clock := time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)
	rec.now = func() time.Time { return clock }
	srv := httptest.NewServer(NewHandler(rec))
	defer srv.Close()
	fetch := func() []byte {
		res := get(t, srv, "/summary")
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return b
	}
	addLine(t, rec, 1, run[0])
	first := fetch()
	computed := rec.sumCache.at
	for range 200 {
		assert.Equal(t, first, fetch())
	}
	assert.Equal(t, computed, rec.sumCache.at, "no change: computed once")
	for i, l := range run[1:5] {
		addLine(t, rec, i+2, l)
		fetch()
	}
	assert.Equal(t, computed, rec.sumCache.at, "changes within summaryEvery of the last computation are served from it")
	clock = clock.Add(summaryEvery)
	fetch()
	assert.NotEqual(t, computed, rec.sumCache.at, "recomputed after summaryEvery")
	rec.End(nil)
	var s stream.SummaryDTO
	require.NoError(t, json.Unmarshal(fetch(), &s))
	assert.Equal(t, 1, s.Stats.UserMessages, "exact once the stream has ended")
}

func mustDecode(t testing.TB, line []byte) any {
	dto, err := stream.NewDecoder(bytes.NewReader(line)).Decode()
	require.NoError(t, err)
	return dto
}

// addLine folds a line into the record's session, as a Reader would, and
// records it as line num.
func addLine(t testing.TB, rec *Recording, num int, line []byte) {
	dto := mustDecode(t, line)
	rec.Add(uahstream.Line{Num: num, Raw: line, DTO: dto, Change: rec.s.Add(dto, nil)})
}

func TestAnswersOnlyLocalHosts(t *testing.T) {
	srv := httptest.NewServer(NewHandler(recorded(t, readFile(t, runFile))))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	for host, code := range map[string]int{
		"127.0.0.1:" + port: 200, "localhost:" + port: 200, "LOCALHOST:" + port: 200, "127.0.0.2:" + port: 200,
		"evil.example:" + port: 403, "evil.example": 403, "127.0.0.1:1": 403, "localhost": 403, "10.0.0.1:" + port: 403,
	} {
		for _, path := range []string{"/summary", "/", "/app.js"} {
			req, err := http.NewRequest("GET", srv.URL+path, nil)
			require.NoError(t, err)
			req.Host = host
			res, err := srv.Client().Do(req)
			require.NoError(t, err)
			res.Body.Close()
			assert.Equal(t, code, res.StatusCode, "Host %q, %s", host, path)
			if code == 200 {
				assert.Contains(t, res.Header.Get("Content-Security-Policy"), "script-src 'self'")
				assert.NotContains(t, res.Header.Get("Content-Security-Policy"), "unsafe-inline")
			}
		}
	}
}

// Above the client limit, an event stream is answered 503; a place freed
// is taken again.
func TestMaxClients(t *testing.T) {
	rec := NewRecording(nil) // never ends: the streams stay open
	defer rec.Close()
	srv := httptest.NewServer(NewHandler(rec, WithMaxClients(3)))
	defer srv.Close()
	var open []*http.Response
	for range 3 {
		res := get(t, srv, "/events")
		require.Equal(t, 200, res.StatusCode)
		open = append(open, res)
	}
	res := get(t, srv, "/events")
	res.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	assert.NotEmpty(t, res.Header.Get("Retry-After"))
	res = get(t, srv, "/summary")
	res.Body.Close()
	assert.Equal(t, 200, res.StatusCode, "other paths are not limited")
	open[0].Body.Close()
	assert.Eventually(t, func() bool {
		res := get(t, srv, "/events")
		if res.StatusCode == 200 {
			open[0] = res
			return true
		}
		res.Body.Close()
		return false
	}, 5*time.Second, 10*time.Millisecond)
	for _, r := range open {
		r.Body.Close()
	}
	rec.End(nil)
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// bigRun is about 8 MB of lines: more than the loopback socket buffers hold.
func bigRun(t testing.TB) []byte {
	run := lines(readFile(t, runFile))
	var b bytes.Buffer
	for range 7 {
		for _, l := range run[:len(run)-1] {
			if bytes.Contains(l, []byte(`"tool_called"`)) {
				l = bytes.Replace(l, []byte(`"label":`), []byte(`"arguments":"`+strings.Repeat("x", 400<<10)+`","label":`), 1)
			}
			b.Write(l)
			b.WriteByte('\n')
		}
	}
	b.Write(run[len(run)-1])
	b.WriteByte('\n')
	return b.Bytes()
}

// A stalled client slows neither the run nor the other clients: each
// reads the shared record at its own pace, and the stalled one is dropped.
func TestManyClientsAndAStalledOne(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	b := bigRun(t)
	want := bytes.Count(b, []byte("\n")) + 1 // and the end

	rec := NewRecording(nil)
	defer rec.Close()
	h := NewHandler(rec)
	h.writeTimeout = 300 * time.Millisecond
	srv := httptest.NewServer(h)
	defer srv.Close()

	stalled, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	defer stalled.Close()
	fmt.Fprintf(stalled, "GET /events HTTP/1.1\r\nHost: %s\r\n\r\n", strings.TrimPrefix(srv.URL, "http://"))

	const clients = 100
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := make([]int, clients)
	caughtUp := make(chan struct{}, clients)
	for i := range clients {
		wg.Go(func() {
			// As EventSource does: when the server drops a client that fell
			// behind, it resumes after the last event it got.
			last := "0"
			for range 1000 {
				req, _ := http.NewRequest("GET", srv.URL+"/events", nil)
				req.Header.Set("Last-Event-ID", last)
				res, err := srv.Client().Do(req)
				if err != nil {
					continue
				}
				// Read with a small fixed buffer, so that the heap measured
				// below is the server's, not this client's.
				ended := false
				eachLineStart(res.Body, func(prefix []byte) {
					switch {
					case bytes.HasPrefix(prefix, []byte("id: ")):
						last = strings.TrimSpace(string(prefix[4:]))
						mu.Lock()
						got[i]++
						mu.Unlock()
						if last == strconv.Itoa(want-1) {
							caughtUp <- struct{}{}
						}
					case bytes.HasPrefix(prefix, []byte("event: end")):
						mu.Lock()
						got[i]++
						mu.Unlock()
						ended = true
					}
				})
				res.Body.Close()
				if ended {
					return
				}
			}
		})
	}
	before := heapInUse()
	require.NoError(t, rec.Consume(bytes.NewReader(b)))
	for range clients {
		<-caughtUp
	}
	// Every client has every line and waits for more: what each holds now.
	perClient := (int64(heapInUse()) - int64(before)) / clients
	rec.End(nil)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for i, n := range got {
		assert.Equal(t, want, n, "client %d got every line", i)
	}
	t.Logf("%d clients connected to %d MB of lines: %d bytes of heap per client", clients, len(b)>>20, perClient)
	// The stalled client was dropped: its connection closes, mid-stream.
	stalled.SetReadDeadline(time.Now().Add(20 * time.Second))
	rest, err := io.ReadAll(stalled)
	require.NoError(t, err, "the server closed the stalled connection")
	assert.NotContains(t, string(rest), "event: end", "dropped before the end")
	assert.Less(t, perClient, int64(256<<10), "the lines are read back, not held per client")
}

// A client that goes away mid-stream releases everything (goleak).
func TestClientDisconnects(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rec := NewRecording(nil)
	defer rec.Close()
	srv := httptest.NewServer(NewHandler(rec))
	for i, l := range lines(readFile(t, runFile))[:5] {
		addLine(t, rec, i+1, l)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events", nil)
	require.NoError(t, err)
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	buf := make([]byte, 10)
	_, err = io.ReadFull(res.Body, buf)
	require.NoError(t, err)
	cancel()
	res.Body.Close()
	srv.Close() // waits for the handler to return
}

// Serve ends event streams at once when its context ends, and closes by
// force what is still open when the grace is over.
func TestServeShutsDown(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	rec := NewRecording(nil)
	defer rec.Close()
	slow := make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("/", NewHandler(rec))
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) { <-slow })
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, l, mux, 200*time.Millisecond) }()
	base := "http://" + l.Addr().String()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	res, err := client.Get(base + "/events")
	require.NoError(t, err)
	defer res.Body.Close()
	slowDone := make(chan error, 1)
	go func() {
		res, err := client.Get(base + "/slow")
		if err == nil {
			res.Body.Close()
		}
		slowDone <- err
	}()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	cancel()
	select {
	case err := <-served:
		assert.ErrorIs(t, err, context.DeadlineExceeded, "the grace ran out")
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its grace")
	}
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Error(t, <-slowDone, "the request still open was closed by force")
	_, err = io.ReadAll(res.Body)
	assert.NoError(t, err, "the event stream ended")
	close(slow)
}

// The stream's strings reach every JSON the server writes with what a
// terminal acts on or a reader cannot see (bidi overrides, C1 controls,
// invisible characters) as \u escapes, their values unchanged: the events'
// data, /summary, /intervals, and the end event.
func TestJSONCarriesNoHostileCharacters(t *testing.T) {
	const hostile = "\u202eevil\u202c \u009b2J zero\u200bwidth \U000e0041"
	const at = `"at":"2026-09-23T12:00:00Z"`
	body := strings.Join([]string{
		`{"v":1,"type":"run_started",` + at + `,"run_id":"` + hostile + `","session_id":"s","provider":"p","model":"m","effort":"e","workspace":"w"}`,
		`{"v":1,"type":"tool_called","at":"2026-09-23T12:00:01Z","call_id":"c","name":"` + hostile + `","label":"` + hostile + `","arguments":"{}"}`,
		`{"v":1,"type":"tool_started","at":"2026-09-23T12:00:02Z","call_id":"c","op_id":"o","name":"` + hostile + `","label":"` + hostile + `","op_type":"file"}`,
		`{"v":1,"type":"user_message","at":"2026-09-23T12:00:03Z","text":` + "\t" + `"` + hostile + `"}`,
		`{"v":1,"type":"run_finished","at":"2026-09-23T12:00:04Z","summary":{"status":"` + hostile + `"}}`,
	}, "\n") + "\n"
	srv := httptest.NewServer(NewHandler(recorded(t, []byte(body))))
	defer srv.Close()
	clean := func(what, s string) {
		t.Helper()
		for _, r := range s {
			require.False(t, safetext.Unsafe(r) || r == '\t', "%s carries %U: %q", what, r, s)
		}
		assert.Contains(t, s, `\u202e`, what)
	}
	evs := events(t, srv, "/events")
	require.Len(t, evs, 6)
	for i, l := range lines([]byte(body)) {
		clean("event "+evs[i].id, evs[i].data)
		var want, got any
		require.NoError(t, json.Unmarshal(l, &want))
		require.NoError(t, json.Unmarshal([]byte(evs[i].data), &got))
		assert.Equal(t, want, got, "line %d: the same value", i+1)
	}
	clean("the end event", evs[5].data)
	for _, path := range []string{"/summary", "/intervals"} {
		res := get(t, srv, path)
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		require.NoError(t, err)
		clean(path, string(b))
		require.True(t, json.Valid(b), path)
	}
}

// A Recording's memory does not grow with the stream's bytes: the lines
// are in its spool, read back for each client. Consuming a 64 MB
// real-shaped run (lines up to 4 MB) leaves the heap a few MiB larger (the
// fold, the operations' labels), not 64.
func TestRecordingMemoryIsBounded(t *testing.T) {
	data := corpus.Generate(corpus.LongRun(64 << 20))
	before := heapInUse()
	rec := NewRecording(nil)
	defer rec.Close()
	require.NoError(t, rec.Consume(bytes.NewReader(data)))
	rec.End(nil)
	grown := int64(heapInUse()) - int64(before)
	t.Logf("a %d MB run recorded: the heap grew by %d KiB", len(data)>>20, grown>>10)
	assert.Less(t, grown, int64(8<<20))
	// And every line is there, read back.
	srv := httptest.NewServer(NewHandler(rec))
	defer srv.Close()
	res := get(t, srv, "/events?after=100000000")
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), "event: end\n"), "after the last line, the end alone")
	res = get(t, srv, "/events")
	n := 0
	eachLineStart(res.Body, func(prefix []byte) {
		if bytes.HasPrefix(prefix, []byte("id: ")) {
			n++
		}
	})
	res.Body.Close()
	assert.Equal(t, bytes.Count(data, []byte("\n")), n)
}
