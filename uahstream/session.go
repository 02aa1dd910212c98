package uahstream

import (
	"reflect"
	"time"

	"github.com/uagentkit/stream"
)

// Session is the fold of a session stream: a stream.Fold for each run,
// from its run_started to its run_finished (or to the line that cut it
// off: the next run_started, or the end), fed the run's lines as a v1
// reader of the run alone reads them (the harness's lines inside it as
// lines of an unknown type); the session's own events; which messages
// were queued, sent, delivered, failed or withdrawn; and the live text
// the model streams before each response's authoritative message.
//
// Memory: the open run's fold (or the last run's), each ended run's
// summary, every message's id and state, and the text streamed since the
// last response of the open run. The zero Session is empty and ready. A
// Session is not safe for concurrent use.
type Session struct {
	opened     *SessionOpenedDTO
	runs       []Run
	fold       *stream.Fold // the open run's, nil between runs
	last       *stream.Fold // the open run's, else the run's that ended last
	messages   []Message
	byID       map[string]int
	texts      []*Live // streamed assistant text not yet replaced, oldest first
	reasonings []*Live
	items      int // streamed items so far, for their Index
	lines      int
	lineErrors int
}

// Run is one run of a session, as far as it went.
type Run struct {
	// Line is the line of its run_started in the session stream; Lines
	// the lines it has (run_started and run_finished included).
	Line, Lines int
	// Recomputed is what stream.Summarize says of the run's lines alone;
	// for the open run, of its lines so far.
	stream.Recomputed
	// Verdict is how the run ended (for the open run, how its stream
	// ends so far).
	Verdict stream.Verdict
	// Open reports the run still going: no run_finished yet, and no line
	// that cut it off.
	Open bool
}

// MessageState is where a message of the session is.
type MessageState uint8

// The states of a message, each the last event that named it.
const (
	Queued    MessageState = iota + 1 // input_queued
	Sent                              // input_sent: a run was started with it
	Delivered                         // input_delivered: the run received it
	Failed                            // input_failed: no run received it
	Withdrawn                         // input_withdrawn: taken back before it was sent
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
	// Run is the index in Session.Runs of the run it was sent with, or -1.
	Run int
}

// Live is text the model streamed: the deltas of one item, joined.
// Index numbers the session's items from 0, in the order they began: the
// key a view keeps an item's text by.
type Live struct {
	Index     int
	ItemID    string
	Part      int // of reasoning
	Reasoning bool
	Text      string
}

// LiveStep says what a line did to the streamed text.
type LiveStep uint8

// The steps of the streamed text.
const (
	// Streamed: a delta came (Change.Delta), to the item Change.Live.
	Streamed LiveStep = iota + 1
	// Replaced: the response's assistant_message or reasoning took the
	// place of the oldest streamed item of its kind (Change.Live, what had
	// streamed; Change.Same when the two texts are the same).
	Replaced
	// Void: a stream_reset voided what streamed since the last response
	// (Change.Voided: the assistant text, then the reasoning).
	Void
)

// Change is what one line changed in the session.
type Change struct {
	// Run is the index in Runs of the run the line belongs to, or -1 for
	// a line between runs.
	Run int
	// Started reports the line opened a run; Ended that it ended it
	// (run_finished); CutOff is the index of a run this line's
	// run_started cut off, or -1.
	Started, Ended bool
	CutOff         int
	// Step is what the line changed in its run's fold.
	Step stream.Change
	// Message is the index in Messages of the message the line named
	// (the last, for a line that names several), or -1.
	Message int
	// Live text: the step, the item, the delta or whether a replacing
	// text is the same as the streamed one, and the items voided.
	LiveStep LiveStep
	Live     *Live
	Delta    string
	Same     bool
	Voided   []*Live
	// Unreplaced is what the run that ended here (Ended or CutOff)
	// streamed that no response took the place of: a view that has not
	// shown it shows it now. The items end with their run.
	Unreplaced []*Live
}

// Add folds the next line (what a Decoder returned for it) and returns
// what it changed.
func (s *Session) Add(dto any, err error) Change {
	s.lines++
	ch := Change{Run: -1, CutOff: -1, Message: -1}
	if err != nil {
		s.lineErrors++
	}
	if s.byID == nil {
		s.byID = map[string]int{}
	}
	if err != nil {
		if s.fold != nil {
			ch.Run = len(s.runs) - 1
			ch.Step = s.fold.Add(nil, err)
			s.runs[ch.Run].Lines++
		}
		return ch
	}
	if _, ok := dto.(stream.RunStartedDTO); ok {
		if s.fold != nil {
			ch.CutOff = len(s.runs) - 1
			ch.Unreplaced = s.end()
		}
		s.fold = new(stream.Fold)
		s.last = s.fold
		s.runs = append(s.runs, Run{Line: s.lines, Open: true})
		ch.Started = true
	}
	if s.fold != nil {
		ch.Run = len(s.runs) - 1
		ch.Step = s.fold.Add(asRunLine(dto), nil)
		s.runs[ch.Run].Lines++
	}
	switch d := dto.(type) {
	case SessionOpenedDTO:
		if s.opened == nil {
			s.opened = &d
		}
	case InputQueuedDTO:
		ch.Message = s.message(d.ID, Queued, ch.Run)
	case InputSentDTO:
		for _, id := range d.IDs {
			ch.Message = s.message(id, Sent, len(s.runs)) // the run it starts comes next
		}
	case InputDeliveredDTO:
		ch.Message = s.message(d.ID, Delivered, -2)
	case InputFailedDTO:
		for _, id := range d.IDs {
			ch.Message = s.message(id, Failed, -2)
			s.messages[ch.Message].Reason = d.Reason
		}
	case InputWithdrawnDTO:
		ch.Message = s.message(d.ID, Withdrawn, -2)
	case TextDeltaDTO:
		ch.LiveStep, ch.Delta = Streamed, d.Text
		ch.Live = s.stream(&s.texts, d.ItemID, 0, false, d.Text)
	case ReasoningDeltaDTO:
		ch.LiveStep, ch.Delta = Streamed, d.Text
		ch.Live = s.stream(&s.reasonings, d.ItemID, d.Part, true, d.Text)
	case stream.AssistantMessageDTO:
		if ch.Live = pop(&s.texts); ch.Live != nil {
			ch.LiveStep, ch.Same = Replaced, ch.Live.Text == d.Text
		}
	case stream.ReasoningDTO:
		if ch.Live = pop(&s.reasonings); ch.Live != nil {
			ch.LiveStep, ch.Same = Replaced, ch.Live.Text == d.Text
		}
	case StreamResetDTO:
		ch.LiveStep, ch.Voided = Void, append(s.texts, s.reasonings...)
		s.texts, s.reasonings = nil, nil
	case stream.RunFinishedDTO:
		if s.fold != nil {
			ch.Ended = true
			ch.Unreplaced = s.end()
		}
	}
	return ch
}

