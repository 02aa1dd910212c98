package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/uagentkit/stream/schema"
)

// cmdSchema prints the line schema, or the schema of one event type (or of
// the summary).
func cmdSchema(e env, args []string) error {
	fs := flags(e, "schema")
	strict := fs.Bool("strict", false, "the strict schema: every field the current writer always writes is required")
	if err := fs.parse(args); err != nil {
		return err
	}
	names := append(schema.Names(), schema.Listings()...)
	if fs.NArg() > 1 {
		return fs.usageError("want at most one TYPE, one of: " + strings.Join(names, ", "))
	}
	if slices.Contains(schema.Listings(), fs.Arg(0)) { // what ls and usage write
		b, err := schema.Listing(fs.Arg(0))
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(b)
		return err
	}
	get := schema.Compatible
	if *strict {
		get = schema.Strict
	}
	b, err := get(fs.Arg(0))
	if err != nil {
		return fs.usageError(fmt.Sprintf("no schema %q; TYPE is one of: %s", fs.Arg(0), strings.Join(names, ", ")))
	}
	_, err = e.stdout.Write(b)
	return err
}
