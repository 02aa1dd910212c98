package parquetstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/uagentkit/stream/tablestream"
)

// Layout of the Parquet parts: rows per row group, and rows per part file.
const (
	rowGroupRows = 8 << 10
	partRows     = 256 << 10
)

// manifest is what a batch holds: its runs, or (for the sessions batch)
// none.
type manifest struct {
	V        int     `json:"v"`
	Sessions bool    `json:"sessions,omitempty"`
	Runs     []entry `json:"runs"`
}

// entry is a run a batch holds: how to know it again (Key: its run id,
// whatever input it came from; a run without one, by its input), the
// input it came from and what that input was then, and what the sessions
// table needs of it. Keys and rows are valid UTF-8 (see valid).
type entry struct {
	Key         string `json:"key"`
	Source      string `json:"source"`
	Fingerprint string `json:"fingerprint"`
	Finished    bool   `json:"finished"`
	// What the run's session's sidecar said when the run was exported,
	// and (with content) the run's first prompt: the sessions table's.
	SessionSource string  `json:"session_source,omitempty"`
	SessionParent string  `json:"session_parent,omitempty"`
	SessionReview bool    `json:"session_review,omitempty"`
	Prompt        *string `json:"prompt,omitempty"`
	tablestream.RunRow
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

// parts is the writers of a batch's tables but runs, for one worker (or
// one run).
type parts struct {
	turns    *part[tablestream.TurnRow]
	calls    *part[tablestream.ToolCallRow]
	notices  *part[tablestream.NoticeRow]
	messages *part[tablestream.MessageRow]
}

// parts returns the writers of the batch at dir, their files named base.
func (x *Export) parts(dir, base string) *parts {
	name := func(table string) string { return filepath.Join(dir, table, base) }
	p := &parts{turns: newPart[tablestream.TurnRow](x, name("turns")), calls: newPart[tablestream.ToolCallRow](x, name("tool_calls")),
		notices: newPart[tablestream.NoticeRow](x, name("notices"))}
	if x.content {
		p.messages = newPart[tablestream.MessageRow](x, name("messages"))
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

// part writes a table's rows, in staging, to part files named
// base-NNNN.parquet, with row groups of rowGroupRows and at most partRows
// rows; staging is invisible to readers, so a part needs no name of its
// own while it is written.
type part[T any] struct {
	x    *Export
	base string
	n    int // parts begun
	f    *os.File
	w    *parquet.GenericWriter[T]
	rows int
}

func newPart[T any](x *Export, base string) *part[T] { return &part[T]{x: x, base: base} }

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
				parquet.CreatedBy(p.x.app, p.x.version, ""))
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

// emptyPart writes table's file of no rows, with its schema, in the
// batch at dir.
func emptyPart[T any](x *Export, dir, table string) error {
	p := newPart[T](x, filepath.Join(dir, table, "empty"))
	if err := os.MkdirAll(filepath.Dir(p.base), 0o755); err != nil {
		return err
	}
	f, err := os.Create(p.base + ".parquet")
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[T](f, parquet.Compression(&snappy.Codec{}), parquet.CreatedBy(x.app, x.version, ""))
	return errors.Join(w.Close(), f.Sync(), f.Close())
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
