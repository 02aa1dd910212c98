//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/sessions"
)

// cat -f shows the text as the model writes it, and the response's own
// text does not come again; a stream reset marks what it voided; the
// session is followed until Ctrl-C (there is no closing event), which
// between runs ends it with exit 0, and during a run with 130.
func TestCatFollowASession(t *testing.T) {
	full := sessions.Write(aSession)
	path := filepath.Join(t.TempDir(), "live.jsonl")
	require.NoError(t, os.WriteFile(path, nil, 0o644))
	cmd := exec.Command(self(t), "cat", "-f", "--no-color", path)
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Start())
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	for i := 0; i < len(full); i += 400 { // lines cut in the middle, as a writer's pieces come
		_, err := f.Write(full[i:min(i+400, len(full))])
		require.NoError(t, err)
		time.Sleep(3 * time.Millisecond)
	}
	require.NoError(t, f.Close())
	require.Eventually(t, func() bool { return strings.Count(out.String(), "── idle") == 2 }, 10*time.Second, 10*time.Millisecond, "%s", out.String())
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	assert.Equal(t, 0, waitExit(t, cmd), errOut.String())
	stdout := out.String()
	assert.Contains(t, stdout, "assistant ⋯ I'll run the commands.\n")
	assert.NotContains(t, stdout, "assistant: I'll run the commands.", "shown as it streamed, not again")
	assert.Contains(t, stdout, "assistant ⋯ A first try\n")
	assert.Contains(t, stdout, "── stream reset: the streamed text above is void")
	assert.Contains(t, stdout, "answer ⋯ DONE\n")
	assert.NotContains(t, stdout, "answer: DONE")
	assert.Contains(t, stdout, "══ session "+sessions.ID+": 2 runs")

	// Ctrl-C during a run: the run was still going.
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	require.NoError(t, os.WriteFile(cut, sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "hi", Answer: "never", CutOff: true}}}), 0o644))
	cmd = exec.Command(self(t), "cat", "-f", "--no-color", cut)
	out = syncBuffer{}
	cmd.Stdout = &out
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "answer ⋯ never") }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	assert.Equal(t, 130, waitExit(t, cmd))
	assert.Contains(t, out.String(), "── interrupted: the run was still going (no run_finished yet)")
}

// run of a command that writes a session stream: the outcome is the last
// run's, with every line of the session counted; the rendering ends with
// the session's totals.
func TestRunASession(t *testing.T) {
	path := sessionFile(t, sessions.Options{Runs: []sessions.Run{{Message: "one", Answer: "DONE"}, {Message: "two", Answer: "cut", CutOff: true}}})
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Count(string(b), "\n")
	code, stdout, stderr := runCmd(t, "", "run", "--no-color", "--", "cat", path)
	assert.Equal(t, 0, code, "the process's exit code")
	assert.Contains(t, stderr, "uagent-stream: cat: cut_off, status error, exit 0, "+itoa(lines)+" lines", "the last run's verdict")
	assert.Contains(t, stdout, "══ session "+sessions.ID+": 2 runs")
	assert.Contains(t, stdout, "answer ⋯ cut\n── cut_off: no run_finished: the stream was cut off", "live, the text as it streamed")

	// cat of the same, whole: what streamed without a response, at the end
	// of its run.
	_, stdout, _ = runCmd(t, "", "cat", "--no-color", path)
	assert.Contains(t, stdout, "assistant (streamed, no response): cut\n          reasoning (streamed, no response): Thinking it over.\n── cut_off: no run_finished")
}

// run --otel of a command that writes a session stream: a trace per run.
func TestRunOtelOfASession(t *testing.T) { otelOfASession(t, "run") }

// cat -f of a session stream whose file is replaced (or truncated) starts
// over with a separator and follows the new stream, as for a run's
// stream: it does not give up.
func TestCatFollowASessionReplaced(t *testing.T) {
	first := sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "one", Answer: "FIRST"}}})
	second := sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "two", Answer: "SECOND"}}})
	dir := t.TempDir()
	path := filepath.Join(dir, "live.jsonl")
	require.NoError(t, os.WriteFile(path, first, 0o644))
	cmd := exec.Command(self(t), "cat", "-f", "--no-color", path)
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "── idle") }, 10*time.Second, 10*time.Millisecond, "%s", out.String())
	tmp := filepath.Join(dir, "new.jsonl")
	require.NoError(t, os.WriteFile(tmp, second, 0o644))
	require.NoError(t, os.Rename(tmp, path)) // a new file at the path
	require.Eventually(t, func() bool {
		return strings.Contains(out.String(), "answer ⋯ SECOND") || strings.Contains(out.String(), "answer: SECOND")
	},
		10*time.Second, 10*time.Millisecond, "%s", out.String())
	require.NoError(t, os.WriteFile(path, first[:len(first)/3], 0o644)) // truncated, in place
	require.Eventually(t, func() bool { return strings.Count(out.String(), "was replaced or truncated: a new run starts") == 2 },
		10*time.Second, 10*time.Millisecond, "%s", out.String())
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	code := waitExit(t, cmd)
	assert.Contains(t, []int{0, 130}, code, errOut.String())
	assert.NotContains(t, errOut.String(), "replaced or truncated", "not an error: it started over")
}
