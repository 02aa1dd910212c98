package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/runs"
	"github.com/uagentkit/stream/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testenv.Golden(t, filepath.Join("testdata", name), got, *update)
}

// runCmd runs the command in-process.
func runCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

const runFile = "../../testdata/run.jsonl"

func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{nil, 2, "usage: uagent-stream COMMAND"},
		{[]string{"frobnicate"}, 2, `uagent-stream: unknown command "frobnicate"`},
		{[]string{"cat"}, 2, "uagent-stream: cat: want one FILE or -\nusage: uagent-stream cat [-f] [--no-color] [--no-reasoning] [--tool-output] [--prices FILE] [--state-dir DIR]… FILE|-"},
		{[]string{"cat", "a", "b"}, 2, "uagent-stream: cat: want one FILE or -"},
		{[]string{"cat", "--bogus", runFile}, 2, "uagent-stream: cat: flag provided but not defined: -bogus\n"},
		{[]string{"cat", "-f", "-"}, 2, "uagent-stream: cat: -f follows a FILE; standard input cannot be followed"},
		{[]string{"validate"}, 2, "uagent-stream: validate: want at least one FILE or -"},
		{[]string{"stats", "--check"}, 2, "uagent-stream: stats: want at least one FILE or -"},
		{[]string{"timeline"}, 2, "want one FILE or -"},
		{[]string{"help", "frobnicate"}, 2, `uagent-stream: unknown command "frobnicate"`},
		{[]string{"cat", "does-not-exist.jsonl"}, 1, "uagent-stream: open does-not-exist.jsonl: "}, // then the system's words: "no such file or directory"
	} {
		code, stdout, stderr := runCmd(t, "", c.args...)
		assert.Equal(t, c.code, code, "%v", c.args)
		assert.Contains(t, stderr, c.err, "%v", c.args)
		assert.Empty(t, stdout, "%v: errors go to stderr", c.args)
		assert.Equal(t, 1, strings.Count(stderr, "uagent-stream: "), "%v: one prefix", c.args)
	}
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		code, stdout, stderr := runCmd(t, "", args...)
		assert.Equal(t, 0, code)
		assert.Empty(t, stderr)
		assert.Contains(t, stdout, "  timeline   [-o OUT.svg] [--state-dir DIR]… FILE|-\n")
	}
	for _, args := range [][]string{{"help", "cat"}, {"cat", "-h"}, {"cat", "--help"}} {
		code, stdout, stderr := runCmd(t, "", args...)
		assert.Equal(t, 0, code, "%v", args)
		assert.Empty(t, stderr, "%v: help goes to stdout", args)
		assert.Contains(t, stdout, "usage: uagent-stream cat [-f] [--no-color]", "%v", args)
		assert.Contains(t, stdout, "\n  --no-color\n", "%v: flags spelled as the synopsis spells them", args)
		assert.Contains(t, stdout, "\n  -f\n", "%v", args)
		assert.NotContains(t, stdout, "\n  -no-color", "%v", args)
	}
	code, stdout, _ := runCmd(t, "", "help", "validate")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "  --exit-code code\n")
}

// Flags may come after the positional arguments, as people type them.
func TestFlagsAnywhere(t *testing.T) {
	_, want, _ := runCmd(t, "", "cat", "--no-color", "--no-reasoning", runFile)
	code, got, stderr := runCmd(t, "", "cat", runFile, "--no-color", "--no-reasoning")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, want, got)
	code, got, _ = runCmd(t, "", "validate", runFile, "--exit-code", "0", "--strict")
	assert.Equal(t, 0, code)
	assert.Empty(t, got)
	code, got, _ = runCmd(t, "", "schema", "tool_called", "--strict")
	assert.Equal(t, 0, code)
	assert.Contains(t, got, "strict/tool_called.schema.json")
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := runCmd(t, "", args...)
		assert.Equal(t, 0, code)
		assert.Empty(t, stderr)
		assert.Regexp(t, `^uagent-stream \S+( \(\w+ \S+(, modified)?\))? go1\.\d+`, stdout)
	}
}

func TestCatGolden(t *testing.T) {
	code, stdout, stderr := runCmd(t, "", "cat", runFile)
	require.Equal(t, 0, code, stderr)
	golden(t, "cat-run.txt", []byte(stdout))

	b, err := os.ReadFile(runFile)
	require.NoError(t, err)
	code, fromStdin, _ := runCmd(t, string(b), "cat", "-")
	assert.Equal(t, 0, code)
	assert.Equal(t, stdout, fromStdin, "- reads standard input")
}

