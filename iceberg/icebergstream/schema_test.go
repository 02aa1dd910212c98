package icebergstream

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A table of the same name and another schema (made by something else) is
// refused before anything is committed: no table gets a row, and the
// error says which table, in a line.
func TestForeignTableRefusedFirst(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "cat.db")
	x := open(t, Config{Catalog: db})
	ctx := context.Background()
	require.NoError(t, x.namespace(ctx))
	_, err := x.cat.CreateTable(ctx, x.Table("runs"), iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "something", Type: iceberg.PrimitiveTypes.String, Required: true}))
	require.NoError(t, err)
	srcs, _ := history(t, 3)
	_, err = x.Export(ctx, srcs, func(error) {})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "uagent.runs is not uagent-stream's runs table")
	assert.Less(t, len(err.Error()), 200, err.Error())
	for _, k := range kinds {
		tbl, err := x.cat.LoadTable(ctx, x.Table(k.name))
		if err == nil {
			assert.Nil(t, tbl.CurrentSnapshot(), "%s: nothing committed", k.name)
		}
	}
}
