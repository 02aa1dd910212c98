package stream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"github.com/uagentkit/stream/internal/jsonparse"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/schema"
)

// ---- generating schema/ (go test -update) ----

// obj is a JSON object that keeps its key order.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

const schemaBase = "https://github.com/uagentkit/stream/schema/"

var descriptions = map[string]string{
	TypeRunStarted:       "Always first. run_id names the run directory.",
	TypePreflightWarning: "A non-blocking preflight finding, such as auth_expiring.",
	TypeUserMessage:      "The runner accepted a user message; id is the message ID it deduplicates on.",
	TypeDeveloperMessage: "The runner accepted a developer message: the harness's, not the user's. Not counted in user_messages.",
	TypeControlInput:     "The runner accepted a control message: settings (with effort), when_idle, hard, or heartbeat (with reason).",
	TypeTurnStarted:      "The runner sent a request to the model. Turns count from 1; turn_id is the runner's ID for the turn.",
	TypeModelResponded:   "The model answered. stop and failure are omitted when normal; a normal response has stop complete.",
	TypeToolCalled:       "The model asked for a tool. label is the Bash command or the raw arguments, on one line; arguments is the raw JSON.",
	TypeToolStarted:      "The runner started the operation for a call. op_type is the runner's operation type, such as shell.",
	TypeToolFinished:     "The operation ended. detail is exit N, a status, or an error. op_id is omitted when the call failed before an operation started.",
	TypeAssistantMessage: "Assistant text from a turn. final: true marks the final answer.",
	TypeReasoning:        "One reasoning summary line.",
	TypeRunnerError:      "The runner reported an error or printed a line that is not JSON.",
	TypeRunFinished:      "Always last. summary has the shape of summary.json.",
}

var (
	finishedStatuses = []string{"ok", "error", "timeout", "interrupted", "disk_limit"}
	controlModes     = []string{ControlSettings, ControlWhenIdle, ControlHard, ControlHeartbeat}
)

// utcTime is the schema of at: RFC 3339 in UTC.
func utcTime() obj {
	return obj{{"type", "string"}, {"format", "date-time"}, {"pattern", "(Z|[+-]00:00)$"}}
}

// fieldSchema is the schema of one DTO field. running tells whether a
// summary status may be running (summary.json) or not (run_finished).
func fieldSchema(owner string, f jsonparse.Field, running bool) any {
	switch f.Kind {
	case jsonparse.KindString:
		switch {
		case owner == TypeControlInput && f.Name == "mode":
			return obj{{"type", "string"}, {"enum", controlModes}}
		case owner == "summary" && f.Name == "status":
			return obj{{"type", "string"}, {"enum", append(slices.Clone(finishedStatuses), map[bool][]string{true: {"running"}}[running]...)}}
		}
		return obj{{"type", "string"}}
	case jsonparse.KindInt:
		return obj{{"type", "integer"}}
	case jsonparse.KindBool:
		return obj{{"type", "boolean"}}
	case jsonparse.KindTime:
		return utcTime()
	case jsonparse.KindMapInt:
		return obj{{"type", "object"}, {"additionalProperties", obj{{"type", "integer"}}}}
	case jsonparse.KindStrings:
		return obj{{"type", "array"}, {"items", obj{{"type", "string"}}}}
	case jsonparse.KindStruct:
		return obj{{"$ref", "#/$defs/" + defName(f.Sub)}}
	}
	panic(f.Name)
}

func defName(c *jsonparse.StructCodec) string {
	return map[reflect.Type]string{
		reflect.TypeFor[TokensDTO]():  "tokens",
		reflect.TypeFor[StatsDTO]():   "stats",
		reflect.TypeFor[SummaryDTO](): "summary",
	}[c.Type]
}

// objectSchema is the schema of a struct's fields; defs collects the
// nested structs it needs. The compatible schema requires the identity
// fields; the strict one every field that is not omitempty.
func objectSchema(owner string, c *jsonparse.StructCodec, running, strict bool, defs map[string]any) obj {
	var props obj
	required := []string{}
	for _, f := range c.Fields {
		var s any
		switch {
		case owner != "" && owner != "summary" && f.Name == "v" && len(f.Index) == 2:
			s = obj{{"type", "integer"}, {"const", SchemaVersion}}
		case owner != "" && owner != "summary" && f.Name == "type" && len(f.Index) == 2:
			s = obj{{"type", "string"}, {"const", owner}}
		default:
			s = fieldSchema(owner, f, running)
		}
		if f.Kind == jsonparse.KindStruct {
			name := defName(f.Sub)
			sub := "summary"
			if name != "summary" {
				sub = name
			}
			defs[name] = objectSchema(sub, f.Sub, running, strict, defs)
		}
		props = append(props, kv{f.Name, s})
		if f.Identity || (strict && !f.OmitEmpty) {
			required = append(required, f.Name)
		}
	}
	return obj{{"type", "object"}, {"required", required}, {"properties", props}, {"additionalProperties", true}}
}

