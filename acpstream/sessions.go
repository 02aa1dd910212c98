package acpstream

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/internal/safetext"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/uahstream"
)

// efforts are uagent's efforts, as the effort option offers them (see
// Efforts).
var efforts = []string{"low", "medium", "high", "xhigh", "max"}

// Efforts returns uagent's efforts, as the effort option offers them, in
// order: low, medium, high, xhigh, max. The slice is the caller's.
func Efforts() []string { return slices.Clone(efforts) }

// listPage is how many sessions one session/list answer holds.
const listPage = 50

// ListSessions lists the sessions of the history that ran in cwd (all of
// them without one), the one of the latest activity first, a page at a
// time: each with its title (history.Session.Title, the history's one
// rule), its last activity as updatedAt and its last run's status
// (statedir.Run.Status) in _meta "uagentkit/status".
// A subagent's session is not listed at the top: it is in its parent's
// entry, _meta "uagentkit/subagents" (a list of entries as these, with
// their own subagents), when uah's sidecar names a parent the history
// has; a reviewer's (a subagent of uah's /review) is in its parent's
// _meta "uagentkit/reviews". Every listed id loads. The cursor is the index of the page's
// first session.
func (a *Agent) ListSessions(_ context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	out := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	from := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 {
			return out, acp.NewInvalidParams(map[string]string{"cursor": "not a cursor this agent gave"})
		}
		from = n
	}
	if len(a.stateDirs) == 0 {
		return out, nil
	}
	ss, problems := a.saved()
	if len(problems) > 0 {
		a.logf("acp: session/list: %d entries of the history could not be read; the first: %v", len(problems), problems[0])
	}
	var top []*history.Session
	for _, s := range ss {
		if s.Parent == "" {
			top = append(top, s)
		}
	}
	if p.Cwd != nil && *p.Cwd != "" {
		cwd := filepath.Clean(*p.Cwd)
		top = slices.DeleteFunc(top, func(s *history.Session) bool { return filepath.Clean(s.Workspace) != cwd })
	}
	var entry func(s *history.Session) acp.SessionInfo
	entry = func(s *history.Session) acp.SessionInfo {
		info := acp.SessionInfo{SessionId: acp.SessionId(line(s.ID)), Cwd: line(s.Workspace)}
		if s.Title != "" {
			title := line(s.Title)
			info.Title = &title
		}
		if u := s.LastActivity; !u.IsZero() {
			at := u.UTC().Format(time.RFC3339Nano)
			info.UpdatedAt = &at
		}
		// Its last run's state, as every view says it (statedir.Run.Status).
		info.Meta = map[string]any{"uagentkit/status": line(s.Status)} // a finished run's is its summary's: the stream's text
		for _, k := range s.Children {
			key := "uagentkit/subagents"
			if k.Source == "review" {
				key = "uagentkit/reviews"
			}
			if info.Meta == nil {
				info.Meta = map[string]any{}
			}
			subs, _ := info.Meta[key].([]acp.SessionInfo)
			info.Meta[key] = append(subs, entry(k))
		}
		return info
	}
	for i := from; i < len(top) && i < from+listPage; i++ {
		out.Sessions = append(out.Sessions, entry(top[i]))
	}
	if from+listPage < len(top) {
		next := strconv.Itoa(from + listPage)
		out.NextCursor = &next
	}
	return out, nil
}

// saved is the history's sessions as they are now (history.Live: read
// once, then from what changed), so that a page of session/list or a
// session/load does not read every run again. What could not be read of
// it comes with them.
func (a *Agent) saved() ([]*history.Session, []error) {
	x := a.hist.Index()
	return x.Sessions(), x.Problems()
}

// find is the saved session of the state directory that the editor
// names id: as session/list showed it (what a terminal may act on
// escaped), or as it is.
func (a *Agent) find(id acp.SessionId) (*history.Session, bool) {
	if len(a.stateDirs) == 0 {
		return &history.Session{}, false
	}
	ss, _ := a.saved()
	for _, s := range ss {
		if s.ID == string(id) {
			return s, true
		}
	}
	for _, s := range ss {
		if line(s.ID) == string(id) {
			return s, true
		}
	}
	return &history.Session{}, false
}

