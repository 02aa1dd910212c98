package uahstream

import (
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/uagentkit/stream"
)

// Session is the one fold of a stream, whatever it holds: a uagent run's
// v1 stream is a session of one run, a session stream of the harness a
// session of many. Which of the two a stream is, is decided here, by its
// first line (a session_opened: see [Opens]), and nowhere else; every
// view is given the Session and the Changes it returns.
//
// Of a run's stream, every line goes to the run's one stream.Fold, which
// keeps the contract's rules (a line before run_started, a second
// run_started, the lines after run_finished). Of a session stream, each
// run goes from its run_started to its run_finished, or to what cut it
// off (the next run_started, or the end), and its fold is fed the run's
// lines as a v1 reader of the run alone reads them (the harness's lines
// inside it as lines of an unknown type); the lines between runs are the
// session's.
//
// Memory: the open run's fold, and the last run's until the next begins;
// the session's totals; every message's id and state; the text streamed
// since the open run's last response. A run that ends is handed over
// whole, with its summary, in the Change of the line that ended it
// ([Ended]), and let go of: the memory does not grow with the number of
// runs.
//
// The zero Session is empty and ready. A Session is safe for concurrent
// use: one goroutine adds the lines (Add, End), any number ask it
// questions. A Change is the caller's and says what the fold said as of
// its line, so that a view may take it later, in another goroutine.
type Session struct {
	mu      sync.Mutex
	decided bool // the first line has come: the stream is a run's or a session's
	harness bool // a session stream of the harness
	bom     error
	opened  *SessionOpenedDTO
	fold    *stream.Fold // the open run's; of a session stream, nil between runs
	last    *stream.Fold // the open run's, else the run's that ended last
	runs    int          // runs begun
	totals  Totals
	review  AutoReview // the auto-reviewer's verdicts during the open run

	messages   []Message
	byID       map[string]int
	texts      []*Live // streamed assistant text not yet replaced, oldest first
	reasonings []*Live
	items      int // streamed items so far, for their Index

	lines, lineErrors, boms int
	ended                   bool // End was called
	// failed reports an input_failed or an error notice anywhere in a
	// session stream: uah exec exits 1 for it (Verdict).
	failed bool

	keepText, keepArgs bool
	check              *checks // each run's fold checks its lines
}

// checks is how each run's fold checks its lines (see Reader.Check).
type checks struct {
	dec  *stream.Decoder
	opts []stream.ValidateOption
}

// MessageState is where a message of the session is.
type MessageState uint8

// The states of a message, each the last event that named it.
const (
	MessageQueued    MessageState = iota + 1 // input_queued
	MessageSent                              // input_sent: a run was started with it
	MessageDelivered                         // input_delivered: the run received it
	MessageFailed                            // input_failed: no run received it
	MessageWithdrawn                         // input_withdrawn: taken back before it was sent
)

var stateNames = [...]string{"", "queued", "sent", "delivered", "failed", "withdrawn"}

// String is the state's name: queued, sent, delivered, failed or
// withdrawn.
func (s MessageState) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "?"
}

// Message is a message of the session (its text is input_queued's, not
// kept).
type Message struct {
	ID    string
	State MessageState
	// Reason is input_failed's.
	Reason string
	// Run is the index of the run it was sent with, or -1.
	Run int
}

// Live is text the model streamed: the deltas of one item. Index numbers
// the session's items from 0, in the order they began: the key a view
// keeps an item's text by. Text is the item's whole text once it is done
// (replaced, voided, or ended with its run: the Change that says so has
// it); while it streams, a view has each delta in its Change.
type Live struct {
	Index     int
	ItemID    string
	Part      int // of reasoning
	Reasoning bool
	Text      string

	buf []byte // the deltas so far, joined (a delta costs its own length)
}

// done makes the item's Text, once it takes no more deltas.
func (l *Live) done() *Live {
	if l.buf != nil {
		l.Text, l.buf = string(l.buf), nil
	}
	return l
}

