package parquetstream

import (
	"context"
	"errors"

	"github.com/uagentkit/stream/internal/pool"
	"github.com/uagentkit/stream/tablestream"
)

// Run is one run of a source as an export reads it.
type Run struct {
	// Source is what it was read from.
	Source Source
	// Tables are its rows, as Write writes them.
	Tables tablestream.Tables
	// Live reports a run still going (a run directory in
	// statedir.StateRunning): its rows are as far as it got, and its
	// RunRow is cut off. Stopped reports a run directory whose run uagent
	// never ended (statedir.StateStopped): its rows are all there will be,
	// its RunRow cut off with the status statedir.StoppedStatus.
	Live, Stopped bool
	// InSession reports a run read from a session stream (a stream of
	// several runs, or of one that goes on), which a message names by
	// its run id as well as its file.
	InSession bool
}

// ReadRuns reads the runs of srcs as Write reads them (each source once,
// through its session, on all cores) and calls each with every run: the
// runs of a source in their order, the sources in theirs, a source given
// twice once. What cannot be read of a source is said to problem, in the
// sources' order (a name that is not UTF-8 as ErrNameNotUTF8); what a run
// is (cut off, with lines that could not be read) is the caller's to say,
// from its RunRow and Live. An error of each, or ctx ending, ends the
// reading and is returned. A source's runs are held until its turn, so
// memory grows with the largest sources being read, not with all.
func ReadRuns(ctx context.Context, srcs []Source, content bool, problem func(error), each func(Run) error) error {
	var todo []Source
	seen := map[string]bool{}
	for _, s := range srcs {
		if !seen[s.key] {
			seen[s.key] = true
			todo = append(todo, s)
		}
	}
	type read struct {
		report
		tables []tablestream.Tables
	}
	var x Export
	var failed error
	pool.InOrder(len(todo), pool.Each(func(i int) read {
		var r read
		if ctx.Err() != nil {
			r.err = ctx.Err()
			return r
		}
		r.report = x.read(todo[i], content, func(t *tablestream.Tables, _ int) error {
			r.tables = append(r.tables, *t)
			return nil
		})
		return r
	}), func(_ int, r read) {
		if failed != nil {
			return
		}
		for _, p := range r.problems {
			problem(p)
		}
		if r.err != nil {
			if errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded) {
				failed = r.err
				return
			}
			problem(r.err)
		}
		for _, t := range r.tables {
			if err := each(Run{Source: r.src, Tables: t, Live: t.Run.CutOff && r.live, Stopped: t.Run.CutOff && r.stopped, InSession: r.session}); err != nil {
				failed = err
				return
			}
		}
	})
	if failed == nil {
		failed = ctx.Err()
	}
	return failed
}
