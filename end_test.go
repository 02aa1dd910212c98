package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
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
	assert.Empty(t, f.Recomputed().Diff, "the Sink's own summary agrees")

	// The recorded summary, without some fields and with others wrong.
	last := lines(run)[len(lines(run))-1]
	old := strings.Replace(string(last), `"user_messages":1,`, ``, 1)
	old = strings.Replace(old, `"turns":2,`, `"turns":7,`, 1)
	old = strings.Replace(old, `,"answer":"a.txt has 3 lines; b.txt does not exist."`, ``, 1)
	require.NotEqual(t, string(last), old)
	lying := append(bytes.Join(lines(run)[:len(lines(run))-1], []byte("\n")), []byte("\n"+old+"\n")...)
	f = foldOf(t, lying)
	assert.Equal(t, []Difference{{Field: "stats.turns", Recorded: "7", Recomputed: "2"}}, f.Recomputed().Diff, "user_messages and answer are absent: not compared")

	// The same summary as a DTO made in Go: every field is there.
	var g Fold
	for _, e := range realisticRun()[:len(realisticRun())-1] {
		g.AddEvent(e)
	}
	sum := f.Recomputed().Recorded
	g.Add(RunFinishedDTO{header: header{V: 1, Type: TypeRunFinished, At: t0.Add(time.Second)}, Summary: *sum}, nil)
	var fields []string
	for _, d := range g.Recomputed().Diff {
		fields = append(fields, d.Field)
	}
	assert.Equal(t, []string{"stats.turns", "stats.user_messages", "answer"}, fields)
}

// FuzzLeanSummarize holds the Decoder Summarize and Validate read with
// (lean: the strings the fold does not read are checked, not built, and
// strings before the type read again once it is known; the Decoder taken
// again from a pool for the next stream) to the Decoder everyone else
// reads with: the same summary, counts, line errors and differences, for
// any bytes; a seed has a line over 64 KiB, joined from chunks.
func FuzzLeanSummarize(f *testing.F) {
	f.Add([]byte(goodLine + "\n" + goodTail + "\n"))
	f.Add([]byte(`{"v":1,"type":"tool_called","at":"2026-09-23T12:07:00Z","call_id":"c","name":"n","label":"a\u00e9\"b","arguments":"x\\"}` + "\n"))
	f.Add([]byte(`{"arguments":"\x","at":"2026-09-23T12:07:00Z","call_id":"c","type":"tool_called","v":1}` + "\n" + `{"text":5,"type":"user_message","v":1,"at":"2026-09-23T12:07:00Z"}`))
	f.Add([]byte(`{"text":"` + strings.Repeat(`\"é`, 30000) + `","final":true,"at":"2026-09-23T12:07:00Z","type":"assistant_message","v":1}` + "\n" + goodTail + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var want Fold
		for dto, err := range NewDecoder(bytes.NewReader(data)).All() {
			want.Add(dto, err)
		}
		w := want.Recomputed()
		for i := range 3 { // the second time, a Decoder from the pool; the third, a byte a read
			var r io.Reader = bytes.NewReader(data)
			if i == 2 { // the buffer written over by every read: borrowed strings change
				r = iotest.OneByteReader(r)
			}
			got, err := Summarize(r)
			require.NoError(t, err)
			if d := cmp.Diff(w.Summary, got.Summary); d != "" {
				t.Fatalf("lean summary (-everyone's +lean):\n%s", d)
			}
			require.Equal(t, w.Lines, got.Lines)
			require.Equal(t, w.LineErrors, got.LineErrors)
			require.Equal(t, len(w.FirstErrors), len(got.FirstErrors))
			for i := range w.FirstErrors {
				require.Equal(t, w.FirstErrors[i].Error(), got.FirstErrors[i].Error())
			}
			require.Equal(t, w.Diff, got.Diff)
		}
		// Validate reads as Summarize does (borrowed strings, the DTOs the
		// Decoder's own): its findings are a fold's that checks what an
		// ordinary Decoder reads.
		var checked Fold
		dec := NewDecoder(bytes.NewReader(data))
		checked.Check(dec)
		for dto, err := range dec.All() {
			checked.Add(dto, err)
		}
		for _, r := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data))} {
			got, err := Validate(r)
			require.NoError(t, err)
			require.Equal(t, checked.Findings(), got)
		}
	})
}

// FuzzWithoutContent holds a Decoder WithoutContent to the ordinary one:
// the same lines, the same errors (a content string is checked as ever),
// the same DTOs but for the content strings, which are empty.
func FuzzWithoutContent(f *testing.F) {
	f.Add([]byte(goodLine + "\n" + goodTail + "\n"))
	f.Add([]byte(`{"v":1,"type":"tool_called","at":"2026-09-23T12:07:00Z","call_id":"c","name":"n","label":"l","arguments":"x\\"}` + "\n"))
	f.Add([]byte(`{"v":1,"type":"user_message","at":"2026-09-23T12:07:00Z","id":"m","text":"a\"\u00e9"}` + "\n" + `{"v":1,"type":"reasoning","at":"2026-09-23T12:07:00Z","text":"\x01"}`))
	f.Add([]byte(`{"text":"hi","at":"2026-09-23T12:07:00Z","type":"developer_message","v":1,"id":"d"}` + "\n" + `{"v":1,"type":"control_input","at":"2026-09-23T12:07:00Z","id":"c","mode":"steer","reason":7}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		all := NewDecoder(bytes.NewReader(data))
		lean := NewDecoder(bytes.NewReader(data), WithoutContent())
		for {
			want, werr := all.Decode()
			got, gerr := lean.Decode()
			if werr != nil || gerr != nil {
				require.Equal(t, fmt.Sprint(werr), fmt.Sprint(gerr))
				if errors.Is(werr, io.EOF) {
					return
				}
				continue
			}
			switch d := want.(type) {
			case UserMessageDTO:
				d.Text = ""
				want = d
			case DeveloperMessageDTO:
				d.Text = ""
				want = d
			case ControlInputDTO:
				d.Reason = ""
				want = d
			case ReasoningDTO:
				d.Text = ""
				want = d
			case ToolCalledDTO:
				d.Arguments = ""
				want = d
			}
			require.Equal(t, want, got)
		}
	})
}
