package stream

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// Ending says how a run's stream ended.
type Ending int

// The endings of a stream.
const (
	// EndFinished: a run_finished line arrived.
	EndFinished Ending = iota + 1
	// EndPreflightBlocked: no line was written and the exit code is 2.
	EndPreflightBlocked
	// EndStartFailed: the stream stopped after run_started (and preflight
	// warnings) and the exit code is 1: the runner could not start.
	EndStartFailed
	// EndCutOff: any other ending without run_finished: the process was
	// killed, crashed, or closed its stdout early.
	EndCutOff
	// EndNoRun: a session stream of uah in which no run ran (a queue that
	// failed, or nothing asked): its status is ok, or error after a failed
	// input or an error notice (see uahstream.Session.Verdict).
	EndNoRun
)

// String returns the ending's name: finished, preflight_blocked,
// start_failed, cut_off or no_run.
func (k Ending) String() string {
	switch k {
	case EndFinished:
		return "finished"
	case EndPreflightBlocked:
		return "preflight_blocked"
	case EndStartFailed:
		return "start_failed"
	case EndCutOff:
		return "cut_off"
	case EndNoRun:
		return "no_run"
	}
	return fmt.Sprintf("Ending(%d)", int(k))
}

// Verdict is how a run ended, as the contract reads its stream and its exit
// code: see [Fold.Verdict] and [Fold.VerdictOf].
type Verdict struct {
	Ending Ending
	// Status is the summary's for EndFinished, error for the endings
	// without run_finished unless the run was stopped (timeout,
	// interrupted).
	Status Status
	// ExitCode is the process's, or, for a stream alone, the one the
	// contract gives its ending (-1 for a cut-off stream: killed).
	ExitCode int
}

// Verdict returns how the stream ended, judged from its lines alone (a
// recording, a file): finished, with its summary's status and the exit
// code that status has; no line (preflight blocked, exit 2); only
// run_started and preflight warnings (the runner could not start, exit
// 1); or cut off (status error, exit -1).
func (f *Fold) Verdict() Verdict {
	switch {
	case f.recorded != nil:
		st := Status(f.recorded.Status)
		return Verdict{EndFinished, st, st.ExitCode()}
	case f.decoded == 0 && !f.blocked:
		return Verdict{EndPreflightBlocked, StatusError, ExitUsage}
	case f.onlyStart:
		return Verdict{EndStartFailed, StatusError, ExitError}
	}
	return Verdict{EndCutOff, StatusError, -1}
}

// VerdictOf returns how the run of a process that wrote the stream ended,
// from its lines and its exit code (-1 when a signal killed it). stop is
// what the driver knows of why it stopped: StatusTimeout (its deadline
// passed), StatusInterrupted (it was cancelled, or a signal that asks a
// process to stop killed it), or "". A run_finished gives EndFinished
// with its summary's status; no line and exit 2, preflight blocked; only
// run_started and preflight warnings and exit 1, the runner could not
// start. Anything else is cut off: timeout when stop says so or the exit
// code is 124, interrupted when stop says so or the exit code is 130,
// error otherwise.
func (f *Fold) VerdictOf(exitCode int, stop Status) Verdict {
	v := f.Verdict()
	v.ExitCode = exitCode
	switch {
	case v.Ending == EndFinished:
		return v
	case v.Ending == EndPreflightBlocked && exitCode == ExitUsage, v.Ending == EndStartFailed && exitCode == ExitError:
		return v
	}
	v.Ending = EndCutOff
	switch {
	case stop == StatusTimeout, exitCode == ExitTimeout:
		v.Status = StatusTimeout
	case stop == StatusInterrupted, exitCode == ExitInterrupted:
		v.Status = StatusInterrupted
	default:
		v.Status = StatusError
	}
	return v
}

// Recomputed is a run's summary rebuilt from its stream: what [Summarize]
// and [Fold.Recomputed] return. It is a plain value: its fields are all
// there is.
type Recomputed struct {
	// Summary has the stats and answer recomputed from the events, the
	// identity of run_started and, when the stream has one, the status,
	// runner exit code, start and wall time of run_finished. A stream cut
	// off before run_finished is closed at its last line's time; its
	// runner exit code is then -1 (killed), its status what Classify says
	// of that, its start the time of run_started and its wall time the span
	// from there to the last line.
	Summary SummaryDTO
	// Recorded is the summary the run_finished line holds, when there is one.
	Recorded *SummaryDTO
	// Diff lists the fields in which Recorded's stats and answer differ
	// from Summary's, in the order of the wire, leaving out the fields the
	// run_finished line does not have (a v1 stream written before a field
	// existed is not wrong about it; the Decoder notes which were absent,
	// and a RunFinishedDTO made otherwise has them all). An absent map or
	// list equals an empty one. Nil without run_finished.
	Diff []Difference
	// Times lists what of Recorded's times cannot be right (see
	// Difference.Want): a negative wall_ms, which no run's wall time is;
	// a started_at after the run_finished line's at, which a clock that
	// stepped back also writes. Warnings, not differences: a checker says
	// them and does not fail on them. Nil without run_finished.
	Times []Difference
	// CutOff reports a stream that ended without run_finished.
	CutOff bool
	// Lines counts the lines the fold was given, those that could not be
	// decoded included (a byte-order mark, reported before the line it
	// starts, is not one); LineErrors counts those that could not be
	// decoded (a byte-order mark included), and FirstErrors holds the
	// first 1000 of their errors.
	Lines, LineErrors int
	FirstErrors       []error
}

