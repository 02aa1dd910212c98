//go:build unix

package webguard

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The token is a token file's first line, trimmed; a FIFO is no token
// file (reading it would hold the server before it listens); beyond
// loopback without --public is refused, and with it a token is made.
func TestAccess(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(file, []byte("  s3cret \nrest\n"), 0o600))
	tok, err := Access("127.0.0.1:0", false, file, "NO_SUCH_VARIABLE_FOR_THIS_TEST")
	require.NoError(t, err)
	assert.Equal(t, "s3cret", tok)

	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, err = Access("127.0.0.1:0", false, fifo, "NO_SUCH_VARIABLE_FOR_THIS_TEST")
	assert.ErrorContains(t, err, "not a regular file")

	_, err = Access("0.0.0.0:0", false, "", "NO_SUCH_VARIABLE_FOR_THIS_TEST")
	_, usage := err.(*UsageError)
	assert.True(t, usage, "%v", err)
	tok, err = Access("0.0.0.0:0", true, "", "NO_SUCH_VARIABLE_FOR_THIS_TEST")
	require.NoError(t, err)
	assert.Len(t, tok, 32, "192 bits, base64")
	tok, err = Access("127.0.0.1:0", false, "", "NO_SUCH_VARIABLE_FOR_THIS_TEST")
	require.NoError(t, err)
	assert.Empty(t, tok, "none on loopback")
}
