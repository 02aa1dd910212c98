//go:build unix

package ssestream

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/history/historytest"
	"github.com/uagentkit/stream/internal/testenv"
	"github.com/uagentkit/stream/uahstream"
)

// screenshot saves the page as dir/name.png when UAGENT_STREAM_SCREENSHOTS
// names a directory (docs/, for the guides' pictures).
func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("UAGENT_STREAM_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

// The history in Chromium: the index finds every session (subagents and
// reviewers under their parent, the hostile title as text), filters,
// searches and follows a hit to its run at its line; a session shows its
// runs and links its subagents; a run written while the index is open
// appears within two seconds and ends; the usage page's total is the
// history's.
func TestHistoryPageInChromium(t *testing.T) {
	ctx := testenv.Browser(t)
	f, srv, _ := servedHistory(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")))
	until(t, ctx, `document.querySelectorAll("#sessions tbody tr[data-session]").length === 7`)
	rows := browserJS[[]string](t, ctx, `[...document.querySelectorAll("#sessions tbody tr[data-session]")].map((tr) => tr.dataset.session + "|" + tr.className)`)
	assert.Equal(t, []string{historytest.Live + "|", historytest.Unpriced + "|", historytest.Copied + "|", historytest.Flaky + "|", historytest.Reviewer + "|child",
		historytest.Sub + "|child", historytest.Old + "|"}, rows)
	assert.Equal(t, `Say hi \x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\u202e\u200b\x00<script>&`,
		browserJS[string](t, ctx, `document.querySelector('tr[data-session="`+historytest.Unpriced+`"] a').textContent`),
		"the hostile title, as text, what a reader cannot see escaped as the command escapes it")
	assert.Zero(t, browserJS[int](t, ctx, `document.querySelectorAll("#sessions script").length`))
	assert.Contains(t, browserJS[string](t, ctx, `document.getElementById("estimate").textContent`), "API-price estimates")
	assert.Empty(t, wrapped(t, ctx), "a token on one line")
	assert.Subset(t, browserJS[[]string](t, ctx, `[...document.querySelectorAll("#models option")].map((o) => o.value)`),
		[]string{"gpt-5.4", "gpt-5.4-mini", "gpt-5.6-sol", "claude-sonnet-4-5"}, "the model filter offers the history's models")
	assert.Regexp(t, `^\d{4}-\d\d-\d\d \d\d:\d\d$`, browserJS[string](t, ctx, `document.querySelector("#sessions tbody td").textContent`), "an ISO time")
	screenshot(t, ctx, "history-index")

	// A filter, then the search, whose hit goes to its run at its line.
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#filters select[name=status]`), "running")))
	browserJS[bool](t, ctx, `document.getElementById("filters").requestSubmit() || true`) // as a person's click sends it
	until(t, ctx, `document.querySelectorAll("#sessions tbody tr[data-session]").length === 1`)
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#filters select[name=status]`), ""),
		chromedp.SetValue(chromedp.CSS(`#filters input[name=q]`), "LINE 88")))
	browserJS[bool](t, ctx, `document.getElementById("filters").requestSubmit() || true`)
	assert.Contains(t, browserJS[string](t, ctx, `location.search`), "q=LINE+88", "the filtered index is a link")
	until(t, ctx, `document.querySelectorAll("#sessions tr.hit a").length === 1`)
	assert.Equal(t, []string{"line 88"}, browserJS[[]string](t, ctx, `[...document.querySelectorAll("#sessions tr.hit mark")].map((e) => e.textContent)`), "what was searched for, marked")
	href := browserJS[string](t, ctx, `document.querySelector("#sessions tr.hit a").getAttribute("href")`)
	assert.Equal(t, "/runs/20261102-000500-b2c3d4e5/#line-6", href)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+href))) // where the link goes
	until(t, ctx, `document.querySelector("#transcript li.hit") !== null`)
	assert.Contains(t, browserJS[string](t, ctx, `document.querySelector("#transcript li.hit").textContent`), "In parser.go, line 88.")
	// A run: its cost, its session linked, its title the history's.
	until(t, ctx, `document.getElementById("totals").textContent.includes("cost (API-price estimate)")`)
	assert.Contains(t, browserJS[string](t, ctx, `document.getElementById("totals").textContent`), "$0.05")
	assert.Equal(t, "/sessions/"+historytest.Sub+"/", browserJS[string](t, ctx, `document.querySelector("#meta a").getAttribute("href")`))
	assert.Equal(t, "uagent run: Find where the cache is shared", browserJS[string](t, ctx, `document.getElementById("title").textContent`))
	assert.Empty(t, wrapped(t, ctx), "a token on one line")

	// A session: its runs, its subagents linked.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/sessions/"+historytest.Flaky+"/")))
	until(t, ctx, `document.getElementById("state").textContent.includes("finished")`)
	until(t, ctx, `document.querySelectorAll("#children a").length === 2`)
	transcript := browserJS[string](t, ctx, `document.getElementById("transcript").textContent`)
	assert.Contains(t, transcript, "run 1 · 20261101-235000-a1f1a2b3")
	assert.Contains(t, transcript, "run 2 · 20261102-002000-a1f1a2b3")
	until(t, ctx, `document.getElementById("title").textContent.startsWith("uah session:")`)
	assert.Equal(t, "uah session: Fix the flaky test in parser_test.go", browserJS[string](t, ctx, `document.getElementById("title").textContent`), "titled, named by what it is")
	until(t, ctx, `document.getElementById("totals").textContent.includes("tokens in 1,500,000")`) // with separators
	// What its subagent and reviewer spent, apart from its runs: 0.05025 + 0.36.
	until(t, ctx, `document.getElementById("totals").textContent.includes("subagents 2 sessions · 2 runs · 400,000/6,000 · $0.41")`)
	assert.Empty(t, wrapped(t, ctx), "a token on one line")
	// Each run's cost on its line.
	until(t, ctx, `[...document.querySelectorAll("#transcript .run-cost")].map((e) => e.textContent).join("|") === " · $1.00 (API-price estimate)| · $0.50 (API-price estimate)"`)
	// Its timeline: every run, each run's turns, an axis and a legend.
	until(t, ctx, `document.querySelectorAll('#timeline rect[data-kind="run"]').length === 2`)
	assert.Equal(t, 2, browserJS[int](t, ctx, `document.querySelectorAll('#timeline rect[data-kind="turn"]').length`), "a turn of each run")
	assert.Equal(t, []string{"0 ms", "8 m 15 s", "16 m 30 s", "24 m 45 s", "33 m 0 s"}, browserJS[[]string](t, ctx, `[...document.querySelectorAll("#timeline text.axis")].map((e) => e.textContent)`))
	assert.Contains(t, browserJS[string](t, ctx, `[...document.querySelectorAll("#timeline text.legend")].map((e) => e.textContent).join(" ")`), "model turn")
	screenshot(t, ctx, "history-session")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/sessions/"+historytest.Old+"/")))
	until(t, ctx, `document.getElementById("title").textContent === "uagent session: Update the footer year"`)

	// The usage page: its total is the history's (hand-worked in the
	// history package's tests: 2,203,610 tokens, 9 runs).
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/usage?tz=UTC")))
	until(t, ctx, `document.querySelector("#usage tr.total") !== null`)
	total := browserJS[[]string](t, ctx, `[...document.querySelectorAll("#usage tr.total td")].map((td) => td.textContent)`)
	assert.Equal(t, []string{"total", "7", "9", "533,000", "1,600,000", "30,000", "40,610 (11,500)", "2,203,610", "≥$2.45"}, total)
	assert.Equal(t, 5, browserJS[int](t, ctx, `document.querySelectorAll("#usage-chart rect.tokens").length`), "a bar a day")
	assert.Equal(t, []string{"2026-11-03"}, browserJS[[]string](t, ctx, `[...document.querySelectorAll("#usage-chart .mark.partial")].map((e) => e.dataset.period)`), "partly priced")
	assert.Equal(t, []string{"2026-11-04"}, browserJS[[]string](t, ctx, `[...document.querySelectorAll("#usage-chart .mark.unpriced")].map((e) => e.dataset.period)`), "unpriced, not $0")
	assert.Empty(t, wrapped(t, ctx), "a token on one line")
	screenshot(t, ctx, "history-usage")
	week := browserJS[string](t, ctx, `document.querySelector("#usage-by a").getAttribute("href")`) // the switch's first link
	assert.Equal(t, "/usage?tz=UTC&by=week", week)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+week)))
	until(t, ctx, `document.querySelector("#usage thead th").textContent === "week" && document.querySelector("#usage tr.total") !== null`)
	assert.Equal(t, 2, browserJS[int](t, ctx, `document.querySelectorAll("#usage-chart rect.tokens").length`), "2026-W44, 2026-W45")

	// Live: a run that starts while the index is open appears, then ends.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")))
	until(t, ctx, `document.querySelectorAll("#sessions tbody tr[data-session]").length === 7`)
	run := historytest.Run{Homes: []string{f.Uah}, ID: "20261106-000000-d0d0d0d0", Session: "d0d0d0d0-0000-4000-8000-000000000000",
		Start: time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC), Status: "running", Provider: "openai", Model: "gpt-5.4", Prompt: "live one"}
	release, err := historytest.Hold(f.Uah, run.Session) // uagent's, while it runs
	require.NoError(t, err)
	defer release()
	require.NoError(t, historytest.Write([]historytest.Run{run}, nil))
	began := time.Now()
	until(t, ctx, `document.querySelector('tr[data-session="d0d0d0d0-0000-4000-8000-000000000000"][data-status="running"]') !== null`)
	assert.Less(t, time.Since(began), 2*FollowEvery+time.Second, "within two seconds")
	run.Status = "ok"
	require.NoError(t, historytest.Write([]historytest.Run{run}, nil))
	until(t, ctx, `document.querySelector('tr[data-session="d0d0d0d0-0000-4000-8000-000000000000"][data-status="ok"]') !== null`)

	// Days without a run are on the usage chart's axis, empty.
	early := historytest.Run{Homes: []string{f.Uah}, ID: "20261027-100000-e0e0e0e0", Session: "e0e0e0e0-0000-4000-8000-000000000000",
		Start: time.Date(2026, 10, 27, 10, 0, 0, 0, time.UTC), Wall: time.Minute, Status: "ok", Provider: "openai", Model: "gpt-5.4", Prompt: "early"}
	require.NoError(t, historytest.Write([]historytest.Run{early}, nil))
	require.Eventually(t, func() bool { // the history read again
		_, body := fetch(t, srv.URL+"/api/usage?tz=UTC", nil)
		return strings.Contains(body, `"2026-10-27"`)
	}, 20*time.Second, 50*time.Millisecond)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/usage?tz=UTC")))
	until(t, ctx, `document.querySelectorAll("#usage-chart rect.tokens").length === 11`) // 10-27 to 11-06
	assert.Equal(t, []string{"2026-10-28", "2026-10-29", "2026-10-30", "2026-11-05"},
		browserJS[[]string](t, ctx, `[...document.querySelectorAll("#usage-chart rect.tokens.empty")].map((e) => e.dataset.period)`))
}

