package stream

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEndingString(t *testing.T) {
	assert.Equal(t, "finished preflight_blocked start_failed cut_off Ending(0)",
		fmt.Sprint(EndFinished, " ", EndPreflightBlocked, " ", EndStartFailed, " ", EndCutOff, " ", Ending(0)))
}

// foldOf folds a stream's lines as a reader does.
func foldOf(t *testing.T, b []byte) *Fold {
	t.Helper()
	var f Fold
	for dto, err := range NewDecoder(bytes.NewReader(b)).All() {
		f.Add(dto, err)
	}
	return &f
}

// The fold's verdict, of a stream alone and with a process's exit code,
// as DESIGN.md's "Ended streams" and "Status and exit codes" give it.
func TestVerdicts(t *testing.T) {
	started := write(t, []Event{RunStarted{At: t0, RunID: "r"}})
	warned := write(t, []Event{RunStarted{At: t0, RunID: "r"}, PreflightWarning{At: t0, Code: "c", Message: "m"}})
	midRun := write(t, realisticRun()[:8])
	finished := write(t, realisticRun())
	badFirst := []byte("{not json\n")
	bom := append([]byte("\xef\xbb\xbf"), started...)
	warningFirst := write(t, []Event{PreflightWarning{At: t0, Code: "c", Message: "m"}, RunStarted{At: t0}})
	for _, c := range []struct {
		name   string
		stream []byte
		alone  Verdict
		exit   int
		stop   Status
		of     Verdict
	}{
		{"no line", nil, Verdict{EndPreflightBlocked, StatusError, 2}, 2, "", Verdict{EndPreflightBlocked, StatusError, 2}},
		{"no line, exit 1", nil, Verdict{EndPreflightBlocked, StatusError, 2}, 1, "", Verdict{EndCutOff, StatusError, 1}},
		{"only run_started, exit 1", started, Verdict{EndStartFailed, StatusError, 1}, 1, "", Verdict{EndStartFailed, StatusError, 1}},
		{"only run_started, exit 0", started, Verdict{EndStartFailed, StatusError, 1}, 0, "", Verdict{EndCutOff, StatusError, 0}},
		{"run_started and a warning, exit 1", warned, Verdict{EndStartFailed, StatusError, 1}, 1, "", Verdict{EndStartFailed, StatusError, 1}},
		{"a byte-order mark, then only run_started", bom, Verdict{EndStartFailed, StatusError, 1}, 1, "", Verdict{EndStartFailed, StatusError, 1}},
		{"a warning first", warningFirst, Verdict{EndCutOff, StatusError, -1}, 1, "", Verdict{EndCutOff, StatusError, 1}},
		{"a bad first line", badFirst, Verdict{EndCutOff, StatusError, -1}, 2, "", Verdict{EndCutOff, StatusError, 2}},
		{"cut off mid-run", midRun, Verdict{EndCutOff, StatusError, -1}, 124, "", Verdict{EndCutOff, StatusTimeout, 124}},
		{"cut off, exit 130", midRun, Verdict{EndCutOff, StatusError, -1}, 130, "", Verdict{EndCutOff, StatusInterrupted, 130}},
		{"cut off, killed after the deadline", midRun, Verdict{EndCutOff, StatusError, -1}, -1, StatusTimeout, Verdict{EndCutOff, StatusTimeout, -1}},
		{"cut off, interrupted", midRun, Verdict{EndCutOff, StatusError, -1}, 1, StatusInterrupted, Verdict{EndCutOff, StatusInterrupted, 1}},
		{"finished", finished, Verdict{EndFinished, StatusOK, 0}, 3, StatusInterrupted, Verdict{EndFinished, StatusOK, 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := foldOf(t, c.stream)
			assert.Equal(t, c.alone, f.Verdict(), "the stream alone")
			assert.Equal(t, c.of, f.VerdictOf(c.exit, c.stop), "with exit %d", c.exit)
		})
	}
}

// The differences of a run_finished summary from the events are those of
// the fields its line has: a v1 summary written before a field existed is
// not wrong about it. A summary built in Go has every field.
func TestFoldDiffComparesTheFieldsTheLineHas(t *testing.T) {
	run := write(t, realisticRun())
	f := foldOf(t, run)
	require.True(t, f.Finished())
	assert.Empty(t, f.Diff(), "the Sink's own summary agrees")

	// The recorded summary, without some fields and with others wrong.
	last := lines(run)[len(lines(run))-1]
	old := strings.Replace(string(last), `"user_messages":1,`, ``, 1)
	old = strings.Replace(old, `"turns":2,`, `"turns":7,`, 1)
	old = strings.Replace(old, `,"answer":"a.txt has 3 lines; b.txt does not exist."`, ``, 1)
	require.NotEqual(t, string(last), old)
	lying := append(bytes.Join(lines(run)[:len(lines(run))-1], []byte("\n")), []byte("\n"+old+"\n")...)
	f = foldOf(t, lying)
	assert.Equal(t, []Difference{{"stats.turns", "7", "2"}}, f.Diff(), "user_messages and answer are absent: not compared")

	// The same summary as a DTO made in Go: every field is there.
	var g Fold
	for _, e := range realisticRun()[:len(realisticRun())-1] {
		g.AddEvent(e)
	}
	sum := f.Recorded()
	g.Add(RunFinishedDTO{header: header{V: 1, Type: TypeRunFinished, At: t0.Add(time.Second)}, Summary: *sum}, nil)
	var fields []string
	for _, d := range g.Diff() {
		fields = append(fields, d.Field)
	}
	assert.Equal(t, []string{"stats.turns", "stats.user_messages", "answer"}, fields)
}
