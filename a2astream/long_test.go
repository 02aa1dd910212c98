//go:build unix

package a2astream

import (
	"context"
	"iter"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/uagentkit/stream/execstream"
	"github.com/uagentkit/stream/uahstream"
)

// watched is a run whose end of lines is seen.
type watched struct {
	execstream.Handle
	read *atomic.Bool
}

func (w watched) Lines() iter.Seq[uahstream.Line] {
	return func(yield func(uahstream.Line) bool) {
		for l := range w.Handle.Lines() {
			if !yield(l) {
				return
			}
		}
		w.read.Store(true)
	}
}

func longAgent(t *testing.T, calls int) (*Agent, *a2aclient.Client, *atomic.Bool) {
	before := goleak.IgnoreCurrent()
	path := manyCalls(t, calls)
	read := new(atomic.Bool)
	start := execstream.Command([]string{fakeUagent, "-replay", path}, nil)
	agent := New(func(ctx context.Context, p execstream.Prompt) (execstream.Handle, error) {
		h, err := start(ctx, p)
		if err != nil {
			return nil, err
		}
		return watched{h, read}, nil
	})
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = agent.Handler("http://" + srv.Listener.Addr().String() + "/")
	srv.Start()
	client, err := a2aclient.NewFromCard(t.Context(), agent.Card(srv.URL+"/"))
	require.NoError(t, err)
	t.Cleanup(func() {
		client.Destroy()
		srv.Close()
		agent.Close()
		// The SDK goes on with the events it was given after Execute
		// returned (copying each); on a loaded machine that outlasts
		// goleak's own wait at the end of the tests.
		require.Eventually(t, func() bool { return goleak.Find(before) == nil }, time.Minute, 10*time.Millisecond,
			"the SDK's goroutines of the task end")
	})
	return agent, client, read
}

// TestLongTaskKeepsTheConversation: a task's history is its
// conversation; the status messages of its progress (900 here) went out
// as they came, but are not kept, so that a task's size, which the SDK
// copies at each update, does not grow with them.
func TestLongTaskKeepsTheConversation(t *testing.T) {
	_, client, _ := longAgent(t, 300)
	res, err := client.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("go"))})
	require.NoError(t, err)
	task := res.(*a2a.Task)
	require.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	got, err := client.GetTask(t.Context(), &a2a.GetTaskRequest{ID: task.ID})
	require.NoError(t, err)
	require.Equal(t, 1, len(got.History), "the prompt, and no message of progress")
	assert.Equal(t, a2a.MessageRoleUser, got.History[0].Role)
}

// TestRunnerNeverWaitsForAClient: a client that reads the first event of
// a streaming task and then nothing: the runner's lines are all read as
// it writes them, and Close ends the task whatever the client did not
// take.
func TestRunnerNeverWaitsForAClient(t *testing.T) {
	agent, client, read := longAgent(t, 3000)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	first := make(chan struct{})
	go func() {
		for range client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("go"))}) {
			close(first)
			<-ctx.Done() // reads nothing more
			return
		}
	}()
	<-first
	require.Eventually(t, read.Load, 20*time.Second, 5*time.Millisecond, "the runner's lines were read while the client waited")
	closed := make(chan struct{})
	go func() { agent.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("Close waited for the client")
	}
}
