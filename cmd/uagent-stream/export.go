package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	enchex "encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/tablestream"
	"github.com/uagentkit/stream/uahstream"
)

// Layout of the Parquet parts: rows per row group, and rows per part file.
const (
	rowGroupRows = 8 << 10
	partRows     = 256 << 10
)

// The tables of an export, each a directory of parts in every batch.
var tables = []string{"runs", "turns", "tool_calls", "notices", "messages"}

// cmdExport writes runs as Parquet tables. An export is a set of batches,
// each a directory (DIR/<batch>/<table>/part-….parquet) published whole,
// by one rename, with a manifest of the runs it holds: a run's rows in
// every table appear together or not at all, and an export that is
// interrupted or fails publishes nothing. A later export into the same
// DIR adds only the runs it does not hold yet; a run it holds unfinished
// (cut off, or still running) is in a batch of its own, which the next
// export replaces once the run has changed. The sessions table, made from
// every run held, is a batch of its own too, replaced by each export.
func cmdExport(e env, args []string) error {
	fl := flags(e, "export")
	out := fl.String("o", ".", "write the tables under this `dir`")
	content := fl.Bool("content", false, "also export what people and models wrote: messages, tool arguments, the answer")
	allowErrors := fl.Bool("allow-errors", false, "exit 0 even when an input cannot be read, is not a stream, was cut off, or has lines that could not be read")
	stateFlag := fl.String("state-dir", "", "with no FILE or DIR, export this state directory (default: $UAGENT_STATE_DIR, else uagent's own)")
	if err := fl.parse(args); err != nil {
		return err
	}
	inputs := fl.Args()
	if len(inputs) == 0 {
		dir, err := statedir.Dir(*stateFlag)
		if err != nil {
			return err
		}
		inputs = []string{dir}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	code := 0
	problem := func(err error) {
		fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(err.Error(), false))
		if !*allowErrors {
			code = 1
		}
	}
	srcs := sources(inputs, problem)
	x, err := openExport(*out, *content)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer x.close()
	todo, held := x.plan(srcs)
	if err := x.write(ctx, e, todo, problem); err != nil {
		x.abort()
		if ctx.Err() != nil {
			fmt.Fprintf(e.stderr, "uagent-stream: export interrupted: nothing of it was published to %s\n", sanitize(*out, false))
			return exitError{stream.ExitInterrupted}
		}
		return fmt.Errorf("export: %w (nothing of this export was published)", err)
	}
	if err := x.publish(); err != nil {
		return fmt.Errorf("export: publishing to %s: %w", *out, err)
	}
	fmt.Fprintf(e.stderr, "uagent-stream: exported %d runs to %s", x.exported, sanitize(*out, false))
	if held += x.heldRuns; held > 0 {
		fmt.Fprintf(e.stderr, " (%d it held already)", held)
	}
	fmt.Fprintln(e.stderr)
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// source is a run to export: a stream file or a run directory.
type source struct {
	path string
	run  *statedir.Run // a run directory's; nil for a file
	// key names the run across exports: a run directory's run id, a file's
	// absolute path; fingerprint says whether it changed since.
	key, fingerprint string
}

// sources lists the runs of the inputs: a FILE as given; a state
// directory's runs; a run directory; the *.jsonl files and run
// directories under any other DIR, in lexical order. What cannot be read
// (a missing input, a directory that cannot be listed, a file that is not
// a regular one, a run directory that cannot be opened) is said and left
// out; the rest is exported.
func sources(inputs []string, problem func(error)) []source {
	return sourcesWalking(inputs, problem, filepath.WalkDir)
}

// sourcesWalking is sources, walking directories with walk (another
// walker only in tests).
func sourcesWalking(inputs []string, problem func(error), walk func(string, fs.WalkDirFunc) error) []source {
	var out []source
	addRun := func(r *statedir.Run) {
		out = append(out, source{path: r.Dir, run: r, key: "run:" + r.ID, fingerprint: fingerprint(
			filepath.Join(r.Dir, statedir.EventsFile), filepath.Join(r.Dir, statedir.SummaryFile))})
	}
	addFile := func(path string) {
		abs, err := filepath.Abs(path)
		if err != nil {
			abs = path
		}
		out = append(out, source{path: path, key: "file:" + abs, fingerprint: fingerprint(path)})
	}
	for _, in := range inputs {
		info, err := os.Stat(in)
		switch {
		case err != nil:
			problem(err)
		case !info.IsDir():
			addFile(in)
		case statedir.IsStateDir(in):
			for r, err := range statedir.Runs(in) {
				if err != nil {
					problem(err)
					continue
				}
				addRun(r)
			}
		case statedir.IsRun(in):
			r, err := statedir.OpenRun(in)
			if err != nil {
				problem(err)
				continue
			}
			addRun(r)
		default:
			walk(in, func(path string, d fs.DirEntry, err error) error {
				switch {
				case err != nil:
					problem(err) // a directory that cannot be read: said, and the rest walked
					if d != nil && d.IsDir() {
						return fs.SkipDir
					}
					return nil
				case d.IsDir() && path != in && statedir.IsRun(path):
					r, err := statedir.OpenRun(path)
					if err != nil {
						problem(err)
					} else {
						addRun(r)
					}
					return fs.SkipDir
				case d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl"):
					return nil
				case !d.Type().IsRegular():
					problem(fmt.Errorf("%s: not a regular file (left out)", path))
					return nil
				}
				addFile(path)
				return nil
			})
		}
	}
	return out
}

// fingerprint says what files are now: their sizes and times of change.
func fingerprint(paths ...string) string {
	var parts []string
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil {
			parts = append(parts, fmt.Sprintf("%d@%d", info.Size(), info.ModTime().UnixNano()))
		} else {
			parts = append(parts, "-")
		}
	}
	return strings.Join(parts, ",")
}

