// Package schema holds the JSON Schemas (draft 2020-12) of the uagent v1
// stream contract, as published in this directory: "line", a discriminated
// union (oneOf) of the event types told apart by their type const and a
// branch for unknown types; "summary", for summary.json and the
// run_finished payload; and one per event type ("tool_called", …). Every
// schema is self-contained and allows unknown fields.
//
// The compatible schemas require only what a v1 line cannot be read
// without (v, type, at and each type's identity fields), as the stream
// package's Validate does by default; the strict ones (strict/) require
// every field the current writer always writes, as Validate with
// WithStrict does. The stream package generates these files from its event
// table (go test -update there) and tests them with a real validator. It is
// a package of its own because nothing in the stream package reads them:
// they are published for other languages and validators. The schemas of
// what the history's listings write (ls --json, ls --runs --json, usage
// --json: the history package's JSON) are here too ([Listing]).
package schema

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

//go:embed *.schema.json strict/*.schema.json history/*.schema.json
var files embed.FS

// Listings returns the names of the schemas of what the history's
// listings write (the history package's JSON): "ls" (a SessionJSON),
// "ls-runs" (a RunJSON) and "usage" (a UsageJSON); each listing is an
// array of them.
func Listings() []string { return []string{"ls", "ls-runs", "usage"} }

// Listing returns the JSON Schema of a listing's objects, by name (see
// Listings). The bytes are the caller's.
func Listing(name string) ([]byte, error) {
	if !slices.Contains(Listings(), name) {
		return nil, fmt.Errorf("schema: no listing %q; there are %s", name, strings.Join(Listings(), ", "))
	}
	return files.ReadFile("history/" + name + ".schema.json")
}

// Names returns the names of the schemas: "line", "summary", then the
// event types in alphabetical order.
func Names() []string {
	paths, _ := fs.Glob(files, "*.schema.json")
	var out []string
	for _, p := range paths {
		if n := strings.TrimSuffix(p, ".schema.json"); n != "line" && n != "summary" {
			out = append(out, n)
		}
	}
	return append([]string{"line", "summary"}, out...)
}

// Compatible returns the compatible schema of the given name ("" is
// "line"). The bytes are the caller's.
func Compatible(name string) ([]byte, error) { return read("", name) }

// Strict returns the strict schema of the given name ("" is "line"). The
// bytes are the caller's.
func Strict(name string) ([]byte, error) { return read("strict/", name) }

func read(dir, name string) ([]byte, error) {
	if name == "" {
		name = "line"
	}
	if !slices.Contains(Names(), name) {
		return nil, fmt.Errorf("schema: no schema %q; there are %s", name, strings.Join(Names(), ", "))
	}
	return files.ReadFile(dir + name + ".schema.json")
}
