package stream

import (
	"embed"
	"fmt"
	"slices"
)

//go:embed schema/*.json
var schemaFiles embed.FS

// SchemaNames returns the names Schema accepts: "line", "summary", then the
// event types.
func SchemaNames() []string { return append([]string{"line", "summary"}, EventTypes()...) }

// Schema returns a JSON Schema (draft 2020-12) of the v1 contract, as
// published in the module's schema/ directory: "line" (or "") for the line
// schema, which dispatches on type and accepts unknown types; "summary" for
// summary.json and the run_finished payload; or an event type such as
// "tool_called". Every schema is self-contained and allows unknown fields.
// The bytes are the caller's.
func Schema(name string) ([]byte, error) {
	if name == "" {
		name = "line"
	}
	if !slices.Contains(SchemaNames(), name) {
		return nil, fmt.Errorf("stream: no schema %q; there are %v", name, SchemaNames())
	}
	return schemaFiles.ReadFile("schema/" + name + ".schema.json")
}
