// Package statedir reads what uagent saves: its state directory, where
// every run has a directory of its own, runs/<run-id>/, whether or not
// --stream was given. A run directory holds request.json (the request),
// events.jsonl (the runner's own records, not v1 lines), summary.json (the
// v1 summary; status running while the run goes on) and stderr.log; the
// runs of one conversation share a session_id.
//
// The package reads files and nothing else: run directories ([OpenRun],
// [FindRun]), what each one is ([Run.State]: finished, running or
// stopped, decided here alone, with the one word every view shows, see
// [Run.Status]), the homes of a person's history ([Homes], [OpenHistory]:
// each run once, uah's sidecars) and their names ([Names]). Sessions,
// titles, parents and the index are the history package's, above it.
//
// [Run.Events] gives a run as the v1 stream uagent writes with --stream:
// run_started from the summary (or the request and the directory's name),
// the events decoded from the records by uagent's own rules (see
// DESIGN.md, "Runner records → v1 events"), and run_finished from the
// summary, so that every reader of the stream package (the fold, the
// checker, the command's views) reads a run directory as it reads a
// stream. The records are read as uagent reads them, by encoding/json's
// rules (keys in any case, a null line an empty record, a value of another
// type in any typed field a failed reading, a missing time the zero time),
// with the stream package's parser where that reads them alike.
package statedir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/regular"
)

// The files of a run directory.
const (
	RequestFile = "request.json"
	EventsFile  = "events.jsonl"
	SummaryFile = "summary.json"
	StderrFile  = "stderr.log"
)

// The bounds of the small files of a history: a file over its bound is a
// Problem, and left out (summary.json's is stream.MaxSummaryFile).
const (
	MaxRequestFile = 64 << 20 // request.json: the prompt and the run's messages
	MaxSidecarFile = 1 << 20  // uah's sidecar: a session's settings, its first prompt cut to 200 characters
)

// StateDirEnv names the variable that sets the state directory, as
// uagent's --state-dir does.
const StateDirEnv = "UAGENT_STATE_DIR"

// The names of uagent's state directory under $XDG_STATE_HOME (or
// ~/.local/state): dirName since uagent's 2026-10 releases, oldDirName before
// (uagent's first run moves oldDirName to dirName when dirName does not exist).
const (
	dirName    = "uagent"
	oldDirName = "unreal-agent"
)

// Dir returns uagent's state directory by uagent's current rule: dir when
// it is not empty (what --state-dir says), else $UAGENT_STATE_DIR, else
// $XDG_STATE_HOME/uagent, else ~/.local/state/uagent. The error is for a
// machine without a home directory.
func Dir(dir string) (string, error) {
	switch {
	case dir != "":
		return dir, nil
	case os.Getenv(StateDirEnv) != "":
		return os.Getenv(StateDirEnv), nil
	}
	return named(dirName)
}

// OldDir returns where uagent kept its state directory before its
// 2026-10 releases: $XDG_STATE_HOME/unreal-agent, else
// ~/.local/state/unreal-agent. A machine not yet moved, or one where the
// move left it behind, has history there (see Homes).
func OldDir() (string, error) { return named(oldDirName) }

// named is the state directory called name: under $XDG_STATE_HOME, else
// under ~/.local/state.
func named(name string) (string, error) {
	if x := os.Getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, name), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("stream: the state directory: %w", err)
	}
	return filepath.Join(home, ".local", "state", name), nil
}

// The causes of a *Problem, for errors.Is.
var (
	// ErrNotARun: a directory without request.json, events.jsonl or
	// summary.json.
	ErrNotARun = errors.New("not a run directory")
	// ErrNoEvents: the run directory has no events.jsonl.
	ErrNoEvents = errors.New("no events.jsonl")
	// ErrNoSummary: the run has no summary.json, as when uagent died before
	// it wrote one: the run is read as cut off.
	ErrNoSummary = errors.New("no summary.json: the run is read as cut off")
	// ErrRunning: summary.json says the run is still going: it is read as
	// cut off so far.
	ErrRunning = errors.New("the run is still running: it is read as cut off so far")
	// ErrWriteInProgress: the last record has no newline and is not whole:
	// the runner is writing it (or was stopped while it did).
	ErrWriteInProgress = errors.New("the last record is being written (it has no newline yet)")
	// ErrRecordTooLong: a record longer than stream.DefaultMaxLineSize,
	// skipped.
	ErrRecordTooLong = errors.New("a record longer than the line limit")
)

