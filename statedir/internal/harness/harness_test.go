package harness

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/jsonparse"
)

// seeds are records as uagent's fixtures have them, and each way a crash,
// an older runner or a hand edit leaves one that encoding/json reads
// otherwise than the parser would.
var seeds = []string{
	`{"Sequence":1,"RecordedAt":"2026-11-01T09:00:00.5Z","Kind":"input","Data":{"ID":"m1","Kind":"external","Payload":"hi"}}`,
	`{"Sequence":2,"RecordedAt":"2026-11-01T09:00:01Z","Kind":"turn","Data":{"ID":"t1"}}`,
	`{"Sequence":3,"RecordedAt":"2026-11-01T09:00:02Z","Kind":"model_response","Data":{"TurnID":"t1","Response":{"Stop":"tool_use","Output":[{"Type":"tool_call","Data":{"CallID":"c1","Name":"Bash","Arguments":"{\"command\":\"ls\"}"}},{"Type":"message","Data":{"Role":"assistant","Text":"ok","Phase":"final_answer"}},{"Type":"reasoning","Data":{"Summary":["a","b"]}}],"Usage":{"InputTokens":10,"OutputTokens":2},"Failure":null}}}`,
	`{"Sequence":4,"RecordedAt":"2026-11-01T09:00:03Z","Kind":"tool_call_status","Data":{"TurnID":"t1","CallID":"c1","Status":{"Error":""},"Operations":[{"ID":"o1","Type":"shell","Status":"completed","State":{"ProcessGroupID":42,"Result":{"ExitCode":0},"OutPath":"/o","ErrPath":"/e"}}]}}`,
	`{"type":"error","message":"boom"}`,
	`null`, ` `, `not json`, `[1]`, `"x"`, `{}`,
	`{"sequence":1,"recordedat":"2026-11-01T09:00:00Z","kind":"turn","data":{"id":"t"}}`,
	`{"KIND":"turn","Kind":"input","Data":{"ID":"t"}}`,
	`{"Kind":"turn","Kind":"input","Data":{"ID":"t","Kind":"external"}}`,
	`{"Kind":"turn","Data":{"ID":"a"},"Data":{"Kind":"x"}}`,
	`{"Kind":"tool_call_status","Data":{"Operations":[{"ID":"a","Type":"shell"}],"Operations":[{"Status":"completed"}]}}`,
	`{"Sequence":"1","Kind":"turn","Data":{"ID":"t"}}`,
	`{"Sequence":1.5,"Kind":"turn","Data":{"ID":"t"}}`,
	`{"Sequence":1e2,"Kind":"turn","Data":{"ID":"t"}}`,
	`{"Sequence":99999999999999999999,"Kind":"turn"}`,
	`{"RecordedAt":null,"Kind":"turn","Data":{"ID":"t"}}`,
	`{"RecordedAt":"2026-11-01T09:00:00\u002e5Z","Kind":"turn"}`,
	`{"RecordedAt":"2026-11-01 09:00:00Z","Kind":"turn"}`,
	`{"RecordedAt":17,"Kind":"turn"}`,
	`{"Kind":"tool_call_status","Data":{"CallID":"c","Operations":[{"ID":"o","Type":"shell","Status":"completed","State":{"ProcessGroupID":"7","Result":{"ExitCode":1}}}]}}`,
	`{"Kind":"tool_call_status","Data":{"CallID":"c","Operations":[{"ID":"o","Type":"web","Status":"completed","State":{"ProcessGroupID":"7"}}]}}`,
	`{"Kind":"tool_call_status","Data":{"CallID":"c","Operations":[{"ID":"o","Type":"shell","State":{"Result":{"ExitCode":1.0}}}]}}`,
	`{"Kind":"tool_call_status","Data":{"TurnID":5,"CallID":"c"}}`,
	`{"Kind":"model_response","Data":{"Response":{"Output":[{"Type":"message","Data":{"Role":1}},{"Type":"message","Data":{"Role":"assistant","Text":"t"}}]}}}`,
	`{"Kind":"model_response","Data":{"Response":{"Usage":{"InputTokens":"1"}}}}`,
	`{"Kind":"model_response","Data":{"Response":{"Failure":"x"}}}`,
	`{"Kind":"input","Data":"x"}`,
	`{"Kind":"input"}`,
	`{"Kind":"input","Data":null}`,
	`{"Kind":"model_response","Data":null}`,
	`{"Kind":"input","Data":{"ID":"m","Kind":"external","Payload":"\ud800 \xff"}}`,
	`{"Kind":"input","Data":{"Kin\u0064":"external","Payload":{"a":1}}}`,
	"{\"Kind\":\"turn\",\"Data\":{\"\u212aind\":\"x\",\"ID\":\"t\"}}",
	"{\"Kind\":\"input\",\"Data\":{\"ID\":\"\xff\xfe\",\"Kind\":\"developer\",\"Payload\":null}}",
	`{"Kind":"turn","Data":{"ID":"t"}} x`,
	`{"Kind":"turn","Data":{"ID":"t\u0000"}}`,
	"{\"Kind\":\"turn\",\"Data\":{\"ID\":\"t\x01\"}}",
	`{"Kind":"model_response","Data":{"Response":{"Output":null,"Failure":{"Code":"c","Message":"m"}}}}`,
	`{"Kind":"model_response","Data":{"Response":{"Output":[null,{"Type":"reasoning","Data":{"Summary":null}}]}}}`,
}

