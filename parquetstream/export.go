// Package parquetstream writes runs as a Parquet dataset, for the engines
// that answer questions across thousands of runs (DuckDB, Spark,
// BigQuery, Trino): the tables of tablestream (runs, turns, tool_calls,
// notices, messages with content, and sessions), in a directory of
// batches that engines read with one glob ('DIR/*/runs/*.parquet').
//
// What an export guarantees:
//
//   - Whole runs, or none. A batch is written under DIR/.staging/, which
//     no reader's glob reaches, and published by one rename of its
//     directory, with a manifest.json of the runs it holds: a run's rows
//     in every table appear together or not at all. An export that fails
//     or is given up (Abort) publishes nothing and removes what it wrote;
//     one that was killed leaves its staging, which the next removes.
//     Exports into one directory do not wait for each other: the second
//     is refused while the first runs (a lock the system lets go of when
//     the process ends).
//   - Idempotent. A run is known by its run id, whatever input it came
//     from (its run directory, a v1 stream of it, a session stream); an
//     export adds only the runs the directory does not hold, and a run it
//     holds unfinished (cut off, or still running) is in a batch of its
//     own, which the next export replaces once the run has changed.
//   - Sessions. The sessions table is made from every run the directory
//     holds, in a batch of its own that each export replaces; one that
//     is gone is made again by the next export.
//   - Valid UTF-8. Every string column is; a name of the filesystem that
//     is not is written with its bad bytes escaped (ErrNameNotUTF8).
//
// It is the only code of the module that imports parquet-go
// (github.com/parquet-go/parquet-go), the maintained Parquet library of
// Go; the rows are tablestream's, each run read once through its session
// (uahstream), a run directory's from its events.
package parquetstream

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	enchex "encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/pool"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/tablestream"
	"github.com/uagentkit/stream/uahstream"
)

// ErrLive marks what an export says of a run that is still going (its
// summary says running, or its last record is being written): it is
// exported as unfinished, and replaced by the export after it has
// changed. It is not a fault of the input.
var ErrLive = errors.New("still running: exported as unfinished")

// ErrStopped marks what an export says of a run directory whose run was
// stopped (statedir.StateStopped: no final summary, and nobody holds its
// session's lock): it is exported as it is, with the status
// statedir.StoppedStatus. Its records are all there will be; it is the
// history's truth, not a fault of the input.
var ErrStopped = errors.New("stopped before it ended (uagent died): exported as " + statedir.StoppedStatus)

// ErrNameNotUTF8 marks what an export says of a name (a file's, a run
// directory's) that is not valid UTF-8: it is written with its bad bytes
// escaped (\xNN), as every string of the tables is valid UTF-8.
var ErrNameNotUTF8 = errors.New("not valid UTF-8: written with its bad bytes escaped as \\xNN")

