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
	assert.False(t, rec.Finished(), "a session has no last line")
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
	assert.Equal(t, []string{
		`{"step":"replaced","same":true,"items":[{"item_id":"rs_turn-1-1","part":0,"reasoning":true}]}`,
		`{"step":"replaced","same":true,"items":[{"item_id":"msg_turn-1-1","part":0,"reasoning":false}]}`,
		`{"step":"replaced","same":true,"items":[{"item_id":"rs_turn-1-2","part":0,"reasoning":true}]}`,
		`{"step":"replaced","same":true,"items":[{"item_id":"msg_turn-1-2","part":0,"reasoning":false}]}`,
		`{"step":"void","same":false,"items":[{"item_id":"msg_void_turn-2-1","part":0,"reasoning":false},{"item_id":"rs_turn-2-1","part":0,"reasoning":true}]}`,
		`{"step":"replaced","same":true,"items":[{"item_id":"rs_turn-2-1","part":0,"reasoning":true}]}`,
		`{"step":"replaced","same":true,"items":[{"item_id":"msg_turn-2-1","part":0,"reasoning":false}]}`,
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
