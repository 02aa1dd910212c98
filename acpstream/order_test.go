package acpstream

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/uagentkit/stream/execstream"
)

// TestPromptsRunInTheOrderTheyArrived: prompts sent back to back, in
// one write, run in the order they were sent, in every session, though
// the SDK serves each request on a goroutine of its own.
func TestPromptsRunInTheOrderTheyArrived(t *testing.T) {
	var mu sync.Mutex
	ran := map[string][]string{}
	start := func(ctx context.Context, p execstream.Prompt) (execstream.Handle, error) {
		mu.Lock()
		ran[p.Session] = append(ran[p.Session], p.Text)
		mu.Unlock()
		return execstream.Open("../testdata/run.jsonl")
	}
	a := New(start)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- a.Serve(inR, outW); outW.Close() }()
	answers := make(chan map[string]json.RawMessage, 1024)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["id"] != nil {
				answers <- m
			}
		}
		close(answers)
	}()
	send := func(s string) {
		_, err := io.WriteString(inW, s)
		require.NoError(t, err)
	}
	got := map[string]map[string]json.RawMessage{}
	wait := func(id int) map[string]json.RawMessage {
		for got[fmt.Sprint(id)] == nil {
			select {
			case m, ok := <-answers:
				require.True(t, ok, "the connection ended")
				got[string(m["id"])] = m
			case <-time.After(20 * time.Second):
				t.Fatalf("no answer to %d", id)
			}
		}
		return got[fmt.Sprint(id)]
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
	wait(1)
	const sessions, prompts = 20, 5
	ids := make([]string, sessions)
	for i := range ids {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`+"\n", 100+i, t.TempDir()))
		var res struct {
			SessionID string `json:"sessionId"`
		}
		require.NoError(t, json.Unmarshal(wait(100 + i)["result"], &res))
		ids[i] = res.SessionID
	}
	var b strings.Builder
	id := 1000
	for i, s := range ids {
		for j := range prompts {
			meta := ""
			if j == 2 {
				meta = `,"_meta":{"uagentkit/arrival":1}` // a client's own stamp is replaced
			}
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"%d-%02d"}]%s}}`+"\n", id, s, i, j, meta)
			id++
		}
	}
	send(b.String()) // every prompt at once
	for n := 1000; n < id; n++ {
		wait(n)
	}
	mu.Lock()
	for i, s := range ids {
		var want []string
		for j := range prompts {
			want = append(want, fmt.Sprintf("%d-%02d", i, j))
		}
		assert.Equal(t, want, ran[s], "session %d", i)
	}
	mu.Unlock()
	inW.Close()
	require.NoError(t, <-done)
}
