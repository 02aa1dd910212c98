//go:build unix

package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// a2a serves the command to other agents: the serving line, with the real
// port (0 picks one), the card naming it; a task runs the command with the
// message as its prompt; a --public address needs a token; the runs still
// going end with the server.
func TestA2ACommand(t *testing.T) {
	code, _, stderr := runCmd(t, "", "a2a")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "want a COMMAND")
	code, _, stderr = runCmd(t, "", "a2a", "--addr", "0.0.0.0:0", "--", "uagent")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--public")
	code, _, stderr = runCmd(t, "", "a2a", "--token-file", t.TempDir()+"/none", "--", "uagent")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "uagent-stream: a2a: --token-file", "the command that failed is named")

	state := t.TempDir()
	cmd := exec.Command(self(t), "a2a", "--addr", "127.0.0.1:0", "--state-dir", state, "--", fakeUagent, "-state")
	cmd.Env = append(os.Environ(), "UAGENT_STATE_DIR="+state)
	base, stderrBuf := startServing(t, cmd)
	url := base + "/"

	resp, err := http.Get(url + ".well-known/agent-card.json")
	require.NoError(t, err)
	var card a2a.AgentCard
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&card))
	resp.Body.Close()
	require.NotEmpty(t, card.SupportedInterfaces)
	assert.Equal(t, url, card.SupportedInterfaces[0].URL, "the card names the real port")
	assert.True(t, card.Capabilities.Streaming)

	client, err := a2aclient.NewFromCard(t.Context(), &card)
	require.NoError(t, err)
	defer client.Destroy()
	res, err := client.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("how many files?"))})
	require.NoError(t, err)
	task := res.(*a2a.Task)
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	require.NotEmpty(t, task.Artifacts)
	assert.Equal(t, "answer to: how many files?", task.Artifacts[0].Parts[0].Text())

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	waitExit(t, cmd)
	assert.Equal(t, 0, cmd.ProcessState.ExitCode(), stderrBuf.String())
	assert.False(t, strings.Contains(stderrBuf.String(), "panic"))
}