// schemaID is the $id of a schema file.
func schemaID(name string, strict bool) string {
	if strict {
		return schemaBase + "strict/" + name + ".schema.json"
	}
	return schemaBase + name + ".schema.json"
}

// variant names a schema's mode in its description.
func variant(strict bool) string {
	if strict {
		return " Strict: every field the current writer always writes is required."
	}
	return " Compatible: only the fields a v1 line cannot be read without are required, so that streams written before a field was added stay valid."
}

func withDefs(head obj, body obj, defs map[string]any) obj {
	out := append(head, body...)
	if len(defs) > 0 {
		var d obj
		for _, name := range []string{"summary", "stats", "tokens"} {
			if s, ok := defs[name]; ok {
				d = append(d, kv{name, s})
			}
		}
		out = append(out, kv{"$defs", d})
	}
	return out
}

func eventSchema(k *kind, strict bool) obj {
	defs := map[string]any{}
	body := objectSchema(k.typ, k.codec, false, strict, defs)
	return withDefs(obj{{"$schema", "https://json-schema.org/draft/2020-12/schema"}, {"$id", schemaID(k.typ, strict)},
		{"title", k.typ}, {"description", descriptions[k.typ] + variant(strict)}}, body, defs)
}

func summarySchema(strict bool) obj {
	defs := map[string]any{}
	body := objectSchema("summary", summaryCodec, true, strict, defs)
	return withDefs(obj{{"$schema", "https://json-schema.org/draft/2020-12/schema"}, {"$id", schemaID("summary", strict)},
		{"title", "summary"}, {"description", "A run's summary: the content of summary.json (status running while the run is in progress) and, with a finished status, the run_finished payload." + variant(strict)}},
		body, defs)
}

// lineSchema is a discriminated union that code generators read: one
// branch per event type, each with type as a const, and one branch for
// the types this version does not know, so that they stay valid.
func lineSchema(strict bool) obj {
	var defs obj
	var branches []any
	for _, k := range kinds {
		s := eventSchema(k, strict)
		// Inline the event schema: drop its $schema and $id, lift its $defs.
		var inner obj
		for _, e := range s {
			if e.k != "$schema" && e.k != "$id" && e.k != "$defs" {
				inner = append(inner, e)
			}
		}
		defs = append(defs, kv{k.typ, inner})
		branches = append(branches, obj{{"$ref", "#/$defs/" + k.typ}})
	}
	defs = append(defs, kv{"unknown", obj{
		{"title", "unknown"},
		{"description", "A line of a type this version of the contract does not know: valid, so that new event types keep v1. Readers keep it raw."},
		{"type", "object"},
		{"required", []string{"v", "type", "at"}},
		{"properties", obj{{"v", obj{{"type", "integer"}, {"const", SchemaVersion}}},
			{"type", obj{{"type", "string"}, {"not", obj{{"enum", eventTypes()}}}}}, {"at", utcTime()}}},
		{"additionalProperties", true},
	}})
	branches = append(branches, obj{{"$ref", "#/$defs/unknown"}})
	shared := map[string]any{}
	shared["summary"] = objectSchema("summary", summaryCodec, false, strict, shared)
	for _, name := range []string{"summary", "stats", "tokens"} {
		defs = append(defs, kv{name, shared[name]})
	}
	return obj{
		{"$schema", "https://json-schema.org/draft/2020-12/schema"},
		{"$id", schemaID("line", strict)},
		{"title", "uagent v1 stream line"},
		{"description", "One line of a uagent --stream output: exactly one of the event types, told apart by type, or a line of a type this version does not know. Unknown fields are valid everywhere, so that additive changes keep v1." + variant(strict)},
		{"oneOf", branches},
		{"$defs", defs},
	}
}

