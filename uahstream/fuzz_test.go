package uahstream

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/sessions"
)

// FuzzSession reads any bytes: never a panic, every line counted once,
// the same findings twice, every run that begins ends once, and the
// totals count them.
func FuzzSession(f *testing.F) {
	f.Add(sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "a", Answer: "b", Calls: 1, Reset: true, Queued: true}, {CannotStart: true}, {Message: "c", CutOff: true}}}))
	f.Add([]byte(`{"v":1,"type":"session_opened","at":"2026-10-01T18:57:05Z","settings":7}` + "\n" + `{"v":1,"type":"input_sent","at":"2026-10-01T18:57:05Z","ids":[1]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rd := NewReader(bytes.NewReader(b))
		starts, ended, lines, errs, ends := 0, 0, 0, 0, 0
		for l := range rd.Lines() {
			switch {
			case l.End:
				ends++
			default:
				lines++
				if l.Err != nil {
					errs++
				}
			}
			if l.Started {
				starts++
			}
			if l.Ended != nil {
				ended++
			}
		}
		s := rd.Session()
		n, e := s.Lines()
		require.Equal(t, lines, n)
		require.Equal(t, errs, e)
		require.Equal(t, 1, ends)
		require.Equal(t, s.Runs(), starts)
		require.Equal(t, starts, ended, "every run ends, by the end of the stream at the latest")
		require.Equal(t, ended, s.Totals().Runs)
		first, err := Validate(bytes.NewReader(b))
		require.NoError(t, err)
		again, err := Validate(bytes.NewReader(b))
		require.NoError(t, err)
		require.Equal(t, first, again)
	})
}
