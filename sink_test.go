package stream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uagentkit/stream/internal/jsonparse"
	"github.com/uagentkit/stream/internal/testenv"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stdlibLine is what the reference runner writes for e: EventToDTO, then
// encoding/json's Encoder with SetEscapeHTML(false).
func stdlibLine(t testing.TB, e Event) []byte {
	t.Helper()
	dto, ok := EventToDTO(e)
	require.True(t, ok)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(dto))
	return buf.Bytes()
}

// hostile are strings that exercise every escaping rule.
var hostile = testenv.Escaping

// withString puts s into every string field of every event type.
func withString(s string) []Event {
	return []Event{
		RunStarted{At: t0, RunID: s, SessionID: s, Provider: s, Model: s, Effort: s, Workspace: s},
		PreflightWarning{At: t0, Code: s, Message: s},
		UserMessage{At: t0, ID: s, Text: s},
		DeveloperMessage{At: t0, ID: s, Text: s},
		ControlInput{At: t0, ID: s, Mode: s, Effort: s, Reason: s},
		TurnStarted{At: t0, Turn: 3, TurnID: s},
		ModelResponded{At: t0, Turn: 3, TurnID: s, Stop: s, Failure: s},
		ToolCalled{At: t0, CallID: s, Name: s, Label: s, Arguments: s},
		ToolStarted{At: t0, CallID: s, OpID: s, Name: s, Label: s, OpType: s, OutPath: s, ErrPath: s},
		ToolFinished{At: t0, CallID: s, OpID: s, Name: s, Label: s, Detail: s, OpType: s, OutPath: s, ErrPath: s},
		AssistantMessage{At: t0, Text: s},
		ReasoningSummary{At: t0, Text: s},
		RunnerError{At: t0, Message: s},
		RunFinished{At: t0, Result: Result{Request: Request{RunID: s}, Status: Status(s), Answer: s,
			Stats: Stats{ToolsByName: map[string]int{s: 1, s + "x": 2}, StopReasons: map[string]int{s: 3},
				Failures: []string{s}, Errors: []string{s, s}, Warnings: []string{s}}}},
	}
}

func TestSinkMatchesEncodingJSON(t *testing.T) {
	cases := map[string][]Event{"every event": everyEvent(), "realistic run": realisticRun()}
	for i, s := range hostile {
		cases[fmt.Sprintf("hostile %d", i)] = withString(s)
	}
	cases["times"] = []Event{
		UserMessage{At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		UserMessage{At: time.Date(2026, 1, 2, 3, 4, 5, 100, time.UTC)},
		UserMessage{At: time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", 5*3600))},
		UserMessage{At: time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)},
		ModelResponded{At: t0, Turn: -7, Duration: -1500 * time.Microsecond, Usage: Tokens{InputTokens: 1 << 62, OutputTokens: -1}},
	}
	for name, evs := range cases {
		t.Run(name, func(t *testing.T) {
			for _, e := range evs {
				got := write(t, []Event{e})
				want := stdlibLine(t, e)
				if !bytes.Equal(got, want) {
					t.Fatalf("%T:\n got %q\nwant %q", e, got, want)
				}
			}
		})
	}
}

func FuzzSinkMatchesEncodingJSON(f *testing.F) {
	for _, s := range hostile[:len(hostile)-1] {
		f.Add(s, int64(42), true)
	}
	f.Fuzz(func(t *testing.T, s string, n int64, ok bool) {
		evs := withString(s)
		evs = append(evs,
			ModelResponded{At: t0.Add(time.Duration(n)), Turn: int(n), Duration: time.Duration(n), Usage: Tokens{InputTokens: n, ReasoningTokens: -n}},
			ToolFinished{At: t0.Add(time.Duration(n)), OK: ok, Duration: time.Duration(n), Label: s},
			AssistantMessage{At: t0, Turn: int(n), Text: s, Final: ok})
		for _, e := range evs {
			got := write(t, []Event{e})
			if want := stdlibLine(t, e); !bytes.Equal(got, want) {
				t.Fatalf("%T:\n got %q\nwant %q", e, got, want)
			}
		}
	})
}

func TestSinkConcurrentEmitsStayWhole(t *testing.T) {
	const goroutines, each = 16, 300
	pr, pw := io.Pipe()
	s := NewSink(pw)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				s.Emit(ToolCalled{At: t0, CallID: fmt.Sprintf("g%d-%d", g, i), Name: "Bash",
					Arguments: strings.Repeat("x", 1000*(i%5))})
			}
		})
	}
	go func() { wg.Wait(); pw.Close() }()

	seen := map[string]bool{}
	sc := bufio.NewScanner(pr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var d ToolCalledDTO
		require.NoError(t, json.Unmarshal(sc.Bytes(), &d), "torn line %q", sc.Text())
		assert.False(t, seen[d.CallID], "duplicate %s", d.CallID)
		seen[d.CallID] = true
	}
	require.NoError(t, sc.Err())
	require.NoError(t, s.Err())
	assert.Len(t, seen, goroutines*each)
}

