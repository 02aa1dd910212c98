package statedir

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/regular"
)

// The variables that place uah's home, as uah reads them.
const (
	UahStateDirEnv = "UAH_STATE_DIR"
	UahHomeEnv     = "UAH_HOME"
)

// UahDir returns the home of uah, the harness built on uagent, which keeps
// its runs and sessions there since 2026-09-25 (not in uagent's state
// directory), laid out as uagent's, with its own sidecars in sessions/:
// $UAH_STATE_DIR, else $UAH_HOME, else ~/.uah.
func UahDir() (string, error) {
	for _, v := range []string{UahStateDirEnv, UahHomeEnv} {
		if dir := os.Getenv(v); dir != "" {
			return filepath.Clean(dir), nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("stream: uah's home: %w", err)
	}
	return filepath.Join(home, ".uah"), nil
}

// Homes returns the state directories that hold a person's history: dirs,
// when any is given (--state-dir, which may be given more than once);
// else $UAGENT_STATE_DIR alone, when it is set; else uagent's state
// directory under its name (see Dir), under its old name (see OldDir) and
// uah's home (see UahDir), in that order, those that exist (uagent's when
// none does, so that what is missing is said). A run in two of them is
// read once (see OpenHistory).
func Homes(dirs []string) ([]string, error) {
	if len(dirs) > 0 {
		return slices.Clone(dirs), nil
	}
	if d := os.Getenv(StateDirEnv); d != "" {
		return []string{d}, nil
	}
	uagent, err := Dir("")
	if err != nil {
		return nil, err
	}
	old, _ := OldDir() // it fails as Dir does
	uah, _ := UahDir() // without a home directory, uagent's alone
	var out []string
	for _, d := range []string{uagent, old, uah} {
		if d == "" || slices.Contains(out, d) {
			continue
		}
		if _, err := os.Stat(d); err == nil {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		out = []string{uagent}
	}
	return out, nil
}

// SidecarSuffix ends the name of a sidecar: sessions/<id>.uah.json.
const SidecarSuffix = ".uah.json"

// Sidecar is what uah keeps of a session that the runs do not say:
// sessions/<id>.uah.json in its home, as far as a reader of the history
// needs it. Sidecars written before 2026-09-29 have only Source and
// Created.
type Sidecar struct {
	// Source is where the session was begun: "tui" (uah's terminal),
	// "run" (uah exec) or "subagent".
	Source  string    `json:"source"`
	Created time.Time `json:"created"`
	// Review reports a reviewer: the subagent uah's /review runs.
	Review bool `json:"review"`
	// Parent is a subagent's parent session.
	Parent    string `json:"parent"`
	Workspace string `json:"workspace"`
	// FirstPrompt is the session's first message, cut to 200 characters
	// (for a session begun with /goal, its objective).
	FirstPrompt  string    `json:"first_prompt"`
	LastActivity time.Time `json:"last_activity"`

	path string // the file
}

// IsDir reports whether path is a directory.
func IsDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// The causes of a Problem with a sidecar. ErrSidecar: one that is not
// JSON or has fields of other types; it is left out, and its session read
// without it. ErrParent: one that names a parent with no runs in the
// history, or that is its own descendant; the session is listed at the
// top, not under it.
var (
	ErrSidecar = errors.New("uah's session sidecar cannot be read")
	ErrParent  = errors.New("uah's session sidecar names a parent")
)

// ErrTwoCopies is the cause of a Problem of a run that is in two of the
// history's state directories, and whose copies differ: the Problem says
// which one is read, and why.
var ErrTwoCopies = errors.New("the run is in two state directories, and the copies differ")

// History is a person's history: the runs of one or more state
// directories (uagent's, uah's home: see Homes), each run once, and uah's
// sidecars of their sessions. It is read once, by OpenHistory; it is safe
// for concurrent use (its Runs are not: see Run).
type History struct {
	dirs     []string
	runs     []*Run
	read     map[string]*Run // every run directory read, by its path
	sidecars map[string]*Sidecar
	problems []error
}

// OpenHistory reads the state directories dirs: their runs (opened on all
// cores), and the sidecars in their sessions/. A run id in more than one
// is one run: the first directory's copy, unless the copies differ (their
// summary.json, or the size of their events.jsonl: records are only
// added), and then the copy that has ended (a final summary), else the one
// with more records, else the first; a Problem wrapping ErrTwoCopies says
// which. What cannot be read (a dir that is a file or is missing, a
// directory under runs/ that is not a run's, a sidecar: see ErrSidecar) is
// a Problem, and the rest is read.
func OpenHistory(dirs ...string) *History { return openHistory(dirs, nil) }

// Reopen reads prev's state directories again, as OpenHistory does, but
// for the runs prev read that had ended: a run directory whose summary
// was final is not read again (a run that has ended is not written to
// again), so that a history of many runs costs its listing, its new runs
// and the runs still going. Sidecars are read again.
func (h *History) Reopen() *History { return openHistory(h.dirs, h.read) }

func openHistory(dirs []string, prev map[string]*Run) *History {
	h := &History{dirs: slices.Clone(dirs), sidecars: map[string]*Sidecar{}, read: map[string]*Run{}}
	type entry struct{ dir, name string }
	var entries []entry
	for _, d := range dirs {
		info, err := os.Stat(d)
		switch {
		case err != nil:
			h.problems = append(h.problems, &Problem{File: d, Err: err})
			continue
		case !info.IsDir():
			h.problems = append(h.problems, &Problem{File: d, Err: errors.New("not a directory: not a state directory (left out)")})
			continue
		}
		runs := filepath.Join(d, "runs")
		es, err := os.ReadDir(runs)
		if errors.Is(err, fs.ErrNotExist) && !IsDir(filepath.Join(d, "sessions")) {
			err = errors.New("not a state directory: it has no runs/ or sessions/ (left out)")
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			h.problems = append(h.problems, &Problem{File: d, Err: err})
		}
		for _, e := range es {
			if !strings.HasPrefix(e.Name(), ".") {
				entries = append(entries, entry{runs, e.Name()})
			}
		}
		h.readSidecars(filepath.Join(d, "sessions"))
	}
	runs := make([]*Run, len(entries))
	errs := make([]error, len(entries))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				path := filepath.Join(entries[i].dir, entries[i].name)
				if r := prev[path]; r != nil && r.Finished() {
					runs[i] = r
					continue
				}
				if info, err := os.Stat(path); err != nil || !info.IsDir() {
					errs[i] = &Problem{File: path, Err: ErrNotARun}
					continue
				}
				runs[i], errs[i] = OpenRun(path)
			}
		})
	}
	for i := range entries {
		next <- i
	}
	close(next)
	wg.Wait()
	byID := map[string]int{}
	for i, r := range runs {
		if errs[i] != nil {
			h.problems = append(h.problems, errs[i])
		}
		if r == nil {
			continue
		}
		h.read[r.Dir] = r
		k, seen := byID[r.ID]
		if !seen {
			byID[r.ID] = len(h.runs)
			h.runs = append(h.runs, r)
			continue
		}
		first := h.runs[k]
		if taken, why := choose(first, r); why != "" {
			h.runs[k] = taken
			h.problems = append(h.problems, &Problem{File: r.ID, Err: fmt.Errorf("%w: %s (in %s and %s): %s's is read, %s",
				ErrTwoCopies, r.ID, first.home(), r.home(), taken.home(), why)})
		}
	}
	slices.SortStableFunc(h.runs, func(a, b *Run) int { return strings.Compare(a.ID, b.ID) })
	return h
}

