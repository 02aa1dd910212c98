package uahstream

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/uagentkit/stream"
)

// Finding is a violation of the rules of a stream: of a run (by every
// rule of the uagent contract; a session stream's runs each checked as if
// its lines stood alone) or of a session stream's own.
type Finding struct {
	stream.Finding
	// Run is the run's number in a session stream, from 1; 0 for a
	// finding of the session, and for every finding of a run's stream.
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
	RuleRunOpen   = "run-open"  // run_started comes when no run is open (the open run's run_finished was lost)
	RuleDelivered = "delivered" // input_delivered names a message an input_sent sent
	RuleInRun     = "in-run"    // uagent's events other than run_started stand inside a run
)

// Validate reads a stream, whatever it holds, and reports every
// violation. Of a run's stream, what stream.Validate reports. Of a
// session stream (its first line session_opened): of each run, every
// rule stream.Validate checks, its lines checked as if they stood alone
// (with the session's line numbers; a finding of the run as a whole is
// put at its run_started); and the session's own: a run_started while a
// run is open (that run lost its run_finished, and is checked as cut off
// there); an input_delivered whose message no input_sent sent; a uagent
// event outside every run; a harness line that cannot be decoded (a
// field of the wrong JSON type). The options are stream.Validate's:
// WithExitCode is the exit code of the process (of a session stream,
// uah exec's, by its rule: see Session.Verdict), and it is given to every
// run that ends without run_finished. The error is the reader's, with the findings so far.
func Validate(r io.Reader, opts ...stream.ValidateOption) ([]Finding, error) {
	// Nothing but the folds and the checks read the lines, and what they
	// keep they copy: the strings are borrowed.
	dopts := []stream.DecoderOption{stream.WithFoldOnly(), stream.WithBorrowedStrings()}
	for _, o := range opts {
		if d, ok := o.(stream.DecoderOption); ok {
			dopts = append(dopts, d)
		}
	}
	return NewReader(r, dopts...).Validate(opts...)
}

// Validate reads the rest of the stream (all of it: call it before the
// first line is read) and reports every violation, as the package's
// Validate does; of a run given as its events, with the lines numbered
// from 1 in order.
func (rd *Reader) Validate(opts ...stream.ValidateOption) ([]Finding, error) {
	rd.Check(opts...)
	v := &validator{s: rd.Session(), sent: map[string]bool{}}
	n := 0
	for l := range rd.Lines() {
		if !l.End {
			n++
		}
		if l.Num == 0 && !l.End { // an event: numbered in order
			l.Num = n
		}
		v.line(l)
	}
	return v.findings, rd.Err()
}

// validator is the session's own rules, and the runs' findings named.
type validator struct {
	s        *Session
	findings []Finding
	runLine  int    // the open run's run_started
	runID    string // its run_id
	sent     map[string]bool
}

func (v *validator) add(line int, rule, format string, args ...any) {
	v.findings = append(v.findings, Finding{Finding: stream.Finding{Line: line, Rule: rule, Message: fmt.Sprintf(format, args...)}})
}

func (v *validator) line(l Line) {
	harness := v.s.Harness()
	if e := l.Ended; e != nil {
		if harness && l.Started {
			v.add(l.Num, RuleRunOpen, "run_started while run %d (line %d) is open: it has no run_finished", e.Run+1, v.runLine)
		}
		v.ended(e, harness)
	}
	if l.Started {
		v.runLine, v.runID = l.Num, ""
		if d, ok := l.DTO.(stream.RunStartedDTO); ok {
			v.runID = strings.Clone(d.RunID) // kept past the line, which may be borrowed
		}
	}
	if !harness {
		return
	}
	if l.Err != nil {
		if le, ok := errors.AsType[*stream.LineError](l.Err); ok && l.Run < 0 {
			v.add(le.Line, stream.RuleJSON, "%s", strings.TrimPrefix(le.Error(), "stream: line "+strconv.Itoa(le.Line)+", "))
		}
		return
	}
	switch d := l.DTO.(type) {
	case InputSentDTO:
		for _, id := range d.IDs {
			v.sent[id] = true
		}
	case InputDeliveredDTO:
		if !v.sent[d.ID] {
			v.add(l.Num, RuleDelivered, "input_delivered of %s, which no input_sent sent", strconv.Quote(d.ID))
		}
	}
	if typ := TypeOf(l.DTO); l.Run < 0 && l.DTO != nil && !Known(typ) {
		if _, unknown := l.DTO.(stream.UnknownDTO); !unknown {
			v.add(l.Num, RuleInRun, "%s outside a run: uagent's events stand between run_started and run_finished", typ)
		}
	}
}

// ended adds a run's findings, named by the run of a session stream; a
// finding of the run as a whole is put at its run_started.
func (v *validator) ended(e *Ended, harness bool) {
	for _, f := range e.Fold.Findings() {
		if !harness {
			v.findings = append(v.findings, Finding{Finding: f})
			continue
		}
		if f.Line == 0 {
			f.Line = v.runLine
		}
		v.findings = append(v.findings, Finding{Finding: f, Run: e.Run + 1, RunID: v.runID})
	}
}
