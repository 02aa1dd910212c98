package stream

import (
	"reflect"
	"strings"
	"testing"
	"time"

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
		typ, _, _ := HeaderOf(dto)
		assert.Equal(t, wireTypes[reflect.TypeOf(e).Name()], typ, "%T", e)
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

// HeaderOf says the type and the at DTOToEvent's event says, for every
// type and for a line of a type this version does not know; nothing for
// anything else.
func TestHeaderOf(t *testing.T) {
	dec := NewDecoder(strings.NewReader(goodLine + "\n" + `{"v":1,"type":"from_the_future","at":"2026-09-23T12:07:01.5Z"}` + "\n"))
	for dto, err := range dec.All() {
		require.NoError(t, err)
		typ, at, ok := HeaderOf(dto)
		require.True(t, ok, "%T", dto)
		if e, isEvent := DTOToEvent(dto); isEvent {
			assert.Equal(t, e.OccurredAt(), at)
			assert.Equal(t, "user_message", typ)
		} else {
			assert.Equal(t, time.Date(2026, 9, 23, 12, 7, 1, 5e8, time.UTC), at)
			assert.Equal(t, "from_the_future", typ)
		}
	}
	for _, e := range realisticRun() {
		dto, _ := EventToDTO(e)
		typ, at, ok := HeaderOf(dto)
		require.True(t, ok, "%T", dto)
		back, _ := DTOToEvent(dto)
		assert.Equal(t, back.OccurredAt(), at, "%T", dto)
		assert.Equal(t, wireTypes[reflect.TypeOf(e).Name()], typ, "%T", dto)
	}
	for _, v := range []any{"a string", nil} {
		typ, _, ok := HeaderOf(v)
		assert.False(t, ok)
		assert.Empty(t, typ)
	}
}
