package main

import (
	"fmt"
	"strings"

	"github.com/uagentkit/stream"
)

// cmdSchema prints the line schema, or the schema of one event type (or of
// the summary).
func cmdSchema(e env, args []string) error {
	fs := flags(e, "schema", "[--strict] [TYPE]\n\nTYPE is one of: "+strings.Join(stream.SchemaNames(), ", "))
	strict := fs.Bool("strict", false, "the strict schema: every field the current writer always writes is required")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageError(e, fs, "want at most one TYPE")
	}
	get := stream.Schema
	if *strict {
		get = stream.StrictSchema
	}
	b, err := get(fs.Arg(0))
	if err != nil {
		return usageError(e, fs, fmt.Sprintf("no schema %q", sanitize(fs.Arg(0), false)))
	}
	_, err = e.stdout.Write(b)
	return err
}
