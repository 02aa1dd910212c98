package stream

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/uagentkit/stream/internal/intern"
)

// Fold is the one fold of a run: it takes the run's lines in arrival order
// (what a [Decoder] returns for each, or domain events from a writer) and
// answers every question about the run, so that every view of it (the
// stats, the transcript, the timeline, the page, spans, table rows, the
// editor's updates, the checker) shows the same run:
//
//   - which model turn, tool operation, tool call and notice each line
//     opened, restarted, closed or repeated (the [Change] Add returns), and
//     those turns, operations, calls and notices themselves;
//   - the run's stats and answer, exactly as the uagent runner computes
//     them (the rules are below), and its summary ([Fold.Recomputed]);
//   - how the summary its run_finished line holds differs from the events
//     (Recomputed's Diff), leaving out only the fields the line does not have;
//   - how the stream ended and what that means ([Fold.Verdict],
//     [Fold.VerdictOf]);
//   - when the run began and ended ([Fold.Times]) and when tools ran while
//     the model was generating ([Fold.Overlaps]).
//
// The runner's arithmetic has no special cases: empty strings, zero times
// and intervals that end before they start take part like any other value.
//
//   - Observed times are those of turn_started, model_responded,
//     tool_called, tool_started, tool_finished, assistant_message,
//     user_message, developer_message and control_input. A zero time is not
//     observed. EventSpan is the latest observed time minus the first one
//     observed (in arrival order), or 0 when none was.
//   - Turns counts turn_started, UserMessages user_message only,
//     ModelResponses model_responded; Tokens sums their usage.
//   - A turn_started opens a turn at its time (a second one restarts the
//     open turn: its start moves, the earlier start is dropped); a
//     model_responded closes [start, at] if a turn is open, even when at is
//     before the start or either time is zero.
//   - A tool_started opens an interval keyed by its op_id, the empty op_id
//     included; the first start of an op_id wins. The first tool_finished
//     with that op_id (a missing op_id is the empty one) closes it. A
//     tool_finished whose op_id was never started adds no interval. Zero
//     times open and close intervals like any other.
//   - At the end, an open turn and unfinished operations run to the later
//     of the latest observed time and the end time: the time of the last
//     line so far (of known or unknown type), or of run_finished once it
//     came, or what [Fold.EndAt] set.
//   - The model intervals and the tool intervals are each sorted by start
//     (equal starts keep their arrival order) and merged: a start at or
//     before the previous end merges, and the end becomes the later of the
//     two. ModelTime and ToolBusyTime are the sums of end − start over the
//     merged intervals, negative lengths included, each in time.Time.Sub
//     arithmetic (which saturates). ToolModelOverlap walks the two merged
//     lists pairwise: each pair adds min(ends) − max(starts) when that is
//     positive, then the list whose interval ends first advances (on a tie,
//     the tool list).
//   - MaxParallelTools sweeps the tool intervals' start (+1) and end (−1)
//     edges sorted by time, ends before starts at the same instant, and
//     keeps the highest running count. A reversed interval still
//     contributes both edges.
//   - A call_id is registered the first time it appears in tool_called,
//     tool_started or tool_finished, under that line's name ("?" when the
//     name is empty). ToolCalls counts the calls, ToolsByName counts them by
//     that name, FailedToolCalls counts the calls with any ok:false. The
//     first tool_finished of a call finishes it.
//   - StopReasons counts stops other than "" and "complete"; Failures lists
//     model_responded failures, Errors runner_error messages, Warnings
//     preflight_warning messages, in order.
//   - Every assistant_message sets the last text, even to "". A final one
//     sets the final text, even to "" (clearing an earlier final). The
//     answer is the final text if it is non-empty, else the last text.
//     FinalAnswer reports a non-empty final text.
//
// Durations are summed in nanoseconds; they become milliseconds, truncated
// toward zero, only in [StatsDTO]. Lines after run_finished are counted
// but not folded; a line that could not be decoded is counted.
//
// What the Fold keeps, and so what it costs: per turn and per operation
// two times (eight bytes each) and a few numbers; per call two times, its
// name's index and a few flags; every call_id and op_id once, and every
// tool name and notice once; the lists and counts the stats report; the
// final and the last assistant text; the identity of run_started and the
// run_finished summary. It keeps no argument, label, detail, path or
// message text beyond those: what a line says of a turn, an operation or a
// call (its label, arguments, detail, paths, usage) is handed over by
// [Fold.Turn], [Fold.Tool] and [Fold.Call] while the line is the last one
// added, and of an open operation its first start's label, op type and
// paths are kept until it closes. A view that wants more keeps it itself,
// from the line the Change names.
//
// The ids and names in what Turn, Tool, Call and their lists return share
// the fold's memory, which is kept in blocks of up to 64 KiB: a value that keeps
// one after the fold is gone keeps such a block, so clone it
// (strings.Clone) to keep it long. Stats, Summary and the rest are the
// caller's own. What the Fold keeps of a line past it is its own copy, so
// a Fold may be given the DTOs of a Decoder with [WithBorrowedStrings];
// what Turn, Tool and Call hand over of the line last added is that
// line's, valid as long as it is.
//
// The zero Fold is empty and ready. A Fold is not safe for concurrent use.
type Fold struct {
	// The lines.
	decoded, lineErrors, boms int // lines decoded, lines not, and of those the byte-order marks
	firstErrors               []error
	blocked                   bool // a line that could not be decoded came (a byte-order mark is not one)
	onlyStart                 bool // the lines so far are run_started, then preflight warnings
	started                   *RunStartedDTO
	recorded                  *SummaryDTO
	absent                    uint64        // the fields the recorded summary's line lacks
	within                    time.Duration // RunFinished.EndWithin
	line                      any           // the DTO last added, which Turn, Tool and Call read from
	lineCall                  int           // the index+1 of the call that line named, 0 for none
	lineFinished              bool          // that line was its call's first tool_finished
	firstAt                   time.Time
	change                    Change // what the last line changed

	// The runner's arithmetic.
	observed          bool
	obsFirst, obsLast instant
	closeAt           instant
	far               []time.Time // the times an instant cannot hold
	farIdx            map[[2]int64]int
	turns             int
	userMessages      int
	modelResponses    int
	tokens            Tokens

	turnOpen bool
	open     turnRec // the open turn
	openID   string  // its turn_id
	model    []turnRec

	opKeys    intern.Set // op_id → index in ops
	ops       []opRec
	opLines   map[int]opLine // what the first start of each open operation said
	closedOp  opLine         // what the closed one said, while its Change is the last
	callKeys  intern.Set     // call_id → index in calls
	calls     []callRec
	names     intern.Set // tool names, for calls and operations
	byName    []int      // calls per name index (0 for a name only operations have)
	failed    int
	noticeIdx map[string]int
	notices   []Notice

	stopReasons                map[string]int
	failures, errors, warnings []string
	finalText, lastText        string

	// With KeepText: what the lines said of every operation and call.
	keepText, keepArgs bool
	opTexts            []opText
	callTexts          []callText
	turnFailures       []string // each closed turn's failure, by its index

	check *validator  // with Check: the rules, checked as the lines come
	final *SummaryDTO // the summary, once run_finished came

	reasons intern.Set // the stop reasons counted (see reason)
}

