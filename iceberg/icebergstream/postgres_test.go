package icebergstream

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// postgresCatalog is a catalog URI of a database of its own on the
// Postgres server of ICEBERG_TEST_POSTGRES (postgres://user:pass@host/db,
// a user who may create databases; CI starts one), or a skip without it.
func postgresCatalog(t *testing.T) string {
	t.Helper()
	base := os.Getenv("ICEBERG_TEST_POSTGRES")
	if base == "" {
		t.Skip("no Postgres server: ICEBERG_TEST_POSTGRES is not set (CI sets it)")
	}
	db, err := sql.Open("pgx", base)
	require.NoError(t, err)
	defer db.Close()
	name := fmt.Sprintf("iceberg_test_%d", os.Getpid())
	_, err = db.Exec("DROP DATABASE IF EXISTS " + name)
	require.NoError(t, err)
	_, err = db.Exec("CREATE DATABASE " + name)
	require.NoError(t, err)
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err == nil {
			db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
			db.Close()
		}
	})
	u := []byte(base)
	for i := len(u) - 1; i >= 0; i-- {
		if u[i] == '/' {
			return string(u[:i+1]) + name
		}
	}
	t.Fatalf("ICEBERG_TEST_POSTGRES %q names no database", base)
	return ""
}

// TestPostgresCatalog: the SQL catalog on Postgres (which Spark's and
// Trino's JDBC catalogs read), with an S3 warehouse: the tables equal
// the local export, a re-export adds nothing.
func TestPostgresCatalog(t *testing.T) {
	cat := postgresCatalog(t)
	fakeS3(t)
	srcs, _ := history(t, 20)
	x := open(t, Config{Catalog: cat, Warehouse: "s3://lake/pg"})
	rep, _ := export(t, x, srcs)
	want := localRows(t, srcs, false)
	assert.Equal(t, len(want["runs"]), rep.Appended)
	for _, k := range kinds {
		if k.content {
			continue
		}
		if d := cmp.Diff(want[k.name], tableRows(t, x.Catalog(), x.Table(k.name))); d != "" {
			t.Errorf("%s (-local +iceberg):\n%s", k.name, d)
		}
	}
	again, _ := export(t, x, srcs)
	assert.Equal(t, 0, again.Appended)
	assert.Equal(t, rep.Appended, again.Already)

	_, err := Open(context.Background(), Config{Catalog: cat})
	assert.ErrorIs(t, err, ErrUsage, "Postgres needs --warehouse")
}
