package pool

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Spill gives back what it held, in order, whether it stayed in memory
// or went to a file past spillMemory bytes, and lets go of it.
func TestSpill(t *testing.T) {
	for _, n := range []int{10, spillMemory + 10} {
		var s Spill
		want := strings.Repeat("x", n/2) + strings.Repeat("y", n-n/2)
		s.Write([]byte(want[:n/2]))
		s.Write([]byte(want[n/2:]))
		assert.Equal(t, n > spillMemory, s.file != nil, n)
		var out bytes.Buffer
		require.NoError(t, s.WriteOut(&out))
		assert.Equal(t, want, out.String(), n)
		assert.Nil(t, s.file)
	}
}
