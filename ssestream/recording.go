package ssestream

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/safetext"
	"github.com/uagentkit/stream/timeline"
	"github.com/uagentkit/stream/uahstream"
)

// Recording is the shared, append-only record of one stream's lines that a
// [Handler] serves: each line is kept once, as the event clients are sent,
// in a spool file, and every client reads it back at its own pace. Lines
// arrive through [Recording.Add], each as the stream's session folded it
// (the Recording keeps no fold of its own: /summary, /intervals and
// /session are the session's answers); [Recording.End] marks the end of
// the stream and says how the run ended; [Recording.Close] removes the
// spool.
//
// Its memory does not grow with the stream's bytes: the spool is a
// temporary file (unlinked at once where the system allows, so that
// nothing is left behind), and what a Recording keeps in memory is one
// offset for every 64 lines, for clients that resume, the line each
// notice first came on, and each ended run's summary (for /session).
// Where no temporary file can be made, the spool is memory.
//
// A Recording is safe for concurrent use: one writer (Add, End) and any
// number of readers. Readers never hold the lock while they write to a
// client, so the pace of a client never holds the writer back.
type Recording struct {
	s       *uahstream.Session
	mu      sync.Mutex
	spool   *spool
	size    int64         // bytes of whole events in the spool
	events  int           // events in the spool
	marks   []mark        // where every 64th event begins
	changed chan struct{} // closed, and replaced, on every change
	closed  bool          // Close was called: its clients' streams end
	version int           // counts the changes
	ended   bool
	end     []byte // the end event's JSON
	buf     []byte // the event being written
	line    []byte // a line encoded, for a Line that came without its bytes

	noticeLines []int               // the line each notice of the open run first came on
	runs        []stream.SummaryDTO // the summaries of the runs that ended, for /session
	past        []pastRun           // the runs that ended, laid out, for a session's /intervals

	// The JSON of /summary, /intervals and /session, computed by the
	// clock now.
	now                         func() time.Time
	sumCache, ivCache, sesCache cache
}

// mark is where an event begins in the spool, and its line's number.
type mark struct {
	num int
	off int64
}

// markEvery is how many events there are between two marks.
const markEvery = 64

// cache is a response computed from the record as of a version, at a time.
type cache struct {
	b       []byte
	version int
	at      time.Time
}

// NewRecording returns an empty Recording of the lines of s, its spool a
// temporary file; nil s is a new Session of its own. The Recording makes
// s keep what its lines say of every operation (uahstream.Session.KeepText),
// for /intervals: s must have had no line. Call Close when it is no longer
// served.
func NewRecording(s *uahstream.Session) *Recording {
	if s == nil {
		s = new(uahstream.Session)
	}
	s.KeepText()
	return &Recording{s: s, changed: make(chan struct{}), now: time.Now, spool: newSpool()}
}

// Consume reads the stream r into the record's session and the record (a
// uahstream.Reader of the session, with opts) until r ends, the end of r
// being the session's. It does not end the record: call End. An error of
// r is returned after every line before it. Consume is the record's one
// writer, and its session must have had no line.
func (rec *Recording) Consume(r io.Reader, opts ...stream.DecoderOption) error {
	rd := rec.s.Reader(r, opts...)
	for l := range rd.Lines() {
		rec.Add(l)
	}
	return rd.Err()
}

// Close removes the spool. Clients being served read nothing more: their
// event streams end at once, without an end event (an EventSource then
// asks again from its last id); Close may be called more than once.
func (rec *Recording) Close() error {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !rec.closed {
		rec.closed = true
		rec.notify()
	}
	return rec.spool.close()
}

// isClosed reports whether Close was called.
func (rec *Recording) isClosed() bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.closed
}

func (rec *Recording) notify() {
	close(rec.changed)
	rec.changed = make(chan struct{})
	rec.version++
}

