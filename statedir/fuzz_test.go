package statedir

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
)

// FuzzRecords maps any events.jsonl: never a panic, every event written as
// a line the Decoder reads back, the same events for the same records, and
// a record never yields more than its outputs and operations can.
func FuzzRecords(f *testing.F) {
	runs, err := filepath.Glob(filepath.Join("testdata", "state", "runs", "*", EventsFile))
	require.NoError(f, err)
	for _, p := range runs {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, records []byte) {
		first := mapAll(records)
		require.Equal(t, first, mapAll(records), "the same records, the same events")
		var want, got []stream.Tokens // Requests maps only the records that can be responses: the same usage
		for _, e := range first {
			if m, ok := e.(stream.ModelResponded); ok {
				want = append(want, m.Usage)
			}
		}
		m := newMapper(func(e stream.Event) {
			if m, ok := e.(stream.ModelResponded); ok {
				got = append(got, m.Usage)
			}
		})
		for line := range bytes.SplitSeq(records, []byte("\n")) {
			if !noResponse(line) {
				m.line(line)
			}
		}
		require.Equal(t, want, got, "the usage of the records that can be responses")
		var out bytes.Buffer
		sink := stream.NewSink(&out)
		for _, e := range first {
			sink.Emit(e)
		}
		require.NoError(t, sink.Err())
		dec := stream.NewDecoder(&out)
		n := 0
		for _, err := range dec.All() {
			require.NoError(t, err)
			n++
		}
		require.Equal(t, len(first), n)
	})
}

// mapAll maps every line of records.
func mapAll(records []byte) []stream.Event {
	var events []stream.Event
	m := newMapper(func(e stream.Event) { events = append(events, e) })
	for line := range bytes.SplitSeq(records, []byte("\n")) {
		m.line(line)
	}
	return events
}

// FuzzOneLine holds oneLine to what uagent computes:
// strings.Join(strings.Fields(s), " ") cut to n runes through []rune.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"", " a  b ", "a\tb\nc", "naïve  café", "\u00a0x\u2028y\u0085", "a \xff b", strings.Repeat("ab ", 100), "\xe2\x80"} {
		f.Add(s, 5)
		f.Add(s, 120)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 1 || n > 300 {
			return
		}
		want := strings.Join(strings.Fields(s), " ")
		if r := []rune(want); len(r) > n {
			want = string(r[:n-1]) + "…"
		}
		require.Equal(t, want, oneLine(s, n))
	})
}

// FuzzCommand holds command to encoding/json's reading of a Bash call's
// arguments, as uagent reads them.
func FuzzCommand(f *testing.F) {
	for _, s := range []string{`{"command":"ls -la"}`, `{"Command":"a","command":"b"}`, `{"command":"a","COMMAND":"b"}`, `{"comm\u0061nd":"x"}`,
		`{"command":1}`, `{"command":null}`, `null`, `"x"`, `{"command":"\ud800"}`, "{\"command\":\"\xff\"}", `{"command":"a"} x`, `[]`,
		`{"command":"a","command":"b"}`, `{"x":{"command":"y"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		var a struct {
			Command string `json:"command"`
		}
		want := ""
		if json.Unmarshal([]byte(args), &a) == nil {
			want = a.Command
		}
		require.Equal(t, want, command(args))
	})
}
