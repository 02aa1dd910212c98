package statedir

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
)

// A run's stderr.log says how each model attempt ended: its model_attempt
// lines are counted by result; the runner's other words (text, other
// diags, a line too long to be an attempt's) are skipped, and a run
// without the file had no attempt said.
func TestAttempts(t *testing.T) {
	dir := t.TempDir()
	a, err := ReadAttempts(dir)
	require.NoError(t, err)
	assert.Zero(t, a.Total(), "no stderr.log")
	log := strings.Join([]string{
		`{"diag":"model_attempt","attempt":1,"result":"retry","error":"429"}`,
		`warning: something the runner said`,
		`{"diag":"model_attempt","attempt":2,"result":"ok"}`,
		`{"diag":"other","result":"failed"}`,
		`{"diag":"model_attempt","attempt":1,"result":"failed"}`,
		`{"model_attempt": "` + strings.Repeat("x", MaxStderrLine) + `"}`,
		`{"diag":"model_attempt","result":"canceled"}`,
		`{"diag":"model_attempt","result":"gave up"}`,
		`{"diag":"model_attempt","result":"ok"}`, // the last, without a newline
	}, "\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, StderrFile), []byte(log), 0o644))
	a, err = ReadAttempts(dir)
	require.NoError(t, err)
	assert.Equal(t, Attempts{OK: 2, Retry: 1, Failed: 1, Canceled: 1, Other: 1}, a)
	assert.Equal(t, "6 model attempts: 2 ok, 1 retried, 1 failed, 1 canceled, 1 other", a.String())
	assert.Equal(t, Attempts{OK: 4, Retry: 2, Failed: 2, Canceled: 2, Other: 2}, a.Add(a))
}

// Requests is the usage of Events' model_responded, in order: a response
// whose kind is spelled with escapes too, and not one whose data does not
// decode (uagent makes a runner_error of it).
func TestRequests(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs", "20261101-090000-aaaaaaaa")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	records := strings.Join([]string{
		`{"Sequence":1,"RecordedAt":"2026-11-01T09:00:00Z","Kind":"turn","Data":{"ID":"t1"}}`,
		`{"Sequence":2,"RecordedAt":"2026-11-01T09:00:01Z","Kind":"model_response","Data":{"TurnID":"t1","Response":{"Usage":{"InputTokens":10,"OutputTokens":1}}}}`,
		`{"Sequence":3,"RecordedAt":"2026-11-01T09:00:02Z","Kind":"model\u005fresponse","Data":{"TurnID":"t1","Response":{"Usage":{"InputTokens":20,"OutputTokens":2}}}}`,
		`{"Sequence":4,"RecordedAt":"2026-11-01T09:00:03Z","KIND":"model_response","Data":{"TurnID":"t1","Response":{"Usage":{"InputTokens":30,"OutputTokens":3}}}}`,
		`{"Sequence":5,"RecordedAt":"2026-11-01T09:00:04Z","Kind":"model_response","Data":{"TurnID":"t1","Response":{"Output":"not a list","Usage":{"InputTokens":40}}}}`,
		`{"Sequence":6,"RecordedAt":"2026-11-01T09:00:05Z","Kind":"tool_call_status","Data":{"CallID":"c1","Status":{}}}`,
	}, "\n") + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, EventsFile), []byte(records), 0o644))
	r, err := OpenRun(dir)
	require.NoError(t, err)
	var want []stream.Tokens
	for e := range r.Events() {
		if m, ok := e.(stream.ModelResponded); ok {
			want = append(want, m.Usage)
		}
	}
	require.Len(t, want, 3, "the escaped kind and the key in capitals too; not the one that does not decode")
	assert.Equal(t, want, slices.Collect(r.Requests()))
}
