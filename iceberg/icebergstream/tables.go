package icebergstream

import (
	"bytes"
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	apq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/parquet-go/parquet-go"

	"github.com/uagentkit/stream/tablestream"
)

// kind is one of the tables: its name, and its rows of some runs as
// Arrow, in the columns and values that the local export writes (the
// rows are tablestream's, encoded by parquet-go from the same struct
// tags, then read by Arrow's Parquet reader).
type kind struct {
	name    string
	content bool // a table only with content (messages)
	// rows encodes the rows of runs as Parquet, and says how many.
	rows func(runs []*tablestream.Tables) ([]byte, int, error)
}

// kinds are the tables in the order an export commits them: runs last,
// so that a reader joining on runs never sees a run only partly there.
var kinds = []kind{
	kindOf("turns", false, func(t *tablestream.Tables) []tablestream.TurnRow { return t.Turns }),
	kindOf("tool_calls", false, func(t *tablestream.Tables) []tablestream.ToolCallRow { return t.ToolCalls }),
	kindOf("notices", false, func(t *tablestream.Tables) []tablestream.NoticeRow { return t.Notices }),
	kindOf("messages", true, func(t *tablestream.Tables) []tablestream.MessageRow { return t.Messages }),
	kindOf("runs", false, func(t *tablestream.Tables) []tablestream.RunRow { return []tablestream.RunRow{t.Run} }),
}

func kindOf[T any](name string, content bool, of func(*tablestream.Tables) []T) kind {
	return kind{name: name, content: content, rows: func(runs []*tablestream.Tables) ([]byte, int, error) {
		var rows []T
		for _, t := range runs {
			rows = append(rows, of(t)...)
		}
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[T](&buf)
		if _, err := w.Write(rows); err != nil {
			return nil, 0, err
		}
		if err := w.Close(); err != nil {
			return nil, 0, err
		}
		return buf.Bytes(), len(rows), nil
	}}
}

// readArrow reads Parquet bytes as an Arrow table.
func readArrow(ctx context.Context, data []byte) (arrow.Table, error) {
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	return fr.ReadTable(ctx)
}

// schema is the Iceberg schema of a kind's table: its Arrow schema with
// field ids given in column order (nested fields included), so that
// engines find columns by id and prune by them.
func (k kind) schema(ctx context.Context) (*iceberg.Schema, error) {
	data, _, err := k.rows(nil)
	if err != nil {
		return nil, err
	}
	t, err := readArrow(ctx, data)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	sc, err := table.ArrowSchemaToIcebergWithFreshIDs(t.Schema(), false)
	if err != nil {
		return nil, fmt.Errorf("the %s table's schema: %w", k.name, err)
	}
	// The schema of rows as dataFile writes them (which makes a map's
	// values optional), so that a data file's schema is the table's.
	cols := make([]arrow.Array, t.NumCols())
	for i, f := range t.Schema().Fields() {
		cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, 0)
		defer cols[i].Release()
	}
	empty := array.NewRecordBatch(t.Schema(), cols, 0)
	defer empty.Release()
	rec, err := table.ToRequestedSchema(ctx, sc, sc, empty, table.SchemaOptions{IncludeFieldIDs: true})
	if err != nil {
		return nil, fmt.Errorf("the %s table's schema: %w", k.name, err)
	}
	defer rec.Release()
	sc, err = table.ArrowSchemaToIceberg(rec.Schema(), false, nil)
	if err != nil {
		return nil, fmt.Errorf("the %s table's schema: %w", k.name, err)
	}
	return sc, nil
}

// dataFile encodes the rows of runs as a Parquet data file of tbl: the
// table's columns with their Iceberg field ids, zstd-compressed.
func (k kind) dataFile(ctx context.Context, tbl *table.Table, runs []*tablestream.Tables) ([]byte, int, error) {
	data, n, err := k.rows(runs)
	if err != nil || n == 0 {
		return nil, n, err
	}
	t, err := readArrow(ctx, data)
	if err != nil {
		return nil, 0, err
	}
	defer t.Release()
	sc := tbl.Schema()
	var buf bytes.Buffer
	var w *pqarrow.FileWriter
	tr := array.NewTableReader(t, 64<<10)
	defer tr.Release()
	for tr.Next() {
		rec, err := table.ToRequestedSchema(ctx, sc, sc, tr.RecordBatch(), table.SchemaOptions{IncludeFieldIDs: true})
		if err != nil {
			return nil, 0, fmt.Errorf("the %s table's rows: %w", k.name, err)
		}
		if w == nil { // the schema of the rows as the table's: its field ids
			props := apq.NewWriterProperties(apq.WithCompression(compress.Codecs.Zstd), apq.WithCreatedBy("uagent-stream-iceberg"))
			w, err = pqarrow.NewFileWriter(rec.Schema(), &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
			if err != nil {
				rec.Release()
				return nil, 0, err
			}
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			w.Close()
			return nil, 0, err
		}
	}
	if err := tr.Err(); err != nil {
		if w != nil {
			w.Close()
		}
		return nil, 0, err
	}
	if w == nil {
		return nil, 0, nil
	}
	if err := w.Close(); err != nil {
		return nil, 0, err
	}
	return buf.Bytes(), n, nil
}