// FuzzRead holds the reading of a line to uagent's: the parser's fast
// reading, where it reads one, gives what encoding/json's gives.
func FuzzRead(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		var fast, slow Reader
		slow.slow = true
		lf, of, ff := fast.Read(text)
		ls, os, fs := slow.Read(text)
		require.Equal(t, os, of, "the outcome")
		require.Equal(t, fs, ff, "the failure")
		if of == Blank {
			return
		}
		if d := cmp.Diff(ls, lf, cmp.Comparer(func(a, b []Output) bool { return cmp.Equal(norm(a), norm(b)) }),
			cmp.Comparer(func(a, b []Operation) bool { return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b) })); d != "" {
			t.Fatalf("the fast reading differs (-encoding/json +parser):\n%s", d)
		}
	})
}

// norm makes an empty list of outputs nil (a slice emptied for reuse
// reads as no outputs).
func norm(o []Output) []Output {
	if len(o) == 0 {
		return nil
	}
	return o
}

// FuzzText holds a message's text to encoding/json's reading of its
// Payload into a string.
func FuzzText(f *testing.F) {
	for _, s := range []string{`"hi"`, `null`, ``, `{"a":1}`, `"\ud800"`, "\"\xff\"", `"a\nb"`, `1`, `"\u00e9\ud83d\ude00"`, `"x" `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, payload string) {
		if payload != "" && !json.Valid([]byte(payload)) {
			return // a Payload is one JSON value, or none
		}
		var s string
		want := payload
		if json.Unmarshal([]byte(payload), &s) == nil {
			want = s
		}
		require.Equal(t, want, Text(jsonparse.Raw(payload)))
	})
}

// TestReadRules holds each of encoding/json's rules that a record can
// exercise, as uagent's reader meets them.
func TestReadRules(t *testing.T) {
	read := func(s string) (*Line, Outcome, string) {
		var r Reader
		l, o, f := r.Read([]byte(s))
		if l != nil {
			c := *l
			l = &c
		}
		return l, o, f
	}
	t.Run("keys in any case", func(t *testing.T) {
		l, o, _ := read(`{"kind":"turn","DATA":{"iD":"t1"}}`)
		require.Equal(t, Record, o)
		require.Equal(t, "turn", l.Kind)
		require.Equal(t, "t1", l.Data.ID)
	})
	t.Run("a null line is an empty record", func(t *testing.T) {
		l, o, _ := read(`null`)
		require.Equal(t, Record, o)
		require.Empty(t, l.Kind)
	})
	t.Run("a Sequence of another type fails both readings", func(t *testing.T) {
		_, o, _ := read(`{"Sequence":"1","Kind":"turn","Data":{"ID":"t"}}`)
		require.Equal(t, Unparseable, o)
	})
	t.Run("a ProcessGroupID of another type: the state read as empty", func(t *testing.T) {
		l, o, _ := read(`{"Kind":"tool_call_status","Data":{"CallID":"c","Operations":[{"ID":"o","Type":"shell","Status":"completed","State":{"ProcessGroupID":"7","Result":{"ExitCode":3},"OutPath":"/o"}}]}}`)
		require.Equal(t, Record, o)
		require.Equal(t, []Operation{{ID: "o", Type: "shell", Status: "completed"}}, l.Data.Operations)
	})
	t.Run("no RecordedAt, or null, is the zero time", func(t *testing.T) {
		for _, s := range []string{`{"Kind":"turn"}`, `{"RecordedAt":null,"Kind":"turn"}`} {
			l, o, _ := read(s)
			require.Equal(t, Record, o)
			require.True(t, l.RecordedAt.IsZero(), s)
		}
	})
	t.Run("a key twice: the values merged", func(t *testing.T) {
		l, _, _ := read(`{"Kind":"tool_call_status","Data":{"CallID":"c"},"Data":{"Status":{"Error":"e"}}}`)
		require.Equal(t, "c", l.Data.CallID)
		require.Equal(t, "e", l.Data.Status.Error)
	})
	t.Run("a time with an escape is not read", func(t *testing.T) {
		_, o, _ := read(`{"RecordedAt":"2026-11-01T09:00:00\u002e5Z","Kind":"turn"}`)
		require.Equal(t, Unparseable, o)
	})
	t.Run("the messages are uagent's", func(t *testing.T) {
		_, o, msg := read(`{"Kind":"tool_call_status","Data":{"TurnID":5}}`)
		require.Equal(t, Failed, o)
		require.Equal(t, "failed to decode tool_call_status: json: cannot unmarshal number into Go struct field toolCallStatusDTO.TurnID of type string", msg)
		_, _, msg = read(`{"Kind":"model_response","Data":{"Response":{"Failure":"x"}}}`)
		require.Equal(t, "failed to decode model_response: json: cannot unmarshal string into Go struct field .Response.Failure of type harness.failureDTO", msg)
		_, _, _, err := Control(`"x"`)
		require.EqualError(t, err, "json: cannot unmarshal string into Go value of type harness.controlDTO")
		_, _, _, err = Control(``)
		require.EqualError(t, err, "unexpected end of JSON input")
	})
}