var errDiskFull = errors.New("disk full")

// failingWriter accepts limit bytes, then fails: the write that crosses the
// limit is partial. With short set, it reports the partial write without an
// error instead.
type failingWriter struct {
	buf   bytes.Buffer
	limit int
	short bool
	calls int
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.calls++
	room := w.limit - w.buf.Len()
	if len(p) <= room {
		return w.buf.Write(p)
	}
	w.buf.Write(p[:max(room, 0)])
	if w.short {
		return max(room, 0), nil
	}
	return max(room, 0), errDiskFull
}

func TestSinkFailingWriterKeepsWholeLines(t *testing.T) {
	evs := realisticRun()
	full := write(t, evs)
	lines := bytes.SplitAfter(full, []byte("\n"))
	for _, short := range []bool{false, true} {
		for _, limit := range []int{0, 1, len(lines[0]), len(lines[0]) + 1, len(full) / 2, len(full) - 1} {
			t.Run(fmt.Sprintf("short=%v/limit=%d", short, limit), func(t *testing.T) {
				w := &failingWriter{limit: limit, short: short}
				s := NewSink(w)
				for _, e := range evs {
					s.Emit(e)
				}
				err := s.Err()
				require.Error(t, err)
				if short {
					assert.ErrorIs(t, err, io.ErrShortWrite)
				} else {
					assert.ErrorIs(t, err, errDiskFull)
				}
				assert.True(t, strings.HasPrefix(err.Error(), "stream: write "), err.Error())
				// Everything written is a prefix of the full stream, and the
				// lines before the failed one are whole.
				got := w.buf.Bytes()
				require.True(t, bytes.HasPrefix(full, got))
				whole := bytes.Count(got, []byte("\n"))
				assert.Equal(t, whole+1, w.calls, "no write after the failing one")
				assert.Equal(t, string(bytes.Join(lines[:whole], nil)), string(got[:bytes.LastIndexByte(got, '\n')+1]))
				s.Emit(UserMessage{At: t0})
				assert.Equal(t, whole+1, w.calls, "the error is sticky")
				assert.Equal(t, err, s.Err())
			})
		}
	}
}

func TestSinkRefusesTheTimesEncodingJSONRefuses(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 23*3600+59*60)),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 24*3600)),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("x", -30*3600)),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 5*3600+30*60+15)),
	} {
		// In a summary the time keeps its zone, as in a hand-built DTO.
		dto := SummaryDTO{StartedAt: at}
		want, wantErr := json.Marshal(dto)
		got, gotErr := summaryCodec.AppendObject(nil, reflect.ValueOf(dto))
		if wantErr != nil {
			assert.Error(t, gotErr, "%v", at)
			continue
		}
		require.NoError(t, gotErr, "%v", at)
		assert.Equal(t, string(want), string(got))
	}
}