// valid is s with every byte that is not part of valid UTF-8 written as
// \xNN, and whether it had any (a backslash is written \\ then, so that
// two names never become one).
func valid(s string) (string, bool) {
	if utf8.ValidString(s) {
		return s, false
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\\':
			b.WriteString("\\\\")
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String(), true
}

// heldRun is a run an earlier export published.
type heldRun struct {
	batch string
	entry
}

// Option configures an Export.
type Option func(*Export)

// WithContent also exports what people and models wrote: messages, tool
// arguments, the answer (tablestream.WithContent).
func WithContent() Option { return func(x *Export) { x.content = true } }

// WithCreatedBy names the application and version that wrote the parts,
// in their metadata ("uagentkit-stream" by default).
func WithCreatedBy(app, version string) Option {
	return func(x *Export) { x.app, x.version = app, version }
}

// Export is one export into a directory: what the directory holds, the
// batches being written, and what it publishes. Open it, Write, then
// Publish (or Abort), and Close. Its methods are not safe for concurrent
// use.
type Export struct {
	dir, staging, stamp string
	content             bool
	app, version        string
	unlock              func()
	held                map[string]heldRun           // by run key
	sources             map[string]source            // what the published batches hold of each input, by its key
	claimed             map[string]bool              // the runs this export writes, by run key: a run is written once
	sessionBatches      []string                     // the sessions batches published now
	sidecars            map[string]*statedir.Sidecar // uah's sidecars of the sessions read now, by session id
	main                string                       // the batch of the finished runs, in staging
	retract             []string                     // the published batches this export replaces
	mu                  sync.Mutex
	runs                []newRun // the runs this export read, whose runs rows are written last
	exported            int
	heldRuns            int // runs the directory holds already
}

// source is what the published batches hold of an input: what it was
// (its fingerprint).
type source struct {
	fingerprint string
}

// newRun is a run this export read: its batch, and its runs row, written
// once its place in its session is known.
type newRun struct {
	batch string
	entry
}

// Open begins an export into dir (made if need be): it takes the
// directory's lock, removes what a killed export left, and reads what the
// published batches hold. It fails when another export into dir runs.
func Open(dir string, opts ...Option) (*Export, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockDir(filepath.Join(dir, ".lock"))
	if err != nil {
		return nil, err
	}
	b := make([]byte, 4)
	rand.Read(b)
	x := &Export{dir: dir, app: "uagentkit-stream", unlock: unlock, held: map[string]heldRun{}, sources: map[string]source{}, sidecars: map[string]*statedir.Sidecar{},
		claimed: map[string]bool{},
		stamp:   time.Now().UTC().Format("20060102T150405Z") + "-" + enchex.EncodeToString(b)}
	for _, o := range opts {
		o(x)
	}
	x.staging = filepath.Join(dir, ".staging", x.stamp)
	// What an export that was killed left: it holds no lock now, so its
	// staging is no one's.
	os.RemoveAll(filepath.Join(dir, ".staging"))
	os.RemoveAll(filepath.Join(dir, ".trash"))
	entries, err := os.ReadDir(dir)
	if err != nil {
		unlock()
		return nil, err
	}
	for _, d := range entries {
		if !d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, d.Name(), "manifest.json"))
		if err != nil {
			continue // not a batch of this layout
		}
		var m manifest
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		if m.Sessions {
			x.sessionBatches = append(x.sessionBatches, d.Name())
		}
		for _, r := range m.Runs {
			x.held[r.Key] = heldRun{batch: d.Name(), entry: r}
			x.sources[r.Source] = source{fingerprint: r.Fingerprint}
		}
	}
	return x, nil
}

// Close lets go of the directory's lock. Call it once the export is
// published or given up.
func (x *Export) Close() error {
	x.unlock()
	return nil
}

// Exported counts the runs this export read and wrote; Already the runs
// it left out because the directory holds them already.
func (x *Export) Exported() int { return x.exported }

// Already counts the runs this export left out because the directory
// holds them already (finished, or unfinished and unchanged).
func (x *Export) Already() int { return x.heldRuns }

// plan leaves out the inputs the directory holds unchanged since (their
// sizes and times); the others are read, and each of their runs is known
// by its run id (heldRun): a session stream that grew adds only its new
// runs.
func (x *Export) plan(srcs []Source) (todo []Source) {
	held := map[string]int{} // runs held, by their source: counted once, not for every source
	for _, r := range x.held {
		held[r.Source]++
	}
	seen := map[string]bool{}
	for _, s := range srcs {
		if seen[s.key] {
			continue // given twice
		}
		seen[s.key] = true
		if h, ok := x.sources[s.key]; ok && h.fingerprint == s.fingerprint {
			x.heldRuns += held[s.key]
			continue
		}
		todo = append(todo, s)
	}
	return todo
}

// report is what Write says of one source: its runs' rows, what could not
// be read of it, and why it could not be exported at all.
type report struct {
	src      Source
	rows     []tablestream.RunRow
	session  bool
	live     bool // a run directory of a run still going
	stopped  bool // a run directory of a run that uagent never ended (statedir.StateStopped)
	problems []error
	err      error
}

// errWrite marks an error of writing the tables, which ends the export.
var errWrite = errors.New("writing the tables")

