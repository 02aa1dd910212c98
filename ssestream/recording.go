package ssestream

import (
	"bufio"
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
	"github.com/uagentkit/stream/uahstream"
)

// Recording is the shared, append-only record of one stream's lines that a
// [Handler] serves: each line is kept once, as the event clients are sent,
// in a spool file, and every client reads it back at its own pace. Lines
// arrive through [Recording.Consume]; [Recording.End] marks the end of the
// stream and says how the run ended; [Recording.Close] removes the spool.
//
// Its memory does not grow with the stream's bytes: the spool is a
// temporary file (unlinked at once where the system allows, so that
// nothing is left behind), and what a Recording keeps in memory is the
// run's fold (see stream.Fold), each tool operation's label and detail for
// /intervals, and one offset for every 64 lines, for clients that resume.
// Where no temporary file can be made, the spool is memory.
//
// A Recording is safe for concurrent use: one writer (Consume, End) and any
// number of readers. Readers never hold the lock while they write to a
// client, so the pace of a client never holds the writer back.
type Recording struct {
	mu      sync.Mutex
	spool   *spool
	size    int64         // bytes of whole events in the spool
	events  int           // events in the spool
	marks   []mark        // where every 64th event begins
	changed chan struct{} // closed, and replaced, on every change
	version int           // counts the changes
	ended   bool
	end     []byte      // the end event's JSON
	fold    stream.Fold // the run's fold
	buf     []byte      // the event being written

	// For /intervals, what the fold does not keep: each operation's label
	// and detail, the failures of turns, the line each notice first came on.
	ops          []opText
	turnFailures map[int]string
	noticeLines  []int

	// The JSON of /summary, /intervals and /session, computed by the
	// clock now.
	now                         func() time.Time
	sumCache, ivCache, sesCache cache

	// A session stream of the harness (its first line session_opened):
	// the session's fold; the record's fold is then its open (or last)
	// run's, from that run's run_started on.
	session *uahstream.Session
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

// NewRecording returns an empty Recording, its spool a temporary file.
// Call Close when it is no longer served.
func NewRecording() *Recording {
	return &Recording{changed: make(chan struct{}), now: time.Now, spool: newSpool()}
}

// Close removes the spool. Clients being served read nothing more; Close
// may be called more than once.
func (rec *Recording) Close() error {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.spool.close()
}

func (rec *Recording) notify() {
	close(rec.changed)
	rec.changed = make(chan struct{})
	rec.version++
}

// Consume reads a stream from r, through a [stream.Decoder] with opts, into
// the record until r ends. It does not end the record: call End. An error
// of r is returned after every line before it. Consume is the record's one
// writer: do not call it from two goroutines at once.
func (rec *Recording) Consume(r io.Reader, opts ...stream.Option) error {
	dec := stream.NewDecoder(r, opts...)
	for {
		dto, err := dec.Decode()
		if err == io.EOF {
			return nil
		}
		le, ok := errors.AsType[*stream.LineError](err)
		if err != nil && !ok {
			return err
		}
		rec.add(dec.Line(), dto, le, dec.Raw())
	}
}

func (rec *Recording) add(num int, dto any, le *stream.LineError, raw []byte) {
	live := rec.sessionAdd(dto, le)
	// The event, as every client is sent it.
	b := append(rec.buf[:0], "id: "...)
	b = strconv.AppendInt(b, int64(num), 10)
	b = append(b, "\nevent: "...)
	var errJSON []byte
	if le != nil {
		errJSON, _ = json.Marshal(struct {
			Line  int    `json:"line"`
			Error string `json:"error"`
		}{num, le.Error()})
		b = append(b, EventLineError...)
	} else {
		b = append(b, eventName(dto)...)
	}
	b = append(b, "\ndata: "...)
	if le != nil {
		b = append(b, safetext.EscapeJSON(errJSON)...)
	} else {
		b = appendData(b, raw)
	}
	b = append(b, "\n\n"...)
	if live != nil { // what the line did to the streamed text, under the line's number
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
	if le != nil {
		rec.fold.Add(nil, le)
	} else {
		rec.observe(num, rec.fold.Add(dto, nil))
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

// sessionAdd folds a line into the session, when the record is of one
// (from its first line on), and returns the data of the live event the
// line makes (what it did to the streamed text), or nil. A run_started
// begins the record's fold again.
func (rec *Recording) sessionAdd(dto any, le *stream.LineError) []byte {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.events == 0 && le == nil && uahstream.Opens(dto) {
		rec.session = new(uahstream.Session)
	}
	if rec.session == nil {
		return nil
	}
	var err error
	if le != nil {
		err = le // not a nil *LineError in an error
	} else if typed, derr := uahstream.Decode(dto); derr == nil {
		dto = typed
	}
	ch := rec.session.Add(dto, err)
	if ch.Started { // the record shows the open run, from its run_started
		rec.fold, rec.ops, rec.turnFailures, rec.noticeLines = stream.Fold{}, nil, nil, nil
	}
	return liveEvent(ch)
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
	case ch.LiveStep == uahstream.Streamed:
		items, ev.Step = []*uahstream.Live{ch.Live}, "streamed"
	case ch.LiveStep == uahstream.Replaced:
		items, ev.Step, ev.Same = []*uahstream.Live{ch.Live}, "replaced", ch.Same
	case ch.LiveStep == uahstream.Void:
		items, ev.Step = ch.Voided, "void"
	case len(ch.Unreplaced) > 0:
		items, ev.Step = ch.Unreplaced, "unreplaced"
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
// summary as /summary serves it, and the totals; for a record that is
// not of a session, its one run.
func (rec *Recording) sessionJSON() ([]byte, error) {
	return rec.cached(&rec.sesCache, func(rec *Recording) ([]byte, error) {
		out := struct {
			SessionID string              `json:"session_id"`
			Runs      []stream.SummaryDTO `json:"runs"`
			Totals    *uahstream.Totals   `json:"totals,omitempty"`
		}{Runs: []stream.SummaryDTO{}}
		if rec.session == nil {
			out.SessionID = rec.fold.Summary().SessionID
			out.Runs = append(out.Runs, rec.fold.Summary())
			return json.Marshal(out)
		}
		out.SessionID = rec.session.ID()
		for _, r := range rec.session.Runs() {
			out.Runs = append(out.Runs, r.Summary)
		}
		t := rec.session.Totals()
		out.Totals = &t
		return json.Marshal(out)
	})
}

// opText is what /intervals shows of an operation beside its times.
type opText struct{ label, detail string }

// observe keeps what /intervals shows that the fold hands over only in the
// line's Change: the operations' labels and details, the turns' failures,
// the notices' lines.
func (rec *Recording) observe(num int, ch stream.Change) {
	switch ch.ToolStep {
	case stream.Opened:
		iv := rec.fold.Tool(ch.ToolIndex)
		rec.ops = append(rec.ops, opText{label: iv.Name + ": " + iv.Label})
	case stream.Closed:
		rec.ops[ch.ToolIndex].detail = rec.fold.Tool(ch.ToolIndex).Detail
	}
	if ch.TurnStep == stream.Closed {
		if failure := rec.fold.Turn(ch.TurnIndex).Failure; failure != "" {
			if rec.turnFailures == nil {
				rec.turnFailures = map[int]string{}
			}
			rec.turnFailures[ch.TurnIndex] = failure
		}
	}
	if ch.NoticeStep == stream.Opened {
		rec.noticeLines = append(rec.noticeLines, num)
	}
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
// (a file, standard input), whose verdict the record's fold gives from the
// lines (stream.Fold.Verdict). Only the first End counts.
func (rec *Recording) End(v *stream.Verdict) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.ended {
		return
	}
	if v == nil {
		alone := rec.fold.Verdict()
		if rec.session != nil {
			alone = rec.session.Verdict()
		}
		v = &alone
	}
	rec.end, _ = json.Marshal(endEvent{Ending: v.Ending.String(), Status: string(v.Status), ExitCode: v.ExitCode})
	rec.end = safetext.EscapeJSON(rec.end) // the status may be the stream's
	rec.ended = true
	rec.notify()
}

// Fold calls f with the record's fold, under the record's lock: for a
// caller that wants an answer of the fold about the lines so far (its
// verdict with an exit code, its summary). f must not keep the fold.
func (rec *Recording) Fold(f func(*stream.Fold)) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	f(&rec.fold)
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
	b = safetext.EscapeJSON(b) // the stream's strings, as every output carries them
	if err != nil {
		return nil, err
	}
	*c = cache{b: b, version: rec.version, at: rec.now()}
	return b, nil
}

// intervalsJSON returns the fold's intervals as /intervals serves them.
func (rec *Recording) intervalsJSON() ([]byte, error) {
	return rec.cached(&rec.ivCache, func(rec *Recording) ([]byte, error) {
		return json.Marshal(rec.buildIntervals())
	})
}

// summaryJSON returns the summary as /summary serves it.
func (rec *Recording) summaryJSON() ([]byte, error) {
	return rec.cached(&rec.sumCache, func(rec *Recording) ([]byte, error) {
		return stream.MarshalSummary(rec.fold.Summary())
	})
}

// Finished reports whether a run_finished line has been recorded: the
// stream has ended. A session stream of the harness has no last line (no
// closing event): for one, Finished is false. It is cheap: a follower
// asks it at every end of the file.
func (rec *Recording) Finished() bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.session == nil && rec.fold.Finished()
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