// LiveStep says what a line did to the streamed text.
type LiveStep uint8

// The steps of the streamed text.
const (
	// LiveStreamed: a delta came (Change.Delta), to the item Change.Live.
	LiveStreamed LiveStep = iota + 1
	// LiveReplaced: the response's assistant_message or reasoning took the
	// place of the oldest streamed item of its kind (Change.Live, what had
	// streamed; Change.Same when the two texts are the same).
	LiveReplaced
	// LiveVoid: a stream_reset voided what streamed since the last response
	// (Change.Voided: the assistant text, then the reasoning).
	LiveVoid
)

// Change is what one line changed in the session, with what the fold said
// of it then.
type Change struct {
	// Run is the index of the run the line belongs to (from 0), or -1 for
	// a line between runs; Started reports the line began it (of a run's
	// stream, its first line).
	Run     int
	Started bool
	// Step is what the line changed in its run's fold; Turn, Tool, Call
	// and Notice are what the fold said, as of the line, of the turn, the
	// operation, the call and the notice Step names (zero where its step
	// is zero), the line's own fields included (see stream.Fold.Tool).
	Step   stream.Change
	Turn   stream.TurnInterval
	Tool   stream.ToolInterval
	Call   stream.ToolCall
	Notice stream.Notice
	// Message is the index in Messages of the message the line named (the
	// last, for a line that names several), or -1.
	Message int
	// Live text: the step, the item, the delta or whether a replacing
	// text is the same as the streamed one, and the items voided (with
	// their text).
	LiveStep LiveStep
	Live     *Live
	Delta    string
	Same     bool
	Voided   []*Live
	// Ended is the run this line ended: by its run_finished (of a session
	// stream), cut off by the next run_started, or, in End's Change, the
	// run still open at the end of the stream.
	Ended *Ended
	// End reports End's Change: the stream has ended.
	End bool
}

// Unstreamed is what a response's full text adds to the text the run
// streamed before it, for a view that showed the stream as it came: when
// the line replaced streamed text (LiveStep LiveReplaced), "" if full is that
// text, the rest of full if it continues it, else all of full with anew
// true (the response says something else, which a view shows apart); for
// a line that replaced nothing, all of full.
func (c Change) Unstreamed(full string) (rest string, anew bool) {
	if c.LiveStep != LiveReplaced {
		return full, false
	}
	switch streamed := c.Live.Text; {
	case c.Same:
		return "", false
	case strings.HasPrefix(full, streamed):
		return full[len(streamed):], false
	}
	return full, true
}

// Ended is a run that has ended, handed over whole: its fold takes no
// more lines, so every answer it gives is final and may be asked from
// any goroutine.
type Ended struct {
	// Run is its index in the session, from 0.
	Run  int
	Fold *stream.Fold
	// Recomputed is its summary (Fold.Recomputed, computed once), Verdict
	// how its lines say it ended (Fold.Verdict).
	stream.Recomputed
	Verdict stream.Verdict
	// Unreplaced is what it streamed that no response took the place of,
	// with its text: a view that has not shown it shows it now. The items
	// end with their run.
	Unreplaced []*Live
	// AutoReview is what uah's auto-reviewer spent during the run (its
	// auto_reviewed lines between run_started and the run's end): not in
	// the run's summary, and in the session's Totals.AutoReview.
	AutoReview AutoReview
}

// Add folds the next line (as a [Reader] reads it: a DTO and a nil error,
// or nil and the line's error) and returns what it changed.
func (s *Session) Add(dto any, err error) Change {
	var ch Change
	s.addTo(&ch, dto, err)
	return ch
}

// addTo folds a line, as Add does, into ch.
func (s *Session) addTo(ch *Change, dto any, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.add(ch, dto, err)
}

