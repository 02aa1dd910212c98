package termstream

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Numbers as the tables write them.
func TestNumbers(t *testing.T) {
	v, small := 1.234, 0.0042
	assert.Equal(t, "$1.23", Money(&v, false))
	assert.Equal(t, "≥$1.23", Money(&v, true))
	assert.Equal(t, "$0.0042", Money(&small, false))
	assert.Equal(t, "?", Money(nil, true))
	assert.Equal(t, []string{"950", "12.3k", "1.5M", "2.0G"}, []string{Compact(950), Compact(12345), Compact(1_500_000), Compact(2_000_000_000)})
	assert.Equal(t, "1,234,567", Thousands(1234567))
	assert.Equal(t, "-1,234", Thousands(-1234))
	home, err := os.UserHomeDir()
	if err == nil && home != "" {
		assert.Equal(t, "~"+string(filepath.Separator)+"x", Tilde(filepath.Join(home, "x")))
	}
	assert.Equal(t, "/elsewhere", Tilde("/elsewhere"))
	assert.Equal(t, "1m30s", Wall(90_400))
}
