package stream

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// sseEvent is one Server-Sent Event as a client parses it.
type sseEvent struct {
	id, event, data string
}

// readSSE parses events until the stream ends, and the comments it saw.
func readSSE(t testing.TB, r io.Reader) (events []sseEvent, comments int) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur != (sseEvent{}) {
				events = append(events, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, ":"):
			comments++
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		default:
			t.Errorf("unexpected SSE line %q", line)
		}
	}
	return events, comments
}

// recorded returns an ended Recording of b.
func recorded(t testing.TB, b []byte) *Recording {
	rec := NewRecording()
	require.NoError(t, rec.Consume(bytes.NewReader(b)))
	rec.End(EndOf(rec))
	return rec
}

func get(t testing.TB, srv *httptest.Server, path string, header ...string) *http.Response {
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	return res
}

func TestServeGivesEveryLineThenTheEnd(t *testing.T) {
	run := write(t, realisticRun())
	// A blank line, a line that does not decode and an unknown type, too.
	stream := append([]byte("\n"), run[:len(run)-1]...)
	i := bytes.LastIndexByte(stream, '\n')
	stream = append(append(append([]byte{}, stream[:i+1]...), "{bad\n"+`{"v":1,"type":"hologram","at":"2026-09-23T12:39:24Z"}`+"\n"...), stream[i+1:]...)
	srv := httptest.NewServer(NewHandler(recorded(t, append(stream, '\n'))))
	defer srv.Close()
	res := get(t, srv, "/events")
	defer res.Body.Close()
	assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	assert.Empty(t, res.Header.Get("Access-Control-Allow-Origin"), "no CORS")
	events, _ := readSSE(t, res.Body)

	ls := bytes.Split(bytes.TrimSuffix(append(stream, '\n'), []byte("\n")), []byte("\n"))
	var want []sseEvent
	for n, l := range ls {
		switch {
		case len(l) == 0:
			continue // a blank line sends nothing, but counts
		case string(l) == "{bad":
			want = append(want, sseEvent{strconv.Itoa(n + 1), "line_error",
				fmt.Sprintf(`{"line":%d,"error":"stream: line %d, byte %d: invalid JSON: unexpected 'b' at byte 1, want a string key"}`, n+1, n+1, bytes.Index(stream, l)+1)})
		default:
			var typ struct{ Type string }
			require.NoError(t, jsonUnmarshal(l, &typ))
			want = append(want, sseEvent{strconv.Itoa(n + 1), typ.Type, string(l)})
		}
	}
	want = append(want, sseEvent{"", "end", `{"kind":"finished","status":"ok","exit_code":0}`})
	if d := cmpDiff(want, events); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}

func TestServeResumes(t *testing.T) {
	run := write(t, realisticRun())
	srv := httptest.NewServer(NewHandler(recorded(t, run)))
	defer srv.Close()
	all, _ := readSSE(t, get(t, srv, "/events").Body)
	for _, n := range []int{0, 1, 7, 20, 21, 99} {
		for _, how := range []string{"header", "query"} {
			var res *http.Response
			if how == "header" {
				res = get(t, srv, "/events", "Last-Event-ID", strconv.Itoa(n))
			} else {
				res = get(t, srv, "/events?after="+strconv.Itoa(n))
			}
			got, _ := readSSE(t, res.Body)
			res.Body.Close()
			assert.Equal(t, all[min(n, len(all)-1):], got, "after line %d (%s): nothing lost, nothing doubled", n, how)
		}
	}
}

func TestServeFollowsALiveRecording(t *testing.T) {
	run := lines(write(t, realisticRun()))
	rec := NewRecording()
	h := NewHandler(rec)
	h.keepAlive = 20 * time.Millisecond
	srv := httptest.NewServer(h)
	defer srv.Close()
	pr, pw := io.Pipe()
	go func() {
		rec.Consume(pr)
		rec.End(EndOfRun(Outcome{Ending: EndFinished, Status: StatusOK, ExitCode: 0}))
	}()
	done := make(chan []sseEvent)
	var comments int
	go func() {
		res := get(t, srv, "/events")
		defer res.Body.Close()
		var evs []sseEvent
		evs, comments = readSSE(t, res.Body)
		done <- evs
	}()
	for _, l := range run {
		pw.Write(append(l, '\n'))
		time.Sleep(3 * time.Millisecond)
		// The summary so far, while the run goes on.
		if bytes.Contains(l, []byte(`"turn_started"`)) {
			var s SummaryDTO
			res := get(t, srv, "/summary")
			require.Equal(t, "application/json", res.Header.Get("Content-Type"))
			require.NoError(t, jsonDecode(res.Body, &s))
			res.Body.Close()
			assert.Positive(t, s.Stats.Turns)
			assert.Equal(t, int64(-1), int64(s.RunnerExitCode), "not finished yet: cut off so far")
		}
	}
	time.Sleep(60 * time.Millisecond) // idle: keep-alives
	pw.Close()
	evs := <-done
	require.Len(t, evs, len(run)+1)
	assert.Equal(t, "end", evs[len(evs)-1].event)
	assert.Positive(t, comments, "keep-alive comments while idle")
	var s SummaryDTO
	res := get(t, srv, "/summary")
	require.NoError(t, jsonDecode(res.Body, &s))
	res.Body.Close()
	assert.Equal(t, "ok", s.Status)
	assert.Equal(t, int64(5355), s.Stats.ModelMS)
}

