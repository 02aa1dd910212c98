// Package icebergstream appends uagent runs to Apache Iceberg tables on
// object storage: the tables of the local Parquet export
// (parquetstream), named NS.runs, NS.turns, NS.tool_calls, NS.notices and,
// with content, NS.messages, in the same columns and values, so that a
// team's runs from many machines are one table that Spark, Trino, Athena,
// Snowflake, DuckDB and BigQuery read.
//
// What an export guarantees, whoever runs it, however often, and from
// however many machines at once:
//
//   - Each run once. Only runs that have ended are appended (a run still
//     going, or a stream cut off, is said and left for a later export: a
//     row of an Iceberg table is never replaced). Before each commit the
//     export reads the run ids the table holds at the snapshot it commits
//     onto, and appends only the others; the commit requires that
//     snapshot to be still the table's (optimistic concurrency), so an
//     export that lost a race reloads the table, reads its run ids again,
//     and builds a new commit, at most MaxAttempts times. An error whose
//     outcome the catalog left unknown is checked the same way, by the
//     next attempt or the next export, before anything is written again.
//   - Never half visible. The tables are committed one after the other,
//     runs last: a reader that joins on runs sees a run whole or not at
//     all. An export killed between two commits leaves runs without their
//     runs row, which the next export completes without writing their
//     other rows again (each table is checked by itself).
//   - Data files written once. A commit's rows of a table are one Parquet
//     file with the table's Iceberg field ids, under the table's data/
//     directory, named by the SHA-256 of the table's name and the run ids
//     it holds: written create-only (S3's If-None-Match: *, a local
//     file's hard link), so a retry that writes the same runs finds the
//     file it wrote and a half-written file is never a file.
//
// It is a module of its own (github.com/uagentkit/stream/iceberg), so
// that those who never use a catalog do not build iceberg-go, Arrow and
// the cloud SDKs; the rows are tablestream's, read by parquetstream's
// reader, so the two exports cannot drift.
package icebergstream

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/uagentkit/stream/parquetstream"
	"github.com/uagentkit/stream/tablestream"
	"github.com/uagentkit/stream/termstream"
)

// MaxAttempts bounds the commits of one table in one batch: a commit that
// lost a race is built again on the table as it now is, at most this many
// times in all.
const MaxAttempts = 25

// batchRuns is how many runs a commit holds at most: an export of a long
// history is several commits, each of them whole.
const batchRuns = 2000

// ErrNotEnded marks what an export says of a run that has not ended (still
// going, or cut off): it is not appended, as an Iceberg row is never
// replaced; a later export appends it once it has ended.
var ErrNotEnded = errors.New("not ended: left for a later export")

// ErrNoRunID marks a run without a run id (a stream without run_started),
// which a table cannot hold once only: it is not appended.
var ErrNoRunID = errors.New("no run id: not appended")

// Config is where an export goes.
type Config struct {
	// Catalog is sqlite:PATH, postgres://… or http(s)://….
	Catalog string
	// Warehouse is where new tables live (s3://bucket/prefix,
	// file:///path); a REST catalog may choose it, SQLite defaults to the
	// directory warehouse beside its file.
	Warehouse string
	// Namespace holds the tables ("uagent" when empty).
	Namespace string
	// Content also appends what people and models wrote (the messages
	// table, tool arguments, the answer), as the local export's
	// WithContent.
	Content bool
	// CreatedBy names the program in the snapshots' summaries.
	CreatedBy string
	// ConnectTimeout bounds making a connection to the catalog or the
	// store (DefaultConnectTimeout when 0); RequestTimeout each request,
	// from its first byte to its last (DefaultRequestTimeout when 0).
	ConnectTimeout, RequestTimeout time.Duration
}

