package jsonparse

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParseUTC: the fast path for uagent's own time form reads what
// time.Time.UnmarshalText reads, to the same value, and nothing it refuses.
func FuzzParseUTC(f *testing.F) {
	for _, s := range []string{"2026-09-23T12:39:21Z", "2026-09-23T12:39:21.123456789Z", "2024-02-29T00:00:00.5Z",
		"2023-02-29T00:00:00Z", "2026-09-23T24:00:00Z", "2026-09-23T12:39:60Z", "2026-13-01T00:00:00Z", "2026-09-31T00:00:00Z",
		"2026-09-23T12:39:21.Z", "2026-09-23T12:39:21.1234567890Z", "2026-09-23t12:39:21z", "0000-01-01T00:00:00Z", "+026-09-23T12:39:21Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseUTC([]byte(s))
		var want time.Time
		werr := want.UnmarshalText([]byte(s))
		if !ok {
			return
		}
		require.NoError(t, werr, "%q is read by the fast path only", s)
		_, off := want.Zone()
		require.Zero(t, off, "%q", s)
		require.Equal(t, want.UTC(), got, "%q", s)
	})
}

func TestParseUTCReadsUagentsForm(t *testing.T) {
	for _, s := range []string{"2026-09-23T12:39:21Z", "2026-09-23T12:39:21.1Z", "2026-09-23T12:39:21.123456789Z", "2024-02-29T23:59:59Z"} {
		got, ok := parseUTC([]byte(s))
		require.True(t, ok, s)
		want, err := time.Parse(time.RFC3339Nano, s)
		require.NoError(t, err)
		assert.Equal(t, want.UTC(), got, s)
	}
}
