//go:build unix

package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run that stops after run_started, and one cut off mid-run, each
// exiting 0 and 1: run's closing line says the ending its outcome line
// says, and serve's end event says the same. The contract calls only the
// first with exit 1 "could not start".
func TestRunServeAndOutcomeAgree(t *testing.T) {
	for _, c := range []struct {
		name   string
		lines  string
		exit   int
		ending string
	}{
		{"only run_started, exit 1", "1", 1, "start_failed"},
		{"only run_started, exit 0", "1", 0, "cut_off"},
		{"cut off mid-run, exit 1", "12", 1, "cut_off"},
		{"cut off mid-run, exit 0", "12", 0, "cut_off"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{fakeUagent, "-replay", runFile, "-lines", c.lines, "-exit", fmt.Sprint(c.exit)}
			code, stdout, stderr := runCmd(t, "", append([]string{"run", "--no-color", "--"}, args...)...)
			assert.Equal(t, c.exit, code)
			closing := regexp.MustCompile(`(?m)^── (\w+): `).FindAllStringSubmatch(stdout, -1)
			require.Len(t, closing, 1, stdout)
			assert.Equal(t, c.ending, closing[0][1], "run's closing line")
			assert.Contains(t, stderr, fmt.Sprintf(": %s, status error, exit %d, %s lines", c.ending, c.exit, c.lines), "run's outcome line")

			url, cmd, _ := served(t, nil, append([]string{"--"}, args...)...)
			res, err := http.Get(url + "/events")
			require.NoError(t, err)
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			require.NoError(t, err)
			assert.Contains(t, string(body), fmt.Sprintf("event: end\ndata: {\"ending\":%q,\"status\":\"error\",\"exit_code\":%d}\n\n", c.ending, c.exit),
				"serve's end event")
			require.NoError(t, cmd.Process.Signal(os.Interrupt))
			waitExit(t, cmd)
		})
	}
}
