package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/history"
)

// prices prints the table in force: each row with the day it applies
// from, its long-context rule, its source and the day it was checked; as
// JSON, the rows in prices.json's shape, which read back as the table;
// with --prices, the file's rows in place of the built-in ones, a hostile
// model's name escaped on every output.
func TestPricesCommand(t *testing.T) {
	t.Setenv("COLUMNS", "400")
	code, stdout, stderr := runCmd(t, "", "prices")
	require.Equal(t, 0, code, stderr)
	var sol []string
	for _, l := range strings.Split(stdout, "\n") {
		if c := columns(l); len(c) > 1 && c[0] == "openai" && c[1] == "gpt-5.6-sol" {
			sol = append(sol, l)
		}
	}
	require.Len(t, sol, 2, stdout)
	assert.Equal(t, []string{"openai", "gpt-5.6-sol", "5", "0.5", "6.25", "–", "30", "> 272,000: 10 / 45", "2026-12-03"}, columns(sol[0])[:9])
	assert.Equal(t, []string{"openai", "gpt-5.6-sol", "2026-08-21", "4", "0.4", "5", "–", "20", "> 272,000: 8 / 30", "2026-10-06",
		"https://developers.openai.com/api/docs/models/gpt-5.6-sol"}, columns(sol[1]))

	code, stdout, _ = runCmd(t, "", "prices", "--json")
	require.Equal(t, 0, code)
	back, err := history.ParsePrices(strings.NewReader(stdout))
	require.NoError(t, err)
	assert.Equal(t, history.DefaultPrices().Rows(), back.Rows())

	file := filepath.Join(t.TempDir(), "litellm.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"evil\u001b]52;c;x\u0007\u202e": {"litellm_provider": "openai", "input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06}}`), 0o644))
	code, stdout, _ = runCmd(t, "", "prices", "--prices", file)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, `evil\x1b]52;c;x\x07\u202e`)
	assert.NotContains(t, stdout, "\x1b")
	code, stdout, _ = runCmd(t, "", "prices", "--json", "--prices", file)
	require.Equal(t, 0, code)
	assert.NotContains(t, stdout, "\x1b")
	assert.NotContains(t, stdout, "\u202e")
	assert.Contains(t, stdout, `"model": "evil\u001b]52;c;x\u0007\u202e"`)

	code, _, stderr = runCmd(t, "", "prices", "extra")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "takes no FILE")
}
