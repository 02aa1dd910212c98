package stream

import (
	"embed"
	"fmt"
	"slices"
)

//go:embed schema/*.json schema/strict/*.json
var schemaFiles embed.FS

// SchemaNames returns the names [Schema] accepts: "line", "summary", then
// the event types.
func SchemaNames() []string { return append([]string{"line", "summary"}, EventTypes()...) }

// Schema returns a JSON Schema (draft 2020-12) of the v1 contract in its
// compatible form, as published in the module's schema/ directory: "line"
// (or "") for the line schema, a discriminated union (oneOf) of the event
// types, told apart by their type const, and of a branch for unknown
// types; "summary" for summary.json and the run_finished payload; or an
// event type such as "tool_called". The compatible schemas require only
// what a v1 line cannot be read without (see [Validate]); with
// [WithStrict], the strict form (schema/strict/) requires every field the
// current writer always writes, as strict validation does. Every schema is
// self-contained and allows unknown fields. The bytes are the caller's. Of
// the options, Schema reads WithStrict.
func Schema(name string, opts ...Option) ([]byte, error) {
	dir := "schema/"
	if newOptions(opts).strict {
		dir = "schema/strict/"
	}
	if name == "" {
		name = "line"
	}
	if !slices.Contains(SchemaNames(), name) {
		return nil, fmt.Errorf("stream: no schema %q; there are %v", name, SchemaNames())
	}
	return schemaFiles.ReadFile(dir + name + ".schema.json")
}