// asRunLine is a line as a v1 reader of the run alone reads it: the
// harness's lines are of an unknown type.
func asRunLine(dto any) any {
	if typ, ok := names[reflect.TypeOf(dto)]; ok {
		return stream.UnknownDTO{V: stream.SchemaVersion, Type: typ, At: reflect.ValueOf(dto).Field(0).Interface().(time.Time)}
	}
	return dto
}

// end closes the open run, and returns what it streamed that no
// response replaced.
func (s *Session) end() []*Live {
	r := &s.runs[len(s.runs)-1]
	r.Recomputed, r.Verdict, r.Open = s.fold.Recomputed(), s.fold.Verdict(), false
	s.fold = nil
	left := s.Pending()
	s.texts, s.reasonings = nil, nil
	return left
}

// message sets the state of the message id (made when it is new) and
// returns its index; run is the run it was sent with, -2 to keep it.
func (s *Session) message(id string, state MessageState, run int) int {
	i, ok := s.byID[id]
	if !ok {
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
			l.Text += text
			return l
		}
	}
	l := &Live{Index: s.items, ItemID: id, Part: part, Reasoning: reasoning, Text: text}
	s.items++
	*items = append(*items, l)
	return l
}

func pop(items *[]*Live) *Live {
	if len(*items) == 0 {
		return nil
	}
	l := (*items)[0]
	*items = (*items)[1:]
	return l
}

// ID is the session's id: its session_opened's.
func (s *Session) ID() string {
	if s.opened != nil {
		return s.opened.ID
	}
	return ""
}

// Opened is the session's session_opened, nil before it came.
func (s *Session) Opened() *SessionOpenedDTO { return s.opened }

// Runs returns the session's runs in order, the open one last with its
// summary so far. The slice is the caller's.
func (s *Session) Runs() []Run {
	out := append([]Run(nil), s.runs...)
	if s.fold != nil {
		out[len(out)-1].Recomputed, out[len(out)-1].Verdict = s.fold.Recomputed(), s.fold.Verdict()
	}
	return out
}

// Fold is the open run's fold, nil between runs.
func (s *Session) Fold() *stream.Fold { return s.fold }

// Last is the fold of the open run, else of the run that ended last; nil
// before the first run.
func (s *Session) Last() *stream.Fold { return s.last }

// Messages returns the session's messages, in the order they were first
// named. The slice is the caller's.
func (s *Session) Messages() []Message { return append([]Message(nil), s.messages...) }

// Message returns the message at index i of Messages.
func (s *Session) Message(i int) Message { return s.messages[i] }

// Pending returns what the open run streamed that no authoritative
// message has taken the place of yet, the assistant text first, each kind
// oldest first: at the end of a stream cut off while the model wrote,
// what it had written.
// The items are the session's, those its Changes name: read them, do not
// change them.
func (s *Session) Pending() []*Live {
	return append(append([]*Live(nil), s.texts...), s.reasonings...)
}

// Lines counts the lines added, and of them the line errors.
func (s *Session) Lines() (lines, lineErrors int) { return s.lines, s.lineErrors }

// Totals is what a session's runs add up to.
type Totals struct {
	Runs            int              `json:"runs"`
	Turns           int              `json:"turns"`
	ToolCalls       int              `json:"tool_calls"`
	FailedToolCalls int              `json:"failed_tool_calls"`
	Tokens          stream.TokensDTO `json:"tokens"`
	ModelMS         int64            `json:"model_ms"`
	WallMS          int64            `json:"wall_ms"` // the runs' wall times summed (the idle time between them is not in it)
}

// Totals sums the runs' recomputed summaries, the open run's so far
// included.
func (s *Session) Totals() Totals {
	var t Totals
	for _, r := range s.Runs() {
		st := r.Summary.Stats
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
		t.WallMS += r.Summary.WallMS
	}
	return t
}

// Verdict is the session's ending: its last run's verdict, as the exit
// code follows the last run_finished (a session closed during a run ends
// with the run's run_finished, status interrupted). A session without a
// run ends as a stream with no line does.
func (s *Session) Verdict() stream.Verdict { return s.lastFold().Verdict() }

// VerdictOf is Verdict with the exit code of the process that wrote the
// stream and why it was stopped, as stream.Fold.VerdictOf reads them: of
// the last run.
func (s *Session) VerdictOf(exitCode int, stop stream.Status) stream.Verdict {
	return s.lastFold().VerdictOf(exitCode, stop)
}

func (s *Session) lastFold() *stream.Fold {
	if s.last == nil {
		return new(stream.Fold)
	}
	return s.last
}