// AddEvent folds a domain event as Add folds its line (stream.EventToDTO),
// for a writer that wants its views next to its Sink: the Line has no
// bytes and no number. A value that is not an event is not folded.
func (s *Session) AddEvent(e stream.Event) Line {
	dto, ok := stream.EventToDTO(e)
	if !ok {
		return Line{Change: Change{Run: -1, Message: -1}}
	}
	return Line{DTO: dto, Change: s.Add(dto, nil)}
}

func (s *Session) add(ch *Change, dto any, err error) {
	*ch = Change{Run: -1, Message: -1}
	bom := err != nil && isBOM(err)
	switch {
	case bom:
		s.boms++
	default:
		s.lines++
	}
	if err != nil {
		s.lineErrors++
	}
	if !s.decided {
		if bom { // the first line comes next: it decides
			s.bom = err
			return
		}
		s.decide(dto, err)
		if !s.harness {
			ch.Started = true
			if s.bom != nil {
				s.fold.Add(nil, s.bom)
			}
		}
	}
	if !s.harness {
		ch.Run = 0
		s.step(ch, s.fold, dto, err)
		return
	}
	if err != nil {
		if s.fold != nil {
			ch.Run = s.runs - 1
			s.step(ch, s.fold, nil, err)
		}
		return
	}
	if _, ok := dto.(stream.RunStartedDTO); ok {
		if s.fold != nil {
			ch.Ended = s.end()
		}
		s.begin()
		ch.Started = true
	}
	if s.fold != nil {
		ch.Run = s.runs - 1
		s.step(ch, s.fold, asRunLine(dto), nil)
	}
	s.session(ch, dto)
	if _, ok := dto.(stream.RunFinishedDTO); ok && s.fold != nil {
		ch.Ended = s.end()
	}
	return
}

// decide decides, at the first line, what the stream is.
func (s *Session) decide(dto any, err error) {
	s.decided = true
	s.harness = err == nil && Opens(dto)
	if !s.harness {
		s.begin()
	}
}

// begin opens a run.
func (s *Session) begin() {
	f := new(stream.Fold)
	switch {
	case s.keepArgs:
		f.KeepArguments()
	case s.keepText:
		f.KeepText()
	}
	if s.check != nil {
		f.Check(s.check.dec, s.check.opts...)
	}
	s.fold, s.last = f, f
	s.runs++
}

// step folds a line into the run's fold, and says what it changed there.
func (s *Session) step(ch *Change, f *stream.Fold, dto any, err error) {
	st := f.Add(dto, err)
	ch.Step = st
	if st.TurnStep != 0 {
		ch.Turn = f.Turn(st.TurnIndex)
	}
	if st.ToolStep != 0 {
		ch.Tool = f.Tool(st.ToolIndex)
	}
	if st.CallStep != 0 {
		ch.Call = f.Call(st.CallIndex)
	}
	if st.NoticeStep != 0 {
		ch.Notice = f.Notice(st.NoticeIndex)
	}
}

// session folds what a line of a session stream says of the session:
// its messages and its streamed text.
func (s *Session) session(ch *Change, dto any) {
	switch d := dto.(type) {
	case SessionOpenedDTO:
		if s.opened == nil {
			s.opened = &d
		}
	case InputQueuedDTO:
		ch.Message = s.message(d.ID, MessageQueued, ch.Run)
	case InputSentDTO:
		for _, id := range d.IDs {
			ch.Message = s.message(id, MessageSent, s.runs) // the run it starts comes next
		}
	case InputDeliveredDTO:
		ch.Message = s.message(d.ID, MessageDelivered, -2)
	case NoticeDTO:
		s.failed = s.failed || d.Level == "error"
	case InputFailedDTO:
		s.failed = true
		for _, id := range d.IDs {
			ch.Message = s.message(id, MessageFailed, -2)
			s.messages[ch.Message].Reason = d.Reason
		}
	case InputWithdrawnDTO:
		ch.Message = s.message(d.ID, MessageWithdrawn, -2)
	case TextDeltaDTO:
		ch.LiveStep, ch.Delta = LiveStreamed, d.Text
		ch.Live = s.stream(&s.texts, d.ItemID, 0, false, d.Text)
	case ReasoningDeltaDTO:
		ch.LiveStep, ch.Delta = LiveStreamed, d.Text
		ch.Live = s.stream(&s.reasonings, d.ItemID, d.Part, true, d.Text)
	case stream.AssistantMessageDTO:
		if l := pop(&s.texts); l != nil {
			ch.Live, ch.LiveStep, ch.Same = l.done(), LiveReplaced, l.Text == d.Text
		}
	case stream.ReasoningDTO:
		if l := pop(&s.reasonings); l != nil {
			ch.Live, ch.LiveStep, ch.Same = l.done(), LiveReplaced, l.Text == d.Text
		}
	case StreamResetDTO:
		ch.LiveStep, ch.Voided = LiveVoid, s.pending()
		s.texts, s.reasonings = nil, nil
	case CompactedDTO:
		s.totals.Compaction.Add(string(d.Stats))
	case AutoReviewedDTO:
		s.totals.AutoReview.Add(d)
		if s.fold != nil {
			s.review.Add(d)
		}
	}
}

