package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/uagentkit/stream/internal/jsonparse"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// invalidStreams has one invalid stream per rule: the realistic run with one
// thing broken, and the findings Validate must give for it, in strict mode
// when strict is set (the stream is then valid in the default mode).
func invalidStreams(t testing.TB) map[string]struct {
	stream []byte
	want   []Finding
	strict bool
} {
	run := lines(write(t, realisticRun()))
	n := len(run)
	join := func(ls [][]byte) []byte { return append(bytes.Join(ls, []byte("\n")), '\n') }
	with := func(i int, line string) []byte {
		ls := append([][]byte{}, run...)
		ls[i] = []byte(line)
		return join(ls)
	}
	replace := func(i int, old, new string) []byte {
		return with(i, strings.Replace(string(run[i]), old, new, 1))
	}
	edit := func(edits map[int][2]string) []byte {
		ls := append([][]byte{}, run...)
		for i, e := range edits {
			ls[i] = []byte(strings.Replace(string(ls[i]), e[0], e[1], 1))
		}
		return join(ls)
	}
	type c = struct {
		stream []byte
		want   []Finding
	}
	stats := func(line int, msgs ...string) []Finding {
		var fs []Finding
		for _, m := range msgs {
			fs = append(fs, Finding{Line: line, Rule: RuleStats, Message: m})
		}
		return fs
	}
	cases := map[string]c{
		"json": {with(3, `{"v":1,"type":"user_message"`), append([]Finding{{4, RuleJSON,
			"byte 474: user_message: invalid JSON: unexpected end of line, want ',' or '}'"}},
			stats(n, "stats.user_messages is 1, recomputed 0")...)},
		"version": {replace(2, `"v":1`, `"v":2`), append([]Finding{{3, RuleVersion, "byte 344: control_input: field \"v\": unsupported version: v is 2, this reader knows 1"}},
			stats(n, "stats.event_span_ms is 5500, recomputed 5494")...)},
		"first": {join(run[1:]), []Finding{{1, RuleFirst, "the first line is preflight_warning, want run_started"}}},
		"run-finished-twice": {join(append(append([][]byte{}, run...), run[n-1])),
			[]Finding{{n + 1, RuleFinished, "run_finished after run_finished (line 21): run_finished must be the last line"}}},
		"run-finished-missing": {join(run[:n-1]), []Finding{{0, RuleFinished, "no run_finished: the stream was cut off after line 20"}}},
		"required": {replace(8, `"call_id":"call_ls",`, ``), []Finding{{9, RuleRequired, `missing required field "call_id"`},
			{n, RuleStats, "stats.tool_calls is 3, recomputed 4"}, {n, RuleStats, `stats.tools_by_name is {"Bash":3}, recomputed {"Bash":4}`}}},
		"required-finished": {replace(15, `"call_id":"call_wc",`, ``), []Finding{{16, RuleRequired, `missing required field "call_id"`},
			{n, RuleStats, "stats.tool_calls is 3, recomputed 4"}, {n, RuleStats, `stats.tools_by_name is {"Bash":3}, recomputed {"Bash":4}`}}},
		"required-summary-status": {replace(n-1, `"status":"ok",`, ``), []Finding{{n, RuleRequired, `missing required field "summary.status"`},
			{n, RuleStatus, `status "", want one of ok, error, timeout, interrupted, disk_limit`}}},
		"strict-nested": {replace(7, `"cached_input":0,`, ``), []Finding{{8, RuleRequired, `missing required field "usage.cached_input"`}}},
		"strict-old-v1": {edit(map[int][2]string{7: {`"cache_write_input":0,`, ``}, n - 1: {`"user_messages":1,`, ``}}), []Finding{
			{8, RuleRequired, `missing required field "usage.cache_write_input"`}, {n, RuleRequired, `missing required field "summary.stats.user_messages"`}}},
		"first-json":           {with(0, `{"v":1,"type":"run_started",`), []Finding{{1, RuleJSON, "byte 28: run_started: invalid JSON: unexpected end of line, want a string key"}, {1, RuleFirst, "the first line could not be read, want run_started"}}},
		"run-finished-invalid": {replace(n-1, `"status":"ok"`, `"status":1`), []Finding{{n, RuleJSON, "byte 3334: run_finished: field \"summary.status\": wrong JSON type: want string, got number"}, {n, RuleFinished, "the run_finished line at line 21 is invalid: byte 3334: run_finished: field \"summary.status\": wrong JSON type: want string, got number"}}},
		"turn-back":            {replace(5, `"turn":1`, `"turn":3`), []Finding{{8, RuleTurn, "model_responded for turn 1, but the last turn_started is turn 3"}, {18, RuleTurn, "turn 2 after turn 3: turns do not go back"}}},
		"turn-negative":        {replace(19, `"turn":2`, `"turn":-1`), []Finding{{20, RuleTurn, "turn -1: turns count from 1"}}},
		"turn-unstarted": {join(append(append([][]byte{}, run[:5]...), run[6:]...)), append([]Finding{{7, RuleTurn, "model_responded before any turn_started"}},
			stats(n-1, "stats.model_ms is 5355, recomputed 2669", "stats.turns is 2, recomputed 1")...)},
		"tool-op": {replace(14, `"op_id":"op-ls"`, `"op_id":"op-nope"`), append([]Finding{{15, RuleToolOp,
			`tool_finished for op_id "op-nope", which no tool_started began`}}, stats(n, "stats.tool_busy_ms is 117, recomputed 2798", "stats.tool_model_overlap_ms is 0, recomputed 2669")...)},
		"tool-op-ok": {replace(14, `"op_id":"op-ls",`, ``), append([]Finding{{15, RuleToolOp,
			"tool_finished without op_id has ok:true; a call that failed before its operation started has ok:false"}},
			stats(n, "stats.tool_busy_ms is 117, recomputed 2798", "stats.tool_model_overlap_ms is 0, recomputed 2669")...)},
		"turn": {replace(17, `"turn":2`, `"turn":0`), []Finding{{18, RuleTurn, "turn 0: turns count from 1"},
			{19, RuleTurn, "model_responded for turn 2, but the last turn_started is turn 0"}}},
		"stats":       {replace(n-1, `"model_ms":5355`, `"model_ms":5356`), stats(n, "stats.model_ms is 5356, recomputed 5355")},
		"answer":      {replace(n-1, `"answer":"a.txt`, `"answer":"A.txt`), stats(n, `answer is "A.txt has 3 lines; b.txt does not exist.", recomputed "a.txt has 3 lines; b.txt does not exist."`)},
		"status":      {replace(n-1, `"status":"ok"`, `"status":"fine"`), []Finding{{n, RuleStatus, `status "fine", want one of ok, error, timeout, interrupted, disk_limit`}}},
		"ended-empty": {nil, []Finding{{0, RuleEnded, "no line: only a run blocked in preflight (exit 2) writes none"}}},
		"ended-start": {join(run[:2]), []Finding{{0, RuleEnded, "the stream stops after run_started without run_finished: only a runner that could not start (exit 1) ends so"}}},
	}
	out := map[string]struct {
		stream []byte
		want   []Finding
		strict bool
	}{}
	for name, c := range cases {
		out[name] = struct {
			stream []byte
			want   []Finding
			strict bool
		}{c.stream, c.want, strings.HasPrefix(name, "strict-")}
	}
	return out
}

