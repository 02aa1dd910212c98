package uahstream

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/check"
)

// Finding is a violation of the rules of a session stream: of a run (by
// every rule of the uagent contract, the run's lines checked as if they
// stood alone) or of the session's own.
type Finding struct {
	stream.Finding
	// Run is the run's number in the session, from 1; 0 for a finding of
	// the session.
	Run int `json:"run,omitempty"`
	// RunID is the run's run_id.
	RunID string `json:"run_id,omitempty"`
}

// String is the finding as stream.Finding says it, with its run: "LINE:
// message (rule) [run N "RUN_ID"]".
func (f Finding) String() string {
	if f.Run == 0 {
		return f.Finding.String()
	}
	return fmt.Sprintf("%s [run %d %s]", f.Finding.String(), f.Run, strconv.Quote(f.RunID))
}

// The session's own rules.
const (
	RuleSessionFirst = "session-first" // the first line is session_opened
	RuleRunOpen      = "run-open"      // run_started comes when no run is open (the open run's run_finished was lost)
	RuleDelivered    = "delivered"     // input_delivered names a message an input_sent sent
	RuleInRun        = "in-run"        // uagent's events other than run_started stand inside a run
)

// Validate reads a session stream and reports every violation: of each
// run, by every rule stream.Validate checks (the findings that count the
// run's lines count them in the session stream), and of the session:
// session_opened is the first line; a run_started while a run is open
// (that run lost its run_finished, and is checked as cut off there); an
// input_delivered whose message no input_sent sent; a uagent event
// outside every run; a harness line that cannot be decoded (a field of
// the wrong JSON type). A run is cut off by the next run_started or by
// the end. The options are the stream package's (WithStrict,
// WithMaxLineSize); WithExitCode does not apply (a session's exit code is
// its last run's). The error is the reader's, with the findings so far.
func Validate(r io.Reader, opts ...stream.Option) ([]Finding, error) {
	v := &sessionValidator{dec: NewDecoder(r, opts...), opts: opts, sent: map[string]bool{}}
	for {
		dto, err := v.dec.Decode()
		if err == io.EOF {
			break
		}
		if err != nil {
			le, ok := errors.AsType[*stream.LineError](err)
			if !ok {
				v.endRun()
				return v.findings, err
			}
			v.lineError(le)
			continue
		}
		v.line(dto)
	}
	v.endRun()
	if v.lines == 0 {
		v.add(0, RuleSessionFirst, "no line: a session stream begins with session_opened")
	}
	return v.findings, nil
}

type sessionValidator struct {
	dec      *Decoder
	opts     []stream.Option
	findings []Finding
	lines    int
	run      check.Run // the open run's checker
	runs     int
	runID    string
	runLine  int
	sent     map[string]bool
}

func (v *sessionValidator) add(line int, rule, format string, args ...any) {
	v.findings = append(v.findings, Finding{Finding: stream.Finding{Line: line, Rule: rule, Message: fmt.Sprintf(format, args...)}})
}

func (v *sessionValidator) first(line int, typ string) {
	if v.lines == 1 && typ != TypeSessionOpened {
		v.add(line, RuleSessionFirst, "the first line is %s, want session_opened", quoted(typ))
	}
}

func (v *sessionValidator) lineError(le *stream.LineError) {
	v.lines++
	v.first(le.Line, le.Type)
	if v.run != nil {
		v.run.Line(nil, le)
		return
	}
	v.add(le.Line, stream.RuleJSON, "%s", strings.TrimPrefix(le.Error(), "stream: line "+strconv.Itoa(le.Line)+", "))
}

func (v *sessionValidator) line(dto any) {
	v.lines++
	line := v.dec.Line()
	typ := TypeOf(dto)
	v.first(line, typ)
	switch d := dto.(type) {
	case stream.RunStartedDTO:
		if v.run != nil {
			v.add(line, RuleRunOpen, "run_started while run %d (line %d) is open: it has no run_finished", v.runs, v.runLine)
			v.endRun()
		}
		v.runs++
		v.run = check.New(v.dec.Decoder, v.opts)
		v.runID, v.runLine = d.RunID, line
	case InputSentDTO:
		for _, id := range d.IDs {
			v.sent[id] = true
		}
	case InputDeliveredDTO:
		if !v.sent[d.ID] {
			v.add(line, RuleDelivered, "input_delivered of %s, which no input_sent sent", strconv.Quote(d.ID))
		}
	}
	if v.run == nil {
		if _, unknown := dto.(stream.UnknownDTO); !unknown && !Known(typ) {
			v.add(line, RuleInRun, "%s outside a run: uagent's events stand between run_started and run_finished", typ)
		}
		return
	}
	v.run.Line(asRunLine(dto), nil)
	if _, ok := dto.(stream.RunFinishedDTO); ok {
		v.endRun()
	}
}

// endRun ends the open run's checks: its findings, named by the run.
func (v *sessionValidator) endRun() {
	if v.run == nil {
		return
	}
	for _, f := range v.run.End(v.runLine - 1) {
		if f.Line == 0 {
			f.Line = v.runLine
		}
		v.findings = append(v.findings, Finding{Finding: stream.Finding{Line: f.Line, Rule: f.Rule, Message: f.Message}, Run: v.runs, RunID: v.runID})
	}
	v.run = nil
}

// quoted is a type as a finding shows it: quoted when it holds what a
// terminal could act on.
func quoted(s string) string {
	if q := strconv.Quote(s); q[1:len(q)-1] != s {
		return q
	}
	return s
}