// Add records a line of the stream, as the Recording's session folded it
// (a uahstream.Reader's, or execstream.Run.Lines's with execstream.WithRaw):
// its bytes, or, for a line that came without them (a run directory's
// event), the line the uagent writer writes for it. The session's end
// (a Line whose Change.End is set) sends nothing: End does. Add is the
// record's one writer: do not call it from two goroutines at once.
func (rec *Recording) Add(l uahstream.Line) {
	if l.Ended != nil {
		past := timeline.Of(l.Ended.Fold)   // its fold is final: read outside the lock
		past.Title, past.Overlaps = "", nil // kept: what the session's picture draws, no more
		rec.mu.Lock()
		rec.runs = append(rec.runs, l.Ended.Summary)
		rec.past = append(rec.past, pastRun{layout: past, status: l.Ended.Summary.Status})
		rec.mu.Unlock()
	}
	if l.End {
		return
	}
	raw := l.Raw
	if raw == nil && l.Err == nil {
		raw = rec.encode(l.DTO)
	}
	num := l.Num
	if num == 0 {
		num = rec.events + 1
	}
	// The event, as every client is sent it.
	b := append(rec.buf[:0], "id: "...)
	b = strconv.AppendInt(b, int64(num), 10)
	b = append(b, "\nevent: "...)
	if l.Err != nil {
		errJSON, _ := json.Marshal(struct {
			Line  int    `json:"line"`
			Error string `json:"error"`
		}{num, l.Err.Error()})
		b = append(b, EventLineError...)
		b = append(b, "\ndata: "...)
		b = append(b, safetext.EscapeJSON(errJSON)...)
	} else {
		b = append(b, eventName(l.DTO)...)
		b = append(b, "\ndata: "...)
		b = appendData(b, raw)
	}
	b = append(b, "\n\n"...)
	if live := liveEvent(l.Change); live != nil { // what the line did to the streamed text, under the line's number
		b = append(b, "id: "...)
		b = strconv.AppendInt(b, int64(num), 10)
		b = append(b, "\nevent: "+EventLive+"\ndata: "...)
		b = append(b, safetext.EscapeJSON(live)...)
		b = append(b, "\n\n"...)
	}
	rec.buf = b[:0]
	if len(b) > 1<<20 {
		rec.buf = nil // a long line's buffer is not kept
	}
	// Written outside the lock: readers read only up to size, which counts
	// whole events.
	werr := rec.spool.write(b)

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if l.Started {
		rec.noticeLines = nil
	}
	if l.Step.NoticeStep == stream.StepOpened {
		rec.noticeLines = append(rec.noticeLines, num)
	}
	if werr == nil {
		if rec.events%markEvery == 0 {
			rec.marks = append(rec.marks, mark{num: num, off: rec.size})
		}
		rec.events++
		rec.size += int64(len(b))
	}
	rec.notify()
}

// encode is the line the uagent writer writes for dto.
func (rec *Recording) encode(dto any) []byte {
	e, ok := stream.DTOToEvent(dto)
	if !ok { // a harness line that came as a DTO (a session of the history's session_opened)
		line, err := json.Marshal(harnessLine{Type: uahstream.TypeOf(dto), DTO: dto})
		if err != nil {
			return []byte("{}")
		}
		return line
	}
	line, err := stream.AppendEvent(rec.line[:0], e)
	if err != nil {
		return []byte("{}")
	}
	rec.line = line
	return line
}

// harnessLine is a harness DTO as its line: v and type, then its fields.
type harnessLine struct {
	Type string
	DTO  any
}