func TestCatColour(t *testing.T) {
	t.Setenv("UAGENT_STREAM_FORCE_COLOR", "1")
	t.Setenv("NO_COLOR", "")
	_, coloured, _ := runCmd(t, "", "cat", runFile)
	assert.Contains(t, coloured, "\x1b[31m✗ Bash: cat b.txt", "failures are red")
	assert.Contains(t, coloured, "\x1b[2m  · Three independent", "reasoning is dim")
	_, plain, _ := runCmd(t, "", "cat", "--no-color", runFile)
	assert.NotContains(t, plain, "\x1b")
	t.Setenv("NO_COLOR", "1")
	_, plain, _ = runCmd(t, "", "cat", runFile)
	assert.NotContains(t, plain, "\x1b", "NO_COLOR wins")
	// Not a terminal: no colour by default.
	t.Setenv("UAGENT_STREAM_FORCE_COLOR", "")
	t.Setenv("NO_COLOR", "")
	_, plain, _ = runCmd(t, "", "cat", runFile)
	assert.NotContains(t, plain, "\x1b")
}

// hostileStream holds escape sequences, HTML, U+2028, bidi overrides, a 2
// MiB line, CRLF endings, unknown types and a broken line.
func hostileStream(t *testing.T) []byte {
	var buf bytes.Buffer
	s := stream.NewSink(&buf)
	at := time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)
	s.Emit(stream.RunStarted{At: at, RunID: "run\x1b]0;pwned\x07", Provider: "p\x1b[2J", Model: "<b>m</b>", Workspace: "/w\u202eexe.txt"})
	s.Emit(stream.UserMessage{At: at.Add(time.Millisecond), Text: "line1\u2028line2\x1b[31mred\x9b31m"})
	s.Emit(stream.TurnStarted{At: at.Add(2 * time.Millisecond), Turn: 1})
	s.Emit(stream.ModelResponded{At: at.Add(3 * time.Millisecond), Turn: 1, Stop: "\x1b[5mblink", Failure: "fail\r\x1b[Koverwrite"})
	s.Emit(stream.ToolCalled{At: at.Add(4 * time.Millisecond), CallID: "c", Name: "<script>alert(1)</script>", Label: strings.Repeat("A", 2<<20)})
	s.Emit(stream.ToolStarted{At: at.Add(5 * time.Millisecond), CallID: "c", OpID: "o", Name: "<script>", Label: "ls & rm"})
	s.Emit(stream.AssistantMessage{At: at.Add(6 * time.Millisecond), Text: "\x00\x07\x08\x7f done", Final: true})
	s.Emit(stream.RunnerError{At: at.Add(7 * time.Millisecond), Message: "\x1bP+q\x1b\\"})
	require.NoError(t, s.Err())
	out := bytes.ReplaceAll(buf.Bytes(), []byte("\n"), []byte("\r\n"))
	out = append(out, `{"v":1,"type":"hologram\u001b[31m","at":"2026-09-23T12:00:00.008Z","beam":"<x>"}`+"\r\n"...)
	out = append(out, `{"v":1,"type":"runner_error","at":"2026-09-23T12:00:00.009Z","message":"\u001b[31m`+"\n"...)
	return out
}

func TestCatHostileStream(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	require.NoError(t, os.WriteFile(path, hostileStream(t), 0o644))
	t.Setenv("NO_COLOR", "")
	t.Setenv("UAGENT_STREAM_FORCE_COLOR", "")
	code, stdout, _ := runCmd(t, "", "cat", path)
	assert.Equal(t, 1, code, "a broken line is a finding")
	for _, bad := range []string{"\x1b", "\x07", "\x9b", "\x00", "\x08", "\x7f", "\r", "\u2028", "\u202e"} {
		assert.NotContains(t, stdout, bad, "%q reaches the terminal", bad)
	}
	assert.Contains(t, stdout, `run\x1b]0;pwned\x07`)
	assert.Contains(t, stdout, "<script>alert(1)</script>")
	assert.Contains(t, stdout, "? hologram\\x1b[31m (unknown type")
	assert.Contains(t, stdout, "⋯ <script>: ls & rm · still running")
	assert.Contains(t, stdout, "line1\n")
	assert.Contains(t, stdout, "no run_finished")
	assert.Less(t, len(stdout), 10000, "labels are cut")
	golden(t, "cat-hostile.txt", []byte(stdout))
}

