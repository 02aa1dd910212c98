//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/sessions"
)

// hostile holds what a terminal acts on or a reader cannot see: OSC 52
// (write the clipboard), screen clearing, a link, C1 controls, DEL, bidi
// overrides, zero-width and invisible characters, tag characters, BEL,
// backspace, NUL, carriage return, and markup.
const hostile = "\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\x1b]8;;http://evil\x1b\\ok\u0085\u009b31m\x7f\u202e\u2066\u200b\u00ad\U000E0041\ufeff\x00\x08\r<script>&"

// fillStrings sets every string field of v, a pointer to a struct, to s,
// descending into structs.
func fillStrings(v reflect.Value, s string) {
	v = v.Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(s)
		case reflect.Struct:
			if f.Type() != reflect.TypeFor[time.Time]() {
				fillStrings(f.Addr(), s)
			}
		case reflect.Slice:
			if f.Type().Elem().Kind() == reflect.String {
				f.Set(reflect.ValueOf([]string{s, s}))
			}
		case reflect.Map:
			f.Set(reflect.ValueOf(map[string]int{s: 1}))
		}
	}
}

// hostileEverywhere is a run whose every string, of every event type, is
// hostile, with an unknown type and a bad line of hostile bytes too.
func hostileEverywhere(t *testing.T) []byte {
	var buf bytes.Buffer
	s := stream.NewSink(&buf)
	evs := []stream.Event{&stream.RunStarted{}, &stream.PreflightWarning{}, &stream.UserMessage{}, &stream.DeveloperMessage{},
		&stream.ControlInput{}, &stream.TurnStarted{Turn: 1}, &stream.ModelResponded{Turn: 1}, &stream.ToolCalled{},
		&stream.ToolStarted{}, &stream.AssistantMessage{Final: true}, &stream.ReasoningSummary{}, &stream.RunnerError{},
		&stream.ToolFinished{}}
	for i, e := range evs {
		fillStrings(reflect.ValueOf(e), hostile)
		reflect.ValueOf(e).Elem().FieldByName("At").Set(reflect.ValueOf(t1.Add(time.Duration(i) * time.Millisecond)))
		s.Emit(e)
	}
	buf.WriteString(`{"v":1,"type":"\u001b]52;c;eA==\u0007\u202e","at":"2026-09-23T12:00:00.5Z"}` + "\n")
	buf.WriteString(`{"v":1,"type":"\u001b[2J","at":"` + "\x1b[2J" + `"}` + "\n")
	fin := &stream.RunFinished{At: t1.Add(time.Second)}
	fillStrings(reflect.ValueOf(&fin.Result), hostile)
	s.Emit(fin)
	require.NoError(t, s.Err())
	return buf.Bytes()
}

// unsafeOutput returns the characters of out that no output may hold:
// control characters (Cc: C0 but newline, DEL, C1) and format characters
// (Cf: bidi controls, zero-width and invisible ones, tag characters), and
// invalid UTF-8. It judges by Unicode's categories, not by the code under
// test.
func unsafeOutput(out string) []string {
	var bad []string
	for i, r := range out {
		if r == utf8.RuneError && !strings.HasPrefix(out[i:], "\uFFFD") || r != '\n' && unicode.In(r, unicode.Cc, unicode.Cf) {
			bad = append(bad, out[max(0, i-20):min(len(out), i+10)])
		}
	}
	return bad
}