// manifest is what a batch holds: its runs, or (for the sessions batch)
// none.
type manifest struct {
	V        int     `json:"v"`
	Sessions bool    `json:"sessions,omitempty"`
	Runs     []entry `json:"runs"`
}

// entry is a run a batch holds: how to know it again, and what the
// sessions table needs of it.
type entry struct {
	Key         string `json:"key"`
	Fingerprint string `json:"fingerprint"`
	Finished    bool   `json:"finished"`
	tablestream.RunRow
}

// heldRun is a run an earlier export published.
type heldRun struct {
	batch string
	entry
}

// exporter is one export into a directory: what the directory holds, the
// batches being written, and what the export publishes.
type exporter struct {
	dir, staging, stamp string
	content             bool
	unlock              func()
	held                map[string]heldRun
	sessionBatches      []string // the sessions batches published now
	main                string   // the batch of the finished runs, in staging
	retract             []string // the published batches this export replaces
	mu                  sync.Mutex
	runs                []newRun // the runs this export read, whose runs rows are written last
	exported            int
	heldRuns            int // runs of session streams the directory holds already
}

// newRun is a run this export read: its batch, and its runs row, written
// once its place in its session is known.
type newRun struct {
	batch string
	entry
}

func openExport(dir string, content bool) (*exporter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockDir(filepath.Join(dir, ".lock"))
	if err != nil {
		return nil, err
	}
	b := make([]byte, 4)
	rand.Read(b)
	x := &exporter{dir: dir, content: content, unlock: unlock, held: map[string]heldRun{},
		stamp: time.Now().UTC().Format("20060102T150405Z") + "-" + enchex.EncodeToString(b)}
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
		}
	}
	return x, nil
}