// Write reads the sources on all cores into the batches, in staging: the
// finished runs into the main batch (each worker its own parts), each
// unfinished run into a batch of its own. What cannot be read of a
// source, and what a run is (not a stream, cut off, with lines that could
// not be read: exported as such), is said to problem, in the sources'
// order. An error writing a part, or ctx ending, ends the export: then
// call Abort.
func (x *Export) Write(ctx context.Context, srcs []Source, problem func(error)) error {
	for _, s := range srcs {
		if s.Sidecar != nil && s.Run != nil {
			x.sidecars[s.Run.SessionID()] = s.Sidecar
		}
	}
	todo := x.plan(srcs)
	x.main = "b-" + x.stamp
	var mu sync.Mutex // guards failed
	var failed error
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		failed = cmp.Or(failed, err)
	}
	stopped := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return failed != nil || ctx.Err() != nil
	}
	pool.InOrder(len(todo), func(w int) (func(int) report, func()) {
		parts := x.parts(filepath.Join(x.staging, x.main), fmt.Sprintf("part-%03d", w))
		return func(i int) report {
				if stopped() {
					return report{src: todo[i], err: context.Canceled}
				}
				return x.export(parts, todo[i])
			}, func() {
				if err := parts.close(); err != nil {
					fail(fmt.Errorf("%w: %w", errWrite, err))
				}
			}
	}, func(_ int, r report) {
		for _, p := range r.problems {
			problem(p)
		}
		switch {
		case errors.Is(r.err, context.Canceled):
			return
		case errors.Is(r.err, errWrite):
			fail(r.err)
			return
		case r.err != nil:
			problem(r.err)
			return
		}
		for _, row := range r.rows {
			x.exported++
			var issues []string
			where := r.src.Path
			if r.session {
				where += ": run " + row.RunID
			}
			switch {
			case row.Lines == row.LineErrors:
				issues = append(issues, "not a stream: no line could be read")
			case row.CutOff && r.live:
				problem(fmt.Errorf("%s: %w", where, ErrLive))
			case row.CutOff && r.stopped:
				problem(fmt.Errorf("%s: %w", where, ErrStopped))
			case row.CutOff:
				issues = append(issues, "cut off: no run_finished")
			}
			if row.LineErrors > 0 {
				issues = append(issues, fmt.Sprintf("%d of %d lines could not be read", row.LineErrors, row.Lines))
			}
			for _, is := range issues {
				problem(fmt.Errorf("%s: %s (exported as such)", where, is))
			}
		}
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	return failed
}

// export reads one source, once, through its session, and writes each
// of its runs' rows as the run ends: into the worker's parts of the main
// batch when it has finished, else into a batch of its own. A run of a
// session stream is known by its run id (as a run directory is): one the
// directory holds finished, or unfinished and unchanged, is left out; one
// it holds unfinished that has changed is replaced.
func (x *Export) export(main *parts, s Source) report {
	return x.read(s, x.content, func(t *tablestream.Tables, n int) error {
		key := "run:" + t.Run.RunID // a run is known by its run id, whatever input it came from
		if t.Run.RunID == "" {
			key = fmt.Sprintf("%s#%d", s.key, n)
		}
		if x.heldRun(key, s.fingerprint) {
			return errHeld
		}
		if err := x.add(main, entry{Key: key, Source: s.key, Fingerprint: s.fingerprint}, s.Sidecar, *t); err != nil {
			return fmt.Errorf("%w of %s: %w", errWrite, s.Path, err)
		}
		return nil
	})
}

// errHeld is what read's each returns of a run it leaves out.
var errHeld = errors.New("held")

// read reads one source, once, through its session, and calls each with
// every run's tables as the run ends (its n-th run, from 1): names made
// valid UTF-8, a run directory's status, exit code and wall time as uagent
// stats gives them. A run for which each returns errHeld is left out of
// the report's rows; another error of each ends the reading, as the
// report's error.
func (x *Export) read(s Source, content bool, each func(t *tablestream.Tables, n int) error) report {
	r := report{src: s}
	var rd *uahstream.Reader
	var state statedir.State
	if s.Run != nil {
		state = s.Run.State() // once: the run's status in every row
		r.live, r.stopped = state == statedir.StateRunning, state == statedir.StateStopped
		rd = uahstream.ReadEvents(s.Run.Events())
	} else {
		f, err := os.Open(s.Path)
		if err != nil {
			r.err = err
			return r
		}
		defer f.Close()
		var opts []stream.DecoderOption
		if !content {
			opts = append(opts, stream.WithoutContent()) // what is not exported is not built
		}
		rd = uahstream.NewReader(f, opts...)
	}
	sess := rd.Session()
	if content {
		sess.KeepArguments()
	} else {
		sess.KeepText()
	}
	opts := []tablestream.Option{tablestream.WithFile(s.Path)}
	if content {
		opts = append(opts, tablestream.WithContent())
	}
	b := tablestream.NewBuilder(opts...)
	var t tablestream.Tables
	n := 0
	for l := range rd.Lines() {
		for _, row := range b.Add(l) {
			add(&t, row)
		}
		if l.Ended == nil {
			continue
		}
		n++
		if s.Run != nil { // a run directory's status is its state's word (statedir.Run.Status)
			setState(&t.Run, state, s.Run.Summary)
		}
		r.session = r.session || n > 1 || !l.End
		if x.names(&t, &r) {
			r.problems = append(r.problems, fmt.Errorf("%s: %w", s.Path, ErrNameNotUTF8))
		}
		switch err := each(&t, n); {
		case errors.Is(err, errHeld):
		case err != nil:
			r.err = err
		default:
			r.rows = append(r.rows, t.Run)
		}
		if r.err != nil {
			break
		}
		t = tablestream.Tables{}
	}
	if err := rd.Err(); err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %w", s.Path, err)
	}
	if s.Run != nil {
		for _, p := range s.Run.Problems() {
			if errors.Is(p, statedir.ErrRunning) || errors.Is(p, statedir.ErrNoSummary) ||
				(r.live && errors.Is(p, statedir.ErrWriteInProgress)) {
				continue // said of its row: running, or cut off (a stopped run)
			}
			r.problems = append(r.problems, p)
		}
	}
	return r
}