// opText is what KeepText keeps of an operation: what its first start
// said, and its closing finish's detail and paths.
type opText struct {
	opLine
	detail string
}

// callText is what KeepText keeps of a call: the label of the line that
// registered it and when; its first finish's detail and time; its first
// tool_called's arguments (with arguments).
type callText struct {
	label, args, detail string
	at, finishedAt      time.Time
	called              bool
}

type turnRec struct {
	start, end instant
	turn       int
}

type opRec struct {
	start, end instant
	call, name int32
	turn       int32
	open, ok   bool
}

type callRec struct {
	name, turn, ops int32
	flags           uint8
}

// The flags of a call.
const (
	callFailed uint8 = 1 << iota
	callFinished
	callOK
)

// opLine is what the first tool_started of an operation said of it.
type opLine struct {
	label, opType, outPath, errPath string
}

// Step is what one line did to a turn, an operation, a call or a notice.
type Step uint8

// The steps of a [Change].
const (
	// StepOpened: a turn or an operation began, a call was registered, a
	// notice came for the first time.
	StepOpened Step = iota + 1
	// StepRestarted: a turn_started while a turn was open moved its start.
	StepRestarted
	// StepClosed: a turn or an operation was closed, a call finished.
	StepClosed
	// StepRepeated: a notice came again.
	StepRepeated
)

