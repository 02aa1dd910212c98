package icebergstream

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/parquetstream"
	"github.com/uagentkit/stream/statedir"
)

// history writes the fixture (a live run, a run without summary, a
// subagent, a run in two homes, hostile names) and n more runs, and
// returns their sources.
func history(t *testing.T, n int) ([]parquetstream.Source, historytest.Fixture) {
	t.Helper()
	root := t.TempDir()
	fx, err := historytest.WriteFixture(filepath.Join(root, "fixture"))
	require.NoError(t, err)
	release, err := fx.HoldLive() // its last run goes on; the run before it was stopped (uagent died)
	require.NoError(t, err)
	t.Cleanup(release)
	inputs := fx.Dirs()
	if n > 0 {
		homes, err := historytest.Many(filepath.Join(root, "many"), n)
		require.NoError(t, err)
		inputs = append(inputs, homes...)
	}
	return parquetstream.Sources(inputs, func(err error) { t.Log(err) }), fx
}

func open(t *testing.T, cfg Config) *Exporter {
	t.Helper()
	x, err := Open(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { x.Close() })
	return x
}

func export(t *testing.T, x *Exporter, srcs []parquetstream.Source) (Report, []error) {
	t.Helper()
	var problems []error
	rep, err := x.Export(context.Background(), srcs, func(err error) { problems = append(problems, err) })
	require.NoError(t, err)
	return rep, problems
}

// TestTablesEqualTheLocalExport exports into a SQLite catalog with an
// S3 warehouse, reads every table back by iceberg-go's scan, and finds
// the rows of the local Parquet export of the same runs, every one.
func TestTablesEqualTheLocalExport(t *testing.T) {
	fakeS3(t)
	for _, content := range []bool{false, true} {
		t.Run(map[bool]string{false: "without content", true: "with content"}[content], func(t *testing.T) {
			srcs, _ := history(t, 40)
			x := open(t, Config{Catalog: "sqlite:" + filepath.Join(t.TempDir(), "cat.db"), Warehouse: "s3://lake/wh", Content: content})
			rep, problems := export(t, x, srcs)
			want := localRows(t, srcs, content)
			require.NotEmpty(t, want["runs"])
			require.NotEmpty(t, want["turns"])
			require.NotEmpty(t, want["tool_calls"])
			assert.Equal(t, len(want["runs"]), rep.Appended)
			for _, k := range kinds {
				if k.content && !content {
					continue
				}
				got := tableRows(t, x.Catalog(), x.Table(k.name))
				if d := cmp.Diff(want[k.name], got); d != "" {
					t.Errorf("%s (-local +iceberg):\n%s", k.name, d)
				}
				assert.Equal(t, len(got), rep.Rows[k.name], k.name)
			}
			if content {
				assert.NotEmpty(t, want["messages"])
			}
			var notEnded int
			for _, p := range problems {
				if errors.Is(p, ErrNotEnded) {
					notEnded++
				}
			}
			assert.Equal(t, 1, notEnded, "the live run (the stopped run before it is appended): %v", problems)
		})
	}
}

// TestReexportAddsNothing: an export of what the tables hold commits
// nothing; a history that grew adds only its new runs.
func TestReexportAddsNothing(t *testing.T) {
	root := t.TempDir()
	homes, err := historytest.Many(filepath.Join(root, "a"), 30)
	require.NoError(t, err)
	x := open(t, Config{Catalog: "sqlite:" + filepath.Join(root, "cat.db")})
	srcs := parquetstream.Sources(homes, func(err error) { t.Fatal(err) })
	first, _ := export(t, x, srcs)
	require.Equal(t, 30, first.Appended)

	again, _ := export(t, x, srcs)
	assert.Equal(t, Report{Already: 30, Rows: map[string]int{}}, again)

	more, err := historytest.Many(filepath.Join(root, "b"), 35) // its run ids: the 30 and five more
	require.NoError(t, err)
	grown, _ := export(t, x, parquetstream.Sources(more, func(err error) { t.Fatal(err) }))
	assert.Equal(t, 5, grown.Appended)
	assert.Equal(t, 30, grown.Already)
	runs := tableRows(t, x.Catalog(), x.Table("runs"))
	assert.Len(t, runs, 35)
	for id, n := range perRun(t, tableRows(t, x.Catalog(), x.Table("turns"))) {
		assert.Equal(t, 1, n, "turns of %s", id) // historytest's runs have one turn each
	}
}