// setState gives a run directory's row the run's state: a finished run
// its summary's status, exit code and wall time; a running one the status
// running and the summary's wall time so far; a stopped one the status
// statedir.StoppedStatus and exit code -1 (uagent died: killed), its wall
// time the span of its events.
func setState(row *tablestream.RunRow, st statedir.State, sum *stream.SummaryDTO) {
	row.Status = statedir.StatusOf(st, sum)
	switch {
	case st == statedir.StateStopped:
		row.RunnerExitCode, row.WallMS = -1, row.EventSpanMS
	case sum != nil:
		row.RunnerExitCode, row.WallMS = int64(sum.RunnerExitCode), sum.WallMS
	}
}

// names makes the names a run's rows hold of the filesystem (the input's
// path, a run directory's name as run id) valid UTF-8, and reports
// whether one was not.
func (x *Export) names(t *tablestream.Tables, r *report) bool {
	var bad, b bool
	t.Run.File, bad = valid(t.Run.File)
	t.Run.RunID, b = valid(t.Run.RunID)
	bad = bad || b
	if b {
		id := t.Run.RunID
		for i := range t.Turns {
			t.Turns[i].RunID = id
		}
		for i := range t.ToolCalls {
			t.ToolCalls[i].RunID = id
		}
		for i := range t.Notices {
			t.Notices[i].RunID = id
		}
		for i := range t.Messages {
			t.Messages[i].RunID = id
		}
	}
	return bad
}

// add adds a row to the tables of its kind.
func add(t *tablestream.Tables, row any) {
	switch row := row.(type) {
	case tablestream.RunRow:
		t.Run = row
	case tablestream.TurnRow:
		t.Turns = append(t.Turns, row)
	case tablestream.ToolCallRow:
		t.ToolCalls = append(t.ToolCalls, row)
	case tablestream.NoticeRow:
		t.Notices = append(t.Notices, row)
	case tablestream.MessageRow:
		t.Messages = append(t.Messages, row)
	}
}

