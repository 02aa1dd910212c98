//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/testenv"
)

// rawACP is the agent spoken to line by line, without an SDK: what it
// answers, by request id, and its notifications.
type rawACP struct {
	t       *testing.T
	in      io.WriteCloser
	answers chan map[string]any
	stderr  *syncBuffer
}

func startRawACP(t *testing.T, command ...string) *rawACP {
	for i, arg := range command { // the runs start in the sessions' directories
		if _, err := os.Stat(arg); err == nil && !filepath.IsAbs(arg) {
			command[i], _ = filepath.Abs(arg)
		}
	}
	cmd := exec.Command(self(t), append([]string{"acp", "--grace", "300ms", "--"}, command...)...)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	a := &rawACP{t: t, in: in, answers: make(chan map[string]any, 1000), stderr: &syncBuffer{}}
	cmd.Stderr = a.stderr
	require.NoError(t, cmd.Start())
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["method"] == nil { // an answer, not a notification
				a.answers <- m
			}
		}
		close(a.answers)
	}()
	t.Cleanup(func() {
		in.Close()
		assert.Equal(t, 0, waitExit(t, cmd), "the agent ends when its stdin closes: %s", a.stderr.String())
	})
	return a
}

func (a *rawACP) send(line string) {
	_, err := io.WriteString(a.in, line+"\n")
	require.NoError(a.t, err)
}

func (a *rawACP) request(id int, method string, params any) {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	require.NoError(a.t, err)
	a.send(string(b))
}

// answer waits for the answer with the given id (nil: id null).
func (a *rawACP) answer(id any) map[string]any {
	a.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case m, ok := <-a.answers:
			require.True(a.t, ok, "the agent ended: %s", a.stderr.String())
			if fmt.Sprint(m["id"]) == fmt.Sprint(id) {
				return m
			}
			a.answers <- m // another's: keep it for its turn
			time.Sleep(time.Millisecond)
		case <-deadline:
			a.t.Fatalf("no answer for id %v", id)
		}
	}
}

// What the attack found on the agent: a request line over the SDK's 10 MiB
// and a line that is not JSON are answered with errors (the latter with id
// null, -32700, as JSON-RPC 2.0 says), logged on stderr, and the agent goes
// on serving: a prompt running on another session is not cancelled, and the
// next prompt is answered.
func TestACPSurvivesBadRequests(t *testing.T) {
	a := startRawACP(t, fakeUagent, "-replay", runFile, "-delay", "30ms")
	a.request(1, "initialize", map[string]any{"protocolVersion": 1})
	require.Contains(t, a.answer(1), "result")
	dir := t.TempDir()
	for id := 2; id <= 3; id++ {
		a.request(id, "session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	}
	s1 := a.answer(2)["result"].(map[string]any)["sessionId"]
	s2 := a.answer(3)["result"].(map[string]any)["sessionId"]
	a.request(4, "session/prompt", map[string]any{"sessionId": s1, "prompt": []any{map[string]any{"type": "text", "text": "slow"}}})

	a.send("this is not JSON")
	parse := a.answer(nil)
	assert.Equal(t, float64(-32700), parse["error"].(map[string]any)["code"])

	huge := strings.Repeat("x", 11<<20)
	a.request(5, "session/prompt", map[string]any{"sessionId": s2, "prompt": []any{map[string]any{"type": "text", "text": huge}}})
	tooLong := a.answer(5)
	assert.Equal(t, float64(-32600), tooLong["error"].(map[string]any)["code"])
	assert.Contains(t, fmt.Sprint(tooLong["error"]), "at most 10485760 bytes")

	first := a.answer(4)
	require.Contains(t, first, "result", "the prompt on the other session: %v", first)
	assert.Equal(t, "end_turn", first["result"].(map[string]any)["stopReason"], "not cancelled by the bad requests")
	a.request(6, "session/prompt", map[string]any{"sessionId": s2, "prompt": []any{map[string]any{"type": "text", "text": "again"}}})
	assert.Equal(t, "end_turn", a.answer(6)["result"].(map[string]any)["stopReason"], "still serving")
	assert.Contains(t, a.stderr.String(), "longer than the 10485760 the agent reads")
	assert.Contains(t, a.stderr.String(), "not JSON")
}

// session/new refuses a directory that does not exist, saying so, instead
// of a prompt failing later with an error that blames the command.
func TestACPNewSessionNeedsItsDirectory(t *testing.T) {
	a := startRawACP(t, fakeUagent, "-replay", runFile)
	a.request(1, "session/new", map[string]any{"cwd": filepath.Join(t.TempDir(), "gone"), "mcpServers": []any{}})
	e := a.answer(1)["error"].(map[string]any)
	assert.Equal(t, float64(-32602), e["code"])
	assert.Contains(t, fmt.Sprint(e["data"]), "the session's directory cannot be used")
}

// A tab in a text reaches the editor as a tab: a Makefile or Go code in an
// answer arrives as written.
func TestACPKeepsTabs(t *testing.T) {
	run := filepath.Join(t.TempDir(), "tab.jsonl")
	require.NoError(t, os.WriteFile(run, []byte(`{"v":1,"type":"run_started","at":"2026-09-23T12:00:00Z","run_id":"r"}
{"v":1,"type":"assistant_message","at":"2026-09-23T12:00:01Z","text":"all:\n\tgo build\n","final":true}
{"v":1,"type":"run_finished","at":"2026-09-23T12:00:02Z","summary":{"v":1,"status":"ok"}}
`), 0o644))
	conn, c, _ := acpAgentProcess(t, fakeUagent, "-replay", run)
	id, _ := newSession(t, conn)
	_, err := prompt(t.Context(), conn, id, "x")
	require.NoError(t, err)
	ups := c.of(id)
	require.NotEmpty(t, ups)
	assert.Equal(t, "all:\n\tgo build\n", ups[len(ups)-1]["content"].(map[string]any)["text"])
}

// What a run leaves behind in a session of its own (setsid) is stopped
// when the run ends, after a cancel too, and the runs of other sessions
// are left alone.
func TestACPStopsWhatARunLeaves(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux lets the command adopt orphaned descendants")
	}
	pidFile := filepath.Join(t.TempDir(), "setsid.pid")
	a := startRawACP(t, fakeUagent, "-replay", runFile, "-setsid-grandchild", pidFile, "-delay", "20ms")
	dir := t.TempDir()
	a.request(1, "session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	s := a.answer(1)["result"].(map[string]any)["sessionId"]
	a.request(2, "session/prompt", map[string]any{"sessionId": s, "prompt": []any{map[string]any{"type": "text", "text": "x"}}})
	orphan := testenv.ReadPid(t, pidFile)
	require.True(t, testenv.Alive(orphan))
	assert.Equal(t, "end_turn", a.answer(2)["result"].(map[string]any)["stopReason"])
	assert.Eventually(t, func() bool { return !testenv.Alive(orphan) }, 5*time.Second, 10*time.Millisecond, "the run's setsid descendant was stopped")
}
