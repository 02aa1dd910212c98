package stream

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGoldenFixtures(t *testing.T) {
	golden(t, "every-event.jsonl", write(t, everyEvent()))
	golden(t, "finished-empty.jsonl", write(t, []Event{RunFinished{At: t0, Result: Result{Status: StatusOK}}}))
	golden(t, "run.jsonl", write(t, realisticRun()))
}

func TestEventTableIsComplete(t *testing.T) {
	assert.Equal(t, []string{"run_started", "preflight_warning", "user_message", "developer_message", "control_input",
		"turn_started", "model_responded", "tool_called", "tool_started", "tool_finished", "assistant_message",
		"reasoning", "runner_error", "run_finished"}, eventTypes())
	for _, k := range kinds {
		assert.Equal(t, []string{"v", "type", "at"}, []string{k.codec.Fields[0].Name, k.codec.Fields[1].Name, k.codec.Fields[2].Name}, k.typ)
	}
}

// wireField is a field of the README's wire table: its name, whether it is
// omitted when empty (?), and the fields of a nested object in braces.
type wireField struct {
	name     string
	optional bool
	sub      []wireField
}

// parseWireFields reads "a, b?, usage{x, y}, c?" into fields.
func parseWireFields(t *testing.T, s string) []wireField {
	var out []wireField
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), ",")) {
		end := strings.IndexAny(s, ",{")
		if end < 0 {
			end = len(s)
		}
		f := wireField{name: strings.TrimSpace(s[:end])}
		s = s[end:]
		if strings.HasPrefix(s, "{") {
			close := strings.Index(s, "}")
			require.Positive(t, close, "unclosed brace in %q", s)
			f.sub = parseWireFields(t, s[1:close])
			s = s[close+1:]
		}
		f.name, f.optional = strings.CutSuffix(f.name, "?")
		if name, ok := strings.CutSuffix(f.name, "?"); ok { // "x{…}?"
			f.name, f.optional = name, true
		}
		out = append(out, f)
	}
	return out
}

// readmeWire reads the wire table and the summary and stats field lists
// from docs/contract.md: the contract as people read it.
func readmeWire(t *testing.T) (lines map[string][]wireField, summary, stats []wireField) {
	b, err := os.ReadFile(filepath.Join("docs", "contract.md"))
	require.NoError(t, err)
	readme := string(b)
	start := strings.Index(readme, "\n## The contract\n")
	require.GreaterOrEqual(t, start, 0, "README has a section The contract")
	readme = readme[start+1:]
	if end := strings.Index(readme, "\n## "); end >= 0 {
		readme = readme[:end+1]
	}
	lines = map[string][]wireField{}
	for _, row := range regexp.MustCompile(`(?m)^\| (\w+) \| (.+) \|$`).FindAllStringSubmatch(readme, -1) {
		if row[1] == "type" { // the header
			continue
		}
		fields := row[2]
		if row[1] == TypeRunFinished {
			fields = "summary" // "summary: the shape of summary.json"
		}
		lines[row[1]] = parseWireFields(t, fields)
	}
	list := func(head string) []wireField {
		m := regexp.MustCompile(`(?s)\n` + regexp.QuoteMeta(head) + `[^:]*:(.+?)\.\n`).FindStringSubmatch(readme)
		require.NotNil(t, m, "README has the %s list", head)
		return parseWireFields(t, strings.Join(strings.Fields(m[1]), " "))
	}
	return lines, list("summary"), list("stats")
}

// keyOrder returns the keys of a JSON object in their order, and the key
// orders of its nested objects.
func keyOrder(t *testing.T, raw []byte) ([]string, map[string][]string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var keys []string
	nested := map[string][]string{}
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		var v json.RawMessage
		require.NoError(t, dec.Decode(&v))
		keys = append(keys, k.(string))
		if len(v) > 0 && v[0] == '{' && k != "tools_by_name" && k != "stop_reasons" {
			nested[k.(string)], _ = keyOrder(t, v)
		}
	}
	return keys, nested
}

// checkWire checks one written object against the README's fields: with
// every field set, the keys in the README's order; with every field empty,
// exactly the fields not marked ? (and the nested objects likewise).
func checkWire(t *testing.T, what string, want []wireField, full, empty []byte, skip int) {
	t.Helper()
	gotFull, nestedFull := keyOrder(t, full)
	gotEmpty, nestedEmpty := keyOrder(t, empty)
	var all, required []string
	for _, f := range want {
		all = append(all, f.name)
		if !f.optional {
			required = append(required, f.name)
		}
		if f.sub != nil {
			var subAll []string
			for _, s := range f.sub {
				subAll = append(subAll, s.name)
			}
			assert.Equal(t, subAll, nestedFull[f.name], "%s: the fields of %s and their order", what, f.name)
			assert.Equal(t, subAll, nestedEmpty[f.name], "%s: the fields of an empty %s", what, f.name)
		}
	}
	assert.Equal(t, all, gotFull[skip:], "%s: every field set: the README's fields in its order", what)
	assert.Equal(t, required, gotEmpty[skip:], "%s: every field empty: only the fields without ?", what)
}

// The README's wire table is the contract: the Sink writes the fields in
// its order, and omits exactly the fields it marks with ? when they are
// empty.
func TestSinkWritesTheREADMEWireTable(t *testing.T) {
	table, summary, stats := readmeWire(t)
	evs := append(everyEvent(), RunFinished{At: t0}) // each type with every field set, then empty
	require.Len(t, evs, 2*len(kinds))
	require.Len(t, table, len(kinds), "the README lists every type")
	for i := 0; i < len(evs); i += 2 {
		k, _ := kindOf(evs[i])
		want, ok := table[k.typ]
		require.True(t, ok, "README lists %s", k.typ)
		full, empty := lines(write(t, evs[i:i+1]))[0], lines(write(t, evs[i+1:i+2]))[0]
		keys, _ := keyOrder(t, full)
		require.Equal(t, []string{"v", "type", "at"}, keys[:3], k.typ)
		checkWire(t, k.typ, want, full, empty, 3)
	}
	fullSum, err := SummaryToDTO(fullResult()).MarshalIndent()
	require.NoError(t, err)
	emptySum, err := SummaryToDTO(Result{}).MarshalIndent()
	require.NoError(t, err)
	checkWire(t, "summary", summary, fullSum, emptySum, 0)
	var full, empty struct{ Stats json.RawMessage }
	require.NoError(t, json.Unmarshal(fullSum, &full))
	require.NoError(t, json.Unmarshal(emptySum, &empty))
	checkWire(t, "stats", stats, full.Stats, empty.Stats, 0)
}

// The root package keeps to the standard library at run time.
func TestRootPackageImportsOnlyTheStandardLibrary(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on this platform")
	}
	out, err := exec.Command(goCmd, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	require.NoError(t, err)
	assert.Equal(t, []string{"github.com/uagentkit/stream/internal/intern", "github.com/uagentkit/stream/internal/jsonparse", "github.com/uagentkit/stream/internal/regular",
		"github.com/uagentkit/stream/internal/span", "github.com/uagentkit/stream"},
		strings.Fields(string(out)), "only the module's own packages beside the standard library")
}

// The root package links nothing that talks to another system: a
// front-end that only reads streams pays for no HTTP server or TLS.
func TestRootPackageLinksNoServer(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on this platform")
	}
	out, err := exec.Command(goCmd, "list", "-deps", ".").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	for _, pkg := range []string{"net/http", "crypto/tls", "net"} {
		assert.NotContains(t, deps, pkg)
	}
}

// eventTypes are the wire names of the event table's rows, in its order.
func eventTypes() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.typ
	}
	return out
}
