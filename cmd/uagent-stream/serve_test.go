//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/runs"
	"github.com/uagentkit/stream/internal/testenv"
)

// served starts `uagent-stream serve` with args on a free loopback port,
// stdin (when not nil) as its standard input, and returns its base URL and
// the process; it is interrupted at the end of the test.
func served(t *testing.T, stdin io.Reader, args ...string) (string, *exec.Cmd, *syncBuffer) {
	cmd := exec.Command(self(t), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Stdin = stdin
	url, stderr := startServing(t, cmd)
	return url, cmd, stderr
}

// startServing starts cmd, a command that serves on a loopback port (serve,
// a2a), and returns the base URL its serving line names (without the
// final slash) and its standard error; it is interrupted at the end of the
// test.
func startServing(t *testing.T, cmd *exec.Cmd) (string, *syncBuffer) {
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(os.Interrupt)
			waitExit(t, cmd)
		}
	})
	re := regexp.MustCompile(`uagent-stream: serving (http://127\.0\.0\.1:\d+)/`)
	var url string
	require.Eventually(t, func() bool {
		m := re.FindStringSubmatch(stderr.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	}, 10*time.Second, 10*time.Millisecond, stderr.String())
	return url, stderr
}

// sseLines reads /events to its end and returns the event names in order.
func sseEvents(t *testing.T, url string) []string {
	res, err := http.Get(url + "/events")
	require.NoError(t, err)
	defer res.Body.Close()
	var names []string
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			names = append(names, name)
		}
	}
	return names
}