// Change is what one line changed in the fold: for the turn, the operation,
// the call and the notice it touched, the step and the index (in
// [Fold.Turns], [Fold.Tools], [Fold.Calls] and [Fold.Notices], which never
// reorder). A zero Step means nothing changed there.
type Change struct {
	TurnStep, ToolStep, CallStep, NoticeStep     Step
	TurnIndex, ToolIndex, CallIndex, NoticeIndex int
}

// maxKeptErrors is how many line errors a Fold keeps.
const maxKeptErrors = 1000

// Add folds one line: what a [Decoder] returned for it (a DTO and a nil
// error, or nil and the line's error), and returns what it changed. Lines
// after run_finished are counted but not folded. The DTO is kept until the
// next Add, for what Turn, Tool and Call hand over of it.
func (f *Fold) Add(dto any, err error) Change {
	f.line, f.change, f.closedOp, f.lineCall, f.lineFinished = nil, Change{}, opLine{}, 0, false
	if f.check != nil {
		f.check.before(dto, err)
	}
	if err != nil {
		f.lineErrors++
		if len(f.firstErrors) < maxKeptErrors {
			f.firstErrors = append(f.firstErrors, err)
		}
		if errors.Is(err, ErrByteOrderMark) { // the line itself comes next
			f.boms++
		} else {
			f.blocked, f.onlyStart = true, false
		}
		return f.change
	}
	f.decoded++
	if f.recorded != nil {
		return f.change
	}
	switch d := dto.(type) {
	case RunStartedDTO:
		if f.started == nil {
			d.RunID, d.SessionID, d.Provider = f.keep(d.RunID), f.keep(d.SessionID), f.keep(d.Provider)
			d.Model, d.Effort, d.Workspace = f.keep(d.Model), f.keep(d.Effort), f.keep(d.Workspace)
			f.started = &d
		}
		f.onlyStart = f.decoded == 1 && !f.blocked
	case PreflightWarningDTO:
	case RunFinishedDTO:
		f.onlyStart = false
		f.recorded, f.absent, f.within = f.keepSummary(d.Summary), d.absent, d.within
		f.firstTime(d.At)
		f.closeAt = f.instant(d.At)
		if f.within > 0 {
			f.settleEnd()
		}
		return f.change
	case UnknownDTO:
		f.onlyStart = false
		f.firstTime(d.At)
		f.closeAt = f.instant(d.At)
		return f.change
	default:
		f.onlyStart = false
	}
	e, ok := DTOToEvent(dto)
	if !ok {
		return f.change
	}
	f.line = dto
	f.event(e)
	at := e.OccurredAt()
	f.firstTime(at)
	f.closeAt = f.instant(at)
	return f.change
}

// AddEvent folds a domain event as Add folds its line, for a writer that
// wants the stats of what it emits.
func (f *Fold) AddEvent(e Event) Change {
	dto, ok := EventToDTO(e)
	if !ok {
		return Change{}
	}
	return f.Add(dto, nil)
}

func (f *Fold) firstTime(t time.Time) {
	if f.firstAt.IsZero() {
		f.firstAt = t
	}
}

// EndAt sets the end time, where open turns and operations run to (with
// the latest observed time, when that is later), until the next line sets
// it again: for a writer that computes the stats of its run_finished
// before it emits it.
func (f *Fold) EndAt(t time.Time) { f.closeAt = f.instant(t) }

func (f *Fold) observe(t instant) {
	if t == 0 {
		return
	}
	if !f.observed {
		f.obsFirst, f.observed = t, true
	}
	if f.compare(t, f.obsLast) > 0 {
		f.obsLast = t
	}
}

