//go:build unix

package a2astream

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/execstream"
	"github.com/uagentkit/stream/internal/histgen"
)

// BenchmarkTaskOfManyCalls is a task whose run makes n tool calls (three
// status updates each), sent and answered: the SDK keeps each update's
// message in the task's history and copies the whole task at each update,
// so the cost of a task grows with the square of its updates.
func BenchmarkTaskOfManyCalls(b *testing.B) {
	for _, n := range []int{50, 100, 200} {
		path := filepath.Join(b.TempDir(), "run.jsonl")
		f, err := os.Create(path)
		require.NoError(b, err)
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
		require.NoError(b, f.Close())
		b.Run(fmt.Sprint(n, " calls"), func(b *testing.B) {
			agent := New(func(context.Context, execstream.Prompt) (execstream.Handle, error) { return execstream.Open(path) })
			defer agent.Close()
			srv := httptest.NewUnstartedServer(nil)
			srv.Config.Handler = agent.Handler("http://" + srv.Listener.Addr().String() + "/")
			srv.Start()
			defer srv.Close()
			client, err := a2aclient.NewFromCard(b.Context(), agent.Card(srv.URL+"/"))
			require.NoError(b, err)
			defer client.Destroy()
			for b.Loop() {
				res, err := client.SendMessage(b.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("go"))})
				require.NoError(b, err)
				require.Equal(b, a2a.TaskStateCompleted, res.(*a2a.Task).Status.State)
			}
		})
	}
}

// BenchmarkUnknownContext answers whether a contextId is a session of a
// history of 20,000 runs (histgen.Many), for one no note or session has:
// the history is kept and read again in part (Reopen), not scanned (1.9 s
// a message before, as the attack measured).
func BenchmarkUnknownContext(b *testing.B) {
	dirs, err := histgen.Many(b.TempDir(), 20000)
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