// Serious reports a Problem that is more than the run being cut off,
// running or being written (ErrNoSummary, ErrRunning,
// ErrWriteInProgress): a file of the run that could not be read.
func Serious(p error) bool {
	return !errors.Is(p, ErrNoSummary) && !errors.Is(p, ErrRunning) && !errors.Is(p, ErrWriteInProgress)
}

// Problem is what could not be read of a run directory: the file, the
// line (0 for the file as a whole) and why. Everything else of the run is
// still read.
type Problem struct {
	File string
	Line int
	Err  error
}

// Error formats the problem as "stream: FILE: line N: cause".
func (p *Problem) Error() string {
	if p.Line > 0 {
		return fmt.Sprintf("stream: %s: line %d: %v", p.File, p.Line, p.Err)
	}
	return fmt.Sprintf("stream: %s: %v", p.File, p.Err)
}

// Unwrap returns the cause.
func (p *Problem) Unwrap() error { return p.Err }

// Request is a run's request.json, whole, as far as a reader of its
// history needs it (every field is optional): see Run.ReadRequest.
type Request struct {
	Prompt        string    `json:"prompt"`
	Messages      []Message `json:"messages"`
	ThinkingLevel string    `json:"thinking_level"`
	Model         string    `json:"model"`
	SessionID     string    `json:"session_id"`
}

// Message is a message of a request: role user or developer.
type Message struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	MessageID string `json:"message_id"`
}

// RequestHead is what a listing shows of a run's request.json: not its
// messages (a request may hold megabytes of them), which Run.ReadRequest
// reads when they are asked for.
type RequestHead struct {
	Model, ThinkingLevel, SessionID string
	// Title is the run's first prompt from the user: the request's
	// prompt, else its first message of role user with content (never a
	// developer's message, such as the <context_preparation> uah sends
	// first), on one line (every run of white space one space), cut to
	// MaxTitle runes.
	Title string
}

// MaxTitle is the most runes of a title a history keeps (uah's sidecar
// keeps a session's first prompt cut to 200 characters too).
const MaxTitle = 200

// Run is one run directory as uagent saved it. OpenRun reads its request
// and summary; Events reads its records. A Run is not safe for concurrent
// use.
type Run struct {
	// Dir is the directory, ID its name: the run's id.
	Dir, ID string
	// Request is what a listing needs of request.json, nil when it is
	// missing or cannot be read.
	Request *RequestHead
	// Summary is summary.json, nil when it is missing or cannot be read.
	Summary *stream.SummaryDTO

	problems []error
}

// OpenRun reads the run directory dir: its request.json and summary.json.
// What cannot be read of them is a Problem (see Problems), not an error;
// the error is for a dir that cannot be read, or is not a run directory
// (a *Problem wrapping ErrNotARun).
func OpenRun(dir string) (*Run, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("stream: run directory: %w", err)
	}
	has := map[string]bool{}
	for _, e := range entries {
		has[e.Name()] = true
	}
	if !has[RequestFile] && !has[EventsFile] && !has[SummaryFile] {
		return nil, &Problem{File: dir, Err: ErrNotARun}
	}
	r := &Run{Dir: dir, ID: filepath.Base(dir)}
	if has[RequestFile] {
		if req, err := r.ReadRequest(); err != nil {
			r.problem(RequestFile, 0, err)
		} else {
			r.Request = &RequestHead{Model: req.Model, ThinkingLevel: req.ThinkingLevel, SessionID: req.SessionID, Title: req.title()}
		}
	}
	switch s, err := stream.ReadSummaryFile(r.path(SummaryFile)); {
	case errors.Is(err, fs.ErrNotExist):
		r.problem(SummaryFile, 0, ErrNoSummary)
	case err != nil:
		if cause := errors.Unwrap(err); cause != nil { // the problem names the file
			err = cause
		}
		r.problem(SummaryFile, 0, err)
	default:
		r.Summary = &s
		if !stream.Status(s.Status).Final() {
			r.problem(SummaryFile, 0, ErrRunning)
		}
	}
	if !has[EventsFile] {
		r.problem(EventsFile, 0, ErrNoEvents)
	}
	return r, nil
}