func TestCatFollow(t *testing.T) {
	old := pollInterval
	pollInterval = 5 * time.Millisecond
	t.Cleanup(func() { pollInterval = old })
	full, err := os.ReadFile(runFile)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "live.jsonl")
	require.NoError(t, os.WriteFile(path, nil, 0o644))
	go func() {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			panic(err)
		}
		defer f.Close()
		// Write in pieces that cut lines in the middle.
		for i := 0; i < len(full); i += 333 {
			f.Write(full[i:min(i+333, len(full))])
			time.Sleep(2 * time.Millisecond)
		}
	}()
	done := make(chan struct{})
	var code int
	var stdout string
	go func() {
		defer close(done)
		code, stdout, _ = runCmd(t, "", "cat", "-f", path)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("cat -f did not stop after run_finished")
	}
	assert.Equal(t, 0, code)
	_, want, _ := runCmd(t, "", "cat", runFile)
	assert.Equal(t, want, stdout)
}

func TestValidateCommand(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/invalid/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	code, stdout, _ := runCmd(t, "", append([]string{"validate"}, paths...)...)
	assert.Equal(t, 1, code)
	golden(t, "validate-invalid.txt", []byte(stdout))
	for _, p := range paths {
		assert.Contains(t, stdout, p, "every invalid stream has a finding")
	}

	code, stdout, _ = runCmd(t, "", append([]string{"validate", "--json"}, paths...)...)
	assert.Equal(t, 1, code)
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var f struct {
			File, Rule, Message string
			Line                int
		}
		require.NoError(t, json.Unmarshal([]byte(line), &f), line)
		assert.NotEmpty(t, f.File)
		assert.NotEmpty(t, f.Rule)
		assert.NotEmpty(t, f.Message)
	}

	code, stdout, stderr := runCmd(t, "", "validate", runFile)
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout, "a valid stream prints nothing")

	code, _, _ = runCmd(t, "", "validate", "--exit-code", "2", "-")
	assert.Equal(t, 0, code, "no line with exit 2 is a blocked preflight")

	old := "../../testdata/invalid-strict/strict-old-v1.jsonl"
	code, stdout, _ = runCmd(t, "", "validate", old)
	assert.Equal(t, 0, code, "a stream written before a field existed is valid v1")
	assert.Empty(t, stdout)
	code, stdout, _ = runCmd(t, "", "validate", "--strict", old)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, `missing required field "summary.stats.user_messages"`)
	code, stdout, _ = runCmd(t, "", "stats", "--check", old)
	assert.Equal(t, 0, code, "stats --check compares only the fields the summary has")
	assert.Empty(t, stdout)
}

func TestStatsCommand(t *testing.T) {
	code, stdout, stderr := runCmd(t, "", "stats", runFile)
	require.Equal(t, 0, code, stderr)
	golden(t, "stats-run.json", []byte(stdout))

	code, stdout, _ = runCmd(t, "", "stats", "--check", runFile)
	assert.Equal(t, 0, code)
	assert.Empty(t, stdout)

	code, stdout, _ = runCmd(t, "", "stats", "--check", "../../testdata/invalid/stats.jsonl")
	assert.Equal(t, 1, code)
	assert.Equal(t, "stats.model_ms is 5356, recomputed 5355\n", stdout)

	code, _, stderr = runCmd(t, "", "stats", "--check", "../../testdata/invalid/run-finished-missing.jsonl")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "no run_finished summary to check against")
}

func parseSVG(t *testing.T, b []byte) testenv.SVG { return testenv.ParseSVG(t, b) } // the picture, as the tests read it

func TestTimeline(t *testing.T) {
	code, stdout, stderr := runCmd(t, "", "timeline", runFile)
	require.Equal(t, 0, code, stderr)
	golden(t, "timeline-run.svg", []byte(stdout))
	doc := parseSVG(t, []byte(stdout))
	type want struct {
		class string
		x     float64
		lane  int
		title string
	}
	// The run spans 0–5521 ms over 1070 px from x=110.
	x := func(ms float64) float64 { return 110 + ms/5521*1070 }
	var got []want
	for _, r := range doc.Rects {
		if strings.HasPrefix(r.Class, "bar ") {
			got = append(got, want{r.Class, r.X, (int(r.Y) - 70) / 28, r.Title})
		}
	}
	wants := []want{
		{"bar model", x(31), 0, "turn 1 · 2.686s"},
		{"bar model", x(2845), 0, "turn 2 · 2.669s"},
		{"bar tool", x(2723), 2, "Bash: ls · exit 0 · 95ms"},
		{"bar tool", x(2728), 3, "Bash: wc -l a.txt · exit 0 · 94ms"},
		{"bar failed", x(2731), 4, "Bash: cat b.txt · exit 1 · 109ms"},
	}
	require.Len(t, got, len(wants))
	for i, w := range wants {
		assert.Equal(t, w.class, got[i].class)
		assert.InDelta(t, w.x, got[i].x, 0.06)
		assert.Equal(t, w.lane, got[i].lane)
		assert.Equal(t, w.title, got[i].title)
	}

	out := filepath.Join(t.TempDir(), "run.svg")
	code, stdout, _ = runCmd(t, "", "timeline", "-o", out, runFile)
	assert.Equal(t, 0, code)
	assert.Empty(t, stdout)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	golden(t, "timeline-run.svg", b)
}