func marshalSchema(t *testing.T, o obj) []byte {
	b, err := json.MarshalIndent(o, "", "  ")
	require.NoError(t, err)
	return append(b, '\n')
}

func TestSchemaFiles(t *testing.T) {
	for _, strict := range []bool{false, true} {
		dir, get := filepath.Join("..", "schema"), strictSchema(strict)
		if strict {
			dir = filepath.Join(dir, "strict")
		}
		for _, name := range schema.Names() {
			var o obj
			switch name {
			case "line":
				o = lineSchema(strict)
			case "summary":
				o = summarySchema(strict)
			default:
				o = eventSchema(kindByType[name], strict)
			}
			golden(t, filepath.Join(dir, name+".schema.json"), marshalSchema(t, o))
			got, err := get(name)
			require.NoError(t, err)
			assert.Equal(t, marshalSchema(t, o), got, "what Schema returns is the file")
		}
	}
	_, err := schema.Compatible("nope")
	assert.ErrorContains(t, err, `schema: no schema "nope"`)
	_, err = schema.Strict("nope")
	assert.ErrorContains(t, err, `schema: no schema "nope"`)
}

// strictSchema returns Schema, strict or not.
func strictSchema(strict bool) func(string) ([]byte, error) {
	if strict {
		return schema.Strict
	}
	return schema.Compatible
}

// ---- validating with a real validator ----

func compileSchemas(t *testing.T, strict bool) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	out := map[string]*jsonschema.Schema{}
	get := strictSchema(strict)
	for _, name := range schema.Names() {
		b, err := get(name)
		require.NoError(t, err)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		require.NoError(t, err)
		url := schemaID(name, strict)
		require.NoError(t, c.AddResource(url, doc))
		out[name], err = c.Compile(url)
		require.NoError(t, err, name)
	}
	return out
}

// validateLine checks one line against the line schema and, for a known
// type, its own schema.
func validateLine(t *testing.T, schemas map[string]*jsonschema.Schema, line []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	require.NoError(t, err)
	if err := schemas["line"].Validate(inst); err != nil {
		return err
	}
	typ, _ := inst.(map[string]any)["type"].(string)
	if s, ok := schemas[typ]; ok {
		return s.Validate(inst)
	}
	return nil
}

// fuzzSeedStrings reads the string arguments of a fuzz target's seed
// corpus in testdata/fuzz.
func fuzzSeedStrings(t *testing.T, target string) []string {
	paths, _ := filepath.Glob(filepath.Join("testdata", "fuzz", target, "*"))
	var out []string
	for _, p := range paths {
		f, err := os.Open(p)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if arg, ok := strings.CutPrefix(sc.Text(), "string("); ok {
				s, err := strconv.Unquote(strings.TrimSuffix(arg, ")"))
				require.NoError(t, err, p)
				out = append(out, s)
			}
		}
		f.Close()
	}
	require.NotEmpty(t, out, "the seed corpus of %s", target)
	return out
}

func TestSchemaAcceptsWhatTheSinkWrites(t *testing.T) {
	var streams [][]byte
	for _, name := range []string{"every-event.jsonl", "run.jsonl", "finished-empty.jsonl"} {
		streams = append(streams, mustRead(t, filepath.Join("testdata", name)))
	}
	for _, s := range append(fuzzSeedStrings(t, "FuzzSinkMatchesEncodingJSON"), fuzzSeedStrings(t, "FuzzRoundTrip")...) {
		// The strings go everywhere but into the two enums.
		evs := withString(s)
		for i, e := range evs {
			switch e := e.(type) {
			case RunFinished:
				e.Result.Status = StatusOK
				evs[i] = e
			case ControlInput:
				e.Mode = ControlHeartbeat
				evs[i] = e
			}
		}
		streams = append(streams, write(t, evs))
	}
	for _, b := range conformance(t) {
		streams = append(streams, b)
	}
	for _, strict := range []bool{false, true} {
		schemas := compileSchemas(t, strict)
		n := 0
		for _, s := range streams {
			for _, l := range lines(s) {
				require.NoError(t, validateLine(t, schemas, l), "strict %v: %s", strict, l)
				n++
			}
		}
		t.Logf("strict %v: %d lines valid", strict, n)

		sum, err := SummaryToDTO(Result{Status: StatusRunning, StartedAt: t0}).MarshalIndent()
		require.NoError(t, err)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(sum))
		require.NoError(t, err)
		assert.NoError(t, schemas["summary"].Validate(inst), "summary.json may be running")
	}
}

