package statedir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
