package main

import (
	"github.com/uagentkit/stream/internal/safetext"
)

// sanitize makes a string from a stream safe to show to a person
// (safetext.Human): with keepNewlines, "\n" stays a line break; tabs
// become spaces. It is the one sanitizer of the command: every string from
// a stream goes through it before any human-readable output.
func sanitize(s string, keepNewlines bool) string { return safetext.Sanitize(s, keepNewlines) }

// jsonOut is a writer of JSON text that goes through safetext.EscapeJSON.
type jsonOut struct {
	w interface{ Write([]byte) (int, error) }
}

func (j jsonOut) Write(p []byte) (int, error) {
	if _, err := j.w.Write(safetext.EscapeJSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