// heldRun reports a run that the directory holds finished, or
// unfinished and unchanged, or that another input of this export writes
// (and counts it); one held unfinished that has changed is retracted when
// the export is published, and claimed by this one.
func (x *Export) heldRun(key, fingerprint string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	h, ok := x.held[key]
	switch {
	case x.claimed[key], ok && (h.Finished || h.Fingerprint == fingerprint):
		x.heldRuns++
		return true
	case ok:
		x.retract = append(x.retract, h.batch)
		delete(x.held, key)
	}
	x.claimed[key] = true
	return false
}

// add writes a run's rows: into the worker's parts of the main batch
// when it has finished, else into a batch of its own.
func (x *Export) add(main *parts, e entry, sc *statedir.Sidecar, t tablestream.Tables) error {
	dest, batch := main, x.main
	if t.Run.CutOff { // unfinished: a batch of its own, replaced when the run changes
		batch = fmt.Sprintf("live-%x-%s", sha256.Sum256([]byte(e.Key)), x.stamp)
		batch = batch[:len("live-")+16] + batch[len("live-")+64:]
		dest = x.parts(filepath.Join(x.staging, batch), "part-000")
	}
	err := dest.add(t)
	if dest != main {
		err = errors.Join(err, dest.close())
	}
	if err != nil {
		return err
	}
	e.Finished, e.RunRow = !t.Run.CutOff, t.Run
	if sc != nil {
		e.SessionSource, e.SessionParent, e.SessionReview = sc.Source, sc.Parent, sc.Review
	}
	if i := slices.IndexFunc(t.Messages, func(m tablestream.MessageRow) bool { return m.Role == "user" }); i >= 0 {
		p := cutRunes(t.Messages[i].Text, titleRunes) // messages are there with content only
		e.Prompt = &p
	}
	x.mu.Lock()
	x.runs = append(x.runs, newRun{batch: batch, entry: e})
	x.mu.Unlock()
	return nil
}

// titleRunes is how much of a first prompt a session's title keeps, as
// uah keeps it in its sidecar: 200 characters, without an ellipsis.
const titleRunes = 200

func cutRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// finish writes, in staging, what needs every run read: the runs rows, each
// with its place in its session, the manifests, and the sessions batch,
// made from every run the directory will hold.
func (x *Export) finish() error {
	if len(x.runs) == 0 && len(x.retract) == 0 && len(x.sessionBatches) == 1 {
		return nil // nothing new, and the sessions table is there: it is as it was
	}
	slices.SortFunc(x.runs, func(a, b newRun) int { return strings.Compare(a.Key, b.Key) })
	var all []*tablestream.RunRow
	for _, h := range x.held {
		all = append(all, &h.RunRow)
	}
	for i := range x.runs {
		all = append(all, &x.runs[i].RunRow)
	}
	sessions := tablestream.Sessions(all)
	x.sidecarColumns(sessions)
	byBatch := map[string][]newRun{}
	var batches []string
	for _, r := range x.runs {
		if byBatch[r.batch] == nil {
			batches = append(batches, r.batch)
		}
		byBatch[r.batch] = append(byBatch[r.batch], r)
	}
	for _, b := range batches {
		dir := filepath.Join(x.staging, b)
		runs := newPart[tablestream.RunRow](x, filepath.Join(dir, "runs", "part-000"))
		m := manifest{V: 1}
		for _, r := range byBatch[b] {
			if err := runs.write([]tablestream.RunRow{r.RunRow}); err != nil {
				return fmt.Errorf("%w of %s: %w", errWrite, r.File, err)
			}
			e := r.entry
			e.Answer = nil // what people and models wrote stays in the tables
			m.Runs = append(m.Runs, e)
		}
		if err := errors.Join(runs.close(), writeManifest(dir, m)); err != nil {
			return fmt.Errorf("%w: %w", errWrite, err)
		}
	}
	dir := filepath.Join(x.staging, "s-"+x.stamp)
	p := newPart[tablestream.SessionRow](x, filepath.Join(dir, "sessions", "part-000"))
	// Every table has a file, empty where no run has rows of it (a
	// history without tool calls or notices), so that the SQL over the
	// tables (a glob of a table's files) runs on any export.
	empty := errors.Join(emptyPart[tablestream.RunRow](x, dir, "runs"), emptyPart[tablestream.TurnRow](x, dir, "turns"),
		emptyPart[tablestream.ToolCallRow](x, dir, "tool_calls"), emptyPart[tablestream.NoticeRow](x, dir, "notices"))
	if x.content {
		empty = errors.Join(empty, emptyPart[tablestream.MessageRow](x, dir, "messages"))
	}
	if len(sessions) == 0 {
		empty = errors.Join(empty, emptyPart[tablestream.SessionRow](x, dir, "sessions"))
	}
	if err := errors.Join(p.write(sessions), p.close(), empty, writeManifest(dir, manifest{V: 1, Sessions: true, Runs: []entry{}})); err != nil {
		return fmt.Errorf("%w: %w", errWrite, err)
	}
	x.retract = append(x.retract, x.sessionBatches...)
	return nil
}

