package icebergstream

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/uagentkit/stream/statedir"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3afero"
	"github.com/spf13/afero"
	"github.com/stretchr/testify/require"

	"github.com/uagentkit/stream/parquetstream"
)

// fakeS3 is an S3-compatible server in the test process (gofakes3, its
// objects files under a temporary directory) with a bucket "lake", and
// the environment that points the AWS SDK at it. A PUT is read whole
// before it is stored, so that a client killed mid-upload leaves no half
// object for a create-only key to keep; a request signed with another
// access key than "test" is refused (403 AccessDenied).
func fakeS3(t *testing.T) string { return fakeS3B(t) }

func fakeS3B(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	fs, err := s3afero.MultiBucket(afero.NewBasePathFs(afero.NewOsFs(), dir))
	require.NoError(t, err)
	s3 := gofakes3.New(fs, gofakes3.WithAutoBucket(true))
	h := s3.Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Authorization"), "Credential=test/") {
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
			return
		}
		if r.Body != nil {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				return // cut off: nothing stored
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	awsEnv(t, srv.URL, "test")
	return srv.URL
}

// awsEnv points the AWS SDK at endpoint with the access key key, and
// nowhere else (no shared files, no instance metadata).
func awsEnv(t testing.TB, endpoint, key string) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_S3":         endpoint,
		"AWS_ENDPOINT_URL":            "",
		"AWS_S3_ENDPOINT":             "",
		"AWS_REGION":                  "us-east-1",
		"AWS_ACCESS_KEY_ID":           key,
		"AWS_SECRET_ACCESS_KEY":       "secret",
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		t.Setenv(k, v)
	}
}

// tableRows are a table's rows as JSON objects (Arrow's JSON of each
// row), sorted, read back by iceberg-go's own scan.
func tableRows(t *testing.T, cat catalog.Catalog, id table.Identifier) []string {
	t.Helper()
	tbl, err := cat.LoadTable(context.Background(), id)
	require.NoError(t, err)
	at, err := tbl.Scan().ToArrowTable(context.Background())
	require.NoError(t, err)
	defer at.Release()
	return arrowRows(t, at)
}

func arrowRows(t *testing.T, at arrow.Table) []string {
	t.Helper()
	var rows []string
	tr := array.NewTableReader(at, 1024)
	defer tr.Release()
	for tr.Next() {
		var buf bytes.Buffer
		require.NoError(t, array.RecordToJSON(tr.RecordBatch(), &buf))
		for l := range strings.Lines(buf.String()) {
			rows = append(rows, strings.TrimSuffix(l, "\n"))
		}
	}
	require.NoError(t, tr.Err())
	slices.Sort(rows)
	return rows
}

// localRows are the rows of a table of the local Parquet export of srcs,
// of the runs that have ended, sorted as tableRows sorts them.
func localRows(t *testing.T, srcs []parquetstream.Source, content bool) map[string][]string {
	t.Helper()
	dir := t.TempDir()
	var opts []parquetstream.Option
	if content {
		opts = append(opts, parquetstream.WithContent())
	}
	x, err := parquetstream.Open(dir, opts...)
	require.NoError(t, err)
	require.NoError(t, x.Write(context.Background(), srcs, func(error) {}))
	require.NoError(t, x.Publish())
	require.NoError(t, x.Close())
	out := map[string][]string{}
	for _, k := range kinds {
		files, err := filepath.Glob(filepath.Join(dir, "*", k.name, "*.parquet"))
		require.NoError(t, err)
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			at, err := readArrow(context.Background(), data)
			require.NoError(t, err)
			out[k.name] = append(out[k.name], arrowRows(t, at)...)
			at.Release()
		}
	}
	ended := map[string]bool{}
	for _, r := range out["runs"] {
		var row struct {
			RunID  string `json:"run_id"`
			CutOff bool   `json:"cut_off"`
			Status string `json:"status"`
		}
		require.NoError(t, json.Unmarshal([]byte(r), &row))
		if !row.CutOff || row.Status == statedir.StoppedStatus { // a stopped run is final: appended as such
			ended[row.RunID] = true
		}
	}
	for name, rows := range out {
		rows = slices.DeleteFunc(rows, func(r string) bool { return !ended[runID(t, r)] })
		slices.Sort(rows)
		out[name] = rows
	}
	return out
}

// runID is a row's run_id.
func runID(t *testing.T, row string) string {
	var r struct {
		RunID string `json:"run_id"`
	}
	require.NoError(t, json.Unmarshal([]byte(row), &r))
	return r.RunID
}

// perRun counts a table's rows by run id.
func perRun(t *testing.T, rows []string) map[string]int {
	n := map[string]int{}
	for _, r := range rows {
		n[runID(t, r)]++
	}
	return n
}
