package statedir

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"iter"
	"os"
	"slices"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/regular"
)

// Follow returns the run as Events does, as it happens: the records
// already written, then each new one once its line is complete, checked
// for every poll; when summary.json says the run has ended (a final
// status), the records written until then and run_finished, and the end.
// A run that has ended already is its Events. When ctx ends first, the
// sequence ends where the run is (without run_finished: the caller says
// the run was still going). A run that nobody runs any more (its session's
// lock let go of, its summary not final: StateStopped) ends with its
// records, without run_finished, as its Events do. The preflight warnings come after run_started
// when the summary that Follow first reads has them (uagent writes them
// to the running summary when the run starts). Problems are said as for
// Events; a run directory removed while followed ends the sequence with
// one.
func (r *Run) Follow(ctx context.Context, poll time.Duration) iter.Seq[stream.Event] {
	return func(yield func(stream.Event) bool) {
		if r.Finished() {
			for e := range r.Events() {
				if !yield(e) {
					return
				}
			}
			return
		}
		stopped := false
		emit, m := r.begin(yield, &stopped)
		t := &tail{path: r.path(EventsFile)}
		defer t.close()
		for !stopped {
			// The lock is probed before the summary is read again: uagent
			// writes its final summary before it lets go of the lock, so
			// a lock let go of and a summary still not final is a run
			// that was stopped (StateStopped), and ends here cut off.
			held, known := r.Held()
			ended := r.reread()
			gone := known && !held && !ended
			if err := t.lines(m.line, &stopped); err != nil {
				r.problem(EventsFile, 0, err)
				return
			}
			if ended || gone {
				if len(t.part) > 0 { // a last record without its newline: whole, or still being written
					if m.whole(t.part) {
						m.line(t.part)
					} else {
						r.problem(EventsFile, t.n+1, ErrWriteInProgress)
					}
				}
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(poll):
			}
		}
		if r.Finished() && !stopped {
			emit(r.finished())
		}
	}
}

// reread reads summary.json again, and reports a final status.
func (r *Run) reread() bool {
	s, err := stream.ReadSummaryFile(r.path(SummaryFile))
	if err != nil {
		return false // missing, or being rewritten: asked again at the next poll
	}
	r.Summary = &s
	if !r.Finished() {
		return false
	}
	r.problems = slices.DeleteFunc(r.problems, func(err error) bool { return errors.Is(err, ErrRunning) || errors.Is(err, ErrNoSummary) })
	return true
}

// tail reads the complete lines a file gains.
type tail struct {
	path string
	f    *os.File
	part []byte // a last line without its newline yet
	n    int    // lines read
}

// lines hands line each complete line the file has gained since the last
// call. A file that does not exist yet has none.
func (t *tail) lines(line func([]byte), stopped *bool) error {
	if t.f == nil {
		f, err := regular.Open(t.path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		t.f = f
	}
	br := bufio.NewReaderSize(t.f, 256<<10)
	for !*stopped {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			t.part = append(t.part, b...)
			if len(t.part) > stream.DefaultMaxLineSize {
				return ErrRecordTooLong
			}
			continue
		}
		if err == nil {
			t.n++
			if len(t.part) > 0 {
				t.part = append(t.part, b...)
				b, t.part = t.part, t.part[:0]
			}
			line(bytes.TrimSuffix(b, []byte("\n")))
			continue
		}
		t.part = append(t.part, b...) // the rest, until its newline comes
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	return nil
}

func (t *tail) close() {
	if t.f != nil {
		t.f.Close()
	}
}