// asRunLine is a line as a v1 reader of the run alone reads it: the
// harness's lines are of an unknown type.
func asRunLine(dto any) any {
	if typ, ok := names[reflect.TypeOf(dto)]; ok {
		return stream.UnknownDTO{V: stream.SchemaVersion, Type: typ, At: reflect.ValueOf(dto).Field(0).Interface().(time.Time)}
	}
	return dto
}

// end closes the open run and hands it over.
func (s *Session) end() *Ended {
	f := s.fold
	e := &Ended{Run: s.runs - 1, Fold: f, Recomputed: f.Recomputed(), Verdict: f.Verdict(), Unreplaced: s.pending(), AutoReview: s.review}
	s.fold, s.texts, s.reasonings, s.review = nil, nil, nil, AutoReview{}
	s.totals.add(e.Summary)
	return e
}

// End says that the stream has ended: the run still open, if any, is cut
// off there (of a run's stream, the one run ends here, whatever its
// lines), and End's Change hands it over. Lines added after End are not
// folded.
func (s *Session) End() Change {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := Change{Run: -1, Message: -1, End: true}
	if s.ended {
		return ch
	}
	s.ended = true
	if !s.decided { // no line: a run's stream with none
		s.decide(nil, nil)
		if s.bom != nil {
			s.fold.Add(nil, s.bom)
		}
	}
	if s.fold != nil {
		ch.Ended = s.end()
	}
	return ch
}

// message sets the state of the message id (made when it is new) and
// returns its index; run is the run it was sent with, -2 to keep it.
func (s *Session) message(id string, state MessageState, run int) int {
	i, ok := s.byID[id]
	if !ok {
		if s.byID == nil {
			s.byID = map[string]int{}
		}
		i = len(s.messages)
		s.byID[id] = i
		s.messages = append(s.messages, Message{ID: id, Run: -1})
	}
	m := &s.messages[i]
	m.State = state
	if run != -2 {
		m.Run = run
	}
	return i
}

// stream appends a delta to its item, the last of its kind when it has
// the same id (and part), else a new one.
func (s *Session) stream(items *[]*Live, id string, part int, reasoning bool, text string) *Live {
	if n := len(*items); n > 0 {
		if l := (*items)[n-1]; l.ItemID == id && l.Part == part {
			l.buf = append(l.buf, text...)
			return l
		}
	}
	l := &Live{Index: s.items, ItemID: id, Part: part, Reasoning: reasoning, buf: append([]byte{}, text...)}
	s.items++
	*items = append(*items, l)
	return l
}

func pop(items *[]*Live) *Live {
	if len(*items) == 0 {
		return nil
	}
	l := (*items)[0]
	(*items)[0] = nil
	*items = (*items)[1:]
	return l
}

// pending is what the open run streamed that no response has taken the
// place of, the assistant text first, each kind oldest first, done.
func (s *Session) pending() []*Live {
	var out []*Live
	for _, l := range s.texts {
		out = append(out, l.done())
	}
	for _, l := range s.reasonings {
		out = append(out, l.done())
	}
	return out
}

