package statedir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/uagentkit/stream/internal/regular"
)

// MaxStderrLine is the longest line of a run's stderr.log that Attempts
// reads; a longer one (the runner's other words) is skipped.
const MaxStderrLine = 64 << 10

// Attempts counts a run's model attempts by how each ended, as the runner
// says them on its stderr (stderr.log: a JSON line per attempt,
// {"diag":"model_attempt",…,"result":"ok|retry|failed|canceled"}). A
// result of another word counts in Other.
type Attempts struct {
	OK       int `json:"ok"`
	Retry    int `json:"retry"`
	Failed   int `json:"failed"`
	Canceled int `json:"canceled"`
	Other    int `json:"other"`
}

// Add adds b's counts to a's.
func (a Attempts) Add(b Attempts) Attempts {
	return Attempts{a.OK + b.OK, a.Retry + b.Retry, a.Failed + b.Failed, a.Canceled + b.Canceled, a.Other + b.Other}
}

// String says the counts: "12 model attempts: 9 ok, 2 retried, 1 failed"
// (the counts that are not 0).
func (a Attempts) String() string {
	s := fmt.Sprintf("%d model attempts:", a.Total())
	sep := " "
	for _, c := range []struct {
		n    int
		word string
	}{{a.OK, "ok"}, {a.Retry, "retried"}, {a.Failed, "failed"}, {a.Canceled, "canceled"}, {a.Other, "other"}} {
		if c.n > 0 {
			s += fmt.Sprintf("%s%d %s", sep, c.n, c.word)
			sep = ", "
		}
	}
	return s
}

// Total is how many attempts there were.
func (a Attempts) Total() int { return a.OK + a.Retry + a.Failed + a.Canceled + a.Other }

// Attempts reads the model attempts in the run's stderr.log (see
// Attempts): the zero Attempts without the file, or without a
// model_attempt line (a runner from before them). Lines that are not
// JSON, or another diag, are the runner's other words: skipped. An
// error is the file's (not a regular file, unreadable), never a line's.
func (r *Run) Attempts() (Attempts, error) { return ReadAttempts(r.Dir) }

// ReadAttempts reads the model attempts of the run directory dir (see
// Run.Attempts).
func ReadAttempts(dir string) (Attempts, error) {
	var a Attempts
	f, err := regular.Open(filepath.Join(dir, StderrFile))
	if errors.Is(err, fs.ErrNotExist) {
		return a, nil
	}
	if err != nil {
		return a, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, MaxStderrLine)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // longer than an attempt's line: skipped to its end
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			line = nil
		}
		if line = bytes.TrimSpace(line); bytes.Contains(line, []byte(`model_attempt`)) {
			a.add(line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return a, nil
			}
			return a, err
		}
	}
}

// add counts a line, when it is an attempt's.
func (a *Attempts) add(line []byte) {
	var d struct {
		Diag   string `json:"diag"`
		Result string `json:"result"`
	}
	if json.Unmarshal(line, &d) != nil || d.Diag != "model_attempt" {
		return
	}
	switch d.Result {
	case "ok":
		a.OK++
	case "retry":
		a.Retry++
	case "failed":
		a.Failed++
	case "canceled":
		a.Canceled++
	default:
		a.Other++
	}
}