// LoadSession reopens a saved session: its history is sent as session
// updates before the answer (each run in order: the user's messages, the
// assistant's text and reasoning, the tool calls with their last states
// and output tails, mapped as live updates are), then prompts continue
// it. What could not be read of its runs is said once, marked, after
// what could. A session the state directory does not have is an
// invalid-params error.
func (a *Agent) LoadSession(_ context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	if err := checkCwd(p.Cwd); err != nil {
		return acp.LoadSessionResponse{}, err
	}
	saved, ok := a.find(p.SessionId)
	if !ok {
		return acp.LoadSessionResponse{}, acp.NewInvalidParams(map[string]string{"sessionId": "no such session in the state directory"})
	}
	a.mu.Lock()
	conn := a.conn
	a.mu.Unlock()
	var unread []error
	for _, kept := range saved.Runs {
		r, err := statedir.OpenRun(kept.Dir) // its own: the history's runs are shared, and a Run is not safe for concurrent use
		if err != nil {
			unread = append(unread, err)
			continue
		}
		u := &updates{conn: conn, session: p.SessionId, replay: true}
		state := r.State()
		for l := range uahstream.ReadEvents(r.Events()).Lines() {
			u.add(l)
			if e := l.Ended; e != nil && e.CutOff { // as cat says of it
				what := "this run was " + statedir.StoppedStatus + ": uagent stopped before it ended"
				if state == statedir.StateRunning {
					what = "this run is still running"
				}
				u.send(acp.UpdateAgentMessageText(text("\n[uagent-stream: " + what + "]\n")))
			}
		}
		for _, err := range r.Problems() {
			if statedir.Serious(err) {
				unread = append(unread, err)
			}
		}
	}
	if len(unread) > 0 {
		u := &updates{conn: conn, session: p.SessionId}
		u.send(acp.UpdateAgentMessageText(text(fmt.Sprintf("\n[uagent-stream: %d parts of this session's saved runs could not be read; the first: %v]\n", len(unread), unread[0]))))
	}
	s := a.open(p.SessionId, saved.ID, p.Cwd, saved)
	a.mu.Lock()
	defer a.mu.Unlock()
	return acp.LoadSessionResponse{ConfigOptions: a.configOptions(s)}, nil
}

// open makes a session the agent answers prompts of (or returns the one
// it has) under the editor's id, continuing the uagent session uagentID
// (its saved id, which the editor's may show escaped), with what its
// saved runs ran with.
func (a *Agent) open(id acp.SessionId, uagentID, cwd string, saved *history.Session) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[id]
	if s == nil {
		s = &session{}
		a.sessions[id] = s
	}
	s.id = cmpOr(uagentID, string(id))
	s.cwd, s.lastEffort, s.lastModel = cwd, saved.Effort, saved.Model
	return s
}

// ResumeSession continues a session without replaying its history: a
// saved one, or any the editor names (uagent --session makes it).
func (a *Agent) ResumeSession(_ context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	if err := checkCwd(p.Cwd); err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	saved, _ := a.find(p.SessionId)
	s := a.open(p.SessionId, saved.ID, p.Cwd, saved)
	a.mu.Lock()
	defer a.mu.Unlock()
	return acp.ResumeSessionResponse{ConfigOptions: a.configOptions(s)}, nil
}

// SetSessionConfigOption sets the effort (one of Efforts) or the model
// (one of WithModels) of the session's next prompts.
func (a *Agent) SetSessionConfigOption(_ context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil {
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]string{"value": "the options are selects: a value id"})
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[v.SessionId]
	switch value := string(v.Value); {
	case s == nil:
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]string{"sessionId": "no such session"})
	case v.ConfigId == "effort" && slices.Contains(efforts, value):
		s.effort = value
	case v.ConfigId == "model" && slices.Contains(a.models, value):
		s.model = value
	default:
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]string{"configId": safetext.Human(string(v.ConfigId)+" "+value, 0) + ": not an option and value this agent offers"})
	}
	return acp.SetSessionConfigOptionResponse{ConfigOptions: a.configOptions(s)}, nil
}

// configOptions are the session's options as they stand: the effort, and
// the model when WithModels offers some. The current value is the one
// chosen, else what the session's last saved run ran with, else the
// command's own. Called with a.mu held.
func (a *Agent) configOptions(s *session) []acp.SessionConfigOption {
	effort := cmpOr(s.effort, s.lastEffort, a.effort)
	opts := []acp.SessionConfigOption{selectOption("effort", "Effort", acp.SessionConfigOptionCategoryThoughtLevel, effort, efforts)}
	if len(a.models) > 0 {
		opts = append(opts, selectOption("model", "Model", acp.SessionConfigOptionCategoryModel, cmpOr(s.model, s.lastModel, a.models[0]), a.models))
	}
	return opts
}

func cmpOr(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func selectOption(id, name string, category acp.SessionConfigOptionCategory, current string, values []string) acp.SessionConfigOption {
	options := make(acp.SessionConfigSelectOptionsUngrouped, len(values))
	for i, v := range values {
		options[i] = acp.SessionConfigSelectOption{Name: line(v), Value: acp.SessionConfigValueId(line(v))}
	}
	o := acp.NewSessionConfigOptionSelect(acp.SessionConfigValueId(line(current)), acp.SessionConfigSelectOptions{Ungrouped: &options})
	o.Select.Id, o.Select.Name, o.Select.Category = acp.SessionConfigId(id), name, &category
	return o
}
