package stream

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name byte for byte, or rewrites the file
// with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testenv.Golden(t, filepath.Join("testdata", name), got, *update)
}

// t0 is the start of every fixture run.
var t0 = time.Date(2026, 9, 23, 12, 39, 18, 960000000, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// everyEvent has each event type with its optional fields present, then
// absent.
func everyEvent() []Event {
	return []Event{
		RunStarted{At: at(0), RunID: "r1", SessionID: "s1", Provider: "openai-codex", Model: "gpt-6-sol", Effort: "high", Workspace: "/w"},
		RunStarted{At: at(1)},
		PreflightWarning{At: at(2), Code: "auth_expiring", Message: "token expires in 3 days"},
		PreflightWarning{At: at(3)},
		UserMessage{At: at(4), ID: "u1", Text: "hello <world> & \"friends\""},
		UserMessage{At: at(5)},
		DeveloperMessage{At: at(6), ID: "d1", Text: "context\nline 2"},
		DeveloperMessage{At: at(7)},
		ControlInput{At: at(8), ID: "c1", Mode: ControlSettings, Effort: "low", Reason: "budget"},
		ControlInput{At: at(9), ID: "c2", Mode: ControlWhenIdle},
		TurnStarted{At: at(10), Turn: 1, TurnID: "t1"},
		TurnStarted{At: at(11)},
		ModelResponded{At: at(12), Turn: 1, TurnID: "t1", Duration: 2686*time.Millisecond + 999*time.Microsecond,
			Usage: Tokens{InputTokens: 554, CachedInputTokens: 100, CacheWriteInputTokens: 10, OutputTokens: 23, ReasoningTokens: 5},
			Stop:  "max_tokens", Failure: "provider: 500"},
		ModelResponded{At: at(13)},
		ToolCalled{At: at(14), CallID: "call_1", Name: "Bash", Label: "ls && echo <ok>", Arguments: `{"command":"ls && echo <ok>"}`},
		ToolCalled{At: at(15)},
		ToolStarted{At: at(16), CallID: "call_1", OpID: "op1", Name: "Bash", Label: "ls", OpType: "shell", OutPath: "/o", ErrPath: "/e"},
		ToolStarted{At: at(17)},
		ToolFinished{At: at(18), CallID: "call_1", OpID: "op1", Name: "Bash", Label: "ls", OK: true, Detail: "exit 0",
			Duration: 95 * time.Millisecond, OpType: "shell", OutPath: "/o", ErrPath: "/e"},
		ToolFinished{At: at(19)},
		AssistantMessage{At: at(20), Turn: 2, Text: "done ✅", Final: true},
		AssistantMessage{At: at(21)},
		ReasoningSummary{At: at(22), Turn: 2, Text: "thinking\u2028about it"},
		ReasoningSummary{At: at(23)},
		RunnerError{At: at(24), Message: "runner: \x1b[31mboom\x1b[0m"},
		RunnerError{At: at(25)},
		RunFinished{At: at(26), Result: fullResult()},
	}
}

// fullResult is a summary with every optional field present.
func fullResult() Result {
	return Result{
		Request:        Request{RunID: "r1", SessionID: "s1", Provider: "openai-codex", Model: "gpt-6-sol", Effort: "high", Workspace: "/w"},
		Status:         StatusError,
		RunnerExitCode: 1,
		StartedAt:      t0,
		Wall:           5179 * time.Millisecond,
		Stats: Stats{
			EventSpan: time.Second, ModelTime: 2 * time.Second, ToolBusyTime: 3 * time.Second, ToolModelOverlap: 4 * time.Second,
			Turns: 1, UserMessages: 2, ModelResponses: 3, ToolCalls: 4, FailedToolCalls: 5, MaxParallelTools: 6,
			ToolsByName: map[string]int{"Bash": 3, "Apply": 1},
			Tokens:      Tokens{InputTokens: 1, CachedInputTokens: 2, CacheWriteInputTokens: 3, OutputTokens: 4, ReasoningTokens: 5},
			StopReasons: map[string]int{"max_tokens": 1},
			Failures:    []string{"provider: 500"},
			Errors:      []string{"boom"},
			Warnings:    []string{"auth_expiring"},
			FinalAnswer: true,
		},
		Answer: "A; B",
	}
}

// realisticRun is a whole run from run_started to run_finished: a user
// message, two turns, parallel tools, one failing, a final answer. Its
// summary holds the stats the fold computes for it.
func realisticRun() []Event {
	ms := func(n int) time.Time { return at(time.Duration(n) * time.Millisecond) }
	evs := []Event{
		RunStarted{At: ms(0), RunID: "20260923T123918Z-demo", SessionID: "7ef82dc2", Provider: "openai-codex", Model: "gpt-6-sol", Effort: "high", Workspace: "/home/dev/demo"},
		PreflightWarning{At: ms(2), Code: "auth_expiring", Message: "credentials expire in 2 days"},
		ControlInput{At: ms(14), ID: "c-1", Mode: ControlSettings, Effort: "low"},
		UserMessage{At: ms(20), ID: "u-1", Text: "List the files, count the lines of a.txt, and try the missing b.txt."},
		ControlInput{At: ms(26), ID: "c-2", Mode: ControlWhenIdle},
		TurnStarted{At: ms(31), Turn: 1, TurnID: "turn-1"},
		ReasoningSummary{At: ms(1200), Turn: 1, Text: "Three independent commands: run them in parallel."},
		ModelResponded{At: ms(2717), Turn: 1, TurnID: "turn-1", Duration: 2686 * time.Millisecond, Usage: Tokens{InputTokens: 554, OutputTokens: 61, ReasoningTokens: 12}, Stop: StopComplete},
		ToolCalled{At: ms(2717), CallID: "call_ls", Name: "Bash", Label: "ls", Arguments: `{"command":"ls"}`},
		ToolCalled{At: ms(2717), CallID: "call_wc", Name: "Bash", Label: "wc -l a.txt", Arguments: `{"command":"wc -l a.txt"}`},
		ToolCalled{At: ms(2717), CallID: "call_cat", Name: "Bash", Label: "cat b.txt", Arguments: `{"command":"cat b.txt"}`},
		ToolStarted{At: ms(2723), CallID: "call_ls", OpID: "op-ls", Name: "Bash", Label: "ls", OpType: "shell"},
		ToolStarted{At: ms(2728), CallID: "call_wc", OpID: "op-wc", Name: "Bash", Label: "wc -l a.txt", OpType: "shell"},
		ToolStarted{At: ms(2731), CallID: "call_cat", OpID: "op-cat", Name: "Bash", Label: "cat b.txt", OpType: "shell"},
		ToolFinished{At: ms(2818), CallID: "call_ls", OpID: "op-ls", Name: "Bash", Label: "ls", OK: true, Detail: "exit 0", Duration: 95 * time.Millisecond, OpType: "shell", OutPath: "/state/op-ls/out", ErrPath: "/state/op-ls/err"},
		ToolFinished{At: ms(2822), CallID: "call_wc", OpID: "op-wc", Name: "Bash", Label: "wc -l a.txt", OK: true, Detail: "exit 0", Duration: 94 * time.Millisecond, OpType: "shell", OutPath: "/state/op-wc/out", ErrPath: "/state/op-wc/err"},
		ToolFinished{At: ms(2840), CallID: "call_cat", OpID: "op-cat", Name: "Bash", Label: "cat b.txt", OK: false, Detail: "exit 1", Duration: 109 * time.Millisecond, OpType: "shell", OutPath: "/state/op-cat/out", ErrPath: "/state/op-cat/err"},
		TurnStarted{At: ms(2845), Turn: 2, TurnID: "turn-2"},
		ModelResponded{At: ms(5514), Turn: 2, TurnID: "turn-2", Duration: 2669 * time.Millisecond, Usage: Tokens{InputTokens: 801, CachedInputTokens: 512, OutputTokens: 19}, Stop: StopComplete},
		AssistantMessage{At: ms(5514), Turn: 2, Text: "a.txt has 3 lines; b.txt does not exist.", Final: true},
	}
	var c Fold
	for _, e := range evs {
		c.AddEvent(e)
	}
	end := ms(5521)
	c.EndAt(end)
	st := c.Stats()
	return append(evs, RunFinished{At: end, Result: Result{
		Request:   Request{RunID: "20260923T123918Z-demo", SessionID: "7ef82dc2", Provider: "openai-codex", Model: "gpt-6-sol", Effort: "high", Workspace: "/home/dev/demo"},
		Status:    Classify("", 0, st),
		StartedAt: t0, Wall: end.Sub(t0), Stats: st, Answer: c.Answer(),
	}})
}

// write emits evs through a Sink and returns its bytes.
func write(t testing.TB, evs []Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	s := NewSink(&buf)
	for _, e := range evs {
		s.Emit(e)
	}
	require.NoError(t, s.Err())
	return buf.Bytes()
}

// cmpDiff is cmp.Diff that looks into the DTOs' embedded header.
func cmpDiff(want, got any) string {
	return cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true }), cmpopts.IgnoreFields(RunFinishedDTO{}, "absent"))
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}
