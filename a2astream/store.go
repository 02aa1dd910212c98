package a2astream

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/internal/regular"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/uahstream"
)

// store is the SDK's task store, backed by the history: the tasks of this
// process in memory, as the SDK keeps them, and a note of each task in the
// first state directory (a2a/tasks/<task id>.json: its context, its run,
// whether CancelTask stopped it), from which a task of an earlier process
// is made again out of its run's directory.
type store struct {
	dirs []string // the history; none: memory only
	dir  string   // where the notes are

	failing  func(error) // says, once, that a note could not be written
	failOnce sync.Once

	mu       sync.Mutex
	live     map[a2a.TaskID]*stored
	contexts map[string]bool // the contexts of the notes, read once

	hist *history.Live // the history, for contexts no note has (see knows)
}

// stored is a task of this process as the SDK last stored it; it is
// never changed, only replaced.
type stored struct {
	task    *a2a.Task
	version taskstore.TaskVersion
	created time.Time // as its note says it
}

// maxNote bounds a note's size: a task's note holds its first prompt.
const maxNote = 64 << 20

// note is what the state directory keeps of a task.
type note struct {
	ID        a2a.TaskID `json:"task_id"`
	ContextID string     `json:"context_id"`
	Created   time.Time  `json:"created"`
	Prompt    string     `json:"prompt,omitempty"`
	// PromptID is the id of the message of the prompt.
	PromptID string `json:"prompt_id,omitempty"`
	RunID    string `json:"run_id,omitempty"`
	Canceled bool   `json:"canceled,omitempty"`
	// Failed is why a task failed before its run began (no run says it).
	Failed string `json:"failed,omitempty"`
}

var _ taskstore.Store = (*store)(nil)

func newStore(dirs []string, failing func(error)) *store {
	s := &store{dirs: dirs, hist: history.NewLive(history.DefaultPrices(), dirs...), live: map[a2a.TaskID]*stored{}, failing: failing}
	if len(dirs) > 0 {
		s.dir = filepath.Join(dirs[0], "a2a", "tasks")
	}
	return s
}