// register registers a call the first time its id appears, and returns
// its index.
func (f *Fold) register(id, name string) int {
	i, added := f.callKeys.Index(id)
	f.change.CallIndex, f.lineCall = i, i+1
	if !added {
		return i
	}
	f.change.CallStep = StepOpened
	if name == "" {
		name = "?"
	}
	n, _ := f.names.Index(name)
	for len(f.byName) <= n { // the names of operations have no count
		f.byName = append(f.byName, 0)
	}
	f.byName[n]++
	f.calls = append(f.calls, callRec{name: int32(n), turn: int32(f.open.turn)})
	return i
}

// event folds a domain event by the rules above.
func (f *Fold) event(e Event) {
	ch := &f.change
	switch e := e.(type) {
	case TurnStarted:
		at := f.instant(e.At)
		f.observe(at)
		f.turns++
		ch.TurnStep, ch.TurnIndex = StepOpened, len(f.model)
		if f.turnOpen {
			ch.TurnStep = StepRestarted
		}
		f.turnOpen, f.open, f.openID = true, turnRec{start: at, turn: e.Turn}, f.keep(e.TurnID)
	case ModelResponded:
		at := f.instant(e.At)
		f.observe(at)
		f.modelResponses++
		f.tokens = f.tokens.Add(e.Usage)
		if f.turnOpen {
			iv := f.open
			iv.end = at
			ch.TurnStep, ch.TurnIndex = StepClosed, len(f.model)
			f.model = append(f.model, iv)
			f.turnOpen = false
			if f.keepText {
				f.turnFailures = append(f.turnFailures, f.keep(e.Failure))
			}
		}
		if e.Stop != "" && e.Stop != StopComplete {
			if f.stopReasons == nil {
				f.stopReasons = map[string]int{}
			}
			f.stopReasons[f.reason(e.Stop)]++
		}
		if e.Failure != "" {
			f.failures = append(f.failures, f.keep(e.Failure))
		}
	case ToolCalled:
		at := f.instant(e.At)
		f.observe(at)
		call := f.register(e.CallID, e.Name)
		if f.keepText {
			t := f.keepCall(call, e.Label, e.At)
			if f.keepArgs && !t.called {
				t.args, t.called = f.keep(e.Arguments), true
			}
		}
	case ToolStarted:
		at := f.instant(e.At)
		f.observe(at)
		call := f.register(e.CallID, e.Name)
		if f.keepText {
			f.keepCall(call, e.Label, e.At)
		}
		i, added := f.opKeys.Index(e.OpID)
		if !added {
			return
		}
		f.calls[call].ops++
		ch.ToolStep, ch.ToolIndex = StepOpened, i
		name, _ := f.names.Index(e.Name)
		f.ops = append(f.ops, opRec{start: at, call: int32(call), name: int32(name), turn: int32(f.open.turn), open: true})
		if f.opLines == nil {
			f.opLines = map[int]opLine{}
		}
		f.opLines[i] = opLine{label: f.keep(e.Label), opType: f.keep(e.OpType), outPath: f.keep(e.OutPath), errPath: f.keep(e.ErrPath)}
		if f.keepText {
			f.opTexts = append(f.opTexts, opText{opLine: f.opLines[i]})
		}
	case ToolFinished:
		at := f.instant(e.At)
		f.observe(at)
		call := f.register(e.CallID, e.Name)
		c := &f.calls[call]
		if f.keepText {
			t := f.keepCall(call, e.Label, e.At)
			if c.flags&callFinished == 0 {
				t.detail, t.finishedAt = f.keep(e.Detail), e.At
			}
		}
		if !e.OK && c.flags&callFailed == 0 {
			c.flags |= callFailed
			f.failed++
		}
		if c.flags&callFinished == 0 {
			c.flags |= callFinished
			if e.OK {
				c.flags |= callOK
			}
			f.lineFinished = true
			if ch.CallStep == 0 {
				ch.CallStep = StepClosed
			}
		}
		if i, ok := f.opKeys.Lookup(e.OpID); ok && f.ops[i].open {
			op := &f.ops[i]
			op.end, op.open, op.ok = at, false, e.OK
			ch.ToolStep, ch.ToolIndex = StepClosed, i
			f.closedOp = f.opLines[i]
			delete(f.opLines, i)
			if f.keepText {
				t := &f.opTexts[i]
				t.detail, t.outPath, t.errPath = f.keep(e.Detail), cmp.Or(f.keep(e.OutPath), t.outPath), cmp.Or(f.keep(e.ErrPath), t.errPath)
			}
		}
	case AssistantMessage:
		f.observe(f.instant(e.At))
		f.lastText = f.keep(e.Text)
		if e.Final {
			f.finalText = f.lastText
		}
	case UserMessage:
		f.observe(f.instant(e.At))
		f.userMessages++
	case DeveloperMessage:
		f.observe(f.instant(e.At))
	case ControlInput:
		f.observe(f.instant(e.At))
	case PreflightWarning:
		f.warnings = append(f.warnings, f.keep(e.Message))
		f.notice(TypePreflightWarning, e.Code, e.Message, e.At)
	case RunnerError:
		f.errors = append(f.errors, f.keep(e.Message))
		f.notice(TypeRunnerError, "", e.Message, e.At)
	}
}