// plan leaves out the runs the directory holds finished, or holds
// unfinished and unchanged; a run held unfinished that has changed is
// exported again, and its batch retracted when this export is published.
func (x *exporter) plan(srcs []source) (todo []source, held int) {
	seen := map[string]bool{}
	for _, s := range srcs {
		if seen[s.key] {
			continue // given twice
		}
		seen[s.key] = true
		h, ok := x.held[s.key]
		switch {
		case ok && (h.Finished || h.Fingerprint == s.fingerprint):
			held++
			continue
		case ok:
			x.retract = append(x.retract, h.batch)
			delete(x.held, s.key)
		}
		todo = append(todo, s)
	}
	return todo, held
}

// report is what export says of one input: its run, or a session
// stream's runs.
type report struct {
	src      source
	rows     []tablestream.RunRow
	session  bool
	problems []error
	err      error
}

// write reads the runs on all cores into the batches, in staging: the
// finished runs into the main batch, each worker its own parts, and each
// unfinished run into a batch of its own. An error writing a part ends
// the export.
func (x *exporter) write(ctx context.Context, e env, todo []source, problem func(error)) error {
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
	inOrder(len(todo), func(w int) (func(int) report, func()) {
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
			switch {
			case row.Lines == 0:
				issues = append(issues, "not a stream: no line could be read")
			case row.CutOff:
				issues = append(issues, "cut off: no run_finished")
			}
			if row.LineErrors > 0 {
				issues = append(issues, fmt.Sprintf("%d of %d lines could not be read", row.LineErrors, row.LineErrors+row.Lines))
			}
			where := r.src.path
			if r.session {
				where += ": run " + row.RunID
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

// errWrite marks an error of writing the tables, which ends the export.
var errWrite = errors.New("writing the tables")

// export reads one run and writes its rows: into the worker's parts of
// the main batch when it has finished, else into a batch of its own.
func (x *exporter) export(main *parts, s source) report {
	r := report{src: s}
	var in io.ReadCloser
	if s.run != nil {
		in = newRunStream(s.run, s.run.Write)
	} else {
		f, err := os.Open(s.path)
		if err != nil {
			r.err = err
			return r
		}
		in = f
	}
	opts := []tablestream.Option{tablestream.WithFile(s.path)}
	if x.content {
		opts = append(opts, tablestream.WithContent())
	}
	if s.run == nil {
		rd, session, err := uahstream.Sniff(in)
		if err == nil && session {
			defer in.Close()
			return x.exportSession(main, s, rd, opts)
		}
		in = struct {
			io.Reader
			io.Closer
		}{rd, in}
	}
	t, err := tablestream.Read(in, opts...)
	in.Close()
	r.problems = problemsOf(in)
	if err != nil {
		r.err = fmt.Errorf("%s: %w", s.path, err)
		return r
	}
	if s.run != nil { // a run directory's outcome as uagent stats gives it: running, say
		row := &t.Run
		st := stream.Stats{Errors: row.Errors, Failures: row.Failures, EventSpan: time.Duration(row.EventSpanMS) * time.Millisecond}
		status, code, wall := s.run.Outcome(st)
		row.Status, row.RunnerExitCode, row.WallMS = string(status), int64(code), wall.Milliseconds()
	}
	if err := x.add(main, s.key, s.fingerprint, t); err != nil {
		r.err = fmt.Errorf("%w of %s: %w", errWrite, s.path, err)
		return r
	}
	r.rows = []tablestream.RunRow{t.Run}
	return r
}

// add writes a run's rows: into the worker's parts of the main batch
// when it has finished, else into a batch of its own.
func (x *exporter) add(main *parts, key, fingerprint string, t tablestream.Tables) error {
	dest, batch := main, x.main
	if t.Run.CutOff { // unfinished: a batch of its own, replaced when the run changes
		batch = fmt.Sprintf("live-%x-%s", sha256.Sum256([]byte(key)), x.stamp)
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
	x.mu.Lock()
	x.runs = append(x.runs, newRun{batch: batch, entry: entry{Key: key, Fingerprint: fingerprint, Finished: !t.Run.CutOff, RunRow: t.Run}})
	x.mu.Unlock()
	return nil
}

// exportSession exports each run of a session stream of the harness, as
// the lines from its run_started to its run_finished (or to what cut it
// off) would be exported alone. A run is known by its run id (as a run
// directory is): one the directory holds finished, or unfinished and
// unchanged, is left out; one it holds unfinished that has changed is
// replaced.
func (x *exporter) exportSession(main *parts, s source, in io.Reader, opts []tablestream.Option) report {
	r := report{src: s, session: true}
	n := 0
	err := splitRuns(in, func(run io.Reader) error {
		n++
		t, err := tablestream.Read(run, opts...)
		if err != nil {
			return err
		}
		key := "run:" + t.Run.RunID
		if t.Run.RunID == "" {
			key = fmt.Sprintf("%s#%d", s.key, n)
		}
		x.mu.Lock()
		h, ok := x.held[key]
		switch {
		case ok && (h.Finished || h.Fingerprint == s.fingerprint):
			x.heldRuns++
			x.mu.Unlock()
			return nil
		case ok:
			x.retract = append(x.retract, h.batch)
			delete(x.held, key)
		}
		x.mu.Unlock()
		if err := x.add(main, key, s.fingerprint, t); err != nil {
			return fmt.Errorf("%w of %s: %w", errWrite, s.path, err)
		}
		r.rows = append(r.rows, t.Run)
		return nil
	})
	if err != nil && !errors.Is(err, errWrite) {
		err = fmt.Errorf("%s: %w", s.path, err)
	}
	r.err = err
	return r
}

// splitRuns hands each run of a session stream to each, as the lines
// from its run_started to its run_finished (or to the next run_started,
// or the end), while it reads them: a run is never held whole.
func splitRuns(in io.Reader, each func(run io.Reader) error) error {
	dec := stream.NewDecoder(in)
	var pw *io.PipeWriter
	var done chan error
	end := func() error {
		if pw == nil {
			return nil
		}
		pw.Close()
		err := <-done
		pw = nil
		return err
	}
	for {
		dto, err := dec.Decode()
		if err == io.EOF {
			return end()
		}
		if err != nil {
			if _, ok := errors.AsType[*stream.LineError](err); !ok {
				return errors.Join(err, end())
			}
		}
		if _, ok := dto.(stream.RunStartedDTO); ok {
			if err := end(); err != nil {
				return err
			}
			pr, w := io.Pipe()
			pw, done = w, make(chan error, 1)
			go func() {
				err := each(pr)
				pr.CloseWithError(errors.New("the run was read"))
				done <- err
			}()
		}
		if pw == nil {
			continue
		}
		if raw := dec.Raw(); len(raw) > 0 {
			if _, err := pw.Write(append(raw[:len(raw):len(raw)], '\n')); err != nil {
				return errors.Join(end(), err)
			}
		}
		if _, ok := dto.(stream.RunFinishedDTO); ok {
			if err := end(); err != nil {
				return err
			}
		}
	}
}

// parts is the writers of a batch's tables but runs, for one worker (or
// one run).
type parts struct {
	turns    *part[tablestream.TurnRow]
	calls    *part[tablestream.ToolCallRow]
	notices  *part[tablestream.NoticeRow]
	messages *part[tablestream.MessageRow]
}

// parts returns the writers of the batch at dir, their files named base.
func (x *exporter) parts(dir, base string) *parts {
	name := func(table string) string { return filepath.Join(dir, table, base) }
	p := &parts{turns: newPart[tablestream.TurnRow](name("turns")), calls: newPart[tablestream.ToolCallRow](name("tool_calls")),
		notices: newPart[tablestream.NoticeRow](name("notices"))}
	if x.content {
		p.messages = newPart[tablestream.MessageRow](name("messages"))
	}
	return p
}

// add writes a run's rows but its runs row.
func (p *parts) add(t tablestream.Tables) error {
	err := errors.Join(p.turns.write(t.Turns), p.calls.write(t.ToolCalls), p.notices.write(t.Notices))
	if p.messages != nil {
		err = errors.Join(err, p.messages.write(t.Messages))
	}
	return err
}

func (p *parts) close() error {
	err := errors.Join(p.turns.close(), p.calls.close(), p.notices.close())
	if p.messages != nil {
		err = errors.Join(err, p.messages.close())
	}
	return err
}

// finish writes, in staging, what needs every run read: the runs rows, each
// with its place in its session, the manifests, and the sessions batch,
// made from every run the directory will hold.
func (x *exporter) finish() error {
	if len(x.runs) == 0 && len(x.retract) == 0 {
		return nil // nothing new: the sessions are as they were
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
		runs := newPart[tablestream.RunRow](filepath.Join(dir, "runs", "part-000"))
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
	p := newPart[tablestream.SessionRow](filepath.Join(dir, "sessions", "part-000"))
	if err := errors.Join(p.write(sessions), p.close(), writeManifest(dir, manifest{V: 1, Sessions: true, Runs: []entry{}})); err != nil {
		return fmt.Errorf("%w: %w", errWrite, err)
	}
	x.retract = append(x.retract, x.sessionBatches...)
	return nil
}

// writeManifest writes a batch's manifest.json, synced.
func writeManifest(dir string, m manifest) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return errors.Join(err, f.Sync(), f.Close())
}

// publish makes the export visible: first the batches it replaces leave
// (to .trash, then removed), then its own batches come in, each by one
// rename, so that no run is ever seen twice or half; a replaced run is
// missing for the moment between.
func (x *exporter) publish() error {
	if err := x.finish(); err != nil {
		x.abort()
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
	x.abort() // the staging directory, empty now
	return nil
}

// abort removes what this export wrote in staging.
func (x *exporter) abort() {
	os.RemoveAll(x.staging)
	os.Remove(filepath.Dir(x.staging)) // .staging, when no other export uses it
	os.Remove(filepath.Join(x.dir, ".trash"))
}

func (x *exporter) close() { x.unlock() }

// part writes a table's rows, in staging, to part files named
// base-NNNN.parquet, with row groups of rowGroupRows and at most partRows
// rows; staging is invisible to readers, so a part needs no name of its
// own while it is written.
type part[T any] struct {
	base string
	n    int // parts begun
	f    *os.File
	w    *parquet.GenericWriter[T]
	rows int
}

func newPart[T any](base string) *part[T] { return &part[T]{base: base} }

func (p *part[T]) name() string { return fmt.Sprintf("%s-%04d.parquet", p.base, p.n) }

func (p *part[T]) write(rows []T) error {
	for len(rows) > 0 {
		if p.w == nil {
			if err := os.MkdirAll(filepath.Dir(p.base), 0o755); err != nil {
				return err
			}
			f, err := os.Create(p.name())
			if err != nil {
				return err
			}
			p.f, p.rows = f, 0
			p.w = parquet.NewGenericWriter[T](f, parquet.Compression(&snappy.Codec{}), parquet.MaxRowsPerRowGroup(rowGroupRows),
				parquet.CreatedBy("uagent-stream", versionString(), ""))
		}
		n := min(len(rows), partRows-p.rows)
		if _, err := p.w.Write(rows[:n]); err != nil {
			return err
		}
		p.rows += n
		rows = rows[n:]
		if p.rows == partRows {
			if err := p.close(); err != nil {
				return err
			}
		}
	}
	return nil
}

// close completes the part being written, synced.
func (p *part[T]) close() error {
	if p.w == nil {
		return nil
	}
	err := errors.Join(p.w.Close(), p.f.Sync(), p.f.Close())
	p.w, p.f = nil, nil
	p.n++
	return err
}
