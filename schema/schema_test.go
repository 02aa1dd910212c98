package schema

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSchemas(t *testing.T) {
	assert.Equal(t, []string{"line", "summary", "assistant_message", "control_input", "developer_message", "model_responded",
		"preflight_warning", "reasoning", "run_finished", "run_started", "runner_error", "tool_called", "tool_finished",
		"tool_started", "turn_started", "user_message"}, Names(), "line, summary and the 14 event types")
	for _, name := range Names() {
		for dir, get := range map[string]func(string) ([]byte, error){"": Compatible, "strict/": Strict} {
			b, err := get(name)
			require.NoError(t, err)
			file, err := os.ReadFile(dir + name + ".schema.json")
			require.NoError(t, err)
			assert.Equal(t, file, b, "%s%s is the published file", dir, name)
			var s map[string]any
			require.NoError(t, json.Unmarshal(b, &s))
			assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", s["$schema"])
		}
	}
	line, err := Compatible("")
	require.NoError(t, err)
	want, _ := Compatible("line")
	assert.Equal(t, want, line, `"" is "line"`)
	_, err = Strict("hologram")
	assert.EqualError(t, err, `schema: no schema "hologram"; there are `+"line, summary, assistant_message, control_input, developer_message, model_responded, preflight_warning, reasoning, run_finished, run_started, runner_error, tool_called, tool_finished, tool_started, turn_started, user_message")
}