// Exporter appends runs to a catalog's tables. Its methods are not safe
// for concurrent use; exporters in other goroutines, processes or
// machines may append to the same tables at once.
type Exporter struct {
	cfg   Config
	cat   catalog.Catalog
	props iceberg.Properties
	store *store
	aws   *aws.Config // the store's settings, network waits bounded
	// schemasChecked: every table was found to be this package's.
	schemasChecked bool
	// held are the runs of a table version this exporter read or made,
	// by its metadata location: a table that no other exporter changed
	// since is not read again (a commit's table holds what its parent
	// held and what it appended).
	held map[string]map[string]*tablestream.RunRow
}

// Report is what an export did.
type Report struct {
	// Appended are the runs this export added to the runs table.
	Appended int
	// Already are the runs the runs table had already.
	Already int
	// Rows are the rows it appended, by table.
	Rows map[string]int
	// Commits are the commits it made, Retries those it had to build
	// again after losing a race.
	Commits, Retries int
}

// Open opens the catalog. It fails with ErrUsage for a catalog it does
// not read, and with the catalog's error for one it cannot reach.
func Open(ctx context.Context, cfg Config) (*Exporter, error) {
	cfg.Namespace = cmp.Or(cfg.Namespace, "uagent")
	cfg.CreatedBy = cmp.Or(cfg.CreatedBy, "uagent-stream-iceberg")
	cfg.ConnectTimeout = cmp.Or(cfg.ConnectTimeout, DefaultConnectTimeout)
	cfg.RequestTimeout = cmp.Or(cfg.RequestTimeout, DefaultRequestTimeout)
	props := storeProps()
	awscfg, err := awsConfig(ctx, props, cfg.ConnectTimeout, cfg.RequestTimeout)
	if err != nil {
		awscfg = nil // no S3 settings here: a file warehouse needs none, and an s3:// one says so when used
	}
	ctx = withAws(ctx, awscfg)
	cat, err := openCatalog(ctx, cfg.Catalog, cfg.Warehouse, props, bounded(cfg.ConnectTimeout, cfg.RequestTimeout))
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", termstream.OneLine(cfg.Catalog, 200), err)
	}
	return &Exporter{cfg: cfg, cat: cat, props: props, store: &store{props: props, aws: awscfg}, aws: awscfg,
		held: map[string]map[string]*tablestream.RunRow{}}, nil
}

// Close closes the catalog.
func (x *Exporter) Close() error {
	if c, ok := x.cat.(catalog.Closer); ok {
		return c.Close()
	}
	return nil
}

// Catalog is the catalog the exporter appends to.
func (x *Exporter) Catalog() catalog.Catalog { return x.cat }

// Table is the identifier of a table of the export ("runs", "turns", …).
func (x *Exporter) Table(name string) table.Identifier {
	return append(catalog.ToIdentifier(x.cfg.Namespace), name)
}

