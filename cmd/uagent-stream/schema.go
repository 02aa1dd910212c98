package main

import (
	"fmt"
	"strings"

	"github.com/uagentkit/stream"
)

// cmdSchema prints the line schema, or the schema of one event type (or of
// the summary).
func cmdSchema(e env, args []string) error {
	fs := flags(e, "schema", "[TYPE]\n\nTYPE is one of: "+strings.Join(stream.SchemaNames(), ", "))
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageError(e, fs, "want at most one TYPE")
	}
	b, err := stream.Schema(fs.Arg(0))
	if err != nil {
		return usageError(e, fs, fmt.Sprintf("no schema %q", fs.Arg(0)))
	}
	_, err = e.stdout.Write(b)
	return err
}
