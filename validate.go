package stream

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Finding is one violation of the stream rules found by [Validate].
type Finding struct {
	Line    int    `json:"line"` // 1-based; 0 for the stream as a whole
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

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
)

// maxFindings is how many findings Validate keeps.
const maxFindings = 10000

type validator struct {
	options
	findings []Finding
}

func (v *validator) add(line int, rule, format string, args ...any) {
	if len(v.findings) < maxFindings {
		v.findings = append(v.findings, Finding{Line: line, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
}

// Validate reads a stream and reports every violation of the v1 stream
// rules, in line order, not just the first. The error is nil unless the
// reader failed. A valid stream gives no findings. Validate keeps the first
// 10000 findings.
//
// By default Validate is compatible: a v1 stream written before a field
// existed is valid, so it requires only v, type, at and each type's
// identity fields (call_id of the tool events, op_id of tool_started, turn
// of turn_started, summary of run_finished, status of a summary); a missing
// field reads as its zero value, and a present one must have its JSON type.
// [WithStrict] requires every field the current writer always writes. Of
// the options, Validate reads [WithExitCode], [WithStrict] and
// [WithMaxLineSize].
func Validate(r io.Reader, opts ...Option) ([]Finding, error) {
	v := &validator{options: newOptions(opts)}
	dec := NewDecoder(r, opts...)
	var (
		lines      int
		startOnly  = true     // every line so far is run_started, then preflight warnings
		finishedAt int        // line of the first run_finished
		badFinish  *LineError // the first run_finished line that could not be decoded
		sum        Summarizer // the stats and answer, folded as Summarize folds them
		opsStarted = map[string]bool{}
		lastTurn   int
		turnSeen   bool
	)
	for dto, err := range dec.All() {
		line := dec.Line()
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) {
				return v.findings, err
			}
			rule := RuleJSON
			if errors.Is(err, ErrUnsupportedVersion) {
				rule = RuleVersion
			}
			v.add(le.Line, rule, "%s", le.detail())
			if errors.Is(err, ErrByteOrderMark) {
				continue // the line itself comes next
			}
			lines++
			startOnly = false
			if lines == 1 {
				v.add(le.Line, RuleFirst, "the first line could not be read, want run_started")
			}
			if le.Type == TypeRunFinished && badFinish == nil {
				badFinish = le
			}
			continue
		}
		lines++
		typ := TypeOf(dto)
		if lines == 1 {
			startOnly = typ == TypeRunStarted
		} else {
			startOnly = startOnly && typ == TypePreflightWarning
		}
		if lines == 1 && typ != TypeRunStarted {
			v.add(line, RuleFirst, "the first line is %s, want run_started", printable(typ))
		}
		if finishedAt != 0 {
			v.add(line, RuleFinished, "%s after run_finished (line %d): run_finished must be the last line", printable(typ), finishedAt)
		}
		if _, ok := dto.(UnknownDTO); ok {
			continue
		}
		for _, path := range dec.missing(kindByType[typ], v.strict) {
			v.add(line, RuleRequired, "missing required field %q", path)
		}
		switch d := dto.(type) {
		case ToolStartedDTO:
			opsStarted[d.OpID] = true
		case ToolFinishedDTO:
			switch {
			case d.OpID != "" && !opsStarted[d.OpID]:
				v.add(line, RuleToolOp, "tool_finished for op_id %q, which no tool_started began", d.OpID)
			case d.OpID == "" && d.OK:
				v.add(line, RuleToolOp, "tool_finished without op_id has ok:true; a call that failed before its operation started has ok:false")
			}
		case TurnStartedDTO:
			if d.Turn < 1 {
				v.add(line, RuleTurn, "turn %d: turns count from 1", d.Turn)
			} else if d.Turn < lastTurn {
				v.add(line, RuleTurn, "turn %d after turn %d: turns do not go back", d.Turn, lastTurn)
			}
			lastTurn, turnSeen = d.Turn, true
		case ModelRespondedDTO:
			switch {
			case !turnSeen:
				v.add(line, RuleTurn, "model_responded before any turn_started")
			case d.Turn != lastTurn:
				v.add(line, RuleTurn, "model_responded for turn %d, but the last turn_started is turn %d", d.Turn, lastTurn)
			}
		case AssistantMessageDTO:
			v.optionalTurn(line, d.Turn)
		case ReasoningDTO:
			v.optionalTurn(line, d.Turn)
		case RunFinishedDTO:
			if finishedAt == 0 {
				finishedAt = line
			}
			if !Status(d.Summary.Status).Final() {
				v.add(line, RuleStatus, "status %q, want one of ok, error, timeout, interrupted, disk_limit", d.Summary.Status)
			}
		}
		sum.Add(dto, nil, dec.Raw())
	}
	folded := sum.Recomputed()
	if folded.Recorded == nil {
		if badFinish != nil {
			v.add(badFinish.Line, RuleFinished, "the run_finished line at line %d is invalid: %s", badFinish.Line, badFinish.detail())
			return v.findings, nil
		}
		v.ended(lines, startOnly)
		return v.findings, nil
	}
	for _, d := range folded.Diff() {
		v.add(finishedAt, RuleStats, "%s", d)
	}
	return v.findings, nil
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

// ended checks a stream without run_finished against the endings the
// contract allows. startOnly reports a stream of run_started and then only
// preflight warnings, however many.
func (v *validator) ended(lines int, startOnly bool) {
	switch {
	case lines == 0 && v.exitCode == ExitUsage, startOnly && v.exitCode == ExitError:
	case lines == 0:
		v.add(0, RuleEnded, "no line: only a run blocked in preflight (exit 2) writes none")
	case startOnly:
		v.add(0, RuleEnded, "the stream stops after run_started without run_finished: only a runner that could not start (exit 1) ends so")
	default:
		v.add(0, RuleFinished, "no run_finished: the stream was cut off after line %d", lines)
	}
}
