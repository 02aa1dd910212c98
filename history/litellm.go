package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// litellmEntry is what the price table reads of an entry of LiteLLM's
// model_prices_and_context_window.json: per-token costs in USD.
type litellmEntry struct {
	Provider        string   `json:"litellm_provider"`
	Mode            string   `json:"mode"`
	Input           *float64 `json:"input_cost_per_token"`
	Output          *float64 `json:"output_cost_per_token"`
	CacheRead       *float64 `json:"cache_read_input_token_cost"`
	CacheCreation   *float64 `json:"cache_creation_input_token_cost"`
	CacheCreation1h *float64 `json:"cache_creation_input_token_cost_above_1hr"`
}

// The providers of LiteLLM's table whose rows also price another
// provider of uagent's: openai-codex runs OpenAI's models, billed by a
// ChatGPT plan, and its estimate is their API price.
var litellmAlso = map[string]string{"openai": "openai-codex"}

// parseLiteLLM reads LiteLLM's table: an object of entries by model id,
// "provider/model" or the model alone. An entry becomes a row of its
// litellm_provider and the id without that provider's prefix, with its
// per-token costs as rates per million tokens (rounded to a billionth of
// a dollar, so 1.25e-06 reads as 1.25): input_cost_per_token,
// cache_read_input_token_cost, cache_creation_input_token_cost (and
// ..._above_1hr), output_cost_per_token, and the costs of a request above
// N thousand tokens (input_cost_per_token_above_Nk_tokens and the rest,
// the lowest N). An entry without a provider or without an input or an
// output cost (an image model, the sample_spec) is no row: its model stays
// unpriced, never free. OpenAI's rows price openai-codex too. The rows
// have no source and no date (ReadPrices gives them the file's).
func parseLiteLLM(b []byte) (Prices, error) {
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(b, &entries); err != nil {
		return Prices{}, notJSON(b, err, "not LiteLLM's object of models")
	}
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	p := Prices{rows: map[[2]string][]Price{}, plans: map[string]string{}}
	for _, key := range keys {
		raw := entries[key]
		if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
			continue // not an entry (a comment, a version)
		}
		var e litellmEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			off := bytes.Index(b, raw)
			return Prices{}, &PricesError{Line: lineAt(b, off), Field: key, Err: fmt.Errorf("not a LiteLLM model entry: %v", err)}
		}
		if e.Provider == "" || e.Input == nil || e.Output == nil {
			continue
		}
		var rest map[string]json.RawMessage
		_ = json.Unmarshal(raw, &rest) // it decoded above
		row := Price{
			Provider: e.Provider, Model: strings.TrimPrefix(key, e.Provider+"/"),
			Input: perMillion(e.Input), Output: perMillion(e.Output), CachedInput: perMillion(e.CacheRead),
			CacheWriteInput: perMillion(e.CacheCreation), CacheWrite1hInput: perMillion(e.CacheCreation1h),
		}
		row.LongContext = litellmAbove(rest)
		if err := row.check(); err != nil {
			pe := err.(*PricesError)
			pe.Line, pe.Field = lineAt(b, bytes.Index(b, raw)), key+"."+pe.Field
			return Prices{}, pe
		}
		rows := []Price{row}
		if also, ok := litellmAlso[row.Provider]; ok {
			alias := row
			alias.Provider = also
			rows = append(rows, alias)
		}
		for _, r := range rows {
			if _, dup := p.rows[[2]string{r.Provider, r.Model}]; dup {
				continue // "openai/gpt-x" and "gpt-x": the first by key
			}
			_ = p.add(r)
		}
	}
	return p, nil
}

// litellmAbove is an entry's long-context rates: its costs above the
// lowest threshold it names (input_cost_per_token_above_272k_tokens).
func litellmAbove(fields map[string]json.RawMessage) *LongContext {
	const prefix, suffix = "input_cost_per_token_above_", "k_tokens"
	lowest := int64(-1)
	for k := range fields {
		if n, ok := strings.CutPrefix(k, prefix); ok {
			if n, ok := strings.CutSuffix(n, suffix); ok {
				if v, err := strconv.ParseInt(n, 10, 32); err == nil && v > 0 && (lowest < 0 || v < lowest) {
					lowest = v
				}
			}
		}
	}
	if lowest < 0 {
		return nil
	}
	at := "_above_" + strconv.FormatInt(lowest, 10) + suffix
	rate := func(name string) *float64 {
		var v *float64
		if raw, ok := fields[name+at]; ok {
			_ = json.Unmarshal(raw, &v)
		}
		return perMillion(v)
	}
	return &LongContext{Above: lowest * 1000, Input: rate("input_cost_per_token"), CachedInput: rate("cache_read_input_token_cost"),
		CacheWriteInput: rate("cache_creation_input_token_cost"), Output: rate("output_cost_per_token")}
}

// perMillion is a per-token cost as a rate per million tokens, rounded to
// a billionth.
func perMillion(v *float64) *float64 {
	if v == nil {
		return nil
	}
	r := math.Round(*v*1e15) / 1e9
	return &r
}
