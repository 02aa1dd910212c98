package stream

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testdata/run.jsonl is written by the Sink from realisticRun; its
// run_finished summary is pinned here, every field, by hand from the lines
// above it (times are 12:39:SS.mmm on 2026-09-23):
//
//	event_span_ms      5500  first observed 18.974 (control_input; run_started and the
//	                         preflight warning are not observed) to the latest, 24.474
//	model_ms           5355  turn 1 [18.991, 21.677] 2686 + turn 2 [21.805, 24.474] 2669
//	tool_busy_ms        117  [21.683, 21.778] ∪ [21.688, 21.782] ∪ [21.691, 21.800] = [21.683, 21.800]
//	tool_model_overlap    0  the tools ran between the two turns
//	turns 2, user_messages 1, model_responses 2
//	tool_calls 3, failed 1   call_ls, call_wc, call_cat; call_cat finished ok:false
//	max_parallel_tools 3     all three run from 21.691 to 21.778
//	tools_by_name            Bash: 3
//	tokens                   input 554+801, cached 0+512, cache_write 0, output 61+19, reasoning 12+0
//	stop_reasons, failures,  none: both responses stop "complete", no failure,
//	errors                   no runner_error
//	warnings                 the preflight warning's message
//	final_answer, answer     the final assistant_message
//	wall_ms            5521  started 18.960 (run_started) to run_finished 24.481
//	status ok, exit 0        exit 0, no errors or failures
func TestRunJSONLByHand(t *testing.T) {
	want := SummaryDTO{
		V: 1, Status: "ok", RunnerExitCode: 0,
		RunID: "20260923T123918Z-demo", SessionID: "7ef82dc2", Provider: "openai-codex", Model: "gpt-6-sol",
		Effort: "high", Workspace: "/home/dev/demo",
		StartedAt: time.Date(2026, 9, 23, 12, 39, 18, 960_000_000, time.UTC), WallMS: 5521,
		Stats: StatsDTO{
			EventSpanMS: 5500, ModelMS: 5355, ToolBusyMS: 117, ToolModelOverlapMS: 0,
			Turns: 2, UserMessages: 1, ModelResponses: 2, ToolCalls: 3, FailedToolCalls: 1, MaxParallelTools: 3,
			ToolsByName: map[string]int{"Bash": 3},
			Tokens:      TokensDTO{Input: 1355, CachedInput: 512, CacheWriteInput: 0, Output: 80, Reasoning: 12},
			Warnings:    []string{"credentials expire in 2 days"},
			FinalAnswer: true,
		},
		Answer: "a.txt has 3 lines; b.txt does not exist.",
	}
	b, err := os.ReadFile("testdata/run.jsonl")
	require.NoError(t, err)
	r, err := Summarize(bytes.NewReader(b))
	require.NoError(t, err)
	require.NotNil(t, r.Recorded)
	if d := cmpDiff(want, *r.Recorded); d != "" {
		t.Errorf("the golden's summary (-by hand +recorded):\n%s", d)
	}
	if d := cmpDiff(want, r.Summary); d != "" {
		t.Errorf("the summary recomputed from its lines (-by hand +recomputed):\n%s", d)
	}
}
