package icebergstream

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// silent is a server on loopback that accepts connections and never
// answers, as a catalog or a store that hangs; it closes them when the
// test ends.
func silent(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return l.Addr().String()
}

// A REST catalog that accepts the connection and never answers ends Open
// with an error naming it, within the request timeout, not a wait without
// end.
func TestSilentCatalogIsBounded(t *testing.T) {
	addr := silent(t)
	start := time.Now()
	_, err := Open(context.Background(), Config{Catalog: "http://" + addr, RequestTimeout: 300 * time.Millisecond, ConnectTimeout: 300 * time.Millisecond})
	require.Error(t, err)
	assert.Less(t, time.Since(start), 20*time.Second)
	assert.Contains(t, err.Error(), addr, "the error names the catalog")
}

// An S3 warehouse that accepts the connection and never answers ends the
// export with an error within the request timeout.
func TestSilentStoreIsBounded(t *testing.T) {
	addr := silent(t)
	t.Setenv("AWS_ENDPOINT_URL_S3", "http://"+addr)
	t.Setenv("AWS_ENDPOINT_URL", "http://"+addr)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	srcs, _ := history(t, 0)
	start := time.Now()
	x, err := Open(context.Background(), Config{Catalog: "sqlite:" + t.TempDir() + "/cat.db", Warehouse: "s3://lake/wh",
		RequestTimeout: 300 * time.Millisecond, ConnectTimeout: 300 * time.Millisecond})
	if err == nil {
		_, err = x.Export(context.Background(), srcs, func(error) {})
		x.Close()
	}
	require.Error(t, err)
	assert.Less(t, time.Since(start), 60*time.Second, "bounded: %v", err)
}
