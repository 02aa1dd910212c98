package stream

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// Finding is one violation of the stream rules found by [Validate].
type Finding struct {
	Line    int    `json:"line"` // 1-based; 0 for the stream as a whole
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// Warning reports a finding that says something is wrong without the
// stream breaking a rule (RuleTimes: times a clock that stepped back also
// writes): a checker says it and does not fail on it.
func (f Finding) Warning() bool { return f.Rule == RuleTimes }

// String formats the finding as "LINE: message (rule)".
func (f Finding) String() string { return fmt.Sprintf("%d: %s (%s)", f.Line, f.Message, f.Rule) }

// The rules Validate checks, as Finding.Rule names them.
const (
	RuleJSON     = "json"         // every line is one JSON object with integer v, string type, RFC 3339 UTC at
	RuleVersion  = "version"      // v is 1
	RuleFirst    = "first"        // the first line is run_started
	RuleFinished = "run-finished" // exactly one run_finished, and it is the last line
	RuleRequired = "required"     // each known type has its identity fields (in strict mode, every field the writer always writes)
	RuleToolOp   = "tool-op"      // tool_finished follows its tool_started, or has ok:false without op_id
	RuleTurn     = "turn"         // turns count from 1; model_responded follows turn_started
	RuleStats    = "stats"        // the summary's stats and answer equal the recomputed ones
	RuleStatus   = "status"       // status is ok, error, timeout, interrupted or disk_limit
	RuleEnded    = "ended"        // a stream without run_finished ended as the contract allows
	RuleTimes    = "times"        // a warning: the summary's wall_ms is not negative, its started_at not after run_finished's at
)

// maxFindings is how many findings Validate keeps.
const maxFindings = 10000

// validator is a fold's checks (see Fold.Check): what the rules need to
// remember between lines; the rest (how the stream began and ended, the
// operations started, the stats) is the fold's.
type validator struct {
	validateOptions
	dec        *Decoder
	fold       *Fold
	findings   []Finding
	finishedAt int        // line of the first run_finished
	badFinish  *LineError // the first run_finished line that could not be decoded
	lastTurn   int
	turnSeen   bool
	lastLine   int // the line last checked
	count      int // the lines checked, which number them without a Decoder
}

func (v *validator) add(line int, rule, format string, args ...any) {
	v.findings = appendFinding(v.findings, Finding{Line: line, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

func appendFinding(fs []Finding, f Finding) []Finding {
	if len(fs) < maxFindings {
		fs = append(fs, f)
	}
	return fs
}

// Validate reads a stream and reports every violation of the v1 stream
// rules, in line order, not just the first. The error is nil unless the
// reader failed. A valid stream gives no findings. Validate keeps the first
// 10000 findings; no count changes a verdict.
//
// By default Validate is compatible: a v1 stream written before a field
// existed is valid, so it requires only v, type, at and each type's
// identity fields (call_id of the tool events, op_id of tool_started, turn
// of turn_started, summary of run_finished, status of a summary); a missing
// field reads as its zero value, and a present one must have its JSON type.
// [WithStrict] requires every field the current writer always writes. It
// reads with [WithFoldOnly], whatever opts say.
func Validate(r io.Reader, opts ...ValidateOption) ([]Finding, error) {
	var f Fold
	dec := leanDecoder(r, newDecoderOptions(opts))
	defer dec.recycle()
	f.Check(dec, opts...)
	for dto, err := range dec.All() {
		if err != nil {
			if _, ok := errors.AsType[*LineError](err); !ok {
				return f.check.findings, err
			}
		}
		f.Add(dto, err)
	}
	return f.Findings(), nil
}

// Check makes the fold check each line it is given, before it folds it,
// by every rule [Validate] checks: dec is the Decoder that reads the
// lines, and each line must be added right after dec decoded it (the
// checks read its number and which fields it had). With dec nil, the
// lines are DTOs made from events (every field there), numbered in the
// order they are added. [Fold.Findings] says what was found. Call it
// before the first Add. A session's checks check each of its runs so,
// with the session's line numbers.
func (f *Fold) Check(dec *Decoder, opts ...ValidateOption) {
	f.check = &validator{validateOptions: newValidateOptions(opts), dec: dec, fold: f}
}

// Findings returns the violations found so far, in line order, then
// those of the stream's end, as if it ended after the last line added:
// how it ended, and its run_finished summary against its events. It is
// nil without [Fold.Check]. At most 10000 are kept; the slice is the
// caller's.
func (f *Fold) Findings() []Finding {
	if f.check == nil {
		return nil
	}
	return f.check.end(slices.Clone(f.check.findings))
}

// first reports whether the next line is the stream's first.
func (v *validator) first() bool { return v.fold.decoded == 0 && !v.fold.blocked }

// before checks a line before the fold takes it.
func (v *validator) before(dto any, err error) {
	v.count++
	v.lastLine = v.count
	if v.dec != nil {
		v.lastLine = v.dec.Line()
	}
	if err != nil {
		if le, ok := errors.AsType[*LineError](err); ok {
			v.lineError(le)
		}
		return
	}
	v.line(dto)
}

// lineError checks a line that could not be decoded.
func (v *validator) lineError(le *LineError) {
	rule := RuleJSON
	if errors.Is(le, ErrUnsupportedVersion) {
		rule = RuleVersion
	}
	v.add(le.Line, rule, "%s", le.detail())
	if !errors.Is(le, ErrByteOrderMark) && v.first() { // after a byte-order mark, the line itself comes next
		v.add(le.Line, RuleFirst, "the first line could not be read, want run_started")
	}
	if le.Type == TypeRunFinished && v.badFinish == nil {
		v.badFinish = le
	}
}

// line checks a decoded line: where it stands, its required fields, the
// rules of its type.
func (v *validator) line(dto any) {
	line := v.lastLine
	typ := typeOf(dto)
	if v.first() && typ != TypeRunStarted {
		v.add(line, RuleFirst, "the first line is %s, want run_started", printable(typ))
	}
	if v.finishedAt != 0 {
		v.add(line, RuleFinished, "%s after run_finished (line %d): run_finished must be the last line", printable(typ), v.finishedAt)
	}
	if _, ok := dto.(UnknownDTO); !ok && v.dec != nil {
		for _, path := range v.dec.missing(kindByType[typ], v.strict) {
			v.add(line, RuleRequired, "missing required field %q", path)
		}
	}
	switch d := dto.(type) {
	case ToolFinishedDTO:
		v.toolFinished(line, d)
	case TurnStartedDTO:
		v.turnStarted(line, d)
	case ModelRespondedDTO:
		v.modelResponded(line, d)
	case AssistantMessageDTO:
		v.optionalTurn(line, d.Turn)
	case ReasoningDTO:
		v.optionalTurn(line, d.Turn)
	case RunFinishedDTO:
		if v.finishedAt == 0 {
			v.finishedAt = line
		}
		if !Status(d.Summary.Status).Final() {
			v.add(line, RuleStatus, "status %q, want one of ok, error, timeout, interrupted, disk_limit", d.Summary.Status)
		}
	}
}

// toolFinished: a tool_finished follows the tool_started of its op_id, or
// has no op_id and ok:false.
func (v *validator) toolFinished(line int, d ToolFinishedDTO) {
	_, started := v.fold.opKeys.Lookup(d.OpID)
	switch {
	case d.OpID != "" && !started:
		v.add(line, RuleToolOp, "tool_finished for op_id %q, which no tool_started began", d.OpID)
	case d.OpID == "" && d.OK:
		v.add(line, RuleToolOp, "tool_finished without op_id has ok:true; a call that failed before its operation started has ok:false")
	}
}

// turnStarted: turns count from 1 and do not go back.
func (v *validator) turnStarted(line int, d TurnStartedDTO) {
	if d.Turn < 1 {
		v.add(line, RuleTurn, "turn %d: turns count from 1", d.Turn)
	} else if d.Turn < v.lastTurn {
		v.add(line, RuleTurn, "turn %d after turn %d: turns do not go back", d.Turn, v.lastTurn)
	}
	v.lastTurn, v.turnSeen = d.Turn, true
}

// modelResponded: a response follows a turn_started, for its turn.
func (v *validator) modelResponded(line int, d ModelRespondedDTO) {
	switch {
	case !v.turnSeen:
		v.add(line, RuleTurn, "model_responded before any turn_started")
	case d.Turn != v.lastTurn:
		v.add(line, RuleTurn, "model_responded for turn %d, but the last turn_started is turn %d", d.Turn, v.lastTurn)
	}
}

// end appends to fs what the stream as a whole gives, as if it ended
// after the last line: how it ended, and the recorded summary against the
// events.
func (v *validator) end(fs []Finding) []Finding {
	add := func(line int, rule, format string, args ...any) {
		fs = appendFinding(fs, Finding{Line: line, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	f := v.fold
	switch {
	case f.Finished():
		rc := f.Recomputed()
		for _, d := range rc.Diff {
			add(v.finishedAt, RuleStats, "%s", d)
		}
		for _, d := range rc.Times {
			add(v.finishedAt, RuleTimes, "%s", d)
		}
	case v.badFinish != nil:
		add(v.badFinish.Line, RuleFinished, "the run_finished line at line %d is invalid: %s", v.badFinish.Line, v.badFinish.detail())
	case v.exitCode != noExitCode && f.VerdictOf(v.exitCode, "").Ending != EndCutOff:
	default:
		switch f.Verdict().Ending {
		case EndPreflightBlocked:
			add(0, RuleEnded, "no line: only a run blocked in preflight (exit 2) writes none")
		case EndStartFailed:
			add(0, RuleEnded, "the stream stops after run_started without run_finished: only a runner that could not start (exit 1) ends so")
		default:
			add(0, RuleFinished, "no run_finished: the stream was cut off after line %d", v.lastLine)
		}
	}
	return fs
}

// printable is s as it is when every character of it is printable, else
// quoted, so that a finding never carries a stream's control characters.
func printable(s string) string {
	if q := strconv.Quote(s); q[1:len(q)-1] != s {
		return q
	}
	return s
}

func (v *validator) optionalTurn(line, turn int) {
	if turn < 0 {
		v.add(line, RuleTurn, "turn %d: turns count from 1", turn)
	}
}
