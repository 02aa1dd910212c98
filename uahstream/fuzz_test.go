package uahstream

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/sessions"
)

// FuzzSession reads any bytes as a session stream: never a panic, every
// line counted once, the same findings twice, and a run for every
// run_started the decoder read.
func FuzzSession(f *testing.F) {
	f.Add(sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "a", Answer: "b", Calls: 1, Reset: true, Queued: true}, {CannotStart: true}, {Message: "c", CutOff: true}}}))
	f.Add([]byte(`{"v":1,"type":"session_opened","at":"2026-10-01T18:57:05Z","settings":7}` + "\n" + `{"v":1,"type":"input_sent","at":"2026-10-01T18:57:05Z","ids":[1]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Session
		starts, lines, errs := 0, 0, 0
		for dto, err := range NewDecoder(bytes.NewReader(b)).All() {
			lines++
			if err != nil {
				errs++
			}
			if ch := s.Add(dto, err); ch.Started {
				starts++
			}
		}
		n, e := s.Lines()
		require.Equal(t, lines, n)
		require.Equal(t, errs, e)
		require.Len(t, s.Runs(), starts)
		_ = s.Totals()
		first, err := Validate(bytes.NewReader(b))
		require.NoError(t, err)
		again, err := Validate(bytes.NewReader(b))
		require.NoError(t, err)
		require.Equal(t, first, again)
		_, _, err = Sniff(bytes.NewReader(b))
		require.NoError(t, err)
	})
}
