package uahstream

import (
	"encoding/json"

	"github.com/uagentkit/stream"
)

// Compaction adds up what uah's compactions spent: each compaction (a
// compacted line; a line of sessions/<id>.compaction.jsonl) and, of
// those whose stats report the summary call's usage (stats.call), the
// calls and their tokens (input includes cached and cache-write input,
// output reasoning, as a run's). A compaction's call is a model call of
// its own, in no run's summary: apart from the runs' tokens, never in
// them.
type Compaction struct {
	Compactions int              `json:"compactions"`
	Calls       int              `json:"calls"`
	Tokens      stream.TokensDTO `json:"tokens"`
}

// Add counts a compaction whose stats are stats (its JSON text, "" for
// none).
func (c *Compaction) Add(stats string) {
	c.Compactions++
	if t, ok := CallUsage(stats); ok {
		c.Calls++
		c.Tokens.Input += t.Input
		c.Tokens.CachedInput += t.CachedInput
		c.Tokens.CacheWriteInput += t.CacheWriteInput
		c.Tokens.Output += t.Output
		c.Tokens.Reasoning += t.Reasoning
	}
}

// callUsage is a usage as uah writes it: the runner's field names (as
// encoding/json matches them, in any case) or snake_case ones.
type callUsage struct {
	InputTokens           int64 `json:"InputTokens"`
	CachedInputTokens     int64 `json:"CachedInputTokens"`
	CacheWriteInputTokens int64 `json:"CacheWriteInputTokens"`
	OutputTokens          int64 `json:"OutputTokens"`
	ReasoningTokens       int64 `json:"ReasoningTokens"`
	Input                 int64 `json:"input_tokens"`
	CachedInput           int64 `json:"cached_input_tokens"`
	CacheWriteInput       int64 `json:"cache_write_input_tokens"`
	Output                int64 `json:"output_tokens"`
	Reasoning             int64 `json:"reasoning_tokens"`
}

// CallUsage is the usage a compaction's stats report for its summary call
// (stats.call), in the runner's field names (InputTokens, …) or
// snake_case (input_tokens, …; read only when the runner's names say
// nothing, so a usage in both is never counted twice); false when the stats have no call (an
// elision or a clear calls no model) or it is not an object.
func CallUsage(stats string) (stream.TokensDTO, bool) {
	if stats == "" {
		return stream.TokensDTO{}, false
	}
	var s struct {
		Call *json.RawMessage `json:"call"`
	}
	if json.Unmarshal([]byte(stats), &s) != nil || s.Call == nil {
		return stream.TokensDTO{}, false
	}
	var u callUsage
	if json.Unmarshal(*s.Call, &u) != nil {
		return stream.TokensDTO{}, false
	}
	runner := stream.TokensDTO{Input: u.InputTokens, CachedInput: u.CachedInputTokens, CacheWriteInput: u.CacheWriteInputTokens,
		Output: u.OutputTokens, Reasoning: u.ReasoningTokens}
	if runner != (stream.TokensDTO{}) { // one naming, never the two added
		return runner, true
	}
	return stream.TokensDTO{Input: u.Input, CachedInput: u.CachedInput, CacheWriteInput: u.CacheWriteInput, Output: u.Output, Reasoning: u.Reasoning}, true
}