// ReadRequest reads the run's request.json whole (see ReadRequest).
func (r *Run) ReadRequest() (*Request, error) { return ReadRequest(r.Dir) }

// ReadRequest reads the request.json of the run directory dir whole (at
// most MaxRequestFile bytes).
func ReadRequest(dir string) (*Request, error) {
	b, err := regular.Read(filepath.Join(dir, RequestFile), MaxRequestFile)
	if err != nil {
		return nil, err
	}
	var req Request
	if err := json.Unmarshal(b, &req); err != nil {
		return nil, err
	}
	return &req, nil
}

// title is the request's first prompt from the user (see
// RequestHead.Title).
func (q *Request) title() string {
	if q.Prompt != "" {
		return titleLine(q.Prompt)
	}
	for _, m := range q.Messages {
		if m.Role == "user" && strings.TrimSpace(m.Content) != "" {
			return titleLine(m.Content)
		}
	}
	return ""
}

// OneLine is s on one line, every run of white space one space, the ends
// trimmed, cut to MaxTitle runes: a title as the history keeps it.
func titleLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= MaxTitle {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxTitle {
			return s[:i]
		}
		n++
	}
	return s
}

func (r *Run) path(file string) string { return filepath.Join(r.Dir, file) }

func (r *Run) problem(file string, line int, err error) {
	r.problems = append(r.problems, &Problem{File: r.path(file), Line: line, Err: err})
}

// Problems returns what could not be read of the run so far, each a
// *Problem naming its file and line: of its request and summary from
// OpenRun on, of its records once Events (or Follow) has read them.
func (r *Run) Problems() []error { return slices.Clone(r.problems) }

// Finished reports whether the run has a summary with a final status: it
// has ended, and its stream has a run_finished.
func (r *Run) Finished() bool { return r.Summary != nil && stream.Status(r.Summary.Status).Final() }

// SessionID is the run's session: its summary's, else its request's.
func (r *Run) SessionID() string {
	if r.Summary != nil && r.Summary.SessionID != "" {
		return r.Summary.SessionID
	}
	if r.Request != nil {
		return r.Request.SessionID
	}
	return ""
}

// StartedAt is when the run started: its summary's started_at, else the
// time its id begins with (YYYYMMDD-HHMMSS, UTC), else zero.
func (r *Run) StartedAt() time.Time {
	if r.Summary != nil && !r.Summary.StartedAt.IsZero() {
		return r.Summary.StartedAt
	}
	if len(r.ID) >= 15 {
		if t, err := time.Parse("20060102-150405", r.ID[:15]); err == nil {
			return t
		}
	}
	return time.Time{}
}

// started is the run's run_started: the summary's identity at its
// started_at, or, without one, the directory's name as the run id and the
// request's session, model and effort.
func (r *Run) started() stream.RunStarted {
	if s := r.Summary; s != nil {
		return stream.RunStarted{At: s.StartedAt, RunID: s.RunID, SessionID: s.SessionID, Provider: s.Provider,
			Model: s.Model, Effort: s.Effort, Workspace: s.Workspace}
	}
	e := stream.RunStarted{At: r.StartedAt(), RunID: r.ID}
	if q := r.Request; q != nil {
		e.SessionID, e.Model, e.Effort = q.SessionID, q.Model, q.ThinkingLevel
	}
	return e
}