func TestTimelineEscapesText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	require.NoError(t, os.WriteFile(path, hostileStream(t), 0o644))
	code, stdout, _ := runCmd(t, "", "timeline", path)
	assert.Equal(t, 0, code)
	assert.NotContains(t, stdout, "<script>")
	assert.NotContains(t, stdout, "\x1b")
	doc := parseSVG(t, []byte(stdout))
	var titles []string
	for _, r := range doc.Rects {
		if r.Title != "" {
			titles = append(titles, r.Title)
		}
	}
	assert.Contains(t, titles, "<script>: ls & rm · still running · 3ms", "the label stays text; a cut-off run ends at its last line, as in the stats")
	assert.Contains(t, strings.Join(doc.Texts, "\n"), `run\x1b]0;pwned\x07`)
}

var fakeUagent string

// cleanupSelf removes the build of the command made by self, if any;
// cleanupMany the history of manyRuns, if one was written.
var cleanupSelf, cleanupMany = func() {}, func() {}

func TestMain(m *testing.M) {
	testenv.MainWithFake(m, "../../testdata/fakeuagent", &fakeUagent, func() { cleanupSelf(); cleanupMany() })
}

func TestSchemaCommand(t *testing.T) {
	code, stdout, _ := runCmd(t, "", "schema")
	assert.Equal(t, 0, code)
	line, err := os.ReadFile("../../schema/line.schema.json")
	require.NoError(t, err)
	assert.Equal(t, string(line), stdout)
	code, stdout, _ = runCmd(t, "", "schema", "tool_called")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"title": "tool_called"`)
	code, _, stderr := runCmd(t, "", "schema", "hologram")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `no schema "hologram"`)
	code, stdout, _ = runCmd(t, "", "schema", "--strict", "line")
	assert.Equal(t, 0, code)
	strict, err := os.ReadFile("../../schema/strict/line.schema.json")
	require.NoError(t, err)
	assert.Equal(t, string(strict), stdout)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// cat marks as still running exactly the operations left open at the
// end, in the order they started, by the independent reference: on the
// bundled and conformance streams, the edge cases and 500 random runs
// (whose names and labels are short and printable, as the test checks, so
// that they are shown as they are).
func TestCatStillRunningIsTheReferences(t *testing.T) {
	cases, err := runs.Cases("../..", 500)
	require.NoError(t, err)
	printable := regexp.MustCompile(`^[ -~]{0,39}: [ -~]{0,100}$`)
	for name, b := range cases {
		var want []string
		for _, what := range runs.StillRunning(b) {
			require.Regexp(t, printable, what, "%s: a name or label this test does not expect", name)
			want = append(want, "⋯ "+what+" · still running")
		}
		_, out, _ := runCmd(t, string(b), "cat", "--no-color", "-")
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if i := strings.Index(l, "⋯ "); i >= 0 {
				got = append(got, l[i:])
			}
		}
		if !slices.Equal(want, got) {
			t.Fatalf("%s: still running (-reference +cat):\n%s", name, cmp.Diff(want, got))
		}
	}
}

// The package doc's synopsis is the command table's: each command with
// its flags as its help gives them.
func TestPackageDocSynopsis(t *testing.T) {
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	var doc []string
	for _, l := range strings.Split(string(src), "\n") {
		if s, ok := strings.CutPrefix(l, "//\tuagent-stream "); ok {
			doc = append(doc, s)
		}
	}
	var want []string
	for _, c := range commands {
		want = append(want, strings.TrimSpace(c.name+" "+c.synopsis))
	}
	assert.Equal(t, want, doc)
}

// Every command of the help runs, and nothing runs that the help does not
// list.
func TestEveryCommandRuns(t *testing.T) {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
		assert.NotNil(t, runners[c.name], c.name)
	}
	assert.Len(t, runners, len(names))
}

// The command stays a thin shell: under 2,500 lines of Go besides its
// tests. What a Go program would want too belongs in a package.
func TestTheCommandStaysThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		lines += bytes.Count(b, []byte("\n"))
	}
	assert.Less(t, lines, 2500, "lines of the command's Go")
}