// wrapped is the texts of the page's tokens (the listings' cells but the
// titles, the run's details, its totals, the usage table's cells) that
// take more than one line.
func wrapped(t *testing.T, ctx context.Context) []string {
	return browserJS[[]string](t, ctx, `[...document.querySelectorAll("#sessions td.tok, #meta dd, #totals span, #usage td")]
		.filter((e) => e.textContent.trim() && e.offsetParent !== null)
		.filter((e) => { const r = document.createRange(); r.selectNodeContents(e); return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size > 1; })
		.map((e) => e.textContent)`)
}

// A file html wrote reads with the network off: the transcript is there,
// and the page asked for nothing.
func TestHTMLFileOffline(t *testing.T) {
	ctx := testenv.Browser(t)
	b, err := os.ReadFile("../testdata/run.jsonl")
	require.NoError(t, err)
	s := new(uahstream.Session)
	rec := NewRecording(s)
	defer rec.Close()
	require.NoError(t, rec.Consume(bytes.NewReader(b)))
	rec.End(nil)
	var page bytes.Buffer
	require.NoError(t, WriteHTML(&page, rec))
	path := filepath.Join(t.TempDir(), "run.html")
	require.NoError(t, os.WriteFile(path, page.Bytes(), 0o644))

	var mu sync.Mutex
	var requests []string
	require.NoError(t, chromedp.Do(ctx)) // the tab, to listen to
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		if r, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, r.Request.URL)
			mu.Unlock()
		}
	}))
	_, err = chromedp.Call(ctx, network.Enable, network.EnableParams{})
	require.NoError(t, err)
	_, err = chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}}})
	require.NoError(t, err, "the network off")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+path)))
	until(t, ctx, `document.getElementById("state").textContent.includes("finished")`)
	transcript := browserJS[string](t, ctx, `document.getElementById("transcript").textContent`)
	assert.Contains(t, transcript, "answer: a.txt has 3 lines; b.txt does not exist.")
	until(t, ctx, `document.getElementById("totals").textContent.includes("tool calls 3")`)
	until(t, ctx, `document.querySelectorAll("#timeline rect.bar").length === 5`) // two turns, three tools, from the embedded intervals
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, requests, "the file itself")
	for _, u := range requests {
		assert.True(t, strings.HasPrefix(u, "file://"), "a request left the file: %s", u)
	}
}
