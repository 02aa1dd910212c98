package statedir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
)

// runDir writes a run directory holding records (one per line) and no
// summary, and returns it.
func runDir(t *testing.T, records ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "20261101-090000-5f3c2a1e")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, EventsFile), []byte(strings.Join(records, "\n")+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, RequestFile), []byte(`{"session_id":"5f3c2a1e-0000"}`), 0o644))
	return dir
}

// Records are read by encoding/json's rules, as uagent reads them: each
// record below is read otherwise by a reader that matches keys exactly,
// reads a null line as not JSON, ignores the typed fields the mapping
// does not use, or stamps a record without a time; the lines are what
// uagent writes of them, by hand.
func TestRecordsReadAsUagentReadsThem(t *testing.T) {
	dir := runDir(t,
		// keys in another case are the fields'
		`{"sequence":1,"recordedat":"2026-11-01T09:00:01Z","kind":"turn","data":{"id":"t1"}}`,
		// a null line is an empty record: nothing
		`null`,
		// a Sequence that is a string fails both readings
		`{"Sequence":"3","RecordedAt":"2026-11-01T09:00:02Z","Kind":"turn","Data":{"ID":"t2"}}`,
		`{"RecordedAt":"2026-11-01T09:00:03Z","Kind":"model_response","Data":{"TurnID":"t1","Response":{"Output":[{"Type":"tool_call","Data":{"CallID":"c1","Name":"Bash","Arguments":"{\"command\":\"make\"}"}}]}}}`,
		// a shell State whose ProcessGroupID is a string: the first reading
		// fails, the second reads the state as empty (no exit code, no paths)
		`{"RecordedAt":"2026-11-01T09:00:04Z","Kind":"tool_call_status","Data":{"CallID":"c1","Operations":[{"ID":"o1","Type":"shell","Status":"completed","State":{"ProcessGroupID":"77","Result":{"ExitCode":2},"OutPath":"/out"}}]}}`,
		// no RecordedAt, or null: the zero time
		`{"Kind":"input","Data":{"ID":"m1","Kind":"external","Payload":"again"}}`,
		`{"RecordedAt":null,"Kind":"turn","Data":{"ID":"t3"}}`,
	)
	got, _ := convert(t, dir)
	want := strings.Join([]string{
		`{"v":1,"type":"run_started","at":"2026-11-01T09:00:00Z","run_id":"20261101-090000-5f3c2a1e","session_id":"5f3c2a1e-0000","provider":"","model":"","effort":"","workspace":""}`,
		`{"v":1,"type":"turn_started","at":"2026-11-01T09:00:01Z","turn":1,"turn_id":"t1"}`,
		`{"v":1,"type":"runner_error","at":"2026-11-01T09:00:01Z","message":"unparseable runner output: {\"Sequence\":\"3\",\"RecordedAt\":\"2026-11-01T09:00:02Z\",\"Kind\":\"turn\",\"Data\":{\"ID\":\"t2\"}}"}`,
		`{"v":1,"type":"model_responded","at":"2026-11-01T09:00:03Z","turn":1,"turn_id":"t1","duration_ms":2000,"usage":{"input":0,"cached_input":0,"cache_write_input":0,"output":0,"reasoning":0}}`,
		`{"v":1,"type":"tool_called","at":"2026-11-01T09:00:03Z","call_id":"c1","name":"Bash","label":"make","arguments":"{\"command\":\"make\"}"}`,
		`{"v":1,"type":"tool_started","at":"2026-11-01T09:00:04Z","call_id":"c1","op_id":"o1","name":"Bash","label":"make","op_type":"shell"}`,
		`{"v":1,"type":"tool_finished","at":"2026-11-01T09:00:04Z","call_id":"c1","op_id":"o1","name":"Bash","label":"make","ok":true,"detail":"completed","duration_ms":0,"op_type":"shell"}`,
		`{"v":1,"type":"user_message","at":"0001-01-01T00:00:00Z","id":"m1","text":"again"}`,
		`{"v":1,"type":"turn_started","at":"0001-01-01T00:00:00Z","turn":2,"turn_id":"t3"}`,
		``,
	}, "\n")
	if d := cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n")); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// A record without a time is at the zero time, whenever it is read: the
// run's stats are the same on every reading.
func TestARecordWithoutATimeIsTheSameEveryTime(t *testing.T) {
	dir := runDir(t,
		`{"RecordedAt":"2026-11-01T09:00:01Z","Kind":"turn","Data":{"ID":"t1"}}`,
		`{"Kind":"model_response","Data":{"TurnID":"t1","Response":{"Output":[{"Type":"message","Data":{"Role":"assistant","Text":"a"}}]}}}`,
		`{"RecordedAt":"2026-11-01T09:00:03Z","Kind":"input","Data":{"ID":"m1","Kind":"external","Payload":"b"}}`,
	)
	summary := func() stream.SummaryDTO {
		r, err := OpenRun(dir)
		require.NoError(t, err)
		var f stream.Fold
		for e := range r.Events() {
			f.AddEvent(e)
		}
		return f.Recomputed().Summary
	}
	first := summary()
	require.Equal(t, int64(2000), first.Stats.EventSpanMS, "a zero time is not observed")
	require.Equal(t, first, summary())
}

// What the runner's records gained since 2026-09, read as uagent's own
// reader (harness/decode.go, wire.go) reads it: a turn record's Type
// ("compaction") and PreviousTurnID are not read (a compaction turn is a
// turn like any other); an input of kind "crash" gives nothing; a shell
// State's ProcessGroupStart, of any type, is not a field uagent types, so
// it fails no reading.
func TestRecordsGainedSinceSeptember(t *testing.T) {
	dir := runDir(t,
		`{"Sequence":1,"RecordedAt":"2026-11-01T09:00:01Z","Kind":"turn","Data":{"ID":"t1","PreviousTurnID":"","Type":"regular"}}`,
		`{"Sequence":2,"RecordedAt":"2026-11-01T09:00:02Z","Kind":"input","Data":{"ID":"c1","Kind":"crash","Payload":{"Reason":"runner restarted"}}}`,
		`{"Sequence":3,"RecordedAt":"2026-11-01T09:00:03Z","Kind":"turn","Data":{"ID":"t2","PreviousTurnID":"t1","Type":"compaction"}}`,
		`{"Sequence":4,"RecordedAt":"2026-11-01T09:00:04Z","Kind":"model_response","Data":{"TurnID":"t2","Response":{"Output":[{"Type":"tool_call","Data":{"CallID":"k1","Name":"Bash","Arguments":"{\"command\":\"ls\"}"}}]}}}`,
		`{"Sequence":5,"RecordedAt":"2026-11-01T09:00:05Z","Kind":"tool_call_status","Data":{"CallID":"k1","Operations":[{"ID":"o1","Type":"shell","Status":"completed","State":{"ProcessGroupID":77,"ProcessGroupStart":"2026-11-01T09:00:04Z","Result":{"ExitCode":0},"OutPath":"/out"}}]}}`,
	)
	got, _ := convert(t, dir)
	want := strings.Join([]string{
		`{"v":1,"type":"run_started","at":"2026-11-01T09:00:00Z","run_id":"20261101-090000-5f3c2a1e","session_id":"5f3c2a1e-0000","provider":"","model":"","effort":"","workspace":""}`,
		`{"v":1,"type":"turn_started","at":"2026-11-01T09:00:01Z","turn":1,"turn_id":"t1"}`,
		`{"v":1,"type":"turn_started","at":"2026-11-01T09:00:03Z","turn":2,"turn_id":"t2"}`,
		`{"v":1,"type":"model_responded","at":"2026-11-01T09:00:04Z","turn":2,"turn_id":"t2","duration_ms":1000,"usage":{"input":0,"cached_input":0,"cache_write_input":0,"output":0,"reasoning":0}}`,
		`{"v":1,"type":"tool_called","at":"2026-11-01T09:00:04Z","call_id":"k1","name":"Bash","label":"ls","arguments":"{\"command\":\"ls\"}"}`,
		`{"v":1,"type":"tool_started","at":"2026-11-01T09:00:05Z","call_id":"k1","op_id":"o1","name":"Bash","label":"ls","op_type":"shell","out_path":"/out"}`,
		`{"v":1,"type":"tool_finished","at":"2026-11-01T09:00:05Z","call_id":"k1","op_id":"o1","name":"Bash","label":"ls","ok":true,"detail":"exit 0","duration_ms":0,"op_type":"shell","out_path":"/out"}`,
	}, "\n")
	got = strings.Join(strings.Split(strings.TrimSpace(got), "\n")[:7], "\n")
	if d := cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n")); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