// Every output of every command keeps hostile stream bytes in check.
func TestNoCommandOutputsHostileBytes(t *testing.T) {
	t.Setenv("NO_COLOR", "1") // the tool's own colour codes aside, nothing may carry ESC
	dir := t.TempDir()
	path := filepath.Join(dir, "run"+hostile[:12]+"\u202e.jsonl")
	require.NoError(t, os.WriteFile(path, hostileEverywhere(t), 0o644))
	// The tool output files a hostile run names.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "out"), []byte("fine\n"+hostile+"\n"), 0o644))
	svg := filepath.Join(dir, "t.svg")
	for _, args := range [][]string{
		{"cat", path}, {"cat", "--tool-output", path}, {"cat", "-f", path},
		{"validate", path}, {"validate", "--json", path}, {"validate", "--strict", path},
		{"stats", path}, {"stats", "--check", path},
		{"timeline", path}, {"timeline", "-o", svg, path},
		{"run", "--", "cat", path}, {"run", "--json", "--", "cat", path}, {"run", "--", path},
		{"schema", hostile}, {"help", hostile}, {hostile}, {"cat", "--" + hostile, path}, {"cat", path + hostile},
	} {
		code, stdout, stderr := runCmd(t, "", args...)
		for what, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
			assert.Empty(t, unsafeOutput(out), "%s of %q (exit %d)", what, args[:1], code)
		}
		if args[0] == "timeline" && len(args) == 2 {
			parseSVG(t, []byte(stdout)) // the SVG is well-formed
		}
	}
	b, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Empty(t, unsafeOutput(string(b)), "the SVG file")

	// A session stream of the harness whose every text is hostile, with a
	// harness line of an unknown, hostile type, and one of the wrong types.
	session := filepath.Join(dir, "session"+hostile[:12]+".jsonl")
	sb := sessions.Write(sessions.Options{Text: hostile, Runs: []sessions.Run{
		{Message: "m", Answer: "a", Calls: 1, Reset: true, Queued: true, AutoReview: true}, {Message: "m", Answer: "a", Goal: true}, {CannotStart: true}, {Message: "m", CutOff: true}}})
	sb = append(sb, `{"v":1,"type":"\u001b]52;c;eA==\u0007\u202e","at":"2026-10-01T19:00:00Z"}`+"\n"...)
	sb = append(sb, `{"v":1,"type":"notice","at":"2026-10-01T19:00:00Z","level":7,"message":"`+strings.ReplaceAll(hostile, "\x00", "")+`"}`+"\n"...)
	require.NoError(t, os.WriteFile(session, sb, 0o644))
	for _, args := range [][]string{
		{"cat", session}, {"validate", session}, {"validate", "--json", session}, {"stats", session}, {"stats", "--check", session},
		{"timeline", session}, {"run", "--", "cat", session}, {"export", "-o", filepath.Join(dir, "tables"), session},
	} {
		code, stdout, stderr := runCmd(t, "", args...)
		for what, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
			assert.Empty(t, unsafeOutput(out), "%s of %q on a session (exit %d)", what, args[:1], code)
		}
	}
}

// A history whose sidecars and names are hostile: what export says of
// them (a sidecar that is not JSON, a parent that is not there, a run in
// two homes whose copies differ) is sanitized, and so is the sessions
// table's source and parent in what it writes.
func TestHistoryProblemsAreSanitized(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	safe := strings.ReplaceAll(strings.ReplaceAll(hostile, "/", ""), "\x00", "")
	home := func(name string) string {
		d := filepath.Join(t.TempDir(), name+safe[:12])
		require.NoError(t, os.MkdirAll(filepath.Join(d, "sessions"), 0o755))
		return d
	}
	a, b := home("a"), home("b")
	run, err := filepath.Abs(filepath.Join(stateDir, "runs", "20261101-100000-5f3c2a1e"))
	require.NoError(t, err)
	for _, h := range []string{a, b} {
		require.NoError(t, os.MkdirAll(filepath.Join(h, "runs"), 0o755))
		require.NoError(t, os.CopyFS(filepath.Join(h, "runs", "20261101-100000-5f3c2a1e"), os.DirFS(run)))
	}
	require.NoError(t, os.WriteFile(filepath.Join(b, "runs", "20261101-100000-5f3c2a1e", "events.jsonl"), []byte("{}\n"), 0o644))
	quoted, _ := json.Marshal(hostile)
	require.NoError(t, os.WriteFile(filepath.Join(a, "sessions", "5f3c2a1e-1111-4222-8333-944455556666.uah.json"),
		[]byte(`{"source":`+string(quoted)+`,"parent":`+string(quoted)+`,"first_prompt":`+string(quoted)+`}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(a, "sessions", safe[:12]+".uah.json"), []byte(hostile), 0o600))
	code, stdout, stderr := runCmd(t, "", "export", "--content", "-o", t.TempDir(), "--state-dir", a, "--state-dir", b)
	assert.Equal(t, 1, code, stderr)
	for what, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
		assert.Empty(t, unsafeOutput(out), "%s of export", what)
	}
	assert.Contains(t, stderr, "in two state directories")
	assert.Contains(t, stderr, "names a parent")
	assert.Contains(t, stderr, "cannot be read")
}
