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
type jsonOut = safetext.JSONWriter