// home is the state directory the run is in.
func (r *Run) home() string { return filepath.Dir(filepath.Dir(r.Dir)) }

// choose is the copy of a run read when it is in two state directories
// (a, from the one listed first, and b), and why, "" when they are the
// same.
func choose(a, b *Run) (*Run, string) {
	sa, _ := regular.Read(a.path(SummaryFile), stream.MaxSummaryFile)
	sb, _ := regular.Read(b.path(SummaryFile), stream.MaxSummaryFile)
	na, nb := size(a.path(EventsFile)), size(b.path(EventsFile))
	switch {
	case bytes.Equal(sa, sb) && na == nb:
		return a, ""
	case a.Finished() != b.Finished():
		if b.Finished() {
			return b, "it has ended (the other's summary is missing or says running)"
		}
		return a, "it has ended (the other's summary is missing or says running)"
	case na != nb:
		if nb > na {
			return b, "it has more records (records are only added)"
		}
		return a, "it has more records (records are only added)"
	}
	return a, "its directory is listed first"
}

func size(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return info.Size()
}

// readSidecars reads the sidecars in a sessions directory (a missing one
// has none), with encoding/json, as uah reads them.
func (h *History) readSidecars(dir string) {
	es, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			h.problems = append(h.problems, &Problem{File: dir, Err: err})
		}
		return
	}
	for _, e := range es {
		id, ok := strings.CutSuffix(e.Name(), SidecarSuffix)
		if !ok || strings.HasPrefix(e.Name(), ".") || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := regular.Read(path, MaxSidecarFile)
		var sc Sidecar
		if err == nil {
			err = json.Unmarshal(b, &sc)
		}
		if err != nil {
			h.problems = append(h.problems, &Problem{File: path, Err: fmt.Errorf("%w: %w (read without it)", ErrSidecar, err)})
			continue
		}
		if _, seen := h.sidecars[id]; !seen { // the first directory's
			sc.path = path
			h.sidecars[id] = &sc
		}
	}
}

