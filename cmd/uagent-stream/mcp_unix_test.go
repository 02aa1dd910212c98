//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/uagentkit/stream/history/historytest"
)

// The command as an MCP client starts it: on stdin and stdout, the
// history ls reads, each session what ls --json says, hostile bytes
// never raw on its stdout; it exits 0 when the client closes its stdin.
func TestMCPOverStdio(t *testing.T) {
	bin := self(t) // built before HOME moves, with the build cache of the person's
	historyHome(t)
	_, lsJSON, _ := runCmd(t, "", "ls", "--json")
	var want []map[string]any
	require.NoError(t, json.Unmarshal([]byte(lsJSON), &want))

	cmd := exec.Command(bin, "mcp")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sessions"})
	require.NoError(t, err)
	require.False(t, res.IsError)
	var got struct{ Sessions []map[string]any }
	b, _ := json.Marshal(res.StructuredContent)
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, want, got.Sessions)
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get", Arguments: map[string]any{"id": historytest.Unpriced}})
	require.NoError(t, err)
	text := res.Content[0].(*mcp.TextContent).Text
	assert.Contains(t, text, "Say hi")
	assert.NotContains(t, text, "\x1b")
	assert.NotContains(t, text, "\u202e")
	require.NoError(t, cs.Close())
	assert.Equal(t, 0, cmd.ProcessState.ExitCode(), "it exits 0 when its stdin closes: %s", stderr.String())
}

func TestMCPUsage(t *testing.T) {
	code, _, stderr := runCmd(t, "", "mcp", "file.jsonl")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "takes no FILE")
	code, _, stderr = runCmd(t, "", "mcp", "--http", "0.0.0.0:0")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "is not a loopback address: add --public")
}