func TestSchemaRejectsInvalidLines(t *testing.T) {
	compat, strict := compileSchemas(t, false), compileSchemas(t, true)
	run := lines(mustRead(t, "testdata/run.jsonl"))
	for name, line := range map[string]string{
		"missing identity field":  `{"v":1,"type":"tool_called","at":"2026-09-23T12:39:21Z","name":"Bash","label":"ls"}`,
		"missing finished call":   `{"v":1,"type":"tool_finished","at":"2026-09-23T12:39:21Z","op_id":"o","ok":false}`,
		"missing summary status":  strings.Replace(string(run[20]), `"status":"ok",`, ``, 1),
		"wrong JSON type":         `{"v":1,"type":"turn_started","at":"2026-09-23T12:39:21Z","turn":"1"}`,
		"fractional turn":         `{"v":1,"type":"turn_started","at":"2026-09-23T12:39:21Z","turn":1.5}`,
		"fractional tokens":       strings.Replace(string(run[7]), `"input":554`, `"input":554.5`, 1),
		"wrong type when present": `{"v":1,"type":"user_message","at":"2026-09-23T12:39:21Z","text":7}`,
		"bad at":                  `{"v":1,"type":"runner_error","at":"yesterday","message":"x"}`,
		"at not UTC":              `{"v":1,"type":"runner_error","at":"2026-09-23T14:39:21+02:00","message":"x"}`,
		"missing at":              `{"v":1,"type":"hologram"}`,
		"version 2":               `{"v":2,"type":"runner_error","at":"2026-09-23T12:39:21Z","message":"x"}`,
		"version 2 unknown type":  `{"v":2,"type":"hologram","at":"2026-09-23T12:39:21Z"}`,
		"unknown control mode":    `{"v":1,"type":"control_input","at":"2026-09-23T12:39:21Z","id":"c","mode":"sometimes"}`,
		"running in run_finished": strings.Replace(string(run[20]), `"status":"ok"`, `"status":"running"`, 1),
		"tools_by_name values":    strings.Replace(string(run[20]), `{"Bash":3}`, `{"Bash":"3"}`, 1),
	} {
		assert.Error(t, validateLine(t, compat, []byte(line)), name)
		assert.Error(t, validateLine(t, strict, []byte(line)), "strict: "+name)
	}
	for name, line := range map[string]string{
		"missing nested field":       `{"v":1,"type":"model_responded","at":"2026-09-23T12:39:21Z","turn":1,"duration_ms":1,"usage":{"input":1}}`,
		"no user_messages (old)":     strings.Replace(string(run[20]), `"user_messages":1,`, ``, 1),
		"no cache_write_input":       strings.Replace(string(run[7]), `"cache_write_input":0,`, ``, 1),
		"a bare tool_called":         `{"v":1,"type":"tool_called","at":"2026-09-23T12:39:21Z","call_id":"c"}`,
		"a bare model_responded":     `{"v":1,"type":"model_responded","at":"2026-09-23T12:39:21Z","turn":1}`,
		"a summary with status only": `{"v":1,"type":"run_finished","at":"2026-09-23T12:39:21Z","summary":{"status":"ok"}}`,
	} {
		assert.NoError(t, validateLine(t, compat, []byte(line)), "compatible: "+name)
		assert.Error(t, validateLine(t, strict, []byte(line)), "strict: "+name)
	}
	for _, s := range []map[string]*jsonschema.Schema{compat, strict} {
		assert.NoError(t, validateLine(t, s, []byte(`{"v":1,"type":"hologram","at":"2026-09-23T12:39:21Z","beam":[1]}`)), "unknown types are valid")
	}
}

// ---- the schema says what README says ----

// jsonShape is a field of an object schema: its name, JSON type and whether
// it is required.
type jsonShape struct {
	Name     string
	Type     string
	Required bool
}

// schemaShapes reads the fields of an object schema: its properties, their
// JSON types (a const stands for its value's type; a $ref for an object),
// and which are required.
func schemaShapes(t *testing.T, s map[string]any) map[string]jsonShape {
	out := map[string]jsonShape{}
	required := map[string]bool{}
	for _, r := range s["required"].([]any) {
		required[r.(string)] = true
	}
	for name, p := range s["properties"].(map[string]any) {
		p := p.(map[string]any)
		typ, _ := p["type"].(string)
		if _, ok := p["$ref"]; ok {
			typ = "object"
		}
		out[name] = jsonShape{name, typ, required[name]}
	}
	assert.Equal(t, true, s["additionalProperties"], "unknown fields are allowed")
	return out
}

