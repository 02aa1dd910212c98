package stream

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendStringIsValidUTF8(t *testing.T) {
	for _, s := range hostile {
		b := appendString(nil, s)
		assert.True(t, utf8.Valid(b))
		var back string
		require.NoError(t, json.Unmarshal(b, &back))
	}
}