// copyTask is a deep copy of t, through its JSON.
func copyTask(t *a2a.Task) (*a2a.Task, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	var c a2a.Task
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// Create implements taskstore.Store: the task in memory, and its note.
// The task is kept as it is given: the SDK (v2.3.1) changes a copy of a
// task it has stored, never the task (see stored); copying it again here
// made each update cost a copy of the task's whole history.
func (s *store) Create(_ context.Context, t *a2a.Task) (taskstore.TaskVersion, error) {
	c := t
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.live[t.ID]; ok {
		return taskstore.TaskVersionMissing, taskstore.ErrTaskAlreadyExists
	}
	n := note{ID: t.ID, ContextID: t.ContextID, Created: time.Now().UTC()}
	s.live[t.ID] = &stored{task: c, version: 1, created: n.Created}
	if len(t.History) > 0 && t.History[0] != nil {
		n.Prompt, n.PromptID = promptOf(t.History[0]), t.History[0].ID
	}
	s.write(n)
	if s.contexts != nil {
		s.contexts[t.ContextID] = true
	}
	return 1, nil
}

// Update implements taskstore.Store, with the version check it asks for.
// A task of an earlier process (Get made it from its note, with no
// version) is taken as this process's from then on. A task that has
// ended, whose note says how (its run, or why it had none), leaves
// memory: Get, List and SubscribeToTask make it again from its note and
// its run when asked, so that memory holds the tasks going on, not every
// task served.
func (s *store) Update(_ context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	c := req.Task // kept as it is given, as by Create, but for its history's messages of progress (below)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.live[req.Task.ID]
	if st == nil {
		n, ok := s.readLocked(req.Task.ID)
		if !ok {
			return taskstore.TaskVersionMissing, a2a.ErrTaskNotFound
		}
		st = &stored{version: 1, created: n.Created}
	} else if req.PrevVersion != taskstore.TaskVersionMissing && st.version != req.PrevVersion {
		return taskstore.TaskVersionMissing, taskstore.ErrConcurrentModification
	}
	// The messages of progress are not kept in the history (the SDK
	// moves each status message there when the next comes): the history
	// is the conversation, and a task's size, which the SDK copies at
	// each update, does not grow with its updates.
	c.History = slices.DeleteFunc(c.History, progress)
	// A new stored task, not the old one changed: Get reads one whole,
	// outside the lock.
	next := &stored{task: c, version: st.version + 1, created: st.created}
	if c.Status.State.Terminal() && s.durable(c.ID) {
		delete(s.live, c.ID)
		return next.version, nil
	}
	s.live[req.Task.ID] = next
	return next.version, nil
}

// durable reports whether a task's note says how it ended: the run it
// was, or why it had none. Called with s.mu held.
func (s *store) durable(id a2a.TaskID) bool {
	n, ok := s.readLocked(id)
	return ok && (n.RunID != "" || n.Failed != "" || n.Canceled)
}

// progress reports a message of progress (a status update's while the
// run works: exec's updates.say).
func progress(m *a2a.Message) bool {
	if m == nil {
		return false
	}
	_, ok := m.Metadata[kindKey]
	return ok
}

// Get implements taskstore.Store: a task of this process as the SDK keeps
// it, else one of an earlier process, from its note and its run.
func (s *store) Get(_ context.Context, id a2a.TaskID) (*taskstore.StoredTask, error) {
	s.mu.Lock()
	st := s.live[id]
	s.mu.Unlock()
	if st != nil {
		c, err := copyTask(st.task)
		if err != nil {
			return nil, err
		}
		return &taskstore.StoredTask{Task: c, Version: st.version}, nil
	}
	n, ok := s.read(id)
	if !ok {
		return nil, a2a.ErrTaskNotFound
	}
	return &taskstore.StoredTask{Task: s.rebuild(n), Version: taskstore.TaskVersionMissing}, nil
}

// List implements taskstore.Store: every task, of this process and of the
// notes, filtered as asked, the one created last first (then by id, the
// greatest first: an order no update changes), a page at a time. The
// page token is a cursor, the creation time and id of the page's last
// task: the next page is the tasks after it in that order, so that tasks
// created between two pages, or updated, neither repeat nor go missing.
// Only the tasks a page shows are made (a task of an earlier process is
// rebuilt from its note and its run), unless a filter on their state or
// its time asks for every task's.
func (s *store) List(_ context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	size := cmp.Or(req.PageSize, 50)
	if size < 1 || size > 100 {
		return nil, fmt.Errorf("pageSize %d: it is 1 to 100: %w", req.PageSize, a2a.ErrInvalidParams)
	}
	var after *cursor
	if req.PageToken != "" {
		c, err := parseCursor(req.PageToken)
		if err != nil {
			return nil, fmt.Errorf("pageToken: not one this agent gave: %w", a2a.ErrInvalidParams)
		}
		after = &c
	}
	type candidate struct {
		cursor
		live *stored
		note note
	}
	var all []candidate
	seen := map[a2a.TaskID]bool{}
	s.mu.Lock()
	for id, st := range s.live {
		seen[id] = true
		if req.ContextID == "" || st.task.ContextID == req.ContextID {
			all = append(all, candidate{cursor: cursor{st.created, id}, live: st})
		}
	}
	s.mu.Unlock()
	for _, n := range s.notes() {
		if !seen[n.ID] && (req.ContextID == "" || n.ContextID == req.ContextID) {
			all = append(all, candidate{cursor: cursor{n.Created, n.ID}, note: n})
		}
	}
	slices.SortFunc(all, func(a, b candidate) int { return b.compare(a.cursor) })
	// A status that is none of the states filters nothing (the JavaScript
	// client sends "UNRECOGNIZED" for none).
	status := req.Status
	if !slices.Contains(states, status) {
		status = a2a.TaskStateUnspecified
	}
	filtered := status != a2a.TaskStateUnspecified || req.StatusTimestampAfter != nil
	task := func(c candidate) *a2a.Task {
		if c.live != nil {
			t, err := copyTask(c.live.task)
			if err != nil {
				return nil
			}
			return t
		}
		return s.rebuild(c.note)
	}
	keep := func(t *a2a.Task) bool {
		return t != nil && (status == a2a.TaskStateUnspecified || t.Status.State == status) &&
			(req.StatusTimestampAfter == nil || t.Status.Timestamp == nil || !t.Status.Timestamp.Before(*req.StatusTimestampAfter))
	}
	out := &a2a.ListTasksResponse{Tasks: []*a2a.Task{}, TotalSize: len(all), PageSize: size}
	var last cursor
	more, total := false, 0
	for _, c := range all {
		onPage := after == nil || after.compare(c.cursor) > 0 // after the cursor, in the order
		if !filtered && (!onPage || len(out.Tasks) == size) {
			if onPage { // one more than the page holds
				more = true
				break
			}
			continue
		}
		t := task(c)
		if !keep(t) {
			continue
		}
		total++
		if !onPage {
			continue
		}
		if len(out.Tasks) == size {
			more = true
			continue // counted, for TotalSize
		}
		if !req.IncludeArtifacts {
			t.Artifacts = nil
		}
		if h := req.HistoryLength; h != nil && *h >= 0 && len(t.History) > *h {
			t.History = t.History[len(t.History)-*h:]
		}
		out.Tasks = append(out.Tasks, t)
		last = c.cursor
	}
	if more {
		out.NextPageToken = last.token()
	}
	if filtered {
		out.TotalSize = total
	}
	return out, nil
}

// cursor is where a task stands in List's order: by creation, then id.
type cursor struct {
	created time.Time
	id      a2a.TaskID
}

// compare orders cursors: the one created later, then the greater id,
// compares greater.
func (c cursor) compare(o cursor) int {
	return cmp.Or(c.created.Compare(o.created), strings.Compare(string(c.id), string(o.id)))
}

func (c cursor) token() string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.created.UTC().Format(time.RFC3339Nano) + "|" + string(c.id)))
}