func readSchema(t *testing.T, name string, strict bool) map[string]any {
	path := filepath.Join("schema", name+".schema.json")
	if strict {
		path = filepath.Join("schema", "strict", name+".schema.json")
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// identity are the fields a v1 line cannot be read without, by type, as
// DESIGN.md's compatibility rule names them (beside v, type and at): the
// compatible schemas require these and no more.
var identity = map[string][]string{
	TypeToolCalled:   {"call_id"},
	TypeToolStarted:  {"call_id", "op_id"},
	TypeToolFinished: {"call_id"},
	TypeTurnStarted:  {"turn"},
	TypeRunFinished:  {"summary"},
	"summary":        {"status"},
}

// jsonTypes reads the JSON type of every field of every line of a stream,
// by type and field path ("summary.stats.turns"): what the wire carries.
func jsonTypes(t *testing.T, path string) map[string]map[string]string {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	out := map[string]map[string]string{}
	var walk func(typ, prefix string, m map[string]any)
	walk = func(typ, prefix string, m map[string]any) {
		for k, v := range m {
			jt := "object"
			switch v := v.(type) {
			case string:
				jt = "string"
			case float64:
				jt = "integer"
			case bool:
				jt = "boolean"
			case []any:
				jt = "array"
			case map[string]any:
				if k != "tools_by_name" && k != "stop_reasons" {
					walk(typ, prefix+k+".", v)
				}
			}
			out[typ][prefix+k] = jt
		}
	}
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]any
		require.NoError(t, json.Unmarshal(l, &m))
		typ := m["type"].(string)
		if out[typ] == nil {
			out[typ] = map[string]string{}
		}
		walk(typ, "", m)
	}
	return out
}

// The schemas say what README's wire table says: for every type, the
// fields (v, type, at and the table's, the summary's and stats' lists for
// the nested objects), which are required (strict: every field not marked
// ?; compatible: the identity fields of DESIGN.md's rule), and their JSON
// types as every-event.jsonl carries them.
func TestSchemaMatchesTheREADME(t *testing.T) {
	lines, summary, stats := readmeWire(t)
	wire := jsonTypes(t, "testdata/every-event.jsonl")
	for _, strict := range []bool{false, true} {
		// check compares the schema s of an object with the README's fields
		// of it; id are the fields the compatible form requires.
		check := func(what, typ, prefix string, fields []wireField, id []string, s map[string]any) {
			t.Helper()
			want := map[string]jsonShape{}
			for _, f := range fields {
				req := strict && !f.optional || !strict && slices.Contains(id, f.name)
				want[f.name] = jsonShape{f.name, wire[typ][prefix+f.name], req}
			}
			if d := cmpDiff(want, schemaShapes(t, s)); d != "" {
				t.Errorf("strict %v: %s: the schema and README differ (-README +schema):\n%s", strict, what, d)
			}
		}
		header := []wireField{{name: "v"}, {name: "type"}, {name: "at"}} // every line has them
		for typ, fields := range lines {
			s := readSchema(t, typ, strict)
			check(typ, typ, "", append(slices.Clone(header), fields...), append([]string{"v", "type", "at"}, identity[typ]...), s)
			defs, _ := s["$defs"].(map[string]any)
			for name, d := range defs {
				var sub []wireField
				prefix := ""
				switch name {
				case "summary":
					sub, prefix = summary, "summary."
				case "stats":
					sub, prefix = stats, "summary.stats."
				case "tokens":
					if typ == TypeModelResponded {
						sub, prefix = fields[slices.IndexFunc(fields, func(f wireField) bool { return f.name == "usage" })].sub, "usage."
					} else {
						sub, prefix = stats[slices.IndexFunc(stats, func(f wireField) bool { return f.name == "tokens" })].sub, "summary.stats.tokens."
					}
				}
				require.NotNil(t, sub, "%s $defs/%s is in README", typ, name)
				check(typ+" $defs/"+name, typ, prefix, sub, identity[name], d.(map[string]any))
			}
		}
		line := readSchema(t, "line", strict)
		assert.Len(t, line["oneOf"], len(lines)+1, "the line schema has a branch per README type and one for unknown types")
	}
}