func TestServeCommand(t *testing.T) {
	full, err := os.ReadFile(runFile)
	require.NoError(t, err)
	t.Run("a growing file is followed to its end", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "live.jsonl")
		require.NoError(t, os.WriteFile(path, full[:1000], 0o644))
		url, cmd, _ := served(t, nil, path)
		got := make(chan []string)
		go func() { got <- sseEvents(t, url) }()
		time.Sleep(200 * time.Millisecond)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		f.Write(full[1000:])
		f.Close()
		names := <-got
		require.Len(t, names, 22)
		assert.Equal(t, "run_started", names[0])
		assert.Equal(t, []string{"run_finished", "end"}, names[20:])
		require.NoError(t, cmd.Process.Signal(os.Interrupt))
		assert.Equal(t, 0, waitExit(t, cmd), "interrupted after the run: a graceful shutdown")
	})
	t.Run("a command's stream, live, with its exit status", func(t *testing.T) {
		url, cmd, stderr := served(t, nil, "--", fakeUagent, "-replay", runFile, "-delay", "20ms", "-exit", "3")
		res, err := http.Get(url + "/events")
		require.NoError(t, err)
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		require.NoError(t, err)
		assert.Contains(t, string(body), "event: end\ndata: {\"ending\":\"finished\",\"status\":\"ok\",\"exit_code\":3}\n\n")
		assert.Equal(t, 22, strings.Count(string(body), "\nevent: ")+btoi(strings.HasPrefix(string(body), "event: ")))
		require.NoError(t, cmd.Process.Signal(os.Interrupt))
		assert.Equal(t, 3, waitExit(t, cmd), "serve exits with the command's status, as run does")
		assert.Contains(t, stderr.String(), "finished, status ok, exit 3, 21 lines")
	})
	t.Run("standard input", func(t *testing.T) {
		url, cmd, _ := served(t, bytes.NewReader(full), "-")
		names := sseEvents(t, url)
		assert.Len(t, names, 22)
		assert.Equal(t, "end", names[len(names)-1])
		require.NoError(t, cmd.Process.Signal(os.Interrupt))
		assert.Equal(t, 0, waitExit(t, cmd))
	})
	t.Run("a busy port", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer l.Close()
		code, _, stderr := runCmd(t, "", "serve", "--addr", l.Addr().String(), runFile)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "uagent-stream: serve: cannot listen on "+l.Addr().String())
	})
	t.Run("beyond loopback, readable only with its token", func(t *testing.T) {
		cmd := exec.Command(self(t), "serve", "--public", "--addr", "0.0.0.0:0", runFile)
		stderr := &syncBuffer{}
		cmd.Stderr = stderr
		require.NoError(t, cmd.Start())
		re := regexp.MustCompile(`uagent-stream: serving http://[^/]+:(\d+)/\?token=([A-Za-z0-9_-]+)\n`)
		var m []string
		require.Eventually(t, func() bool { m = re.FindStringSubmatch(stderr.String()); return m != nil }, 10*time.Second, 10*time.Millisecond, stderr.String())
		port, token := m[1], m[2]
		assert.GreaterOrEqual(t, len(token), 22, "at least 128 bits")
		base := "http://127.0.0.1:" + port
		for _, path := range []string{"/", "/events", "/summary", "/app.js"} {
			res, err := http.Get(base + path)
			require.NoError(t, err)
			res.Body.Close()
			assert.Equal(t, http.StatusUnauthorized, res.StatusCode, path)
			res, err = http.Get(base + path + "?token=" + token + "x")
			require.NoError(t, err)
			res.Body.Close()
			assert.Equal(t, http.StatusUnauthorized, res.StatusCode, path)
		}
		res, err := http.Get(base + "/summary?token=" + token)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode)
		require.NoError(t, cmd.Process.Signal(os.Interrupt))
		assert.Equal(t, 0, waitExit(t, cmd))
		assert.Equal(t, 1, strings.Count(stderr.String(), token), "the token is printed once, in the URL line:\n%s", stderr.String())
	})
	t.Run("a chosen token, from a file or the environment", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "token")
		require.NoError(t, os.WriteFile(file, []byte("from-the-file\nignored\n"), 0o600))
		for _, c := range []struct {
			args  []string
			env   string
			token string
		}{
			{[]string{"--token-file", file}, "", "from-the-file"},
			{nil, "from-the-env", "from-the-env"},
		} {
			cmd := exec.Command(self(t), append(append([]string{"serve", "--addr", "127.0.0.1:0"}, c.args...), runFile)...)
			cmd.Env = append(os.Environ(), "UAGENT_STREAM_TOKEN="+c.env)
			stderr := &syncBuffer{}
			cmd.Stderr = stderr
			require.NoError(t, cmd.Start())
			re := regexp.MustCompile(`serving (http://127\.0\.0\.1:\d+)/\?token=` + c.token + `\n`)
			var m []string
			require.Eventually(t, func() bool { m = re.FindStringSubmatch(stderr.String()); return m != nil }, 10*time.Second, 10*time.Millisecond, stderr.String())
			res, err := http.Get(m[1] + "/summary")
			require.NoError(t, err)
			res.Body.Close()
			assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "a token given on loopback is required too")
			req, _ := http.NewRequest("GET", m[1]+"/summary", nil)
			req.Header.Set("Authorization", "Bearer "+c.token)
			res, err = http.DefaultClient.Do(req)
			require.NoError(t, err)
			res.Body.Close()
			assert.Equal(t, http.StatusOK, res.StatusCode)
			require.NoError(t, cmd.Process.Signal(os.Interrupt))
			assert.Equal(t, 0, waitExit(t, cmd))
		}
		code, _, stderr := runCmd(t, "", "serve", "--token-file", filepath.Join(t.TempDir(), "missing"), runFile)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "--token-file")
		// White space is no token, in a file as in the environment.
		t.Setenv("UAGENT_STREAM_TOKEN", " \t ")
		code, _, stderr = runCmd(t, "", "serve", runFile)
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, "only white space")
	})
	t.Run("beyond loopback only when asked", func(t *testing.T) {
		code, _, stderr := runCmd(t, "", "serve", "--addr", "0.0.0.0:0", runFile)
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, "is not a loopback address: add --public")
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The page in a real browser: it shows a run as it is written, and a
// stream's HTML and script stay text.
func TestServePageInABrowser(t *testing.T) {
	evil := `<img src=x onerror="window.pwned=1">`
	evil2 := `</script><script>window.pwned=2</script>`
	var buf bytes.Buffer
	s := stream.NewSink(&buf)
	at := time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return at.Add(time.Duration(n) * time.Millisecond) }
	s.Emit(stream.RunStarted{At: ms(0), RunID: "demo", Provider: "openai-codex", Model: "gpt-6-sol", Effort: "high", Workspace: "/w"})
	s.Emit(stream.PreflightWarning{At: ms(1), Code: "auth", Message: "expiring"})
	s.Emit(stream.PreflightWarning{At: ms(2), Code: "auth", Message: "expiring"})
	s.Emit(stream.UserMessage{At: ms(3), ID: "u", Text: evil})
	s.Emit(stream.TurnStarted{At: ms(10), Turn: 1})
	first := buf.Len()
	s.Emit(stream.ModelResponded{At: ms(900), Turn: 1, Duration: 890 * time.Millisecond, Usage: stream.Tokens{InputTokens: 100, OutputTokens: 20}, Stop: stream.StopComplete})
	s.Emit(stream.ToolCalled{At: ms(900), CallID: "a", Name: "Bash", Label: evil2})
	s.Emit(stream.ToolStarted{At: ms(910), CallID: "a", OpID: "1", Name: "Bash", Label: evil2})
	s.Emit(stream.ToolStarted{At: ms(920), CallID: "b", OpID: "2", Name: "Bash", Label: "wc -l"})
	s.Emit(stream.ToolFinished{At: ms(1400), CallID: "a", OpID: "1", Name: "Bash", Label: evil2, OK: true, Detail: "exit 0", Duration: 490 * time.Millisecond})
	s.Emit(stream.ToolFinished{At: ms(1500), CallID: "b", OpID: "2", Name: "Bash", Label: "wc -l", OK: false, Detail: "exit 1", Duration: 580 * time.Millisecond})
	s.Emit(stream.TurnStarted{At: ms(1510), Turn: 2})
	s.Emit(stream.ModelResponded{At: ms(2000), Turn: 2, Duration: 490 * time.Millisecond, Usage: stream.Tokens{InputTokens: 200, OutputTokens: 30}, Stop: stream.StopComplete})
	s.Emit(stream.AssistantMessage{At: ms(2000), Turn: 2, Text: "done: " + evil, Final: true})
	s.Emit(stream.RunFinished{At: ms(2010), Result: stream.Result{Status: stream.StatusOK, StartedAt: at, Wall: 2010 * time.Millisecond, Answer: "done: " + evil}})
	require.NoError(t, s.Err())
	all := buf.Bytes()

	path := filepath.Join(t.TempDir(), "live.jsonl")
	require.NoError(t, os.WriteFile(path, all[:first], 0o644))
	url, _, _ := served(t, nil, path)

	ctx := testenv.Browser(t)
	// The first Run starts the browser and lives as long as ctx: no timeout on it.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url+"/")))
	js := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		require.NoError(t, err, expr)
		return v
	}
	until := func(expr string) {
		t.Helper()
		wctx, stop := context.WithTimeout(ctx, 20*time.Second)
		defer stop()
		_, err := chromedp.Run(wctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(20*time.Second)))
		require.NoError(t, err, "waiting for %s", expr)
	}
	text := func(sel string) string {
		return js(`(document.querySelector(` + strconv.Quote(sel) + `)||{}).textContent||""`)
	}
	count := func(sel string) string {
		return js(`String(document.querySelectorAll(` + strconv.Quote(sel) + `).length)`)
	}

	until(`document.querySelector("#transcript li.turn") !== null && document.querySelector("#transcript li.notice:not([hidden])") !== null`)
	assert.Equal(t, "live", text("#state"), "the page says it is live")
	assert.Equal(t, "3", count("#transcript li:not([hidden])"), "the warning is shown once (with a count), the user message, the turn")

	// The run goes on: append the rest while the page watches.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(all[first:])
	require.NoError(t, err)
	f.Close()

	until(`document.getElementById("state").textContent.startsWith("finished ·")`)
	until(`document.getElementById("totals").textContent.includes("turns 2")`)
	until(`document.querySelectorAll("#timeline rect.bar").length >= 4`) // redrawn shortly after the last event
	assert.Equal(t, "done: "+evil, text("#answer"), "the final answer, as text")
	assert.Contains(t, text("#transcript li.user"), evil, "HTML from the stream is shown as text")
	assert.Equal(t, "×2", text("#transcript li.notice:not([hidden]) .count"), "a repeated warning is shown once, with its count")
	assert.Equal(t, "1", count("#transcript li.notice:not([hidden])"))
	totals := text("#totals")
	assert.Contains(t, totals, "turns 2")
	assert.Contains(t, totals, "tokens in 300")
	assert.Contains(t, totals, "model 1.4 s", "the totals are the server's fold, as people read durations")
	assert.Contains(t, totals, "wall 2 s")
	assert.Equal(t, "finished · ok · exit 0", text("#state"))
	assert.Contains(t, text("#transcript li.finished"), "finished: ok", "one exit code: the badge's")
	// The page's bars are the server's fold: the intervals the stats use.
	pageBars := `JSON.stringify([...document.querySelectorAll("#timeline rect.bar")].map((r) => r.dataset.kind + " " + r.dataset.start + " " + r.dataset.end))`
	want, _ := json.Marshal(referenceBars(t, all))
	wctx, stop := context.WithTimeout(ctx, 10*time.Second)
	_, err = chromedp.Run(wctx, chromedp.Poll[bool](pageBars+` === `+strconv.Quote(string(want)), chromedp.WithPollingTimeout(10*time.Second)))
	stop()
	var got []string
	require.NoError(t, json.Unmarshal([]byte(js(pageBars)), &got))
	assert.Equal(t, referenceBars(t, all), got, "the page draws the fold's intervals (%v)", err)
	assert.Equal(t, "0", count("img, script:not([src])"), "no element is created from the stream's markup")
	assert.Equal(t, "undefined", js(`typeof window.pwned`), "no script from the stream ran")

	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
	require.NoError(t, err)
	shotPath := filepath.Join(t.TempDir(), "serve.png")
	require.NoError(t, os.WriteFile(shotPath, shot, 0o644))
	img, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err)
	colors := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colors[r>>8<<16|g>>8<<8|bl>>8] = true
		}
	}
	assert.Greater(t, len(colors), 10, "the screenshot is not blank")
	if dst := os.Getenv("UAGENT_STREAM_SCREENSHOT"); dst != "" { // to refresh the README's picture
		require.NoError(t, os.WriteFile(dst, shot, 0o644))
	}
}

// referenceBars are the intervals of a stream's run, by the independent
// reference, as the page's bars carry them: kind, start and end in
// milliseconds since the first line.
func referenceBars(t *testing.T, b []byte) []string {
	var origin time.Time
	for dto, err := range stream.NewDecoder(bytes.NewReader(b)).All() {
		require.NoError(t, err)
		if e, ok := stream.DTOToEvent(dto); ok {
			origin = e.OccurredAt()
			break
		}
	}
	ms := func(t time.Time) string {
		return strconv.FormatFloat(float64(t.Sub(origin))/float64(time.Millisecond), 'f', -1, 64)
	}
	var out []string
	for _, iv := range runs.Expected(b) {
		out = append(out, iv.Kind+" "+ms(iv.Start)+" "+ms(iv.End))
	}
	return out
}