// Events returns the run as the domain events of the v1 stream uagent
// writes with --stream: run_started; a preflight_warning for each warning
// of the summary (uagent does not save the warnings themselves, only
// their messages); the events of the records; and, when the summary says
// the run has ended, run_finished at started_at plus wall. A record that
// cannot be read as one is what uagent makes of it (a runner_error); a last
// record that is being written, a record over the line limit and a file
// that cannot be read are Problems (see Problems), and the events before
// them are yielded.
func (r *Run) Events() iter.Seq[stream.Event] {
	return func(yield func(stream.Event) bool) {
		stopped := false
		emit, m := r.begin(yield, &stopped)
		if err := r.records(m, &stopped); err != nil {
			r.problem(EventsFile, 0, err)
		}
		if r.Finished() && !stopped {
			emit(r.finished())
		}
	}
}

// Requests yields the usage of each of the run's model requests, in
// order: the usage of the model_responded events Events yields, the
// same, read faster. A record is mapped only when it can be a model
// response: when its bytes hold "model_response", or a \u escape that
// could spell a letter of it (uagent's records are encoding/json's, whose
// keys match in any case but whose Kind is compared as it decodes); the
// others, which no usage comes from, are not decoded. What Events says of
// the records (Problems) it says too.
func (r *Run) Requests() iter.Seq[stream.Tokens] {
	return func(yield func(stream.Tokens) bool) {
		stopped := false
		m := newMapper(func(e stream.Event) {
			if mr, ok := e.(stream.ModelResponded); ok && !stopped && !yield(mr.Usage) {
				stopped = true
			}
		})
		m.skip = noResponse
		if err := r.records(m, &stopped); err != nil {
			r.problem(EventsFile, 0, err)
		}
	}
}

// noResponse reports a record that cannot be a model response: its
// bytes hold neither "model_response" nor a \u escape of a letter of it
// (\u005f, \u006…, \u007…).
func noResponse(line []byte) bool {
	return !bytes.Contains(line, []byte("model_response")) && !bytes.Contains(line, []byte(`\u005`)) &&
		!bytes.Contains(line, []byte(`\u006`)) && !bytes.Contains(line, []byte(`\u007`))
}

// begin yields run_started and the warnings the summary keeps, and
// returns what yields the rest (setting stopped when the caller stops) and
// the mapper of the records.
func (r *Run) begin(yield func(stream.Event) bool, stopped *bool) (func(stream.Event), *mapper) {
	emit := func(e stream.Event) {
		if !*stopped && !yield(e) {
			*stopped = true
		}
	}
	start := r.started()
	emit(start)
	if r.Summary != nil {
		for _, w := range r.Summary.Stats.Warnings {
			emit(stream.PreflightWarning{At: start.At, Message: w})
		}
	}
	m := newMapper(emit)
	m.latest = start.At
	return emit, m
}

// finished is the run's run_finished, from its summary: at started_at
// plus wall, which is the run's end only to the millisecond (the runner
// truncates it): its EndWithin says so, so that the fold checks the
// summary against every end in that millisecond.
func (r *Run) finished() stream.RunFinished {
	s := r.Summary
	res := stream.SummaryFromDTO(*s)
	res.Stats = s.Stats.Stats()
	return stream.RunFinished{At: s.StartedAt.Add(time.Duration(s.WallMS) * time.Millisecond), Result: res, EndWithin: time.Millisecond}
}