// TestMalformedRunIsNamed: a file that is no stream is named, and the
// rest exported.
func TestMalformedRunIsNamed(t *testing.T) {
	root := t.TempDir()
	homes, err := historytest.Many(filepath.Join(root, "a"), 5)
	require.NoError(t, err)
	bad := filepath.Join(root, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte("{not json\n\x00\xff\n"), 0o644))
	x := open(t, Config{Catalog: "sqlite:" + filepath.Join(root, "cat.db")})
	rep, problems := export(t, x, parquetstream.Sources(append(homes, bad), func(err error) { t.Fatal(err) }))
	assert.Equal(t, 5, rep.Appended)
	require.Len(t, problems, 1)
	assert.ErrorIs(t, problems[0], ErrNoRunID)
	assert.Contains(t, problems[0].Error(), bad)
}

// TestUnreachableStore: an export to a store that does not answer, or
// that refuses the credential, fails with the store's error and leaves
// the tables without a row.
func TestUnreachableStore(t *testing.T) {
	url := fakeS3(t)
	for name, setup := range map[string]func(){
		"unreachable":        func() { awsEnv(t, "http://127.0.0.1:1", "test") },
		"refused credential": func() { awsEnv(t, url, "intruder") },
	} {
		t.Run(name, func(t *testing.T) {
			srcs, _ := history(t, 3)
			db := "sqlite:" + filepath.Join(t.TempDir(), "cat.db")
			setup()
			x, err := Open(context.Background(), Config{Catalog: db, Warehouse: "s3://lake/wh"})
			if err == nil {
				_, err = x.Export(context.Background(), srcs, func(error) {})
				x.Close()
			}
			require.Error(t, err)
			t.Log(err)
			awsEnv(t, url, "test")
			y := open(t, Config{Catalog: db, Warehouse: "s3://lake/wh"})
			for _, k := range kinds[:4] {
				tbl, err := y.Catalog().LoadTable(context.Background(), y.Table(k.name))
				if err == nil {
					assert.Nil(t, tbl.CurrentSnapshot(), "%s has a snapshot", k.name)
				}
			}
			rep, _ := export(t, y, srcs) // and the next export appends them all
			assert.Equal(t, 11, rep.Appended, "all but the live run")
		})
	}
}

// TestLiveRunLeftForLater: a run still going is not appended, and is
// once it has ended.
func TestLiveRunLeftForLater(t *testing.T) {
	root := t.TempDir()
	fx, err := historytest.WriteFixture(root)
	require.NoError(t, err)
	release, err := fx.HoldLive() // its last run goes on; the run before it was stopped: appended, cut_off
	require.NoError(t, err)
	defer release()
	x := open(t, Config{Catalog: "sqlite:" + filepath.Join(t.TempDir(), "cat.db")})
	srcs := parquetstream.Sources(fx.Dirs(), func(error) {})
	_, problems := export(t, x, srcs)
	var live []string
	for _, p := range problems {
		if errors.Is(p, ErrNotEnded) {
			live = append(live, p.Error())
		}
	}
	require.Len(t, live, 1, "the run going on; the stopped one before it is appended: %v", live)
	h := statedir.OpenHistory(fx.Dirs()...)
	var dir string
	for _, r := range h.Runs() {
		if r.Summary != nil && r.Summary.Status == "running" {
			dir = r.Dir
		}
	}
	require.NotEmpty(t, dir)
	assert.NotContains(t, perRun(t, tableRows(t, x.Catalog(), x.Table("runs"))), filepath.Base(dir))
}