// Runs returns the history's runs, each once, in the order of their ids
// (which begin with their start).
func (h *History) Runs() []*Run { return slices.Clone(h.runs) }

// Problems returns what could not be read of the history, each a
// *Problem.
func (h *History) Problems() []error { return slices.Clone(h.problems) }

// Sidecar returns uah's sidecar of the session id, nil without one.
func (h *History) Sidecar(id string) *Sidecar { return h.sidecars[id] }

// Sessions returns the sessions of the history's runs, the one with the
// latest activity first (see Session.UpdatedAt), each with its sidecar
// (nil without one), and the problems of their parents: a sidecar that
// names a parent with no runs in the history, or a parent that is its own
// descendant, is said (ErrParent) and its session has no parent (see
// Session.Parent). A session with a sidecar and no runs is left out: it
// never ran.
func (h *History) Sessions() ([]Session, []error) {
	byID := map[string]int{}
	var out []Session
	for _, r := range h.runs {
		id := r.SessionID()
		if id == "" {
			continue
		}
		k, ok := byID[id]
		if !ok {
			k = len(out)
			byID[id] = k
			out = append(out, Session{ID: id, Sidecar: h.sidecars[id]})
		}
		out[k].Runs = append(out[k].Runs, r)
	}
	for _, s := range out {
		slices.SortStableFunc(s.Runs, func(a, b *Run) int { return a.StartedAt().Compare(b.StartedAt()) })
	}
	slices.SortStableFunc(out, func(a, b Session) int {
		return cmp.Or(b.UpdatedAt().Compare(a.UpdatedAt()), strings.Compare(a.ID, b.ID))
	})
	var problems []error
	for i := range out {
		s := &out[i]
		if s.Sidecar == nil || s.Sidecar.Parent == "" {
			continue
		}
		p := s.Sidecar.Parent
		if _, ok := byID[p]; !ok {
			problems = append(problems, &Problem{File: s.Sidecar.path, Err: fmt.Errorf("%w, %s, with no run in the history (listed at the top)", ErrParent, p)})
			continue
		}
		if cycle(s.ID, func(id string) string {
			if sc := h.sidecars[id]; sc != nil {
				return sc.Parent
			}
			return ""
		}) {
			problems = append(problems, &Problem{File: s.Sidecar.path, Err: fmt.Errorf("%w, %s, that is its own descendant (listed at the top)", ErrParent, p)})
			continue
		}
		s.parent = p
	}
	return out, problems
}

// cycle reports whether following parent from id comes back to id.
func cycle(id string, parent func(string) string) bool {
	seen := map[string]bool{}
	for p := parent(id); p != ""; p = parent(p) {
		if p == id {
			return true
		}
		if seen[p] {
			return false // a cycle above id, not through it
		}
		seen[p] = true
	}
	return false
}