func TestSinkWritesAtMostOneRunFinished(t *testing.T) {
	got := write(t, []Event{
		RunStarted{At: t0},
		RunFinished{At: t0, Result: Result{Status: StatusOK}},
		UserMessage{At: t0, Text: "late"},
		RunFinished{At: t0, Result: Result{Status: StatusError}},
	})
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[1], `"status":"ok"`)
}

func TestSinkStampsZeroTimesWithItsClock(t *testing.T) {
	var buf bytes.Buffer
	s := NewSink(&buf)
	s.now = func() time.Time { return time.Date(2026, 2, 3, 4, 5, 6, 7000, time.FixedZone("CET", 3600)) }
	s.Emit(UserMessage{ID: "u"})
	s.Emit(UserMessage{At: t0, ID: "v"})
	require.NoError(t, s.Err())
	assert.Equal(t, `{"v":1,"type":"user_message","at":"2026-02-03T03:05:06.000007Z","id":"u","text":""}`+"\n"+
		`{"v":1,"type":"user_message","at":"2026-09-23T12:39:18.96Z","id":"v","text":""}`+"\n", buf.String())
}

// strangeEvent satisfies Event by embedding one of the 14 structs, but is
// not one of them.
type strangeEvent struct{ UserMessage }

func TestSinkBadInput(t *testing.T) {
	t.Run("nil writer", func(t *testing.T) {
		s := NewSink(nil)
		s.Emit(UserMessage{At: t0})
		assert.EqualError(t, s.Err(), "stream: nil writer")
	})
	t.Run("nil and unknown events are skipped", func(t *testing.T) {
		var nilPtr *UserMessage
		got := write(t, []Event{nil, nilPtr, strangeEvent{UserMessage{At: t0, ID: "x"}}, &UserMessage{At: t0, ID: "p"}})
		assert.Equal(t, `{"v":1,"type":"user_message","at":"2026-09-23T12:39:18.96Z","id":"p","text":""}`+"\n", string(got))
	})
	t.Run("unencodable time stops the sink", func(t *testing.T) {
		var buf bytes.Buffer
		s := NewSink(&buf)
		s.Emit(UserMessage{At: t0})
		s.Emit(UserMessage{At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
		s.Emit(UserMessage{At: t0})
		require.ErrorIs(t, s.Err(), jsonparse.ErrTimeRange)
		assert.Equal(t, 1, strings.Count(buf.String(), "\n"))
		assert.Contains(t, s.Err().Error(), `stream: encode user_message: field "at"`)
	})
}

func TestSinkAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops buffers at random under -race")
	}
	s := NewSink(io.Discard)
	for _, e := range everyEvent() {
		if _, ok := e.(RunFinished); ok {
			continue
		}
		allocs := testing.AllocsPerRun(100, func() { s.Emit(e) })
		assert.Zero(t, allocs, "%T: the line buffer and the DTO are pooled", e)
	}
}

// truncated is e as it comes back from the wire: UTC, whole milliseconds.
func truncated(e Event) Event {
	switch e := e.(type) {
	case ModelResponded:
		e.At, e.Duration = e.At.UTC(), e.Duration.Truncate(time.Millisecond)
		return e
	case ToolFinished:
		e.At, e.Duration = e.At.UTC(), e.Duration.Truncate(time.Millisecond)
		return e
	case RunFinished:
		r := e.Result
		r.StartedAt, r.Wall = r.StartedAt.UTC(), r.Wall.Truncate(time.Millisecond)
		for _, d := range []*time.Duration{&r.EventSpan, &r.ModelTime, &r.ToolBusyTime, &r.ToolModelOverlap} {
			*d = d.Truncate(time.Millisecond)
		}
		if r.ToolsByName == nil {
			r.ToolsByName = map[string]int{}
		}
		return RunFinished{At: e.At.UTC(), Result: r}
	}
	return e
}