// Recomputed returns the summary of the lines added so far; a stream
// without run_finished so far is treated as cut off at its last line. The
// result is the caller's.
func (f *Fold) Recomputed() Recomputed {
	out := Recomputed{Summary: f.summary(), Recorded: f.recorded, CutOff: f.recorded == nil,
		Lines: f.decoded + f.lineErrors - f.boms, LineErrors: f.lineErrors, FirstErrors: slices.Clone(f.firstErrors)}
	if f.recorded != nil {
		out.Diff = statsDiff(*f.recorded, out.Summary, f.absent)
		out.Times = timesDiff(*f.recorded, f.time(f.closeAt))
	}
	return out
}

// settleEnd sets the end of a run whose run_finished, at closeAt, knows
// it only to within f.within (RunFinished.EndWithin): the earliest end in
// [closeAt, closeAt+within) at which the figures that depend on the end
// (endFigures) are the summary's, when there is one; else closeAt. They
// only grow with the end (the open turns and operations run to it), so
// that the earliest end at which none is below the summary's is the one
// to try.
func (f *Fold) settleEnd() {
	closeAt := f.time(f.closeAt)
	at := func(d time.Duration) Stats {
		f.closeAt = f.instant(closeAt.Add(d))
		return f.Stats()
	}
	want := f.recorded.Stats.Stats()
	reached := func(s Stats) bool {
		return !slices.ContainsFunc(endFigures, func(fig endFigure) bool { return fig.of(s) < fig.of(want) })
	}
	equal := func(s Stats) bool {
		return !slices.ContainsFunc(endFigures, func(fig endFigure) bool { return fig.of(s) != fig.of(want) })
	}
	if equal(at(0)) {
		return
	}
	lo, hi := time.Duration(0), f.within-1
	if reached(at(hi)) {
		for lo < hi {
			if mid := lo + (hi-lo)/2; reached(at(mid)) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		if equal(at(lo)) {
			return // the end is closeAt+lo
		}
	}
	f.closeAt = f.instant(closeAt)
}

// endFigure is a figure of the stats that the end of a run changes, in
// the summary's milliseconds.
type endFigure struct {
	name string
	of   func(Stats) int64
}

var endFigures = []endFigure{
	{"model_ms", func(s Stats) int64 { return s.ModelTime.Milliseconds() }},
	{"tool_busy_ms", func(s Stats) int64 { return s.ToolBusyTime.Milliseconds() }},
	{"tool_model_overlap_ms", func(s Stats) int64 { return s.ToolModelOverlap.Milliseconds() }},
	{"max_parallel_tools", func(s Stats) int64 { return int64(s.MaxParallelTools) }},
}

// summary is the run's summary recomputed from the lines so far, as
// Recomputed.Summary describes it. Once run_finished came, no line
// changes it: it is computed once, and its copies are the callers'.
func (f *Fold) summary() SummaryDTO {
	if f.final != nil {
		s := *f.final
		s.Stats = s.Stats.clone()
		return s
	}
	sum := f.compute()
	if f.recorded != nil {
		f.final = &sum
		return f.summary()
	}
	return sum
}

func (f *Fold) compute() SummaryDTO {
	stats := f.Stats()
	sum := SummaryToDTO(Result{Stats: stats, Answer: f.Answer()})
	if st := f.started; st != nil {
		sum.RunID, sum.SessionID, sum.Provider = st.RunID, st.SessionID, st.Provider
		sum.Model, sum.Effort, sum.Workspace = st.Model, st.Effort, st.Workspace
	}
	if r := f.recorded; r != nil {
		sum.Status, sum.RunnerExitCode, sum.StartedAt, sum.WallMS = r.Status, r.RunnerExitCode, r.StartedAt, r.WallMS
		return sum
	}
	sum.RunnerExitCode = -1
	sum.Status = string(Classify("", -1, stats))
	if f.started != nil {
		sum.StartedAt = f.started.At
		sum.WallMS = f.time(f.closeAt).Sub(f.started.At).Milliseconds()
	}
	return sum
}

// Summarize reads a stream through a [Decoder] and a [Fold] and returns its
// summary recomputed. Lines that cannot be decoded are counted and
// skipped; lines after run_finished are not folded. The error is nil
// unless the reader failed. It reads [WithFoldOnly], whatever opts say.
func Summarize(r io.Reader, opts ...DecoderOption) (Recomputed, error) {
	var f Fold
	dec := leanDecoder(r, newDecoderOptions(opts))
	defer dec.recycle()
	for dto, err := range dec.All() {
		if err != nil {
			if _, ok := errors.AsType[*LineError](err); !ok {
				return f.Recomputed(), err
			}
		}
		f.Add(dto, err)
	}
	return f.Recomputed(), nil
}