// records maps every line of events.jsonl.
func (r *Run) records(m *mapper, stopped *bool) error {
	f, err := regular.Open(r.path(EventsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // said by OpenRun
	}
	if err != nil {
		return err
	}
	defer f.Close()
	// A record is read where the buffer holds it; most are shorter than
	// 256 KiB (a longer one is copied, once). A smaller file gets a
	// buffer of its size: a history reads many.
	size := 256 << 10
	if info, err := f.Stat(); err == nil && info.Size() < int64(size) {
		size = max(int(info.Size())+1, 4096)
	}
	br := bufio.NewReaderSize(f, size)
	var long []byte
	for n := 1; !*stopped; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= stream.DefaultMaxLineSize {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			if len(long) > stream.DefaultMaxLineSize {
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = br.ReadSlice('\n')
				}
				r.problem(EventsFile, n, ErrRecordTooLong)
				if err != nil {
					return ignoreEOF(err)
				}
				continue
			}
			line = long
		}
		whole := err == nil
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		switch {
		case !whole && len(bytes.TrimSpace(line)) > 0 && !m.whole(line):
			r.problem(EventsFile, n, ErrWriteInProgress)
		case m.skip != nil && m.skip(line):
		default:
			m.line(line)
		}
		if !whole {
			return nil
		}
		if len(long) > 1<<20 {
			long = nil // a long record's memory is not kept
		}
	}
	return nil
}

func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// whole reports a line that is one JSON value, whatever it holds: a last
// line without its newline is read as the others are only then.
func (m *mapper) whole(line []byte) bool { return json.Valid(line) }

// Write writes the run as the v1 stream uagent writes with --stream (see
// Events), one line per event, each with one Write call (see
// stream.AppendEvent: a record without a time gives a line at the zero
// time, as uagent writes it). The error is the writer's; what could not be
// read of the run is in Problems.
func (r *Run) Write(w io.Writer) error {
	var line []byte
	for e := range r.Events() {
		var err error
		if line, err = stream.AppendEvent(line[:0], e); err != nil {
			return err
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return fmt.Errorf("stream: write %s: %w", r.ID, err)
		}
	}
	return nil
}

// Runs returns the runs of a state directory, in the order of their
// directories' names under runs/ (which begin with their start): each run,
// or the error of one that cannot be opened (a *Problem wrapping
// ErrNotARun for a directory that is not a run's), and the runs after it.
// A runs/ that cannot be read is an error, and the end.
func Runs(stateDir string) iter.Seq2[*Run, error] {
	return func(yield func(*Run, error) bool) {
		dir := filepath.Join(stateDir, "runs")
		entries, err := os.ReadDir(dir)
		if err != nil {
			yield(nil, fmt.Errorf("stream: the state directory's runs: %w", err))
			return
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			if !e.IsDir() {
				if !yield(nil, &Problem{File: path, Err: ErrNotARun}) {
					return
				}
				continue
			}
			r, err := OpenRun(path)
			if !yield(r, err) {
				return
			}
		}
	}
}

// IsRun reports whether dir is a run directory: a directory with one of
// request.json, events.jsonl and summary.json.
func IsRun(dir string) bool {
	for _, f := range []string{EventsFile, SummaryFile, RequestFile} {
		if info, err := os.Stat(filepath.Join(dir, f)); err == nil && info.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// IsStateDir reports whether dir is a state directory: it has a runs/
// directory.
func IsStateDir(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, "runs"))
	return err == nil && info.IsDir()
}

// UagentStats is the summary `uagent stats RUN_DIR` gives of the run, by
// uagent's own rule: the stats and answer recomputed from its events (rc:
// what a fold of Events says), with summary.json's metadata (status,
// runner exit code, identity, start and wall time, running included);
// without a summary.json, the status as if the runner had exited 0, and
// the event span as the wall time. It is `stats`' rule alone: every other
// view of a run directory shows its State (see Run.Status).
func (r *Run) UagentStats(rc stream.Recomputed) stream.SummaryDTO {
	sum := rc.Summary
	if s := r.Summary; s != nil {
		sum.RunID, sum.SessionID, sum.Provider, sum.Model, sum.Effort, sum.Workspace = s.RunID, s.SessionID, s.Provider, s.Model, s.Effort, s.Workspace
		sum.StartedAt, sum.Status, sum.RunnerExitCode, sum.WallMS = s.StartedAt, s.Status, s.RunnerExitCode, s.WallMS
		return sum
	}
	sum.Status, sum.RunnerExitCode = string(stream.Classify("", 0, sum.Stats.Stats())), 0
	sum.WallMS = sum.Stats.EventSpanMS
	return sum
}