func TestServeAnswersOnlyLocalHosts(t *testing.T) {
	srv := httptest.NewServer(NewHandler(recorded(t, write(t, realisticRun()))))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	for host, code := range map[string]int{
		"127.0.0.1:" + port: 200, "localhost:" + port: 200, "LOCALHOST:" + port: 200, "127.0.0.2:" + port: 200,
		"evil.example:" + port: 403, "evil.example": 403, "127.0.0.1:1": 403, "localhost": 403, "10.0.0.1:" + port: 403,
	} {
		req, err := http.NewRequest("GET", srv.URL+"/summary", nil)
		require.NoError(t, err)
		req.Host = host
		res, err := srv.Client().Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, code, res.StatusCode, "Host %q", host)
		if code == 200 {
			assert.Contains(t, res.Header.Get("Content-Security-Policy"), "script-src 'self'")
			assert.NotContains(t, res.Header.Get("Content-Security-Policy"), "unsafe-inline")
		}
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// A stalled client slows neither the run nor the other clients: each
// reads the shared record at its own pace, and the stalled one is dropped.
func TestServeManyClientsAndAStalledOne(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	// About 8 MB of lines: more than the loopback socket buffers hold.
	big := realisticRun()
	for i := range big {
		if e, ok := big[i].(ToolCalled); ok {
			e.Arguments = strings.Repeat("x", 400<<10)
			big[i] = e
		}
	}
	var b bytes.Buffer
	for range 7 {
		b.Write(write(t, big[:len(big)-1]))
	}
	b.Write(write(t, big[len(big)-1:]))
	want := bytes.Count(b.Bytes(), []byte("\n")) + 1 // and the end

	rec := NewRecording()
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
				if ended {
					res.Body.Close()
					return
				}
				res.Body.Close()
			}
		})
	}
	before := heapInUse()
	require.NoError(t, rec.Consume(bytes.NewReader(b.Bytes())))
	for range clients {
		<-caughtUp
	}
	// Every client has every line and waits for more: what each holds now.
	perClient := (int64(heapInUse()) - int64(before) - int64(cap(rec.data))) / clients
	rec.End(EndOf(rec))
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for i, n := range got {
		assert.Equal(t, want, n, "client %d got every line", i)
	}
	t.Logf("%d clients connected, %d MB of lines kept once: %d bytes of heap per client", clients, b.Len()>>20, perClient)
	// The stalled client was dropped: its connection closes, mid-stream.
	stalled.SetReadDeadline(time.Now().Add(20 * time.Second))
	rest, err := io.ReadAll(stalled)
	require.NoError(t, err, "the server closed the stalled connection")
	assert.NotContains(t, string(rest), "event: end", "dropped before the end")
	assert.Less(t, perClient, int64(256<<10), "the lines are not copied per client")
}

// A client that goes away mid-stream releases everything (goleak).
func TestServeClientDisconnects(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rec := NewRecording()
	srv := httptest.NewServer(NewHandler(rec))
	run := lines(write(t, realisticRun()))
	for i, l := range run[:5] {
		rec.add(i+1, nil, nil, l)
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

func TestIsTerminalAndNotices(t *testing.T) {
	assert.True(t, IsTerminal(RunFinishedDTO{}))
	assert.False(t, IsTerminal(RunnerErrorDTO{}))
	assert.False(t, IsTerminal(nil))
	var n Notices
	w := PreflightWarningDTO{Code: "auth", Message: "expiring"}
	for i := 1; i <= 3; i++ {
		c, ok := n.Add(w)
		assert.True(t, ok)
		assert.Equal(t, i, c)
	}
	c, _ := n.Add(PreflightWarningDTO{Code: "auth", Message: "expired"})
	assert.Equal(t, 1, c, "another message is another notice")
	c, _ = n.Add(RunnerErrorDTO{Message: "expiring"})
	assert.Equal(t, 1, c, "another type is another notice")
	_, ok := n.Add(UserMessageDTO{Text: "expiring"})
	assert.False(t, ok, "only warnings and runner errors coalesce")
}

// A hostile type cannot break the framing of the event stream.
func TestServeEventNamesArePlain(t *testing.T) {
	for typ, want := range map[string]string{"tool_called": "tool_called", "hologram.v2-x": "hologram.v2-x",
		"a\ndata: x": "unknown", "a\rb": "unknown", "a b": "unknown", "\u202e": "unknown", "": "unknown"} {
		assert.Equal(t, want, eventName(typ), "%q", typ)
	}
	rec := recorded(t, []byte(`{"v":1,"type":"x\nevent: end\ndata: {}","at":"2026-09-23T12:39:24Z"}`+"\n"))
	srv := httptest.NewServer(NewHandler(rec))
	defer srv.Close()
	evs, _ := readSSE(t, get(t, srv, "/events").Body)
	require.Len(t, evs, 2)
	assert.Equal(t, "unknown", evs[0].event)
}

// eachLineStart calls f with the first bytes (up to 32) of every line of r,
// reading through a fixed 32 KiB buffer whatever the lines' length.
func eachLineStart(r io.Reader, f func(prefix []byte)) {
	buf := make([]byte, 32<<10)
	var prefix []byte
	atStart, collecting := true, false
	for {
		n, err := r.Read(buf)
		for _, c := range buf[:n] {
			if atStart {
				prefix, collecting, atStart = prefix[:0], true, false
			}
			if c == '\n' {
				if collecting {
					f(prefix)
				}
				collecting, atStart = false, true
				continue
			}
			if collecting {
				if len(prefix) < 32 {
					prefix = append(prefix, c)
				} else {
					f(prefix)
					collecting = false
				}
			}
		}
		if err != nil {
			return
		}
	}
}
