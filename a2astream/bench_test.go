//go:build unix

package a2astream

import (
	"fmt"
	"net/http/httptest"
	"os"
	osexec "os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/execstream"
	"github.com/uagentkit/stream/history/historytest"
)

// manyCalls writes a run of n tool calls (three lines each) to a file.
func manyCalls(tb testing.TB, n int) string {
	path := filepath.Join(tb.TempDir(), "run.jsonl")
	f, err := os.Create(path)
	require.NoError(tb, err)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	sink := stream.NewSink(f)
	sink.Emit(stream.RunStarted{At: at, RunID: "r", SessionID: "s"})
	for i := range n {
		id := fmt.Sprint("c", i)
		sink.Emit(stream.ToolCalled{At: at, CallID: id, Name: "Bash", Label: "ls -la"})
		sink.Emit(stream.ToolStarted{At: at, CallID: id, OpID: "o" + id, Name: "Bash", Label: "ls -la"})
		sink.Emit(stream.ToolFinished{At: at, CallID: id, OpID: "o" + id, Name: "Bash", Label: "ls -la", OK: true, Detail: "exit 0"})
	}
	sink.Emit(stream.AssistantMessage{At: at, Text: "done", Final: true})
	sink.Emit(stream.RunFinished{At: at.Add(time.Second), Result: stream.Result{Status: stream.StatusOK}})
	require.NoError(tb, f.Close())
	return path
}

// BenchmarkTaskOfManyCalls is a task whose run makes n tool calls (three
// status updates each), sent as a streaming message and followed to its
// end by the official Go client, beside the runner alone: the fake
// uagent (testdata/fakeuagent) writing the same lines at a runner's pace
// (-delay 200µs a line), read by execstream and nothing else. The task's
// cost is linear in its updates (the status messages of progress are not
// kept in its history, which the SDK copies at each update) and the
// runner never waits for the client (BENCHMARKS.md).
func BenchmarkTaskOfManyCalls(b *testing.B) {
	for _, n := range []int{100, 1000, 3000} {
		path := manyCalls(b, n)
		argv := []string{fakeUagent, "-replay", path, "-delay", "0"}
		b.Run(fmt.Sprint(n, " calls, the runner alone"), func(b *testing.B) {
			for b.Loop() {
				run, err := execstream.Start(b.Context(), osexec.Command(argv[0], argv[1:]...))
				require.NoError(b, err)
				for range run.Lines() {
				}
				o, err := run.Wait()
				require.NoError(b, err)
				require.Equal(b, stream.StatusOK, o.Status)
			}
		})
		b.Run(fmt.Sprint(n, " calls, through a2a"), func(b *testing.B) {
			agent := New(execstream.Command(argv, nil))
			defer agent.Close()
			srv := httptest.NewUnstartedServer(nil)
			srv.Config.Handler = agent.Handler("http://" + srv.Listener.Addr().String() + "/")
			srv.Start()
			defer srv.Close()
			client, err := a2aclient.NewFromCard(b.Context(), agent.Card(srv.URL+"/"))
			require.NoError(b, err)
			defer client.Destroy()
			for b.Loop() {
				var last a2a.TaskState
				events := 0
				for ev, err := range client.SendStreamingMessage(b.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("go"))}) {
					require.NoError(b, err)
					events++
					if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
						last = st.Status.State
					}
				}
				require.Equal(b, a2a.TaskStateCompleted, last)
				require.GreaterOrEqual(b, events, 3*n)
			}
		})
	}
}

// BenchmarkUnknownContext answers whether a contextId is a session of a
// history of 20,000 runs (historytest.Many), for one no note or session has:
// the history is kept and read again in part (Reopen), not scanned (1.9 s
// a message before, as the attack measured).
func BenchmarkUnknownContext(b *testing.B) {
	dirs, err := historytest.Many(b.TempDir(), 20000)
	if err != nil {
		b.Fatal(err)
	}
	s := newStore(dirs, nil)
	s.knows("warm")
	for b.Loop() {
		if s.knows("00000000-no-such-context") {
			b.Fatal("known")
		}
	}
}