// keepCall returns what KeepText keeps of call, made by the line that
// registered it.
func (f *Fold) keepCall(call int, label string, at time.Time) *callText {
	if call == len(f.callTexts) {
		f.callTexts = append(f.callTexts, callText{label: f.keep(label), at: at})
	}
	return &f.callTexts[call]
}

// KeepText makes the fold keep what the lines say of every operation and
// call (their labels, op types, paths, details, and when each call was
// registered and first finished) and each turn's failure, so that
// [Fold.Tool], [Fold.Call] and [Fold.Turn] give them at any time, not
// only in the Change of the line that said them: for a view that shows
// every operation once the run is over (a page, a picture, table rows).
// It costs what they weigh. Call it before the first Add.
func (f *Fold) KeepText() { f.keepText = true }

// KeepArguments makes the fold keep what KeepText keeps and each call's
// first tool_called arguments. Call it before the first Add.
func (f *Fold) KeepArguments() { f.keepText, f.keepArgs = true, true }

// notice counts a notice under its key: the package's one rule for them.
func (f *Fold) notice(typ, code, message string, at time.Time) {
	key := typ + "\x00" + code + "\x00" + message
	i, seen := f.noticeIdx[key]
	if !seen {
		if f.noticeIdx == nil {
			f.noticeIdx = map[string]int{}
		}
		i = len(f.notices)
		f.noticeIdx[key] = i
		f.notices = append(f.notices, Notice{Type: typ, Code: f.keep(code), Message: f.keep(message), At: at})
	}
	f.notices[i].Count++
	f.change.NoticeStep, f.change.NoticeIndex = StepOpened, i
	if seen {
		f.change.NoticeStep = StepRepeated
	}
}

// keep returns s with memory of its own, for a string the fold keeps past
// the line it came in: a DTO's strings may be borrowed
// ([WithBorrowedStrings]), valid only until the next line is read. A copy,
// not an interned string, so that what the fold lets go of (an open
// operation's label and paths, at its close; the turn_id of the turn
// before) is let go of.
func (f *Fold) keep(s string) string {
	if s == "" {
		return ""
	}
	return strings.Clone(s)
}

// reason returns a stop reason the fold counts, interned: a run has a few
// of them, said on many lines.
func (f *Fold) reason(s string) string {
	i, _ := f.reasons.Index(s)
	return f.reasons.Key(i)
}

// keepSummary returns a copy of a recorded summary whose strings are the
// fold's own (see keep); its maps' keys are always the Decoder's copies.
func (f *Fold) keepSummary(s SummaryDTO) *SummaryDTO {
	s.Status, s.RunID, s.SessionID, s.Provider = f.keep(s.Status), f.keep(s.RunID), f.keep(s.SessionID), f.keep(s.Provider)
	s.Model, s.Effort, s.Workspace, s.Answer = f.keep(s.Model), f.keep(s.Effort), f.keep(s.Workspace), f.keep(s.Answer)
	for _, list := range []*[]string{&s.Stats.Failures, &s.Stats.Errors, &s.Stats.Warnings} {
		if *list != nil {
			*list = slices.Clone(*list)
			for i, x := range *list {
				(*list)[i] = f.keep(x)
			}
		}
	}
	return &s
}
