package icebergstream

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/uagentkit/stream/parquetstream"
)

func TestMain(m *testing.M) {
	if os.Getenv("ICEBERG_TEST_CHILD") != "" {
		os.Exit(child())
	}
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreAnyFunction("internal/poll.runtime_pollWait"),
		goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"),
	)
}

// child is an exporter process of the tests: it exports the inputs of
// ICEBERG_TEST_INPUTS (one a line) to ICEBERG_TEST_CATALOG and
// ICEBERG_TEST_WAREHOUSE, and prints its report; with
// ICEBERG_TEST_KILL_AFTER it kills itself (SIGKILL) once it has committed
// to that table.
func child() int {
	if kill := os.Getenv("ICEBERG_TEST_KILL_AFTER"); kill != "" {
		afterCommit = func(table string) {
			if table == kill {
				killSelf()
			}
		}
	}
	x, err := Open(context.Background(), Config{Catalog: os.Getenv("ICEBERG_TEST_CATALOG"), Warehouse: os.Getenv("ICEBERG_TEST_WAREHOUSE")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer x.Close()
	srcs := parquetstream.Sources(strings.Split(os.Getenv("ICEBERG_TEST_INPUTS"), "\n"), func(err error) { fmt.Fprintln(os.Stderr, err) })
	rep, err := x.Export(context.Background(), srcs, func(err error) { fmt.Fprintln(os.Stderr, err) })
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	json.NewEncoder(os.Stdout).Encode(rep)
	return 0
}