// Harness reports whether the stream is a session stream of the harness
// (its first line a session_opened), not a run's: false before the first
// line.
func (s *Session) Harness() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.harness
}

// ID is the session's id: its session_opened's; of a run's stream, the
// run's session_id.
func (s *Session) ID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.opened != nil:
		return s.opened.ID
	case !s.harness && s.last != nil && s.last.Started() != nil:
		return s.last.Started().SessionID
	}
	return ""
}

// Opened is the session's session_opened, nil before it came (and for a
// run's stream).
func (s *Session) Opened() *SessionOpenedDTO {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened
}

// Runs counts the runs begun so far, the open one included.
func (s *Session) Runs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs
}

// Open reports whether a run is open: it has begun and not ended.
func (s *Session) Open() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fold != nil
}

// Finished reports whether the stream has said all it will: of a run's
// stream, its run_finished came (what follows is not folded); a session
// stream has no closing event, and is never finished.
func (s *Session) Finished() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.harness && s.last != nil && s.last.Finished()
}

// Fold calls f with the open run's fold, else the fold of the run that
// ended last, else an empty one, under the session's lock: for a view
// that asks it of the lines so far (its summary, its intervals). f must
// not keep the fold, nor add lines to it.
func (s *Session) Fold(f func(*stream.Fold)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.lastFold())
}

// Messages returns the session's messages, in the order they were first
// named. The slice is the caller's.
func (s *Session) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Message returns the message at index i of Messages.
func (s *Session) Message(i int) Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.messages[i]
}

// Lines counts the lines added (a byte-order mark, reported before the
// line it starts, is not one), and of them those that could not be
// decoded (a byte-order mark included), as stream.Recomputed counts a
// run's.
func (s *Session) Lines() (lines, lineErrors int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lines, s.lineErrors
}

// KeepText makes every run's fold keep what its lines say of each
// operation and call (stream.Fold.KeepText). Call it before the first
// Add.
func (s *Session) KeepText() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keepText = true
}

// KeepArguments makes every run's fold keep what KeepText keeps and each
// call's first arguments (stream.Fold.KeepArguments). Call it before the
// first Add.
func (s *Session) KeepArguments() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keepText, s.keepArgs = true, true
}

// Totals is what a session's runs add up to.
type Totals struct {
	Runs            int              `json:"runs"`
	Turns           int              `json:"turns"`
	ToolCalls       int              `json:"tool_calls"`
	FailedToolCalls int              `json:"failed_tool_calls"`
	Tokens          stream.TokensDTO `json:"tokens"`
	ModelMS         int64            `json:"model_ms"`
	WallMS          int64            `json:"wall_ms"` // the runs' wall times summed (the idle time between them is not in it)
	// AutoReview is what uah's auto-reviewer spent (its auto_reviewed
	// lines): model calls of its own, in no run's summary, so apart from
	// the runs' Tokens and never in them.
	AutoReview AutoReview `json:"auto_review"`
	// Compaction is what uah's compactions spent (its compacted lines'
	// stats.call): model calls of their own, apart from the runs' Tokens.
	Compaction Compaction `json:"compaction"`
}

// AutoReview adds up the auto-reviewer's verdicts (auto_reviewed): how
// many, how long they took, and their tokens (input includes the cached
// input; the reviewer reports no cache writes or reasoning).
type AutoReview struct {
	Reviews    int              `json:"reviews"`
	DurationMS int64            `json:"duration_ms"`
	Tokens     stream.TokensDTO `json:"tokens"`
}

// Add counts one verdict.
func (a *AutoReview) Add(d AutoReviewedDTO) {
	a.Reviews++
	a.DurationMS += d.DurationMS
	a.Tokens.Input += d.InputTokens
	a.Tokens.CachedInput += d.CachedInputTokens
	a.Tokens.Output += d.OutputTokens
}