func TestInvalidFixtures(t *testing.T) {
	for name, c := range invalidStreams(t) {
		dir := "invalid"
		if c.strict {
			dir = "invalid-strict"
		}
		golden(t, filepath.Join(dir, name+".jsonl"), c.stream)
	}
}

func TestValidate(t *testing.T) {
	t.Run("valid streams give nothing", func(t *testing.T) {
		fs, err := Validate(bytes.NewReader(write(t, realisticRun())), WithStrict())
		require.NoError(t, err)
		assert.Empty(t, fs)
		for name, b := range conformance(t) {
			fs, err := Validate(bytes.NewReader(b))
			require.NoError(t, err)
			assert.Empty(t, fs, name)
		}
	})
	t.Run("unknown types and fields are valid", func(t *testing.T) {
		run := lines(write(t, realisticRun()))
		extra := []byte(`{"v":1,"type":"hologram","at":"2026-09-23T12:39:19Z","beam":1}`)
		ls := append([][]byte{run[0], extra}, run[1:]...)
		ls[3] = bytes.Replace(ls[3], []byte(`{"v":1,`), []byte(`{"v":1,"new_field":[1],`), 1)
		fs, err := Validate(bytes.NewReader(append(bytes.Join(ls, []byte("\n")), '\n')))
		require.NoError(t, err)
		assert.Empty(t, fs)
	})
	for name, c := range invalidStreams(t) {
		t.Run(name, func(t *testing.T) {
			var opts []ValidateOption
			if c.strict {
				fs, err := Validate(bytes.NewReader(c.stream))
				require.NoError(t, err)
				assert.Empty(t, fs, "valid in the default, compatible mode")
				opts = append(opts, WithStrict())
			}
			fs, err := Validate(bytes.NewReader(c.stream), opts...)
			require.NoError(t, err)
			assert.Equal(t, fmt.Sprint(c.want), fmt.Sprint(fs))
			if !c.strict {
				fs, err := Validate(bytes.NewReader(c.stream), WithStrict())
				require.NoError(t, err)
				assert.Equal(t, fmt.Sprint(c.want), fmt.Sprint(fs), "strict mode finds the same")
			}
		})
	}
	t.Run("allowed endings with the exit code", func(t *testing.T) {
		fs, err := Validate(bytes.NewReader(nil), WithExitCode(ExitUsage))
		require.NoError(t, err)
		assert.Empty(t, fs)
		start := write(t, []Event{RunStarted{At: t0}, PreflightWarning{At: t0, Message: "w"}})
		fs, err = Validate(bytes.NewReader(start), WithExitCode(ExitError))
		require.NoError(t, err)
		assert.Empty(t, fs)
		fs, err = Validate(bytes.NewReader(start), WithExitCode(ExitUsage))
		require.NoError(t, err)
		assert.Len(t, fs, 1)
	})
	t.Run("no count changes the verdict", func(t *testing.T) {
		for _, n := range []int{1, 7, 8, 9, 100, 20000} {
			evs := []Event{RunStarted{At: t0}}
			for range n {
				evs = append(evs, PreflightWarning{At: t0, Message: "w"})
			}
			start := write(t, evs)
			fs, err := Validate(bytes.NewReader(start), WithExitCode(ExitError))
			require.NoError(t, err)
			assert.Empty(t, fs, "%d warnings after run_started end a run that could not start", n)
			fs, err = Validate(bytes.NewReader(append(start, write(t, []Event{UserMessage{At: t0}})...)), WithExitCode(ExitError))
			require.NoError(t, err)
			require.Len(t, fs, 1, "%d warnings, then a message: cut off", n)
			assert.Equal(t, RuleFinished, fs[0].Rule)
		}
	})
	t.Run("findings beyond the kept ones still fail the stream", func(t *testing.T) {
		var b bytes.Buffer
		for range maxFindings + 10 {
			b.WriteString("not json\n")
		}
		fs, err := Validate(&b)
		require.NoError(t, err)
		assert.Len(t, fs, maxFindings, "the first findings are kept")
	})
}

