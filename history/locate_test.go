package history_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/history"
)

// found names what a Found holds: "run ID", "session ID" or "".
func found(f history.Found) string {
	switch {
	case f.Run != nil:
		return "run " + f.Run.ID
	case f.Session != nil:
		return "session " + f.Session.ID
	}
	return ""
}

// Locate finds from the directories' names what the index's Resolve
// finds: every run and session id, each one's short id, latest; the same
// ambiguity and the same not-found.
func TestLocateIsResolve(t *testing.T) {
	f, x := fixture(t)
	var names []string
	for _, r := range x.Runs() {
		names = append(names, r.ID, x.ShortID(r.ID))
	}
	for _, s := range x.Sessions() {
		names = append(names, s.ID, x.ShortID(s.ID))
	}
	names = append(names, history.Latest, "2026110", "a7182930", "nothing-here", "", "../x", ".")
	for _, name := range names {
		want, wantErr := x.Resolve(name)
		got, err := history.Locate(history.DefaultPrices(), f.Dirs(), name)
		assert.Equal(t, found(want), found(got), name)
		assert.Equal(t, wantErr == nil, err == nil, "%q: %v / %v", name, wantErr, err)
		var wa, ga *history.AmbiguousError
		if errors.As(wantErr, &wa) {
			require.ErrorAs(t, err, &ga, name)
			assert.Equal(t, wa.Candidates, ga.Candidates, name)
		}
		if errors.Is(wantErr, history.ErrNotFound) {
			assert.ErrorIs(t, err, history.ErrNotFound, name)
		}
	}
	// A run is its index's: figures, title, status, cost.
	got, err := history.Locate(history.DefaultPrices(), f.Dirs(), "20261103-090000-e5f60718")
	require.NoError(t, err)
	want := x.Run("20261103-090000-e5f60718")
	assert.Equal(t, want.Dir, got.Run.Dir, "the copy the index reads")
	assert.Equal(t, want.Tokens, got.Run.Tokens)
	assert.Equal(t, want.Cost, got.Run.Cost)
	assert.Equal(t, want.Title, got.Run.Title)
	assert.Equal(t, want.Status, got.Run.Status)
}
