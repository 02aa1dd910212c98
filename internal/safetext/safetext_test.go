package safetext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// EscapeJSON leaves valid JSON valid, with the same value, and nothing a
// terminal acts on or a reader cannot see: white space included.
func TestEscapeJSONKeepsTheValue(t *testing.T) {
	for _, in := range []string{
		`{"a":"plain"}`,
		"{\"a\":\"\u202eevil\u202c\",\t\"b\":\r\n\"zero\u200bwidth\u00ad\"}",
		"{\"csi\":\"\u009b2J\",\"del\":\"\x7f\",\"tag\":\"\U000e0041\",\"bom\":\"\ufeff\"}",
		"[1,\t2,\r3]",
	} {
		out := EscapeJSON([]byte(in))
		require.True(t, json.Valid(out), "%q gives %q", in, out)
		var want, got any
		require.NoError(t, json.Unmarshal([]byte(in), &want))
		require.NoError(t, json.Unmarshal(out, &got))
		assert.Equal(t, want, got, "%q", in)
		for _, r := range string(out) {
			assert.False(t, Unsafe(r) || r < 0x20 && r != '\n', "%q left %U in %q", in, r, out)
		}
	}
}

func TestEscapeJSONOfInvalidBytes(t *testing.T) {
	out := EscapeJSON([]byte("{\"a\":\"\xff\x01\"}"))
	assert.True(t, utf8.Valid(out))
	assert.Equal(t, `{"a":"\ufffd\u0001"}`, string(out))
	plain := []byte(`{"a":"b"}`)
	assert.Same(t, &plain[0], &EscapeJSON(plain)[0], "nothing to escape: p itself")
}

// Writer escapes each line as Human does, keeps the newlines between them,
// and says it wrote all it was given.
func TestWriter(t *testing.T) {
	var b strings.Builder
	in := "a \x1b[2J line\nand \u202e another\n\x07"
	n, err := Writer{W: &b}.Write([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, len(in), n)
	assert.Equal(t, Human("a \x1b[2J line", 0)+"\n"+Human("and \u202e another", 0)+"\n"+Human("\x07", 0), b.String())
	assert.NotContains(t, b.String(), "\x1b")
}
