package ssestream

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/internal/corpus"
)

// BenchmarkWriterWithClients measures what readers cost the one writer: the
// time Consume takes to record a 50 MB run of the real-shaped corpus
// (internal/corpus.Real) with no client, and with 100 clients that each
// follow /events to the end, without and with asking for /summary ten
// times a second as the page does. writer-ms is the writer's time alone.
func BenchmarkWriterWithClients(b *testing.B) {
	data := corpus.Generate(corpus.Real(50 << 20))
	for _, c := range []struct {
		clients int
		summary bool
	}{{0, false}, {100, false}, {100, true}} {
		clients := c.clients
		b.Run(fmt.Sprintf("clients=%d/summary=%v", clients, c.summary), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var total time.Duration
			n := 0
			for b.Loop() {
				rec := NewRecording(nil)
				defer rec.Close()
				srv := httptest.NewServer(NewHandler(rec))
				var wg sync.WaitGroup
				ready := make(chan struct{}, clients)
				for range clients {
					wg.Go(func() { follow(srv, ready, c.summary) })
				}
				for range clients {
					<-ready
				}
				start := time.Now()
				if err := rec.Consume(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
				n++
				rec.End(nil)
				wg.Wait()
				srv.Close()
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(n), "writer-ms/op")
		})
	}
}

// follow reads /events to its end and, with summary, asks for /summary
// every 100 ms meanwhile; ready is told once the event stream is open.
func follow(srv *httptest.Server, ready chan<- struct{}, summary bool) {
	res, err := srv.Client().Get(srv.URL + "/events")
	if err != nil {
		ready <- struct{}{}
		return
	}
	ready <- struct{}{}
	done := make(chan struct{})
	go func() {
		if !summary {
			return
		}
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if r, err := http.Get(srv.URL + "/summary"); err == nil {
					io.Copy(io.Discard, r.Body)
					r.Body.Close()
				}
			}
		}
	}()
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	close(done)
}

// BenchmarkHistoryIndex answers the index of a history of 20,000 runs
// (historytest.Many: two homes, 4,000 sessions), its first page as the page
// asks for it (/api/sessions), from the index the server holds; reads the
// history again as the server does every second when nothing changed
// (reopen-idle: a stat of each home's directories; %core is its share of
// a core at one Reopen every FollowEvery), and when a run began since
// (reopen-changed: the listing and the runs going on, not the runs that
// ended); and reads it whole (open).
func BenchmarkHistoryIndex(b *testing.B) {
	dirs, err := historytest.Many(b.TempDir(), 20000)
	require.NoError(b, err)
	hour := time.Now().Add(-time.Hour) // the history as a person leaves it: written an hour ago
	for _, d := range dirs {
		for _, sub := range []string{d, filepath.Join(d, "runs"), filepath.Join(d, "sessions")} {
			os.Chtimes(sub, hour, hour)
		}
	}
	x := history.Open(history.DefaultPrices(), dirs...)
	h := NewHistory(x)
	defer h.Close()
	b.Run("api-sessions", func(b *testing.B) {
		for b.Loop() {
			req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:80/api/sessions", nil)
			req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, localAddr{}))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("%d: %s", w.Code, w.Body)
			}
		}
	})
	b.Run("reopen-idle", func(b *testing.B) {
		for b.Loop() {
			if y := x.Reopen(); y != x {
				b.Fatal("an idle history was read again")
			}
		}
		b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(FollowEvery)*100, "%core")
	})
	b.Run("reopen-changed", func(b *testing.B) {
		runs := filepath.Join(dirs[0], "runs")
		for b.Loop() {
			os.Chtimes(runs, time.Now(), time.Now()) // a run directory made
			x = x.Reopen()
		}
	})
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			history.Open(history.DefaultPrices(), dirs...)
		}
	})
}

// localAddr is the address a request came in on: the loopback one, port
// 80, as a Host of 127.0.0.1 names it.
type localAddr struct{}

func (localAddr) Network() string { return "tcp" }
func (localAddr) String() string  { return "127.0.0.1:80" }
