//go:build unix

package ssestream

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream/internal/runs"
	"github.com/uagentkit/stream/internal/sessions"
	"github.com/uagentkit/stream/internal/testenv"
)

// browserJS evaluates expr in the tab, awaiting a promise.
func browserJS[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	require.NoError(t, err, expr)
	return v
}

func until(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	wctx, stop := context.WithTimeout(ctx, 20*time.Second)
	defer stop()
	_, err := chromedp.Run(wctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(t, err, "waiting for %s", expr)
}

// The hostile matrix of TestEventsCannotBeForged, once through a real
// EventSource: each line is one event with its id, its name and its JSON
// value; end comes from the server alone.
func TestEventSourceInChromium(t *testing.T) {
	ctx := testenv.Browser(t)
	const at = `"at":"2026-09-23T12:00:00Z"`
	matrix := []string{
		`{"v":1,"type":"user_message",` + at + `,"id":"u","text":"a\r\nb\u2028c` + "\u2028" + `d\u0000"}`,
		"{\"v\":1,\r\"type\":\"end\",\r" + at + "}",
		`{"v":1,"type":"line_error",` + at + `,"line":99}`,
		`{"v":1,"type":"message",` + at + `}`,
		`{"v":1,"type":"x\nevent: end\ndata: {}",` + at + `}`,
		`{"v":1,"type":"assistant_message",` + at + `,"text":"` + strings.Repeat("é", 300000) + `","final":true}`,
		`{"v":1,"type":"reasoning",` + at + `,"text":"broken`,
		`{"v":1,"type":"run_finished",` + at + `,"summary":{"status":"ok"}}`,
	}
	srv := httptest.NewServer(NewHandler(recorded(t, []byte(strings.Join(matrix, "\n")+"\n"))))
	defer srv.Close()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")))
	names := append(slices.Clone(contractTypes), "unknown", "line_error", "end", "message")
	namesJSON, _ := json.Marshal(names)
	got := browserJS[string](t, ctx, `new Promise((resolve) => {
		const seen = [];
		const es = new EventSource("/events");
		for (const name of `+string(namesJSON)+`) {
			es.addEventListener(name, (e) => {
				seen.push({id: e.lastEventId, event: e.type, data: e.data});
				if (name === "end") { es.close(); resolve(JSON.stringify(seen)); }
			});
		}
	})`)
	var evs []struct{ ID, Event, Data string }
	require.NoError(t, json.Unmarshal([]byte(got), &evs))
	require.Len(t, evs, len(matrix)+1, "one event per line, and the end")
	for i, l := range matrix {
		ev := evs[i]
		assert.Equal(t, strconv.Itoa(i+1), ev.ID)
		var want, have any
		if json.Unmarshal([]byte(l), &want) != nil {
			assert.Equal(t, "line_error", ev.Event, "line %d", i+1)
			continue
		}
		require.NoError(t, json.Unmarshal([]byte(ev.Data), &have), "line %d", i+1)
		assert.True(t, cmp.Equal(want, have), "line %d: the same JSON value", i+1)
		typ := want.(map[string]any)["type"].(string)
		if slices.Contains(contractTypes, typ) {
			assert.Equal(t, typ, ev.Event)
		} else {
			assert.Equal(t, "unknown", ev.Event, "line %d of type %q", i+1, typ)
		}
	}
	assert.Equal(t, "end", evs[len(evs)-1].Event)
}

// The page opened with ?token= shows the run, drops the token from its
// address, and keeps following the run across a reconnect by its cookie.
func TestPageWithTokenFollowsAcrossAReconnect(t *testing.T) {
	ctx := testenv.Browser(t)
	const token = "t0ken-for-the-page"
	run := lines(readFile(t, runFile))
	rec := NewRecording(nil)
	defer rec.Close()
	srv := httptest.NewServer(NewHandler(rec, WithToken(token)))
	defer srv.Close()
	for i, l := range run[:6] {
		addLine(t, rec, i+1, l)
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?token="+token)))
	until(t, ctx, `document.querySelectorAll("#transcript li").length >= 3`)
	assert.Equal(t, srv.URL+"/", browserJS[string](t, ctx, `location.href`), "the token is gone from the address")
	assert.Equal(t, "", browserJS[string](t, ctx, `document.cookie`), "the cookie is HttpOnly")
	assert.Equal(t, "live", browserJS[string](t, ctx, `document.getElementById("state").textContent`))
	before := browserJS[int](t, ctx, `document.querySelectorAll("#transcript li").length`)

	srv.CloseClientConnections() // the event stream drops: EventSource reconnects, with the cookie
	until(t, ctx, `document.getElementById("state").textContent === "reconnecting"`)
	for i, l := range run[6:] {
		addLine(t, rec, i+7, l)
	}
	rec.End(nil)
	until(t, ctx, `document.getElementById("state").textContent.startsWith("finished ·")`)
	after := browserJS[int](t, ctx, `document.querySelectorAll("#transcript li").length`)
	assert.Greater(t, after, before, "the rest of the run arrived after the reconnect")
	assert.Equal(t, 1, browserJS[int](t, ctx, `document.querySelectorAll("#transcript li.finished").length`), "nothing doubled")
	assert.Contains(t, browserJS[string](t, ctx, `document.getElementById("answer").textContent`), "a.txt has 3 lines")
}

// The page's bars, read from the DOM, are the fold's intervals, on the
// bundled and conformance streams and the edge cases.
func TestPageBarsAreTheReferences(t *testing.T) {
	ctx := testenv.Browser(t)
	cases, err := runs.Cases("..", 0)
	require.NoError(t, err)
	pageBars := `JSON.stringify([...document.querySelectorAll("#timeline rect.bar")].map((r) => r.dataset.kind + " " + r.dataset.start + " " + r.dataset.end))`
	for name, b := range cases {
		srv := httptest.NewServer(NewHandler(recorded(t, b)))
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")))
		want, _ := json.Marshal(referenceBars(t, b))
		wctx, stop := context.WithTimeout(ctx, 10*time.Second)
		_, err := chromedp.Run(wctx, chromedp.Poll[bool](pageBars+` === `+strconv.Quote(string(want)), chromedp.WithPollingTimeout(10*time.Second)))
		stop()
		if err != nil {
			var got []string
			require.NoError(t, json.Unmarshal([]byte(browserJS[string](t, ctx, pageBars)), &got))
			t.Errorf("%s: the page's bars (-fold +page):\n%s", name, cmp.Diff(referenceBars(t, b), got))
		}
		srv.Close()
	}
}

// The page of a session stream of the harness: the runs in order, the
// session's events as what they are, each streamed text gone once its
// response's text is shown (so no text twice), the text a stream reset
// voided marked, and the session's totals from /session.
func TestPageOfASession(t *testing.T) {
	ctx := testenv.Browser(t)
	b := sessions.Write(sessions.Options{Runs: []sessions.Run{
		{Message: "Run ls twice", Answer: "DONE", Calls: 2, Queued: true},
		{Message: "And again?", Answer: "Again", Calls: 1, Reset: true},
		{Message: "x", CannotStart: true},
	}})
	srv := httptest.NewServer(NewHandler(recorded(t, b)))
	defer srv.Close()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")))
	until(t, ctx, `document.getElementById("state").textContent.includes(" · ")`)
	until(t, ctx, `document.getElementById("totals").textContent.includes("turns 4")`)
	texts := browserJS[[]string](t, ctx, `[...document.querySelectorAll("#transcript li")].map((li) => li.className + "|" + li.textContent.replace(/^[0-9.]+s/, ""))`)
	joined := strings.Join(texts, "\n")
	for _, want := range []string{"turn|══ run 1 · 20261001-215705-294542e3", "turn|══ run 2 · 20261001-215706-294542e3",
		"user|queued m1: Run ls twice", "control|✓ delivered m1", "error|✗ not delivered m3: the runner could not start",
		"error|! error: uagent exited 1 before run_started", "warning|⟳ reconnecting (attempt 1 of 5, in 500 ms): stream error",
		"assistant streaming void|assistant ⋯ A first try (void: stream reset)", "answer|answer: DONE", "answer|answer: Again"} {
		assert.Contains(t, texts, want, "in\n%s", joined)
	}
	assert.Equal(t, 2, strings.Count(joined, "assistant|assistant: I'll run the commands."), "once a run:\n%s", joined)
	assert.NotContains(t, joined, "assistant ⋯ I'll run", "a streamed text is gone once its response's is shown")
	assert.Equal(t, 0, browserJS[int](t, ctx, `document.querySelectorAll("#transcript li.streaming:not(.void)").length`), "every streamed text took its response's place")
	assert.Equal(t, 2, browserJS[int](t, ctx, `document.querySelectorAll("#transcript li.void").length`), "the reset voided a text and a reasoning")
	assert.Contains(t, browserJS[string](t, ctx, `document.getElementById("title").textContent`), "uah session "+sessions.ID)
}

// uah's goal, its refusal of effort updates and its auto-reviewer's
// verdicts, shown by name on the page.
func TestPageShowsTheGoal(t *testing.T) {
	ctx := testenv.Browser(t)
	b := sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "go on", Answer: "done", Goal: true, Calls: 1, AutoReview: true}}})
	srv := httptest.NewServer(NewHandler(recorded(t, b)))
	defer srv.Close()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")))
	until(t, ctx, `document.getElementById("transcript").textContent.includes("goal_cleared")`)
	texts := browserJS[[]string](t, ctx, `[...document.querySelectorAll("#transcript li")].map((li) => li.className + "|" + li.textContent.replace(/^[0-9.]+s/, ""))`)
	for _, want := range []string{"control|goal_updated (set by user): active · Make the tests pass",
		"control|goal_continued: Make the tests pass (continuation 1)",
		"warning|! effort_updates_off: the effort changes with the next run: 400 unsupported",
		"control|goal_updated (status by model): complete · Make the tests pass · done", "control|goal_cleared",
		"control|⚖ auto-reviewed ls: allow · risk low: reads the directory · 1.2 s · 900 in (800 cached) / 40 out tokens"} {
		assert.Contains(t, texts, want, "in\n%s", strings.Join(texts, "\n"))
	}
}