func TestValidateFixturesOnDisk(t *testing.T) {
	paths, err := filepath.Glob("testdata/invalid*/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		f, err := os.Open(p)
		require.NoError(t, err)
		var opts []ValidateOption
		if filepath.Base(filepath.Dir(p)) == "invalid-strict" {
			opts = append(opts, WithStrict())
		}
		fs, err := Validate(f, opts...)
		f.Close()
		require.NoError(t, err)
		assert.NotEmpty(t, fs, p)
	}
}

func TestFindingsQuoteUnprintableTypes(t *testing.T) {
	b := []byte(`{"v":1,"type":"\u001b[2J","at":"2026-09-23T12:00:00Z"}` + "\n")
	fs, err := Validate(bytes.NewReader(b))
	require.NoError(t, err)
	require.NotEmpty(t, fs)
	assert.Equal(t, `the first line is "\x1b[2J", want run_started`, fs[0].Message)
}

// The limits kept on purpose, each at its edge: nesting as deep as
// encoding/json allows is read, one level more is an error as it is there;
// line errors are counted exactly beyond the first ones kept.
func TestLimitsAtTheirEdges(t *testing.T) {
	// Each prefix opens the given number of objects before the nesting.
	for prefix, open := range map[string]int{
		`{"v":1,"type":"x","at":"2026-09-23T12:00:00Z","deep":`:                                              1,
		`{"v":1,"type":"run_finished","at":"2026-09-23T12:00:00Z","summary":{"stats":{"failures":[`:          4,
		`{"v":1,"type":"run_finished","at":"2026-09-23T12:00:00Z","summary":{"stats":{"turns":`:              3,
		`{"v":1,"type":"run_finished","at":"2026-09-23T12:00:00Z","summary":{"stats":{"x":`:                  3,
		`{"v":1,"type":"run_finished","at":"2026-09-23T12:00:00Z","summary":{"stats":{"tools_by_name":{"a":`: 4,
	} {
		closing := strings.Repeat("}", open)
		if strings.HasSuffix(prefix, "[") {
			closing = "]" + strings.Repeat("}", open-1)
		}
		for _, depth := range []int{jsonparse.MaxDepth, jsonparse.MaxDepth + 1} {
			n := depth - open
			line := []byte(prefix + strings.Repeat("[", n) + strings.Repeat("]", n) + closing + "\n")
			var v any
			jsonErr := json.Unmarshal(line, &v)
			_, err := NewDecoder(bytes.NewReader(line)).Decode()
			syntax := errors.Is(err, ErrSyntax)
			assert.Equal(t, jsonErr != nil, syntax, "depth %d after %.60s: as encoding/json (%v, %v)", depth, prefix, jsonErr, err)
		}
	}
	var b bytes.Buffer
	for range maxKeptErrors + 5 {
		b.WriteString("not json\n")
	}
	r, err := Summarize(&b)
	require.NoError(t, err)
	assert.Equal(t, maxKeptErrors+5, r.LineErrors, "counted exactly")
	assert.Len(t, r.FirstErrors, maxKeptErrors)
}