// Export appends the ended runs of srcs that the tables do not hold, in
// batches of whole runs. What cannot be read, and every run that is not
// appended (not ended, without a run id), is said to problem; the rest is
// exported. An error of the catalog or the store ends the export: the
// batches committed before it stay, whole.
func (x *Exporter) Export(ctx context.Context, srcs []parquetstream.Source, problem func(error)) (Report, error) {
	ctx = withAws(ctx, x.aws) // iceberg-go's S3 file IO, its waits bounded
	rep := Report{Rows: map[string]int{}}
	var batch []*tablestream.Tables
	seen := map[string]bool{}
	// A run directory whose run the runs table holds is complete in every
	// table (runs are committed last): it is not read again.
	if tbl, err := x.cat.LoadTable(ctx, x.Table("runs")); err == nil {
		held, err := x.heldRuns(ctx, tbl, true)
		if err != nil {
			return rep, fmt.Errorf("the runs table: reading its run ids: %w", err)
		}
		srcs = slices.DeleteFunc(slices.Clone(srcs), func(s parquetstream.Source) bool {
			if s.Run != nil && held[s.Run.ID] != nil && !seen[s.Run.ID] {
				seen[s.Run.ID] = true
				rep.Already++
				return true
			}
			return false
		})
	} else if !errors.Is(err, catalog.ErrNoSuchTable) {
		return rep, fmt.Errorf("the runs table: %w", err)
	}
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := x.commit(ctx, batch, &rep)
		batch = batch[:0]
		return err
	}
	err := parquetstream.ReadRuns(ctx, srcs, x.cfg.Content, problem, func(r parquetstream.Run) error {
		row := &r.Tables.Run
		where := r.Source.Path
		if r.InSession && row.RunID != "" {
			where += ": run " + row.RunID
		}
		switch {
		case row.RunID == "":
			problem(fmt.Errorf("%s: %w", where, ErrNoRunID))
			return nil
		case row.CutOff && r.Live:
			problem(fmt.Errorf("%s: still running: %w", where, ErrNotEnded))
			return nil
		case row.CutOff && !r.Stopped: // a stopped run directory is final: appended, status cut_off
			problem(fmt.Errorf("%s: cut off, no run_finished: %w", where, ErrNotEnded))
			return nil
		case seen[row.RunID]:
			return nil // read twice (its run directory and a stream of it): once
		}
		seen[row.RunID] = true
		if row.LineErrors > 0 {
			problem(fmt.Errorf("%s: %d of %d lines could not be read (appended as such)", where, row.LineErrors, row.Lines))
		}
		t := r.Tables
		batch = append(batch, &t)
		if len(batch) == batchRuns {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	return rep, err
}

// commit appends a batch of runs to every table, runs last, once every
// table is checked to be this package's (its schema).
func (x *Exporter) commit(ctx context.Context, batch []*tablestream.Tables, rep *Report) error {
	if err := x.namespace(ctx); err != nil {
		return err
	}
	if err := x.checkSchemas(ctx); err != nil {
		return err
	}
	for _, k := range kinds {
		if k.content && !x.cfg.Content {
			continue
		}
		if err := x.appendTo(ctx, k, batch, rep); err != nil {
			return fmt.Errorf("the %s table: %w", k.name, err)
		}
	}
	return nil
}

// checkSchemas checks, once, before anything is committed, that every
// table the export appends to has the schema this package writes: a
// table of the same name made by something else is refused, and no table
// gets a row.
func (x *Exporter) checkSchemas(ctx context.Context) error {
	if x.schemasChecked {
		return nil
	}
	for _, k := range kinds {
		if k.content && !x.cfg.Content {
			continue
		}
		tbl, err := x.load(ctx, k)
		if err != nil {
			return fmt.Errorf("the %s table: %w", k.name, err)
		}
		ours, err := k.schema(ctx)
		if err != nil {
			return err
		}
		if !tbl.Schema().Equals(ours) {
			return fmt.Errorf("the table %s.%s is not uagent-stream's %s table (its columns differ): nothing appended",
				x.cfg.Namespace, k.name, k.name)
		}
	}
	x.schemasChecked = true
	return nil
}

// namespace makes the namespace if it is not there.
func (x *Exporter) namespace(ctx context.Context) error {
	ns := catalog.ToIdentifier(x.cfg.Namespace)
	ok, err := x.cat.CheckNamespaceExists(ctx, ns)
	if err != nil || ok {
		return err
	}
	if err := x.cat.CreateNamespace(ctx, ns, nil); err != nil && !errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
		return fmt.Errorf("creating the namespace %s: %w", x.cfg.Namespace, err)
	}
	return nil
}

// load loads a table, creating it on first use; one another exporter
// created at the same moment is loaded.
func (x *Exporter) load(ctx context.Context, k kind) (*table.Table, error) {
	id := x.Table(k.name)
	tbl, err := x.cat.LoadTable(ctx, id)
	if !errors.Is(err, catalog.ErrNoSuchTable) {
		return tbl, err
	}
	sc, err := k.schema(ctx)
	if err != nil {
		return nil, err
	}
	tbl, err = x.cat.CreateTable(ctx, id, sc, catalog.WithProperties(iceberg.Properties{
		"format-version":                  "2",
		"write.parquet.compression-codec": "zstd",
	}))
	if errors.Is(err, catalog.ErrTableAlreadyExists) || isConflict(err) {
		return x.cat.LoadTable(ctx, id)
	}
	return tbl, err
}

// appendTo appends to one table the rows of the runs of batch that it
// does not hold: built on the table as loaded, committed on it, and built
// again on the table as it now is when another commit came first.
func (x *Exporter) appendTo(ctx context.Context, k kind, batch []*tablestream.Tables, rep *Report) error {
	for attempt := 1; ; attempt++ {
		tbl, err := x.load(ctx, k)
		if err != nil {
			return err
		}
		held, err := x.heldRuns(ctx, tbl, k.name == "runs")
		if err != nil {
			return fmt.Errorf("reading its run ids: %w", err)
		}
		var todo []*tablestream.Tables
		for _, t := range batch {
			if _, ok := held[t.Run.RunID]; !ok {
				todo = append(todo, t)
			}
		}
		if k.name == "runs" {
			sessionSeqs(held, todo)
		}
		if len(todo) == 0 {
			if k.name == "runs" {
				rep.Already += len(batch)
			}
			return nil
		}
		data, n, err := k.dataFile(ctx, tbl, todo)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil // none of these runs has rows here
		}
		path := strings.TrimSuffix(tbl.Location(), "/") + "/data/" + fileName(k.name, x.cfg.Content, todo)
		if err := x.store.putOnce(ctx, tbl, path, data); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		fs, err := tbl.FS(ctx)
		if err != nil {
			return err
		}
		df, err := table.FileToDataFile(ctx, fs, path, tbl.Schema(), tbl.Spec(), 0, tbl.Properties())
		if err != nil {
			return fmt.Errorf("reading back %s: %w", path, err)
		}
		tx := tbl.NewTransaction()
		props := iceberg.Properties{"uagentkit.runs": strconv.Itoa(len(todo)), "uagentkit.created-by": x.cfg.CreatedBy}
		if err := tx.AddDataFiles(ctx, []iceberg.DataFile{df}, props, table.WithoutDuplicateCheck()); err != nil {
			return err
		}
		next, err := tx.Commit(ctx)
		switch {
		case err == nil:
			delete(x.held, tbl.MetadataLocation())
			for _, t := range todo {
				held[t.Run.RunID] = &tablestream.RunRow{RunID: t.Run.RunID, SessionID: t.Run.SessionID, StartedAt: t.Run.StartedAt}
			}
			x.held[next.MetadataLocation()] = held
			if afterCommit != nil {
				afterCommit(k.name)
			}
			rep.Commits++
			rep.Rows[k.name] += n
			if k.name == "runs" {
				rep.Appended += len(todo)
				rep.Already += len(batch) - len(todo)
			}
			return nil
		case !isConflict(err):
			return fmt.Errorf("committing (its outcome is checked by the next export): %w", err)
		case attempt == MaxAttempts:
			return fmt.Errorf("committing: lost the race %d times: %w", attempt, err)
		}
		rep.Retries++
		// Back off, jittered, so that exporters racing for one table
		// do not meet again at once.
		d := time.Duration(min(attempt, 8)) * 40 * time.Millisecond
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d/2 + rand.N(d)):
		}
	}
}

