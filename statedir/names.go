package statedir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The names of the files under sessions/ that name a session: uagent's
// session file and run lock, uah's sidecar.
var sessionSuffixes = []string{".session.jsonl", ".lock", sidecarSuffix}

// Names returns the names of the state directories dirs, without opening
// a run: the run ids (the directories under runs/) and the session ids
// (the session files, run locks and sidecars under sessions/), each
// sorted and once. A directory that cannot be read has none.
func Names(dirs []string) (runs, sessions []string) {
	for _, d := range dirs {
		for _, e := range readDir(filepath.Join(d, "runs")) {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				runs = append(runs, e.Name())
			}
		}
		for _, e := range readDir(filepath.Join(d, SessionsDir)) {
			for _, suffix := range sessionSuffixes {
				if id, ok := strings.CutSuffix(e.Name(), suffix); ok && id != "" && !strings.HasPrefix(id, ".") {
					sessions = append(sessions, id)
					break
				}
			}
		}
	}
	slices.Sort(runs)
	slices.Sort(sessions)
	return slices.Compact(runs), slices.Compact(sessions)
}

func readDir(dir string) []os.DirEntry {
	es, _ := os.ReadDir(dir)
	return es
}

// FindRun opens the run id of the state directories dirs: the copy of the
// first that has it, or, where more than one has it, the copy
// OpenHistory reads (a Problem wrapping ErrTwoCopies says which, among
// the problems). A run no directory has is an error wrapping
// fs.ErrNotExist; an id that cannot name a directory of its own (a path,
// "." or "..") has none.
func FindRun(dirs []string, id string) (*Run, []error, error) {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return nil, nil, &Problem{File: id, Err: fs.ErrNotExist}
	}
	var found *Run
	var problems []error
	for _, d := range dirs {
		dir := filepath.Join(d, "runs", id)
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			continue
		}
		r, err := OpenRun(dir)
		if err != nil {
			if !errors.Is(err, ErrNotARun) {
				problems = append(problems, err)
			}
			continue
		}
		if found == nil {
			found = r
			continue
		}
		if taken, why := choose(found, r); why != "" {
			problems = append(problems, twoCopies(found, r, taken, why))
			found = taken
		}
	}
	if found == nil {
		return nil, problems, &Problem{File: id, Err: fs.ErrNotExist}
	}
	return found, problems, nil
}

// Saved reports whether path is a file uagent or uah saved: one of a run
// directory's (events.jsonl, summary.json, request.json, stderr.log) or
// one under a state directory's sessions/. A program that writes files
// it makes refuses these: they are what it reads.
func Saved(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	dir, base := filepath.Dir(abs), filepath.Base(abs)
	return IsRun(dir) && slices.Contains([]string{EventsFile, SummaryFile, RequestFile, StderrFile}, base) ||
		filepath.Base(dir) == SessionsDir && IsStateDir(filepath.Dir(dir))
}
