package icebergstream

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	iceio "github.com/apache/iceberg-go/io"

	_ "github.com/apache/iceberg-go/io/gocloud/s3" // the s3:// warehouse
	_ "github.com/jackc/pgx/v5/stdlib"             // database/sql's "pgx": the SQL catalog on Postgres
	_ "modernc.org/sqlite"                         // database/sql's "sqlite", without cgo: the SQL catalog on SQLite
)

// ErrUsage marks a catalog or warehouse given in a form this package does
// not read.
var ErrUsage = errors.New("usage")

// sqliteBusyMS is how long a commit on the SQLite catalog waits for
// another process's (SQLite's busy_timeout): iceberg-go does not retry
// "database is locked" itself.
const sqliteBusyMS = 30_000

// storeProps are the warehouse's settings taken from the AWS SDK's own
// environment: the endpoint of an S3-compatible store
// (AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL), with which iceberg-go
// addresses buckets path-style. Region and credentials the SDK finds
// itself (AWS_REGION, AWS_ACCESS_KEY_ID…, the shared files).
func storeProps() iceberg.Properties {
	props := iceberg.Properties{}
	for _, k := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"} {
		if v := os.Getenv(k); v != "" {
			props[iceio.S3EndpointURL] = v
			break
		}
	}
	if v := os.Getenv("AWS_REGION"); v != "" {
		props[iceio.S3Region] = v
	}
	return props
}

// openCatalog opens the catalog named by uri: sqlite:PATH (iceberg-go's
// SQL catalog on a SQLite file, made if need be), postgres://… (the SQL
// catalog on Postgres) or http(s)://… (a REST catalog). warehouse is
// where new tables live; for SQLite it defaults to the directory
// "warehouse" beside the database file.
func openCatalog(ctx context.Context, uri, warehouse string, props iceberg.Properties, transport http.RoundTripper) (catalog.Catalog, error) {
	switch {
	case strings.HasPrefix(uri, "sqlite:"):
		path := strings.TrimPrefix(uri, "sqlite:")
		if path == "" {
			return nil, fmt.Errorf("%w: --catalog sqlite:PATH needs a PATH", ErrUsage)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		if warehouse == "" {
			warehouse = (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(filepath.Dir(abs), "warehouse"))}).String()
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return nil, err
		}
		dsn := "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(abs)) +
			fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)", sqliteBusyMS)
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, err
		}
		return sqlCatalog(db, sqlcat.SQLite, warehouse, props)
	case strings.HasPrefix(uri, "postgres://"), strings.HasPrefix(uri, "postgresql://"):
		if warehouse == "" {
			return nil, fmt.Errorf("%w: --catalog postgres://… needs --warehouse (s3://bucket/prefix or file:///path)", ErrUsage)
		}
		db, err := sql.Open("pgx", uri)
		if err != nil {
			return nil, err
		}
		return sqlCatalog(db, sqlcat.Postgres, warehouse, props)
	case strings.HasPrefix(uri, "http://"), strings.HasPrefix(uri, "https://"):
		opts := []rest.Option{rest.WithAdditionalProps(props), rest.WithCustomTransport(transport)}
		if warehouse != "" {
			opts = append(opts, rest.WithWarehouseLocation(warehouse))
		}
		if tok := os.Getenv("ICEBERG_REST_TOKEN"); tok != "" {
			opts = append(opts, rest.WithOAuthToken(tok))
		}
		return rest.NewCatalog(ctx, "rest", uri, opts...)
	}
	return nil, fmt.Errorf("%w: --catalog is sqlite:PATH, postgres://… or http(s)://…, not %q", ErrUsage, uri)
}

// sqlCatalog is iceberg-go's SQL catalog on db, which it closes.
func sqlCatalog(db *sql.DB, dialect sqlcat.SupportedDialect, warehouse string, props iceberg.Properties) (catalog.Catalog, error) {
	p := iceberg.Properties{"warehouse": strings.TrimSuffix(warehouse, "/")}
	for k, v := range props {
		p[k] = v
	}
	// NewCatalog makes the catalog's tables if need be; exporters that
	// start together on a new database race to (Postgres: "duplicate key
	// value violates unique constraint", or SQLSTATE 42710, the table's
	// row type made by the other), and the one that lost finds them made
	// when it tries again.
	var c *sqlcat.Catalog
	var err error
	for attempt := 1; ; attempt++ {
		c, err = sqlcat.NewCatalog("uagent", db, dialect, p)
		if err == nil || !isConflict(err) && !strings.Contains(err.Error(), "SQLSTATE 42710") || attempt == MaxAttempts {
			break
		}
		time.Sleep(time.Duration(attempt) * 20 * time.Millisecond)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return &ownedDB{Catalog: c, db: db}, nil
}

// ownedDB is a SQL catalog whose database handle it closes.
type ownedDB struct {
	*sqlcat.Catalog
	db *sql.DB
}

func (c *ownedDB) Close() error { return errors.Join(c.Catalog.Close(), c.db.Close()) }
