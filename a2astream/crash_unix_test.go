//go:build unix

package a2astream

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/statedir"
)

// TestFinishedTasksLeaveMemory: a task that has ended is not held in
// memory; GetTask, SubscribeToTask and ListTasks make it again from its
// note and its run: its state, its answer, its prompt with the message's
// own id.
func TestFinishedTasksLeaveMemory(t *testing.T) {
	s := serve(t, t.TempDir())
	var sent []*a2a.Message
	var tasks []*a2a.Task
	for i := range 5 {
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("question "+string(rune('a'+i))))
		res, err := s.client.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: msg})
		require.NoError(t, err)
		require.Equal(t, a2a.TaskStateCompleted, res.(*a2a.Task).Status.State)
		sent, tasks = append(sent, msg), append(tasks, res.(*a2a.Task))
	}
	s.agent.store.mu.Lock()
	held := len(s.agent.store.live)
	s.agent.store.mu.Unlock()
	assert.Equal(t, 0, held, "no task that has ended is held")
	for i, task := range tasks {
		got, err := s.client.GetTask(t.Context(), &a2a.GetTaskRequest{ID: task.ID})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
		assert.Equal(t, "answer to: question "+string(rune('a'+i)), answer(got))
		require.Len(t, got.History, 1)
		assert.Equal(t, sent[i].ID, got.History[0].ID, "the prompt's own message id")
	}
	var events []a2a.Event
	for ev, err := range s.client.SubscribeToTask(t.Context(), &a2a.SubscribeToTaskRequest{ID: tasks[0].ID}) {
		require.NoError(t, err, "a finished task can be resubscribed")
		events = append(events, ev)
	}
	require.Len(t, events, 1, "the task as it ended, then the end")
	got := events[0].(*a2a.Task)
	assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
	assert.Equal(t, "answer to: question a", answer(got))
	list, err := s.client.ListTasks(t.Context(), &a2a.ListTasksRequest{})
	require.NoError(t, err)
	assert.Len(t, list.Tasks, 5)
}

// crashedTask writes what an a2a process killed with kill -9 leaves: a
// task's note, and its run's directory whose summary still says running.
func crashedTask(t *testing.T, state string) (a2a.TaskID, string) {
	const id, session = "crashed-task", "c4a5b6d7-0000-4000-8000-000000000001"
	run := "20261101-090000-c4a5b6d7"
	dir := filepath.Join(state, "runs", run)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, stream.SummaryDTO{V: 1, Status: "running",
		RunID: run, SessionID: session, StartedAt: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}.WriteFile(filepath.Join(dir, statedir.SummaryFile)))
	require.NoError(t, os.WriteFile(filepath.Join(dir, statedir.EventsFile), nil, 0o644))
	b, err := json.Marshal(note{ID: id, ContextID: session, Created: time.Now().UTC(), Prompt: "hang on", RunID: run})
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(state, "a2a", "tasks"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(state, "a2a", "tasks", id+".json"), b, 0o600))
	return id, session
}

// TestTaskOfAStoppedAgent: after kill -9, a task whose run says running
// and whose session no process holds is failed ("the agent stopped"),
// the same to GetTask and SubscribeToTask, and CancelTask answers it as
// a task that has ended (the protocol's not-cancelable error, no failure
// of the agent's); one whose session a uagent still holds is working,
// and canceled without error.
func TestTaskOfAStoppedAgent(t *testing.T) {
	state := t.TempDir()
	id, session := crashedTask(t, state)
	s := serve(t, state)
	got, err := s.client.GetTask(t.Context(), &a2a.GetTaskRequest{ID: id})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateFailed, got.Status.State)
	require.NotNil(t, got.Status.Message)
	assert.Contains(t, got.Status.Message.Parts[0].Text(), "the agent stopped")
	var events []a2a.Event
	for ev, err := range s.client.SubscribeToTask(t.Context(), &a2a.SubscribeToTaskRequest{ID: id}) {
		require.NoError(t, err, "found by SubscribeToTask")
		events = append(events, ev)
	}
	require.Len(t, events, 1)
	assert.Equal(t, a2a.TaskStateFailed, events[0].(*a2a.Task).Status.State)
	_, err = s.client.CancelTask(t.Context(), &a2a.CancelTaskRequest{ID: id})
	assert.ErrorIs(t, err, a2a.ErrTaskNotCancelable)

	// A uagent that still holds the session: the task is working, and a
	// cancel ends it canceled.
	require.NoError(t, os.MkdirAll(filepath.Join(state, "sessions"), 0o700))
	lock, err := os.OpenFile(filepath.Join(state, "sessions", session+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	require.NoError(t, err)
	defer lock.Close()
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	got, err = s.client.GetTask(t.Context(), &a2a.GetTaskRequest{ID: id})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateWorking, got.Status.State)
	canceled, err := s.client.CancelTask(t.Context(), &a2a.CancelTaskRequest{ID: id})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, canceled.Status.State)
	got, err = s.client.GetTask(t.Context(), &a2a.GetTaskRequest{ID: id})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, got.Status.State, "and stays so")
}