// sidecarColumns fills the sessions' title, source, parent and review: from uah's
// sidecar as this export read it, else as the last of the session's runs
// exported with one found it; the title (with content) from the sidecar's
// first prompt, else the first prompt of the session's first run.
func (x *Export) sidecarColumns(sessions []tablestream.SessionRow) {
	type info struct {
		source, parent string
		review         bool
		at             *time.Time // the latest run that said them
		first          *entry     // the first run, in tablestream.RunOrder
	}
	by := map[string]*info{}
	note := func(e *entry) {
		if e.SessionID == "" {
			return
		}
		in := by[e.SessionID]
		if in == nil {
			in = &info{}
			by[e.SessionID] = in
		}
		if in.first == nil || tablestream.RunOrder(&e.RunRow, &in.first.RunRow) < 0 {
			in.first = e
		}
		if (e.SessionSource != "" || e.SessionParent != "") && (in.at == nil || e.StartedAt != nil && e.StartedAt.After(*in.at)) {
			in.source, in.parent, in.review, in.at = e.SessionSource, e.SessionParent, e.SessionReview, e.StartedAt
		}
	}
	for _, h := range x.held {
		note(&h.entry)
	}
	for i := range x.runs {
		note(&x.runs[i].entry)
	}
	for i := range sessions {
		s := &sessions[i]
		in := by[s.SessionID]
		if in == nil {
			in = &info{}
		}
		s.Source, s.ParentSessionID, s.Review = in.source, in.parent, in.review
		if sc := x.sidecars[s.SessionID]; sc != nil {
			s.Source, s.ParentSessionID, s.Review = sc.Source, sc.Parent, sc.Review
		}
		if !x.content {
			continue
		}
		if in.first != nil {
			s.Title = in.first.Prompt
		}
		if sc := x.sidecars[s.SessionID]; sc != nil && sc.FirstPrompt != "" {
			t := sc.FirstPrompt
			s.Title = &t
		}
	}
}

// Publish makes the export visible: first the batches it replaces leave
// (to .trash, then removed), then its own batches come in, each by one
// rename, so that no run is ever seen twice or half; a replaced run is
// missing for the moment between. A Publish that fails before the renames
// publishes nothing.
func (x *Export) Publish() error {
	if err := x.finish(); err != nil {
		x.Abort()
		return err
	}
	trash := filepath.Join(x.dir, ".trash", x.stamp)
	if len(x.retract) > 0 {
		if err := os.MkdirAll(trash, 0o755); err != nil {
			return err
		}
	}
	for _, b := range x.retract {
		if err := os.Rename(filepath.Join(x.dir, b), filepath.Join(trash, b)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	entries, err := os.ReadDir(x.staging)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, d := range entries {
		if err := os.Rename(filepath.Join(x.staging, d.Name()), filepath.Join(x.dir, d.Name())); err != nil {
			return err
		}
	}
	os.RemoveAll(trash)
	x.Abort() // the staging directory, empty now
	return nil
}

// Abort removes what this export wrote in staging: nothing of it is
// published.
func (x *Export) Abort() {
	os.RemoveAll(x.staging)
	os.Remove(filepath.Dir(x.staging)) // .staging, when no other export uses it
	os.Remove(filepath.Join(x.dir, ".trash"))
}