func parseCursor(token string) (cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return cursor{}, err
	}
	at, id, ok := strings.Cut(string(b), "|")
	if !ok {
		return cursor{}, errors.New("no cursor")
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	return cursor{t, a2a.TaskID(id)}, err
}

// states are the states a task may be in.
var states = []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateCompleted, a2a.TaskStateFailed,
	a2a.TaskStateCanceled, a2a.TaskStateInputRequired, a2a.TaskStateRejected, a2a.TaskStateAuthRequired}

// knows reports whether id is the context of a noted task, or a session
// of the history.
func (s *store) knows(id string) bool {
	if len(s.dirs) == 0 {
		return false
	}
	s.mu.Lock()
	if s.contexts == nil {
		s.contexts = map[string]bool{}
		for _, n := range s.notesLocked() {
			s.contexts[n.ContextID] = true
		}
	}
	known := s.contexts[id]
	s.mu.Unlock()
	if known {
		return true
	}
	// The history as it stands (history.Live: read once, then from what
	// changed): a message with a context no note has does not cost a scan
	// of the history.
	return s.hist.Index().Session(id) != nil
}

// ran notes the run of a task, canceled that CancelTask stopped it,
// failed why it failed before a run began.
func (s *store) ran(id a2a.TaskID, runID string)  { s.change(id, func(n *note) { n.RunID = runID }) }
func (s *store) canceled(id a2a.TaskID)           { s.change(id, func(n *note) { n.Canceled = true }) }
func (s *store) failed(id a2a.TaskID, why string) { s.change(id, func(n *note) { n.Failed = why }) }

func (s *store) change(id a2a.TaskID, f func(*note)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.readLocked(id); ok {
		f(&n)
		s.write(n)
	}
}

// path is the note of a task, "" for an id that cannot name a file of
// its own (every id this agent gives can).
func (s *store) path(id a2a.TaskID) string {
	if s.dir == "" || id == "" || len(id) > 200 || strings.ContainsAny(string(id), `/\:`) || strings.HasPrefix(string(id), ".") {
		return ""
	}
	return filepath.Join(s.dir, string(id)+".json")
}