func (l harnessLine) MarshalJSON() ([]byte, error) {
	fields, err := json.Marshal(l.DTO)
	if err != nil {
		return nil, err
	}
	head, _ := json.Marshal(l.Type)
	out := append([]byte(`{"v":1,"type":`), head...)
	if len(fields) > 2 {
		out = append(append(out, ','), fields[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}

// liveEvent is the data of the live event a line of a session makes:
// which of the session's streamed items (by their number, Live.Index) a
// delta went to, a response replaced, a reset voided, or a run ended
// without a response; nil for a line that did none of these.
func liveEvent(ch uahstream.Change) []byte {
	type item struct {
		Index     int    `json:"index"`
		ItemID    string `json:"item_id"`
		Part      int    `json:"part"`
		Reasoning bool   `json:"reasoning"`
	}
	ev := struct {
		Step  string `json:"step"`
		Same  bool   `json:"same,omitempty"`
		Items []item `json:"items"`
	}{Items: []item{}}
	var items []*uahstream.Live
	switch {
	case ch.LiveStep == uahstream.LiveStreamed:
		items, ev.Step = []*uahstream.Live{ch.Live}, "streamed"
	case ch.LiveStep == uahstream.LiveReplaced:
		items, ev.Step, ev.Same = []*uahstream.Live{ch.Live}, "replaced", ch.Same
	case ch.LiveStep == uahstream.LiveVoid:
		items, ev.Step = ch.Voided, "void"
	case ch.Ended != nil && len(ch.Ended.Unreplaced) > 0:
		items, ev.Step = ch.Ended.Unreplaced, "unreplaced"
	default:
		return nil
	}
	for _, l := range items {
		ev.Items = append(ev.Items, item{l.Index, l.ItemID, l.Part, l.Reasoning})
	}
	b, _ := json.Marshal(ev)
	return b
}

// sessionJSON returns what /session serves: the session's id, each run's
// summary as /summary serves it (those that ended, then the open one's so
// far), and their totals. A run's stream is a session of one run.
func (rec *Recording) sessionJSON() ([]byte, error) {
	return rec.cached(&rec.sesCache, func(rec *Recording) ([]byte, error) {
		out := struct {
			SessionID string              `json:"session_id"`
			Runs      []stream.SummaryDTO `json:"runs"`
			Totals    uahstream.Totals    `json:"totals"`
		}{SessionID: rec.s.ID(), Runs: append([]stream.SummaryDTO{}, rec.runs...), Totals: rec.s.Totals()}
		if rec.s.Open() {
			rec.s.Fold(func(f *stream.Fold) { out.Runs = append(out.Runs, f.Recomputed().Summary) })
		}
		return json.Marshal(out)
	})
}

// appendData appends a line's bytes as an SSE data field carries them,
// through safetext.EscapeJSON: a carriage return, which a valid line holds
// only as white space between JSON tokens and which an SSE client takes for
// the end of a line, becomes a space, and what a terminal acts on or a
// reader cannot see becomes a \u escape. The JSON value is the same.
func appendData(dst, raw []byte) []byte {
	return append(dst, safetext.EscapeJSON(raw)...)
}

// End marks the end of the stream and says how the run ended: v is the
// verdict of the run that was recorded (a process's, as
// execstream.Outcome carries it), or nil when the record is a stream alone
// (a file, standard input), whose verdict the session gives from its
// lines (uahstream.Session.Verdict). Only the first End counts.
func (rec *Recording) End(v *stream.Verdict) {
	if v == nil {
		alone := rec.s.Verdict()
		v = &alone
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.ended {
		return
	}
	rec.end, _ = json.Marshal(endEvent{Ending: v.Ending.String(), Status: string(v.Status), ExitCode: v.ExitCode})
	rec.end = safetext.EscapeJSON(rec.end) // the status may be the stream's
	rec.ended = true
	rec.notify()
}

// endEvent is the data of the SSE end event.
type endEvent struct {
	Ending   string `json:"ending"`
	Status   string `json:"status"`
	ExitCode int    `json:"exit_code"`
}

// summaryEvery is how stale the summary and intervals a live record serves
// may be: they are computed at most this often, however many clients ask.
const summaryEvery = 100 * time.Millisecond

// cached returns what compute computes of the record, from c: computed again
// only when the record has changed, and while the stream goes on at most
// every summaryEvery, so that clients asking for it cost the writer nothing
// per request. compute runs with the record's lock held.
func (rec *Recording) cached(c *cache, compute func(*Recording) ([]byte, error)) ([]byte, error) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if c.b != nil && (c.version == rec.version || !rec.ended && rec.now().Sub(c.at) < summaryEvery) {
		return c.b, nil
	}
	b, err := compute(rec)
	if err != nil {
		return nil, err
	}
	b = safetext.EscapeJSON(b) // the stream's strings, as every output carries them
	var html bytes.Buffer      // and no markup character raw (<, >, &: \u escapes, as encoding/json writes them)
	json.HTMLEscape(&html, b)
	b = html.Bytes()
	*c = cache{b: b, version: rec.version, at: rec.now()}
	return b, nil
}

// intervalsJSON returns the fold's intervals as /intervals serves them.
func (rec *Recording) intervalsJSON() ([]byte, error) {
	return rec.cached(&rec.ivCache, func(rec *Recording) ([]byte, error) {
		return json.Marshal(rec.buildIntervals())
	})
}

// summaryJSON returns the summary as /summary serves it: the open run's
// (else the last run's) so far.
func (rec *Recording) summaryJSON() ([]byte, error) {
	return rec.cached(&rec.sumCache, func(rec *Recording) ([]byte, error) {
		var sum stream.SummaryDTO
		rec.s.Fold(func(f *stream.Fold) { sum = f.Recomputed().Summary })
		return sum.MarshalIndent()
	})
}

// state returns how many bytes of whole events the spool holds, the end
// event if the stream has ended, and a channel closed on the next change.
func (rec *Recording) state() (int64, []byte, chan struct{}) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.size, rec.end, rec.changed
}

// seek returns where, in the spool's first size bytes, the first event of
// a line after line after begins: the mark before it, then the events
// from there read through. found is false when every event so far is of a
// line up to after; the offset is then where to look next.
func (rec *Recording) seek(after int, from, size int64) (off int64, found bool, err error) {
	if after <= 0 {
		return from, true, nil
	}
	rec.mu.Lock()
	k, _ := slices.BinarySearchFunc(rec.marks, after+1, func(m mark, num int) int { return cmp.Compare(m.num, num) })
	if k > 0 && rec.marks[k-1].off > from {
		from = rec.marks[k-1].off
	}
	rec.mu.Unlock()
	r := bufio.NewReaderSize(io.NewSectionReader(rec.spool, from, size-from), 16<<10)
	for off = from; off < size; {
		num, n, err := readEvent(r)
		if err != nil {
			return off, false, err
		}
		if num > after {
			return off, true, nil
		}
		off += n
	}
	return off, false, nil
}

// readEvent reads one event of the spool ("id: N", "event: …", "data: …"
// and a blank line) and returns its line's number and its length.
func readEvent(r *bufio.Reader) (num int, n int64, err error) {
	for i := range 4 {
		first := true
		for {
			piece, err := r.ReadSlice('\n')
			n += int64(len(piece))
			if i == 0 && first {
				num, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(string(piece), "id: "), "\n"))
			}
			first = false
			if err == nil {
				break
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				return 0, n, err
			}
		}
	}
	return num, n, nil
}
