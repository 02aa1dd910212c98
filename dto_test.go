package stream

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEventToDTORoundTrip(t *testing.T) {
	for _, e := range append(everyEvent(), realisticRun()...) {
		dto, ok := EventToDTO(e)
		require.True(t, ok)
		back, ok := DTOToEvent(dto)
		require.True(t, ok)
		if diff := cmpDiff(roundTripped(e), back); diff != "" {
			t.Errorf("%T (-want +got):\n%s", e, diff)
		}
		assert.Equal(t, wireTypes[reflect.TypeOf(e).Name()], TypeOf(dto), "%T", e)
	}
}

// wireTypes are the wire names of the domain events, as README's wire
// table spells them.
var wireTypes = map[string]string{
	"RunStarted": "run_started", "PreflightWarning": "preflight_warning", "UserMessage": "user_message",
	"DeveloperMessage": "developer_message", "ControlInput": "control_input", "TurnStarted": "turn_started",
	"ModelResponded": "model_responded", "ToolCalled": "tool_called", "ToolStarted": "tool_started",
	"ToolFinished": "tool_finished", "AssistantMessage": "assistant_message", "ReasoningSummary": "reasoning",
	"RunnerError": "runner_error", "RunFinished": "run_finished",
}

func TestEventToDTORejectsNilAndUnknown(t *testing.T) {
	var nilPtr *ToolCalled
	for _, e := range []Event{nil, nilPtr, strangeEvent{UserMessage{At: t0}}} {
		dto, ok := EventToDTO(e)
		assert.False(t, ok)
		assert.Nil(t, dto)
	}
	dto, ok := EventToDTO(&ToolCalled{At: t0, Name: "Bash"})
	require.True(t, ok)
	assert.Equal(t, "Bash", dto.(ToolCalledDTO).Name)
	_, ok = DTOToEvent(UnknownDTO{Type: "x"})
	assert.False(t, ok)
	_, ok = DTOToEvent(nil)
	assert.False(t, ok)
}
