package mcpstream_test

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/mcpstream"
)

// A client asks the history for its sessions from uah's source "run"
// (the server is connected in memory here; ServeStdio and NewHTTP serve
// it to real clients).
func ExampleNewServer() {
	root, _ := os.MkdirTemp("", "history")
	defer os.RemoveAll(root)
	f, _ := historytest.WriteFixture(root)
	srv := mcpstream.NewServer(history.NewLive(history.DefaultPrices(), f.Dirs()...))

	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, _ := srv.Connect(ctx, st, nil)
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	defer func() { cs.Close(); ss.Wait() }()

	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get", Arguments: map[string]any{"id": historytest.Flaky}})
	out := res.StructuredContent.(map[string]any)
	fmt.Println(out["kind"], out["status"], out["session"].(map[string]any)["title"])
	// Output:
	// session ok Fix the flaky test in parser_test.go
}
