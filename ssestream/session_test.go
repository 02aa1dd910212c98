package ssestream

import (
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/sessions"
)

// A session stream: each harness line under its own type, each live
// event under the id of the line that made it (so that a client resuming
// after that line does not get it twice), /session with the runs and
// their totals, /summary of the last run alone, and an end that is the
// last run's.
func TestServeASession(t *testing.T) {
	b := sessions.Write(sessions.Options{Runs: []sessions.Run{
		{Message: "one", Answer: "DONE", Calls: 1}, {Message: "two", Answer: "Again", Reset: true}}})
	rec := recorded(t, b)
	assert.False(t, rec.s.Finished(), "a session has no last line")
	srv := httptest.NewServer(NewHandler(rec))
	defer srv.Close()
	evs := events(t, srv, "/events")
	var live []sseEvent
	for i, ev := range evs[:len(evs)-1] {
		if ev.event == EventLive {
			live = append(live, ev)
			assert.Equal(t, evs[i-1].id, ev.id, "under its line's id")
			continue
		}
		var typ struct{ Type string }
		require.NoError(t, json.Unmarshal([]byte(ev.data), &typ))
		assert.Equal(t, typ.Type, ev.event)
	}
	// every delta names its item by the session's number (the reset's
	// voided reasoning and the one streamed after it are two items of one
	// item_id); each response replaces the oldest of its kind
	assert.Equal(t, []string{
		`{"step":"streamed","items":[{"index":0,"item_id":"rs_turn-1-1","part":0,"reasoning":true}]}`,
		`{"step":"streamed","items":[{"index":0,"item_id":"rs_turn-1-1","part":0,"reasoning":true}]}`,
		`{"step":"streamed","items":[{"index":1,"item_id":"msg_turn-1-1","part":0,"reasoning":false}]}`,
		`{"step":"streamed","items":[{"index":1,"item_id":"msg_turn-1-1","part":0,"reasoning":false}]}`,
		`{"step":"replaced","same":true,"items":[{"index":0,"item_id":"rs_turn-1-1","part":0,"reasoning":true}]}`,
		`{"step":"replaced","same":true,"items":[{"index":1,"item_id":"msg_turn-1-1","part":0,"reasoning":false}]}`,
		`{"step":"streamed","items":[{"index":2,"item_id":"rs_turn-1-2","part":0,"reasoning":true}]}`,
		`{"step":"streamed","items":[{"index":2,"item_id":"rs_turn-1-2","part":0,"reasoning":true}]}`,
		`{"step":"streamed","items":[{"index":3,"item_id":"msg_turn-1-2","part":0,"reasoning":false}]}`,
		`{"step":"streamed","items":[{"index":3,"item_id":"msg_turn-1-2","part":0,"reasoning":false}]}`,
		`{"step":"replaced","same":true,"items":[{"index":2,"item_id":"rs_turn-1-2","part":0,"reasoning":true}]}`,
		`{"step":"replaced","same":true,"items":[{"index":3,"item_id":"msg_turn-1-2","part":0,"reasoning":false}]}`,
		`{"step":"streamed","items":[{"index":4,"item_id":"rs_turn-2-1","part":0,"reasoning":true}]}`,
		`{"step":"streamed","items":[{"index":4,"item_id":"rs_turn-2-1","part":0,"reasoning":true}]}`,
		`{"step":"streamed","items":[{"index":5,"item_id":"msg_void_turn-2-1","part":0,"reasoning":false}]}`,
		`{"step":"void","items":[{"index":5,"item_id":"msg_void_turn-2-1","part":0,"reasoning":false},{"index":4,"item_id":"rs_turn-2-1","part":0,"reasoning":true}]}`,
		`{"step":"streamed","items":[{"index":6,"item_id":"rs_turn-2-1","part":0,"reasoning":true}]}`,
		`{"step":"streamed","items":[{"index":7,"item_id":"msg_turn-2-1","part":0,"reasoning":false}]}`,
		`{"step":"streamed","items":[{"index":7,"item_id":"msg_turn-2-1","part":0,"reasoning":false}]}`,
		`{"step":"replaced","same":true,"items":[{"index":6,"item_id":"rs_turn-2-1","part":0,"reasoning":true}]}`,
		`{"step":"replaced","same":true,"items":[{"index":7,"item_id":"msg_turn-2-1","part":0,"reasoning":false}]}`,
	}, datas(live))
	n, _ := strconv.Atoi(live[0].id)
	for _, ev := range events(t, srv, "/events", "Last-Event-ID", live[0].id) {
		m, _ := strconv.Atoi(ev.id)
		assert.Greater(t, m, n, "resumed after the line: its live event is not sent again")
	}

	var got struct {
		SessionID string `json:"session_id"`
		Runs      []struct {
			RunID string `json:"run_id"`
		}
		Totals struct{ Runs, Turns int }
	}
	res := get(t, srv, "/session")
	require.NoError(t, json.NewDecoder(res.Body).Decode(&got))
	res.Body.Close()
	assert.Equal(t, sessions.ID, got.SessionID)
	require.Len(t, got.Runs, 2)
	assert.Equal(t, 2, got.Totals.Runs)
	assert.Equal(t, 3, got.Totals.Turns)
	var sum struct {
		RunID string `json:"run_id"`
		Stats struct{ Turns int }
	}
	res = get(t, srv, "/summary")
	require.NoError(t, json.NewDecoder(res.Body).Decode(&sum))
	res.Body.Close()
	assert.Equal(t, got.Runs[1].RunID, sum.RunID, "the last run alone")
	assert.Equal(t, 1, sum.Stats.Turns)
	assert.Equal(t, `{"ending":"finished","status":"ok","exit_code":0}`, evs[len(evs)-1].data)
}

func datas(evs []sseEvent) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.data)
	}
	return out
}

// A run that ends with streamed text no response replaced says so, under
// the id of the line that ended it.
func TestServeStreamedTextARunLeft(t *testing.T) {
	in := `{"v":1,"type":"session_opened","at":"2026-10-01T18:57:05Z","id":"s"}` + "\n" +
		`{"v":1,"type":"run_started","at":"2026-10-01T18:57:06Z","run_id":"r1"}` + "\n" +
		`{"v":1,"type":"text_delta","at":"2026-10-01T18:57:06Z","item_id":"a","text":"left"}` + "\n" +
		`{"v":1,"type":"run_started","at":"2026-10-01T18:57:07Z","run_id":"r2"}` + "\n"
	srv := httptest.NewServer(NewHandler(recorded(t, []byte(in))))
	defer srv.Close()
	var live []sseEvent
	for _, ev := range events(t, srv, "/events") {
		if ev.event == EventLive {
			live = append(live, ev)
		}
	}
	require.Len(t, live, 2)
	assert.Equal(t, "4", live[1].id)
	assert.Equal(t, `{"step":"unreplaced","items":[{"index":0,"item_id":"a","part":0,"reasoning":false}]}`, live[1].data)
}
