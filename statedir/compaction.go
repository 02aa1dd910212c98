package statedir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uagentkit/stream/internal/regular"
)

// compactionSuffix ends the name of uah's compaction log of a session:
// sessions/<id>.compaction.jsonl.
const compactionSuffix = ".compaction.jsonl"

// MaxCompactionLine is the longest line of a compaction log read (a
// record carries its summary, its ledger and, of a remote compaction,
// the provider's encrypted item); a longer one is skipped.
const MaxCompactionLine = 16 << 20

// Compaction is a line of uah's compaction log of a session, as far as a
// reader of the history needs it: when, the summary model, the trigger,
// and its stats as their JSON text ("" for none: records from before
// uah measured them), whose call is the summary call's usage (see
// uahstream.CallUsage).
type Compaction struct {
	At      time.Time `json:"at"`
	Model   string    `json:"model"`
	Trigger string    `json:"trigger"`
	Stats   string    `json:"-"`
}

// readCompactions reads a compaction log: a line that does not decode is
// skipped, as uah skips it; a file that cannot be read is a problem.
func (h *History) readCompactions(path string) []Compaction {
	f, err := regular.Open(path)
	if err != nil {
		h.problems = append(h.problems, &Problem{File: path, Err: err})
		return nil
	}
	defer f.Close()
	var out []Compaction
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, MaxCompactionLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		var c struct {
			Compaction
			Stats json.RawMessage `json:"stats"`
		}
		if len(line) == 0 || json.Unmarshal(line, &c) != nil {
			continue
		}
		c.Compaction.Stats = string(c.Stats)
		if c.Compaction.Stats == "null" {
			c.Compaction.Stats = ""
		}
		out = append(out, c.Compaction)
	}
	if err := sc.Err(); err != nil {
		h.problems = append(h.problems, &Problem{File: path, Err: fmt.Errorf("read as far as a line over %d bytes: %w", MaxCompactionLine, err)})
	}
	return out
}