func (t *Totals) add(sum stream.SummaryDTO) {
	st := sum.Stats
	t.Runs++
	t.Turns += st.Turns
	t.ToolCalls += st.ToolCalls
	t.FailedToolCalls += st.FailedToolCalls
	t.Tokens.Input += st.Tokens.Input
	t.Tokens.CachedInput += st.Tokens.CachedInput
	t.Tokens.CacheWriteInput += st.Tokens.CacheWriteInput
	t.Tokens.Output += st.Tokens.Output
	t.Tokens.Reasoning += st.Tokens.Reasoning
	t.ModelMS += st.ModelMS
	t.WallMS += sum.WallMS
}

// Totals sums the runs' recomputed summaries, the open run's so far
// included, and, apart from them, the auto-reviewer's verdicts and the
// compactions' calls.
func (s *Session) Totals() Totals {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.totals
	if s.fold != nil {
		t.add(s.fold.Recomputed().Summary)
	}
	return t
}

// Verdict is the stream's ending. Of a run's stream, its run's
// (stream.Fold.Verdict). Of a session stream, uah exec's rule (uah's
// ledger, row 126), on its last run's verdict: interrupted (exit 130)
// when the last run was; disk_limit (exit 3) when it hit the disk limit;
// otherwise error (exit 1) when an input_failed or an error notice
// appeared anywhere in the session; otherwise, with no run, EndNoRun, ok
// (exit 0); otherwise the last run's status, exit 0 when it is ok and 1
// when it is not (a timeout or a cut-off run too: uah exec has one exit
// code for them).
func (s *Session) Verdict() stream.Verdict {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.harness {
		return s.lastFold().Verdict()
	}
	return s.sessionVerdict(s.lastFold().Verdict(), "")
}

// VerdictOf is Verdict with the exit code of the process that wrote the
// stream and why it was stopped: of a run's stream, as
// stream.Fold.VerdictOf reads them; of a session stream, uah exec's rule
// (Verdict) on its last run's VerdictOf, stop interrupted counting as an
// interrupt, with the process's own exit code.
func (s *Session) VerdictOf(exitCode int, stop stream.Status) stream.Verdict {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.harness {
		return s.lastFold().VerdictOf(exitCode, stop)
	}
	v := s.sessionVerdict(s.lastFold().VerdictOf(exitCode, stop), stop)
	v.ExitCode = exitCode
	return v
}

// sessionVerdict is uah exec's rule on the last run's verdict.
func (s *Session) sessionVerdict(last stream.Verdict, stop stream.Status) stream.Verdict {
	ran := s.last != nil
	switch {
	case stop == stream.StatusInterrupted, ran && last.Status == stream.StatusInterrupted:
		return stream.Verdict{Ending: ending(ran, last), Status: stream.StatusInterrupted, ExitCode: stream.ExitInterrupted}
	case ran && last.Status == stream.StatusDiskLimit:
		return stream.Verdict{Ending: last.Ending, Status: stream.StatusDiskLimit, ExitCode: stream.ExitDiskLimit}
	case s.failed:
		return stream.Verdict{Ending: ending(ran, last), Status: stream.StatusError, ExitCode: stream.ExitError}
	case !ran:
		return stream.Verdict{Ending: stream.EndNoRun, Status: stream.StatusOK, ExitCode: stream.ExitOK}
	case last.Status == stream.StatusOK:
		return stream.Verdict{Ending: last.Ending, Status: stream.StatusOK, ExitCode: stream.ExitOK}
	}
	return stream.Verdict{Ending: last.Ending, Status: last.Status, ExitCode: stream.ExitError}
}

// ending is the last run's ending, EndNoRun without one.
func ending(ran bool, last stream.Verdict) stream.Ending {
	if !ran {
		return stream.EndNoRun
	}
	return last.Ending
}

func (s *Session) lastFold() *stream.Fold {
	if s.last == nil {
		return new(stream.Fold)
	}
	return s.last
}