// afterCommit, when not nil, is called after each commit with the
// table's name: the tests' hook for an exporter killed between two
// commits. Nil outside tests.
var afterCommit func(table string)

// isConflict reports an error of a commit or a create that another
// writer came first: iceberg-go's ErrCommitFailed, and the SQL catalog's
// failed requirements ("branch main has changed", "created
// concurrently"), which it reports as plain errors, and SQLite's lock.
func isConflict(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, table.ErrCommitFailed) {
		return true
	}
	s := err.Error()
	for _, m := range []string{"requirement failed", "has changed", "created concurrently", "database is locked", "SQLITE_BUSY", "could not serialize", "deadlock detected", "duplicate key"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// heldRuns are the runs a table holds at its current snapshot, by run
// id; with sessions (the runs table), each with its session id and start.
// A version of the table read before, or made by this exporter's own
// commit, is not read again.
func (x *Exporter) heldRuns(ctx context.Context, tbl *table.Table, sessions bool) (map[string]*tablestream.RunRow, error) {
	if held, ok := x.held[tbl.MetadataLocation()]; ok {
		return held, nil
	}
	held, err := readHeld(ctx, tbl, sessions)
	if err == nil {
		x.held[tbl.MetadataLocation()] = held
	}
	return held, err
}

// readHeld reads heldRuns from the table's data files: its run_id column,
// with sessions its session_id and started_at too.
func readHeld(ctx context.Context, tbl *table.Table, sessions bool) (map[string]*tablestream.RunRow, error) {
	held := map[string]*tablestream.RunRow{}
	if tbl.CurrentSnapshot() == nil {
		return held, nil
	}
	fields := []string{"run_id"}
	if sessions {
		fields = append(fields, "session_id", "started_at")
	}
	_, recs, err := tbl.Scan(table.WithSelectedFields(fields...)).ToArrowRecords(ctx)
	if err != nil {
		return nil, err
	}
	for rec, err := range recs {
		if err != nil {
			return nil, err
		}
		id, ok := rec.Column(0).(stringColumn)
		sid, ok2 := stringColumn(nil), true
		if sessions {
			sid, ok2 = rec.Column(1).(stringColumn)
		}
		if !ok || !ok2 {
			rec.Release()
			return nil, fmt.Errorf("run_id or session_id is not a string column")
		}
		for i := range int(rec.NumRows()) {
			r := &tablestream.RunRow{RunID: id.Value(i)}
			if sessions {
				r.SessionID = sid.Value(i)
				if at, ok := rec.Column(2).(*array.Timestamp); ok && at.IsValid(i) {
					unit := at.DataType().(*arrow.TimestampType).Unit
					t := at.Value(i).ToTime(unit)
					r.StartedAt = &t
				}
			}
			held[r.RunID] = r
		}
		rec.Release()
	}
	return held, nil
}

// stringColumn is an Arrow column of strings (String, LargeString).
type stringColumn interface{ Value(int) string }

// sessionSeqs sets the session_seq of the runs to append: its place, by
// tablestream.RunOrder, among its session's runs that the table holds and
// that are appended with it. It is the local export's (tablestream.
// Sessions) when a session's runs are appended in the order they ran, as
// the exports of the machine that ran them append them; a run of a
// session appended after a later one keeps the place it had then, as a
// row is never rewritten.
func sessionSeqs(held map[string]*tablestream.RunRow, todo []*tablestream.Tables) {
	by := map[string][]*tablestream.RunRow{}
	for _, r := range held {
		if r.SessionID != "" {
			by[r.SessionID] = append(by[r.SessionID], r)
		}
	}
	for _, t := range todo {
		if t.Run.SessionID != "" {
			by[t.Run.SessionID] = append(by[t.Run.SessionID], &t.Run)
		}
	}
	for _, t := range todo {
		r := &t.Run
		r.SessionSeq = 0
		if r.SessionID == "" {
			continue
		}
		r.SessionSeq = 1
		for _, o := range by[r.SessionID] {
			if tablestream.RunOrder(o, r) < 0 {
				r.SessionSeq++
			}
		}
	}
}

// fileName names a data file by its table, whether it has content, and
// its runs: the same runs make the same name, so a retry finds the file
// it wrote.
func fileName(table string, content bool, runs []*tablestream.Tables) string {
	ids := make([]string, len(runs))
	for i, t := range runs {
		ids[i] = t.Run.RunID
	}
	slices.Sort(ids)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%t", table, content)
	for _, id := range ids {
		h.Write([]byte{0})
		h.Write([]byte(id))
	}
	return table + "-" + hex.EncodeToString(h.Sum(nil)[:16]) + ".parquet"
}
