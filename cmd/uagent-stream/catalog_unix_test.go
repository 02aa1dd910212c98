//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExportCatalogRunsIcebergCommand: export --catalog runs
// uagent-stream-iceberg from PATH with export's arguments, and passes its
// output and exit code through; without it, it says how to install it.
func TestExportCatalogRunsIcebergCommand(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	code, _, stderr := runCmd(t, "", "export", "--catalog", "sqlite:x.db", "a.jsonl")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "uagent-stream-iceberg is not installed")
	assert.Contains(t, stderr, "cd stream/iceberg && go install ./cmd/uagent-stream-iceberg")

	require.NoError(t, os.WriteFile(filepath.Join(bin, "uagent-stream-iceberg"),
		[]byte("#!/bin/sh\necho \"$@\"\necho to-stderr >&2\nexit 3\n"), 0o755))
	code, stdout, stderr := runCmd(t, "", "export", "--content", "--catalog=sqlite:x.db", "a.jsonl")
	assert.Equal(t, 3, code)
	assert.Equal(t, "export --content --catalog=sqlite:x.db a.jsonl\n", stdout)
	assert.Equal(t, "to-stderr\n", stderr)

	// --catalog after -- is a FILE's name: a local export.
	assert.False(t, wantsCatalog([]string{"--", "--catalog"}))
	assert.True(t, wantsCatalog([]string{"-o", "d", "-catalog", "x"}))
}
