package main

import (
	"crypto/rand"
	enchex "encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/uagentkit/stream/tablestream"
)

// Layout of the Parquet parts: rows per row group, and rows per part file.
const (
	rowGroupRows = 8 << 10
	partRows     = 256 << 10
)

// cmdExport writes the runs it is given as Parquet tables: one directory
// per table (runs, turns, tool_calls, notices and, with --content,
// messages), each a set of part files that DuckDB, Spark, Trino and
// BigQuery read as runs/*.parquet. Files are read on all cores; each
// worker writes parts of its own, under a temporary name renamed when
// complete, so a second export adds parts and an interrupted one leaves no
// half-written part where readers look.
func cmdExport(e env, args []string) error {
	fl := flags(e, "export")
	out := fl.String("o", ".", "write the tables under this `dir`")
	content := fl.Bool("content", false, "also export what people and models wrote: messages, tool arguments, the answer")
	allowErrors := fl.Bool("allow-errors", false, "exit 0 even when a file is not a stream, was cut off, or has lines that could not be read")
	if err := fl.parse(args); err != nil {
		return err
	}
	if fl.NArg() == 0 {
		return fl.usageError("want at least one FILE or DIR")
	}
	files, err := streamFiles(fl.Args())
	if err != nil {
		return err
	}
	ex, err := newExporter(*out, *content)
	if err != nil {
		return err
	}
	// Files are read on all cores and reported in order; each worker
	// writes parts of its own.
	code, runs := 0, 0
	inOrder(len(files), func(w int) (func(int) report, func()) {
		parts := ex.worker(w)
		return func(i int) report { return parts.add(files[i], *content) }, func() {
			if err := parts.close(); err != nil {
				ex.fail(err)
			}
		}
	}, func(_ int, r report) {
		if r.err != nil {
			fmt.Fprintf(e.stderr, "uagent-stream: %s\n", sanitize(r.err.Error(), false))
			code = 1
			return
		}
		runs++
		var problems []string
		switch {
		case r.lines == 0:
			problems = append(problems, "not a stream: no line could be read")
		case r.cutOff:
			problems = append(problems, "cut off: no run_finished")
		}
		if r.lineErrors > 0 {
			problems = append(problems, fmt.Sprintf("%d of %d lines could not be read", r.lineErrors, r.lineErrors+r.lines))
		}
		for _, p := range problems {
			fmt.Fprintf(e.stderr, "uagent-stream: %s: %s (exported as such)\n", sanitize(r.name, false), p)
			if !*allowErrors {
				code = max(code, 1)
			}
		}
	})
	if err := ex.err(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(e.stderr, "uagent-stream: exported %d runs to %s\n", runs, sanitize(*out, false))
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// streamFiles lists the files to export: each FILE as given, and the
// *.jsonl files under each DIR, in lexical order.
func streamFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, a)
			continue
		}
		err = filepath.WalkDir(a, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".jsonl") {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// exporter is one export: where it writes, the name every part of it
// shares, and its first error.
type exporter struct {
	dir, stamp string
	content    bool
	mu         sync.Mutex
	first      error
}

func newExporter(dir string, content bool) (*exporter, error) {
	tables := []string{"runs", "turns", "tool_calls", "notices"}
	if content {
		tables = append(tables, "messages")
	}
	for _, t := range tables {
		if err := os.MkdirAll(filepath.Join(dir, t), 0o755); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	b := make([]byte, 4)
	rand.Read(b)
	return &exporter{dir: dir, content: content, stamp: time.Now().UTC().Format("20060102T150405Z") + "-" + enchex.EncodeToString(b)}, nil
}

func (x *exporter) fail(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.first = errors.Join(x.first, err)
}

func (x *exporter) err() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.first
}

// parts is one worker's writers, one per table.
type parts struct {
	runs     *part[tablestream.RunRow]
	turns    *part[tablestream.TurnRow]
	calls    *part[tablestream.ToolCallRow]
	notices  *part[tablestream.NoticeRow]
	messages *part[tablestream.MessageRow]
}

func (x *exporter) worker(w int) *parts {
	name := func(table string) string { return filepath.Join(x.dir, table, fmt.Sprintf("part-%s-%03d", x.stamp, w)) }
	p := &parts{runs: newPart[tablestream.RunRow](name("runs")), turns: newPart[tablestream.TurnRow](name("turns")),
		calls: newPart[tablestream.ToolCallRow](name("tool_calls")), notices: newPart[tablestream.NoticeRow](name("notices"))}
	if x.content {
		p.messages = newPart[tablestream.MessageRow](name("messages"))
	}
	return p
}

// report is what export says of one file.
type report struct {
	name              string
	lines, lineErrors int64
	cutOff            bool
	err               error
}

// add exports one file: its rows are held until the run is read (memory
// bounded by the largest run), then appended to the parts.
func (p *parts) add(name string, content bool) report {
	r, err := p.write(name, content)
	return report{name: name, lines: r.Lines, lineErrors: r.LineErrors, cutOff: r.CutOff, err: err}
}

func (p *parts) write(name string, content bool) (tablestream.RunRow, error) {
	f, err := os.Open(name)
	if err != nil {
		return tablestream.RunRow{}, err
	}
	defer f.Close()
	opts := []tablestream.Option{tablestream.WithFile(name)}
	if content {
		opts = append(opts, tablestream.WithContent())
	}
	t, err := tablestream.Read(f, opts...)
	if err != nil {
		return tablestream.RunRow{}, fmt.Errorf("%s: %w", name, err)
	}
	err = errors.Join(p.runs.write([]tablestream.RunRow{t.Run}), p.turns.write(t.Turns), p.calls.write(t.ToolCalls),
		p.notices.write(t.Notices))
	if p.messages != nil {
		err = errors.Join(err, p.messages.write(t.Messages))
	}
	return t.Run, err
}

func (p *parts) close() error {
	err := errors.Join(p.runs.close(), p.turns.close(), p.calls.close(), p.notices.close())
	if p.messages != nil {
		err = errors.Join(err, p.messages.close())
	}
	return err
}

// part writes a table's rows to part files named base-NNNN.parquet, each
// written as .base-NNNN.parquet.tmp and renamed when complete, with row
// groups of rowGroupRows and at most partRows rows.
type part[T any] struct {
	base string
	n    int // parts begun
	f    *os.File
	w    *parquet.GenericWriter[T]
	rows int
}

func newPart[T any](base string) *part[T] { return &part[T]{base: base} }

func (p *part[T]) tmp() string {
	dir, file := filepath.Split(p.name())
	return filepath.Join(dir, "."+file+".tmp")
}

func (p *part[T]) name() string { return fmt.Sprintf("%s-%04d.parquet", p.base, p.n) }

func (p *part[T]) write(rows []T) error {
	for len(rows) > 0 {
		if p.w == nil {
			f, err := os.Create(p.tmp())
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

// close completes the part being written: closed, synced, then renamed to
// its name.
func (p *part[T]) close() error {
	if p.w == nil {
		return nil
	}
	tmp, final := p.tmp(), p.name()
	err := errors.Join(p.w.Close(), p.f.Sync(), p.f.Close())
	p.w, p.f = nil, nil
	p.n++
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, final)
}