// write writes a note whole: a temporary file, renamed. A note that
// cannot be written leaves the task to memory, and is said (the first
// time: see failing).
func (s *store) write(n note) {
	p := s.path(n.ID)
	if p == "" {
		return
	}
	b, err := json.Marshal(n)
	if err == nil {
		err = os.MkdirAll(s.dir, 0o700)
	}
	tmp := p + ".tmp"
	if err == nil {
		err = os.WriteFile(tmp, b, 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil && s.failing != nil {
		s.failOnce.Do(func() { s.failing(err) })
	}
}

// check reports whether notes can be written in the notes' directory:
// it makes it, and writes and removes a file there.
func (s *store) check() error {
	if s.dir == "" {
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, ".check-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

func (s *store) read(id a2a.TaskID) (note, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readLocked(id)
}

func (s *store) readLocked(id a2a.TaskID) (note, bool) {
	p := s.path(id)
	if p == "" {
		return note{}, false
	}
	b, err := regular.Read(p, maxNote) // a FIFO where a note should be is no note
	var n note
	if err != nil || json.Unmarshal(b, &n) != nil || n.ID != id {
		return note{}, false
	}
	return n, true
}

// notes are every note, in no order.
func (s *store) notes() []note {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notesLocked()
}

func (s *store) notesLocked() []note {
	if s.dir == "" {
		return nil
	}
	es, err := os.ReadDir(s.dir)
	if err != nil {
		return nil
	}
	var out []note
	for _, e := range es {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if n, ok := s.readLocked(a2a.TaskID(id)); ok {
			out = append(out, n)
		}
	}
	return out
}

// rebuild makes a task of an earlier process again: its prompt, and what
// its run's directory says (its state, its answer), as Execute said them.
func (s *store) rebuild(n note) *a2a.Task {
	t := &a2a.Task{ID: n.ID, ContextID: n.ContextID}
	if n.Prompt != "" {
		t.History = []*a2a.Message{{ID: cmp.Or(n.PromptID, "prompt-"+string(n.ID)), Role: a2a.MessageRoleUser, ContextID: n.ContextID, TaskID: n.ID,
			Parts: a2a.ContentParts{a2a.NewTextPart(n.Prompt)}}}
	}
	say := func(state a2a.TaskState, why string) {
		t.Status = a2a.TaskStatus{State: state}
		if why != "" {
			t.Status.Message = &a2a.Message{ID: "status-" + string(n.ID), Role: a2a.MessageRoleAgent, ContextID: n.ContextID, TaskID: n.ID,
				Parts: a2a.ContentParts{a2a.NewTextPart(text(why))}}
		}
	}
	run := s.run(n.RunID)
	switch {
	case run == nil && n.Failed != "":
		say(a2a.TaskStateFailed, n.Failed)
		return t
	case run == nil && n.Canceled:
		say(a2a.TaskStateCanceled, "canceled")
		return t
	case run == nil:
		say(a2a.TaskStateFailed, "its run did not begin before uagent-stream stopped, or its run directory is gone")
		return t
	}
	state := run.State() // once: its task's state
	var ended *uahstream.Ended
	for l := range uahstream.ReadEvents(run.Events()).Lines() {
		if l.Ended != nil {
			ended = l.Ended
		}
	}
	at := run.StartedAt()
	if run.Summary != nil {
		at = at.Add(time.Duration(run.Summary.WallMS) * time.Millisecond)
	}
	defer func() { t.Status.Timestamp = &at }()
	if ended != nil && !n.Canceled {
		if answer := ended.Fold.Answer(); answer != "" {
			t.Artifacts = []*a2a.Artifact{{ID: "answer", Name: "answer", Parts: a2a.ContentParts{a2a.NewTextPart(text(answer))}}}
		}
	}
	switch {
	case n.Canceled:
		say(a2a.TaskStateCanceled, "canceled: the run was interrupted")
	case state == statedir.StateRunning:
		say(a2a.TaskStateWorking, "")
	case state == statedir.StateStopped:
		// No final summary, and no process holds its session: uagent was
		// stopped (kill -9, a crash) before it could say how it ended.
		say(a2a.TaskStateFailed, "the run was "+statedir.StoppedStatus+": the agent stopped before the run ended")
	case run.Summary.Status == string(stream.StatusOK):
		say(a2a.TaskStateCompleted, "")
	default:
		why := "the run ended " + run.Summary.Status
		if st := run.Summary.Stats; len(st.Failures)+len(st.Errors) > 0 {
			why += ": " + append(append([]string{}, st.Failures...), st.Errors...)[0]
		}
		say(a2a.TaskStateFailed, why)
	}
	return t
}

// run is the run directory of id in the history, nil without one.
func (s *store) run(id string) *statedir.Run {
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return nil
	}
	for _, d := range s.dirs {
		if r, err := statedir.OpenRun(filepath.Join(d, "runs", id)); err == nil {
			return r
		}
	}
	return nil
}
