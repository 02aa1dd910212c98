package statedir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
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
	uahStateDirEnv = "UAH_STATE_DIR"
	uahHomeEnv     = "UAH_HOME"
)

// UahDir returns the home of uah, the harness built on uagent, which keeps
// its runs and sessions there since 2026-09-25 (not in uagent's state
// directory), laid out as uagent's, with its own sidecars in sessions/:
// $UAH_STATE_DIR, else $UAH_HOME, else ~/.uah.
func UahDir() (string, error) {
	for _, v := range []string{uahStateDirEnv, uahHomeEnv} {
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

// sidecarSuffix ends the name of a sidecar: sessions/<id>.uah.json.
const sidecarSuffix = ".uah.json"

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

	// Path is the sidecar's file.
	Path string `json:"-"`

	size int64     // the file's, when it was read
	mod  time.Time // the file's, when it was read
}

// Title is the sidecar's first prompt as a title (see
// RequestHead.Title): on one line, cut to MaxTitle runes; "" without one.
func (s *Sidecar) Title() string { return titleLine(s.FirstPrompt) }

// isDir reports whether path is a directory.
func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// ErrSidecar is the cause of a Problem with a sidecar that is not JSON or
// has fields of other types: it is left out, and its session read without
// it.
var ErrSidecar = errors.New("uah's session sidecar cannot be read")

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
	known    []string // the ids of the runs not read again (see Reread)
	sidecars map[string]*Sidecar
	// compactions are uah's compaction logs, by session id.
	compactions map[string][]Compaction
	problems    []error
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
func OpenHistory(dirs ...string) *History {
	return openHistory(dirs, func(string) bool { return false }, nil)
}

// Reread reads the state directories dirs again, as OpenHistory does,
// but for the runs whose every copy is known (known reports the path of a
// run directory that was read before and had ended: a run that has ended
// is not written to again): those are not opened, and Known lists their
// ids, so that a history of many runs costs its listing, its new runs and
// the runs still going. A sidecar whose file has the size and time it had
// when it was read into sidecars (an earlier History's Sidecars) is that
// one, not read again.
func Reread(dirs []string, sidecars map[string]*Sidecar, known func(dir string) bool) *History {
	return openHistory(dirs, known, sidecars)
}

func openHistory(dirs []string, known func(dir string) bool, sidecarsBefore map[string]*Sidecar) *History {
	h := &History{dirs: slices.Clone(dirs), sidecars: map[string]*Sidecar{}, compactions: map[string][]Compaction{}}
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
		if errors.Is(err, fs.ErrNotExist) && !isDir(filepath.Join(d, "sessions")) {
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
		h.readSidecars(filepath.Join(d, "sessions"), sidecarsBefore)
	}
	// A run whose every copy is known is not opened.
	copies := map[string]int{}
	unknown := map[string]bool{}
	for _, e := range entries {
		copies[e.name]++
		if !known(filepath.Join(e.dir, e.name)) {
			unknown[e.name] = true
		}
	}
	var open []entry
	for _, e := range entries {
		switch {
		case unknown[e.name]:
			open = append(open, e)
		case copies[e.name] > 0:
			h.known = append(h.known, e.name)
			copies[e.name] = 0
		}
	}
	entries = open
	runs := make([]*Run, len(entries))
	errs := make([]error, len(entries))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				path := filepath.Join(entries[i].dir, entries[i].name)
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
		k, seen := byID[r.ID]
		if !seen {
			byID[r.ID] = len(h.runs)
			h.runs = append(h.runs, r)
			continue
		}
		first := h.runs[k]
		if taken, why := choose(first, r); why != "" {
			h.runs[k] = taken
			h.problems = append(h.problems, twoCopies(first, r, taken, why))
		}
	}
	slices.SortStableFunc(h.runs, func(a, b *Run) int { return strings.Compare(a.ID, b.ID) })
	return h
}

// twoCopies is the Problem of a run in two state directories whose
// copies differ: taken is read, for why.
func twoCopies(first, second, taken *Run, why string) error {
	return &Problem{File: second.ID, Err: fmt.Errorf("%w: %s (in %s and %s): %s's is read, %s",
		ErrTwoCopies, second.ID, first.home(), second.home(), taken.home(), why)}
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
func (h *History) readSidecars(dir string, before map[string]*Sidecar) {
	es, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			h.problems = append(h.problems, &Problem{File: dir, Err: err})
		}
		return
	}
	for _, e := range es {
		if id, ok := strings.CutSuffix(e.Name(), compactionSuffix); ok && !strings.HasPrefix(e.Name(), ".") && !e.IsDir() {
			if _, seen := h.compactions[id]; !seen { // the first directory's
				h.compactions[id] = h.readCompactions(filepath.Join(dir, e.Name()))
			}
			continue
		}
		id, ok := strings.CutSuffix(e.Name(), sidecarSuffix)
		if !ok || strings.HasPrefix(e.Name(), ".") || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		var size int64
		var mod time.Time
		if info, err := e.Info(); err == nil {
			size, mod = info.Size(), info.ModTime()
		}
		if prev := before[id]; prev != nil && prev.Path == path && prev.size == size && prev.mod.Equal(mod) && !mod.IsZero() {
			if _, seen := h.sidecars[id]; !seen {
				h.sidecars[id] = prev // as it was: uah rewrites a sidecar whole, by a rename
			}
			continue
		}
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
			sc.Path, sc.size, sc.mod = path, size, mod
			h.sidecars[id] = &sc
		}
	}
}

// Runs returns the history's runs that it read, each once, in the order
// of their ids (which begin with their start).
func (h *History) Runs() []*Run { return slices.Clone(h.runs) }

// Known returns the ids of the runs Reread did not read again, sorted.
func (h *History) Known() []string { return slices.Sorted(slices.Values(h.known)) }

// Dirs returns the state directories the history was read from.
func (h *History) Dirs() []string { return slices.Clone(h.dirs) }

// Problems returns what could not be read of the history, each a
// *Problem.
func (h *History) Problems() []error { return slices.Clone(h.problems) }

// Sidecars returns uah's sidecars of the history's sessions, by session
// id.
func (h *History) Sidecars() map[string]*Sidecar { return maps.Clone(h.sidecars) }

// Compactions returns uah's compaction log of the session id
// (sessions/<id>.compaction.jsonl), in its order; nil without one.
func (h *History) Compactions(id string) []Compaction { return h.compactions[id] }

// Sidecar returns uah's sidecar of the session id, nil without one.
func (h *History) Sidecar(id string) *Sidecar { return h.sidecars[id] }