// benchEvents is a realistic mix: the events of a run with a few large
// tool arguments, without run_finished.
func benchEvents() []Event {
	evs := realisticRun()
	evs = evs[:len(evs)-1]
	evs = append(evs, ToolCalled{At: t0, CallID: "c9", Name: "Write", Label: "write main.go",
		Arguments: `{"path":"main.go","content":"` + strings.Repeat(`package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n`, 40) + `"}`})
	return evs
}

func BenchmarkSink(b *testing.B) {
	evs := benchEvents()
	var size int64
	for _, e := range evs {
		size += int64(len(stdlibLine(b, e)))
	}
	b.Run("sink", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		s := NewSink(io.Discard)
		for b.Loop() {
			for _, e := range evs {
				s.Emit(e)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
	})
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		var mu sync.Mutex
		enc := json.NewEncoder(io.Discard)
		enc.SetEscapeHTML(false)
		for b.Loop() {
			for _, e := range evs {
				dto, _ := EventToDTO(e)
				mu.Lock()
				_ = enc.Encode(dto)
				mu.Unlock()
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
	})
}

// The Sink keeps its first error, whichever kind comes first.
func TestSinkKeepsTheFirstError(t *testing.T) {
	badTime := UserMessage{At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	t.Run("a write error, then an encode error", func(t *testing.T) {
		s := NewSink(&failingWriter{limit: 0})
		s.Emit(UserMessage{At: t0})
		s.Emit(badTime)
		assert.ErrorIs(t, s.Err(), errDiskFull)
		assert.NotErrorIs(t, s.Err(), jsonparse.ErrTimeRange)
	})
	t.Run("an encode error, then a write error", func(t *testing.T) {
		w := &failingWriter{limit: 0}
		s := NewSink(w)
		s.Emit(badTime)
		s.Emit(UserMessage{At: t0})
		assert.ErrorIs(t, s.Err(), jsonparse.ErrTimeRange)
		assert.NotErrorIs(t, s.Err(), errDiskFull)
		assert.Zero(t, w.calls, "nothing is written after the first error")
	})
	t.Run("two encode errors", func(t *testing.T) {
		s := NewSink(io.Discard)
		s.Emit(badTime)
		s.Emit(ToolCalled{At: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)})
		assert.Contains(t, s.Err().Error(), "encode user_message")
	})
}

// roundTripped is what DTOToEvent(EventToDTO(e)) gives back: e truncated
// as the wire truncates, and a run_finished without its stats, which
// SummaryFromDTO does not restore.
func roundTripped(e Event) Event {
	if f, ok := truncated(e).(RunFinished); ok {
		f.Result.Stats = Stats{}
		return f
	}
	return truncated(e)
}

// AppendEvent writes the Sink's line, but keeps a zero time zero; an event
// that is not the contract's is an error, and the buffer is left as it was.
func TestAppendEvent(t *testing.T) {
	e := TurnStarted{At: time.Date(2026, 11, 1, 9, 0, 0, 5e8, time.UTC), Turn: 2, TurnID: "t"}
	var b bytes.Buffer
	sink := NewSink(&b)
	sink.Emit(e)
	line, err := AppendEvent([]byte("x"), e)
	require.NoError(t, err)
	require.Equal(t, "x"+b.String(), string(line)+"\n")

	line, err = AppendEvent(nil, UserMessage{ID: "m", Text: "hi"})
	require.NoError(t, err)
	require.Equal(t, `{"v":1,"type":"user_message","at":"0001-01-01T00:00:00Z","id":"m","text":"hi"}`, string(line))

	line, err = AppendEvent([]byte("kept"), nil)
	require.ErrorContains(t, err, "stream: ")
	require.Equal(t, "kept", string(line))
	_, err = AppendEvent(nil, RunnerError{At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	require.ErrorContains(t, err, "stream: encode runner_error")
}
