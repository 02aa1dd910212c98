package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// validate and stats --check say a negative wall_ms, as a warning: it is
// shown, and they exit 0 for it.
func TestNegativeWallIsAWarning(t *testing.T) {
	run, err := os.ReadFile(runFile)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "lying.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(run), `"wall_ms":5521`, `"wall_ms":-600000`, 1)), 0o644))
	code, stdout, stderr := runCmd(t, "", "validate", path)
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, path+":21: wall_ms is -600000, want 0 or more (a run's wall time) (times, a warning)\n", stdout)
	code, stdout, stderr = runCmd(t, "", "stats", "--check", path)
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "warning: wall_ms is -600000, want 0 or more (a run's wall time)\n", stdout)
}
