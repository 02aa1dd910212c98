package parquetstream

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/uagentkit/stream/history"
	"github.com/uagentkit/stream/statedir"
)

// Source is what an export reads: a stream file (a run's, or a session
// stream's runs) or a run directory.
type Source struct {
	// Path is the file or the run directory.
	Path string
	// Run is a run directory's, nil for a file.
	Run *statedir.Run
	// Sidecar is uah's sidecar of a run directory's session, when its
	// home has one: the sessions table's source, parent and title.
	Sidecar *statedir.Sidecar
	// key names the input across exports; fingerprint says whether it
	// changed since.
	key, fingerprint string
}

// Sources lists what the inputs hold: a FILE as given; the runs of the
// state directories (read together as one history, statedir.OpenHistory:
// a run in two of them is listed once, and each has its session's
// sidecar), where the first of them is given; a run directory; the
// *.jsonl files and run directories under any other DIR, in lexical
// order. What cannot be read (a missing input, a directory that cannot be
// listed, a file that is not a regular one, a run directory that cannot
// be opened, a sidecar) is said to problem and left out; the rest is
// listed.
func Sources(inputs []string, problem func(error)) []Source {
	return sourcesWalking(inputs, problem, filepath.WalkDir)
}

// sourcesWalking is Sources, walking directories with walk (another
// walker only in tests).
func sourcesWalking(inputs []string, problem func(error), walk func(string, fs.WalkDirFunc) error) []Source {
	var out []Source
	addRun := func(r *statedir.Run, sc *statedir.Sidecar) {
		id, _ := valid(r.ID)
		out = append(out, Source{Path: r.Dir, Run: r, Sidecar: sc, key: "run:" + id, fingerprint: fingerprint(
			filepath.Join(r.Dir, statedir.EventsFile), filepath.Join(r.Dir, statedir.SummaryFile))})
	}
	var homes []string
	for _, in := range inputs {
		if statedir.IsStateDir(in) {
			homes = append(homes, in)
		}
	}
	addFile := func(path string) {
		abs, err := filepath.Abs(path)
		if err != nil {
			abs = path
		}
		abs, _ = valid(abs)
		out = append(out, Source{Path: path, key: "file:" + abs, fingerprint: fingerprint(path)})
	}
	for _, in := range inputs {
		info, err := os.Stat(in)
		switch {
		case err != nil:
			problem(err)
		case !info.IsDir():
			addFile(in)
		case statedir.IsStateDir(in):
			if in != homes[0] {
				continue // read with the first
			}
			h := statedir.OpenHistory(homes...)
			_, parents := history.Parents(h)
			for _, p := range append(h.Problems(), parents...) {
				problem(p)
			}
			for _, r := range h.Runs() {
				addRun(r, h.Sidecar(r.SessionID()))
			}
		case runDir(in):
			r, err := statedir.OpenRun(in)
			if err != nil {
				problem(err)
				continue
			}
			addRun(r, nil)
		default:
			walk(in, func(path string, d fs.DirEntry, err error) error {
				switch {
				case err != nil:
					if _, ok := errors.AsType[*fs.PathError](err); !ok {
						err = &fs.PathError{Op: "read", Path: path, Err: err}
					}
					problem(err) // a directory that cannot be read: said, and the rest walked
					if d != nil && d.IsDir() {
						return fs.SkipDir
					}
					return nil
				case d.IsDir() && path != in && runDir(path):
					r, err := statedir.OpenRun(path)
					if err != nil {
						problem(err)
					} else {
						addRun(r, nil)
					}
					return fs.SkipDir
				case d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl"):
					return nil
				case !d.Type().IsRegular():
					problem(fmt.Errorf("%s: not a regular file (left out)", path))
					return nil
				}
				addFile(path)
				return nil
			})
		}
	}
	return out
}

// runDir reports a directory that is a run directory to export: one that
// holds uagent's records (events.jsonl, a regular file). A folder of streams that also
// holds a summary.json (a stream's summary written beside it) is a
// folder of streams.
func runDir(path string) bool {
	info, err := os.Stat(filepath.Join(path, statedir.EventsFile))
	return err == nil && info.Mode().IsRegular()
}

// fingerprint says what files are now: their sizes and times of change.
func fingerprint(paths ...string) string {
	var parts []string
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil {
			parts = append(parts, fmt.Sprintf("%d@%d", info.Size(), info.ModTime().UnixNano()))
		} else {
			parts = append(parts, "-")
		}
	}
	return strings.Join(parts, ",")
}
