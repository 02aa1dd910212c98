package uahstream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/sessions"
)

func TestMain(m *testing.M) { goleakMain(m) }

// Every harness line decodes into its DTO, by the stream package's parser
// (hand-written lines, each field a value of its own); a type this
// package does not know stays raw.
func TestDecodeTheHarnessLines(t *testing.T) {
	at := time.Date(2026, 10, 1, 18, 57, 5, 0, time.UTC)
	lines := []struct {
		line string
		want any
	}{
		{`{"v":1,"type":"session_opened","at":"2026-10-01T18:57:05Z","id":"s1","resumed":true,"engine":"embedded","settings":{"provider":"p","model":"m","effort":"low","service_tier":"flex","workspace":"/w"}}`,
			SessionOpenedDTO{At: at, ID: "s1", Resumed: true, Engine: "embedded", Settings: SettingsDTO{Provider: "p", Model: "m", Effort: "low", ServiceTier: "flex", Workspace: "/w"}}},
		{`{"v":1,"type":"instructions_loaded","at":"2026-10-01T18:57:05Z","files":["a","b"],"bytes":74,"truncated":true}`, InstructionsLoadedDTO{At: at, Files: []string{"a", "b"}, Bytes: 74, Truncated: true}},
		{`{"v":1,"type":"input_queued","at":"2026-10-01T18:57:05Z","id":"m1","text":"hi"}`, InputQueuedDTO{At: at, ID: "m1", Text: "hi"}},
		{`{"v":1,"type":"input_sent","at":"2026-10-01T18:57:05Z","ids":["m1","m2"]}`, InputSentDTO{At: at, IDs: []string{"m1", "m2"}}},
		{`{"v":1,"type":"input_delivered","at":"2026-10-01T18:57:05Z","id":"m1"}`, InputDeliveredDTO{At: at, ID: "m1"}},
		{`{"v":1,"type":"input_failed","at":"2026-10-01T18:57:05Z","ids":["m3"],"reason":"closed"}`, InputFailedDTO{At: at, IDs: []string{"m3"}, Reason: "closed"}},
		{`{"v":1,"type":"input_withdrawn","at":"2026-10-01T18:57:05Z","id":"m4"}`, InputWithdrawnDTO{At: at, ID: "m4"}},
		{`{"v":1,"type":"settings_changed","at":"2026-10-01T18:57:05Z","settings":{"model":"m2"},"applied":"next_run"}`, SettingsChangedDTO{At: at, Settings: SettingsDTO{Model: "m2"}, Applied: "next_run"}},
		{`{"v":1,"type":"idle","at":"2026-10-01T18:57:05Z"}`, IdleDTO{At: at}},
		{`{"v":1,"type":"notice","at":"2026-10-01T18:57:05Z","level":"warning","message":"careful"}`, NoticeDTO{At: at, Level: "warning", Message: "careful"}},
		{`{"v":1,"type":"text_delta","at":"2026-10-01T18:57:05Z","item_id":"i1","text":"Hel","final":true}`, TextDeltaDTO{At: at, ItemID: "i1", Text: "Hel", Final: true}},
		{`{"v":1,"type":"reasoning_delta","at":"2026-10-01T18:57:05Z","item_id":"r1","part":2,"text":"hm"}`, ReasoningDeltaDTO{At: at, ItemID: "r1", Part: 2, Text: "hm"}},
		{`{"v":1,"type":"stream_reset","at":"2026-10-01T18:57:05Z"}`, StreamResetDTO{At: at}},
		{`{"v":1,"type":"reconnecting","at":"2026-10-01T18:57:05Z","attempt":2,"max_attempts":5,"delay_ms":750,"reason":"eof","offline":true}`, ReconnectingDTO{At: at, Attempt: 2, MaxAttempts: 5, DelayMS: 750, Reason: "eof", Offline: true}},
		{`{"v":1,"type":"reconnect_ended","at":"2026-10-01T18:57:05Z","ok":true}`, ReconnectEndedDTO{At: at, OK: true}},
		{`{"v":1,"type":"compaction_started","at":"2026-10-01T18:57:05Z","trigger":"auto","tokens":180000}`, CompactionStartedDTO{At: at, Trigger: "auto", Tokens: 180000}},
		{`{"v":1,"type":"compacted","at":"2026-10-01T18:57:05Z","trigger":"auto","summary":"s","error":"e","interrupted":true,"warning":"w","stats":{"before":9}}`,
			CompactedDTO{At: at, Trigger: "auto", Summary: "s", Error: "e", Interrupted: true, Warning: "w", Stats: `{"before":9}`}},
		{`{"v":1,"type":"web_search","at":"2026-10-01T18:57:05Z","item_id":"ws1","done":true,"action":"search","query":"q","url":"u","pattern":"p"}`,
			WebSearchDTO{At: at, ItemID: "ws1", Done: true, Action: "search", Query: "q", URL: "u", Pattern: "p"}},
		{`{"v":1,"type":"rewound","at":"2026-10-01T18:57:05Z","message_id":"m1","tokens":12}`, RewoundDTO{At: at, MessageID: "m1", Tokens: 12}},
	}
	var in strings.Builder
	for _, l := range lines {
		in.WriteString(l.line + "\n")
	}
	in.WriteString(`{"v":1,"type":"some_later_event","at":"2026-10-01T18:57:05Z","goal":"x"}` + "\n")
	var got []Line
	for l := range NewReader(strings.NewReader(in.String())).Lines() {
		l.Raw = bytes.Clone(l.Raw)
		got = append(got, l)
	}
	require.Len(t, got, len(lines)+2, "the lines, the newer one, the end")
	for i, l := range lines {
		require.NoError(t, got[i].Err, l.line)
		if d := cmp.Diff(l.want, got[i].DTO); d != "" {
			t.Errorf("line %d (-want +got):\n%s", i+1, d)
		}
		assert.Equal(t, strings.SplitN(strings.SplitN(l.line, `"type":"`, 2)[1], `"`, 2)[0], TypeOf(got[i].DTO))
		assert.Equal(t, i+1, got[i].Num)
		assert.Equal(t, l.line, string(got[i].Raw), "the line's bytes (read before the next line)")
	}
	u, ok := got[len(lines)].DTO.(stream.UnknownDTO)
	require.True(t, ok, "a newer harness type stays raw")
	assert.Equal(t, "some_later_event", u.Type)
	assert.Contains(t, string(u.Raw), `"goal":"x"`)
	assert.True(t, got[len(lines)+1].End)
}

// A harness line with a field of the wrong JSON type is a LineError that
// names its line, byte and field, and the next line decodes.
func TestAHarnessLineOfTheWrongTypes(t *testing.T) {
	in := `{"v":1,"type":"session_opened","at":"2026-10-01T18:57:05Z","id":"s"}` + "\n" +
		`{"v":1,"type":"input_sent","at":"2026-10-01T18:57:05Z","ids":"m1"}` + "\n" +
		`{"v":1,"type":"idle","at":"2026-10-01T18:57:06Z"}` + "\n"
	var got []Line
	for l := range NewReader(strings.NewReader(in)).Lines() {
		got = append(got, l)
	}
	require.Len(t, got, 4)
	require.NoError(t, got[0].Err)
	err := got[1].Err
	le, ok := errors.AsType[*stream.LineError](err)
	require.True(t, ok, "%v", err)
	assert.ErrorIs(t, err, stream.ErrFieldType)
	assert.Equal(t, 2, le.Line)
	assert.Equal(t, "ids", le.Field)
	assert.Equal(t, "input_sent", le.Type)
	first := len(strings.Split(in, "\n")[0]) + 1
	assert.Equal(t, int64(first+strings.Index(strings.Split(in, "\n")[1], `"m1"`)), le.Offset, "the byte of the value in the stream")
	require.NoError(t, got[2].Err)
	assert.IsType(t, IdleDTO{}, got[2].DTO)
}

// Whether a stream is a session is decided once, by its first line: of a
// run's stream the harness's types stay raw (a line of an unknown type,
// to the run's fold too); a byte-order mark or blank lines before the
// first line change nothing.
func TestTheFirstLineDecides(t *testing.T) {
	opened := `{"v":1,"type":"session_opened","at":"2026-10-01T18:57:05Z","id":"s"}`
	delta := `{"v":1,"type":"text_delta","at":"2026-10-01T18:57:06Z","item_id":"a","text":"x"}`
	started := `{"v":1,"type":"run_started","at":"2026-10-01T18:57:05Z","run_id":"r"}`
	for _, c := range []struct {
		name, in string
		harness  bool
	}{
		{"session_opened", opened + "\n" + delta + "\n", true},
		{"blank lines first", "\n \n" + opened + "\n" + delta + "\n", true},
		{"a byte-order mark", "\xef\xbb\xbf" + opened + "\n" + delta + "\n", true},
		{"run_started", started + "\n" + delta + "\n", false},
		{"not JSON", "not json\n" + opened + "\n" + delta + "\n", false},
		{"nothing", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rd := NewReader(strings.NewReader(c.in))
			var typed bool
			for l := range rd.Lines() {
				if _, ok := l.DTO.(TextDeltaDTO); ok {
					typed = true
				}
				if !c.harness && l.DTO != nil {
					assert.Equal(t, 0, l.Run, "a run's stream: every line is its run's")
				}
			}
			assert.Equal(t, c.harness, rd.Session().Harness())
			assert.Equal(t, c.harness, typed, "the harness's types typed only in a session")
		})
	}
}

// read reads b through a Reader, and returns its session and the runs
// that ended, in order.
func read(t *testing.T, b []byte) (*Session, []*Ended) {
	t.Helper()
	rd := NewReader(bytes.NewReader(b))
	var ended []*Ended
	for l := range rd.Lines() {
		require.NotNil(t, l.Change.Message+1 >= 0)
		if l.Ended != nil {
			ended = append(ended, l.Ended)
		}
	}
	return rd.Session(), ended
}

// runLines cuts a session stream's runs out of it: the lines from each
// run_started to its run_finished, as a file of the run alone would hold.
func runLines(b []byte) [][]byte {
	var runs [][]byte
	in := false
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if bytes.Contains(l, []byte(`"type":"run_started"`)) {
			runs, in = append(runs, nil), true
		}
		if in {
			runs[len(runs)-1] = append(runs[len(runs)-1], l...)
		}
		if bytes.Contains(l, []byte(`"type":"run_finished"`)) {
			in = false
		}
	}
	return runs
}

// A session of two runs: each run's summary is what Summarize says of its
// lines alone (turns counted from 1 in each), handed over as the run
// ends; the totals add them up, and every message ends delivered.
func TestASessionOfTwoRuns(t *testing.T) {
	b := sessions.Write(sessions.Options{Runs: []sessions.Run{
		{Message: "Run ls twice", Answer: "DONE", Calls: 2},
		{Message: "And again?", Answer: "Again: DONE", Calls: 1, Failed: true},
	}})
	s, runs := read(t, b)
	assert.Equal(t, sessions.ID, s.ID())
	require.Len(t, runs, 2)
	alone := runLines(b)
	for i, r := range runs {
		assert.Equal(t, i, r.Run)
		want, err := stream.Summarize(bytes.NewReader(alone[i]))
		require.NoError(t, err)
		if d := cmp.Diff(want.Summary, r.Summary); d != "" {
			t.Errorf("run %d (-alone +in the session):\n%s", i+1, d)
		}
		assert.Empty(t, r.Diff, "the writer's summaries are true")
		assert.False(t, r.CutOff)
		assert.Equal(t, stream.EndFinished, r.Verdict.Ending)
		assert.Equal(t, 2, r.Summary.Stats.Turns, "turns start at 1 in every run")
	}
	assert.Equal(t, stream.StatusOK, stream.Status(runs[0].Summary.Status))
	assert.Equal(t, 1, runs[1].Summary.Stats.FailedToolCalls)
	assert.Equal(t, 2, s.Runs())
	assert.False(t, s.Open())
	// hand-pinned: two responses of 12873 in, 3712 cached, 65 out each
	assert.Equal(t, Totals{Runs: 2, Turns: 4, ToolCalls: 3, FailedToolCalls: 1,
		Tokens:  stream.TokensDTO{Input: 4 * 12873, CachedInput: 4 * 3712, Output: 4 * 65},
		ModelMS: runs[0].Summary.Stats.ModelMS + runs[1].Summary.Stats.ModelMS, WallMS: runs[0].Summary.WallMS + runs[1].Summary.WallMS}, s.Totals())
	var states []string
	for _, m := range s.Messages() {
		states = append(states, m.ID+" "+m.State.String())
	}
	assert.Equal(t, []string{"m1 delivered", "m2 delivered"}, states)
	assert.Equal(t, 0, s.Messages()[0].Run)
	assert.Equal(t, 1, s.Messages()[1].Run)
	assert.Equal(t, runs[1].Verdict, s.Verdict(), "the last run's")
	assert.Equal(t, stream.Verdict{Ending: stream.EndFinished, Status: stream.StatusOK, ExitCode: 0}, s.Verdict())
}

// A run's stream is a session of one run: every line is its, and it ends
// with the stream, its summary what Summarize says.
func TestARunIsASessionOfOne(t *testing.T) {
	b, err := os.ReadFile("../testdata/run.jsonl")
	require.NoError(t, err)
	s, runs := read(t, b)
	require.Len(t, runs, 1)
	want, err := stream.Summarize(bytes.NewReader(b))
	require.NoError(t, err)
	if d := cmp.Diff(want, runs[0].Recomputed); d != "" {
		t.Errorf("(-Summarize +the session's run):\n%s", d)
	}
	assert.False(t, s.Harness())
	assert.Equal(t, 1, s.Runs())
	assert.True(t, s.Finished())
	n, _ := s.Lines()
	assert.Equal(t, want.Lines, n, "Lines means one thing")
}

// The streamed text: each delta comes as it is written, the response's
// message takes the place of the oldest streamed item of its kind (the
// same text), and a stream_reset voids what streamed.
func TestLiveText(t *testing.T) {
	b := sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "hi", Answer: "Hello there", Reset: true}}})
	var got []string
	for l := range NewReader(bytes.NewReader(b)).Lines() {
		switch l.LiveStep {
		case LiveStreamed:
			got = append(got, "delta "+l.Delta)
		case LiveReplaced:
			got = append(got, "replaced "+l.Live.Text+" same="+map[bool]string{true: "yes", false: "no"}[l.Same])
		case LiveVoid:
			for _, v := range l.Voided {
				got = append(got, "void "+v.Text)
			}
		}
		if l.Ended != nil {
			assert.Empty(t, l.Ended.Unreplaced)
		}
	}
	assert.Equal(t, []string{
		"delta Thinking ", "delta it over.", "delta A first try",
		"void A first try", "void Thinking it over.",
		"delta Thinking it over.", "delta Hello", "delta  there",
		"replaced Thinking it over. same=yes", "replaced Hello there same=yes",
	}, got)
}

// Many small deltas cost what they weigh: the text of an item is joined
// once, not again at every delta (a delta of n bytes to an item of m used
// to cost n+m). 20,000 deltas of 4 bytes allocate a few times their 80
// KB; joined again at every delta, they allocated 800 MB.
func TestManyDeltasAreLinear(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"v":1,"type":"session_opened","at":"2026-10-01T18:57:05Z","id":"s"}` + "\n")
	b.WriteString(`{"v":1,"type":"run_started","at":"2026-10-01T18:57:06Z","run_id":"r1"}` + "\n")
	for range 20000 {
		b.WriteString(`{"v":1,"type":"text_delta","at":"2026-10-01T18:57:06Z","item_id":"a","text":"abcd"}` + "\n")
	}
	b.WriteString(`{"v":1,"type":"assistant_message","at":"2026-10-01T18:57:08Z","text":"done"}` + "\n")
	var s Session
	var lines []Line
	for l := range NewReader(bytes.NewReader(b.Bytes())).Lines() {
		if !l.End {
			l.Raw = nil
			lines = append(lines, l)
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var last Change
	for _, l := range lines {
		last = s.Add(l.DTO, l.Err)
	}
	runtime.ReadMemStats(&after)
	require.Equal(t, LiveReplaced, last.LiveStep)
	assert.Len(t, last.Live.Text, 80000)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16<<20), "bytes allocated by 20,000 deltas")
}

// A session cut off while the model wrote: the run ends with the stream,
// its summary that of a cut-off stream, and what streamed is handed over
// with it.
func TestACutOffSession(t *testing.T) {
	b := sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "hi", Answer: "DONE"}, {Message: "more", Answer: "never said", CutOff: true}}})
	s, runs := read(t, b)
	require.Len(t, runs, 2)
	assert.True(t, runs[1].CutOff)
	assert.Equal(t, stream.EndCutOff, runs[1].Verdict.Ending)
	assert.Equal(t, stream.EndCutOff, s.Verdict().Ending)
	require.Len(t, runs[1].Unreplaced, 2)
	assert.Equal(t, "never said", runs[1].Unreplaced[0].Text)
	assert.True(t, runs[1].Unreplaced[1].Reasoning)
}

// A run that could not start has no run_started: the session has no run
// for it, and its message failed.
func TestARunThatCouldNotStart(t *testing.T) {
	b := sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "hi", CannotStart: true}, {Message: "again", Answer: "ok"}}})
	s, runs := read(t, b)
	require.Len(t, runs, 1)
	assert.Equal(t, 1, s.Runs())
	m := s.Messages()
	require.Len(t, m, 2)
	assert.Equal(t, MessageFailed, m[0].State)
	assert.Equal(t, "the runner could not start", m[0].Reason)
	assert.Equal(t, MessageDelivered, m[1].State)
}

// What a run streamed that no response replaced ends with the run: the
// line that ends it (here the next run_started) says so, and the next
// run's first message replaces nothing of it. Items are numbered in the
// order they began.
func TestStreamedTextEndsWithItsRun(t *testing.T) {
	in := strings.Join([]string{
		`{"v":1,"type":"session_opened","at":"2026-10-01T18:57:05Z","id":"s"}`,
		`{"v":1,"type":"run_started","at":"2026-10-01T18:57:06Z","run_id":"r1"}`,
		`{"v":1,"type":"text_delta","at":"2026-10-01T18:57:06Z","item_id":"a","text":"left"}`,
		`{"v":1,"type":"run_started","at":"2026-10-01T18:57:07Z","run_id":"r2"}`,
		`{"v":1,"type":"text_delta","at":"2026-10-01T18:57:07Z","item_id":"b","text":"said"}`,
		`{"v":1,"type":"assistant_message","at":"2026-10-01T18:57:08Z","text":"said"}`,
		`{"v":1,"type":"assistant_message","at":"2026-10-01T18:57:08Z","text":"more"}`,
	}, "\n")
	var got []string
	for l := range NewReader(strings.NewReader(in)).Lines() {
		if l.Ended != nil {
			for _, u := range l.Ended.Unreplaced {
				got = append(got, "unreplaced "+strconv.Itoa(u.Index)+" "+u.Text)
			}
		}
		if l.LiveStep == LiveReplaced {
			got = append(got, "replaced "+strconv.Itoa(l.Live.Index)+" "+l.Live.Text)
		}
		if l.LiveStep == LiveStreamed {
			got = append(got, "streamed "+strconv.Itoa(l.Live.Index))
		}
	}
	assert.Equal(t, []string{"streamed 0", "unreplaced 0 left", "streamed 1", "replaced 1 said"}, got)
}

// uah's newer session events decode into their types: the goal's (with
// its times), the backend's refusal of effort updates, and the
// auto-reviewer's verdict, as first written and with the fields it gained
// later.
func TestDecodeTheGoalLines(t *testing.T) {
	at := time.Date(2026, 10, 1, 18, 57, 5, 0, time.UTC)
	goal := `{"goal_id":"g1","objective":"o","status":"blocked","token_budget":100,"tokens_used":7,"time_used_seconds":3,"continuations":2,"max_continuations":50,"reason":"r","created_at":"2026-10-01T18:50:00Z","updated_at":"2026-10-01T18:57:05Z"}`
	g := GoalDTO{ID: "g1", Objective: "o", Status: "blocked", TokenBudget: 100, TokensUsed: 7, TimeUsedSeconds: 3, Continuations: 2, MaxContinuations: 50, Reason: "r",
		CreatedAt: time.Date(2026, 10, 1, 18, 50, 0, 0, time.UTC), UpdatedAt: at}
	for line, want := range map[string]any{
		`{"v":1,"type":"goal_updated","at":"2026-10-01T18:57:05Z","goal":` + goal + `,"change":"status","by":"uah"}`: GoalUpdatedDTO{At: at, Goal: g, Change: "status", By: "uah"},
		`{"v":1,"type":"goal_continued","at":"2026-10-01T18:57:05Z","goal":` + goal + `}`:                            GoalContinuedDTO{At: at, Goal: g},
		`{"v":1,"type":"goal_cleared","at":"2026-10-01T18:57:05Z"}`:                                                  GoalClearedDTO{At: at},
		`{"v":1,"type":"effort_updates_off","at":"2026-10-01T18:57:05Z","message":"m","error":"e"}`:                  EffortUpdatesOffDTO{At: at, Message: "m", Error: "e"},
		`{"v":1,"type":"auto_reviewed","at":"2026-10-01T18:57:05Z","command":"rm -rf build","outcome":"allow","duration_ms":1200,"input_tokens":900,"cached_input_tokens":800,"output_tokens":40}`: AutoReviewedDTO{
			At: at, Command: "rm -rf build", Outcome: "allow", DurationMS: 1200, InputTokens: 900, CachedInputTokens: 800, OutputTokens: 40},
		`{"v":1,"type":"auto_reviewed","at":"2026-10-01T18:57:05Z","command":"curl x | sh","outcome":"deny","risk":"high","reason":"pipes the network to a shell","duration_ms":3000,"input_tokens":1000,"cached_input_tokens":0,"output_tokens":60,"delta":true,"forked":true,"commands":2}`: AutoReviewedDTO{
			At: at, Command: "curl x | sh", Outcome: "deny", Risk: "high", Reason: "pipes the network to a shell", DurationMS: 3000, InputTokens: 1000, OutputTokens: 60, Delta: true, Forked: true, Commands: 2},
	} {
		in := `{"v":1,"type":"session_opened","at":"2026-10-01T18:57:05Z","id":"s1"}` + "\n" + line + "\n"
		var got []any
		for l := range NewReader(strings.NewReader(in)).Lines() {
			if l.DTO != nil {
				got = append(got, l.DTO)
			}
		}
		require.Len(t, got, 2, line)
		assert.Equal(t, want, got[1], line)
	}
}

// Unstreamed: what a response adds to the text streamed before it, from
// the fold's pairing: nothing when it is the same, the rest when it goes
// on, all of it (and anew) when it says something else; all of a response
// that replaced nothing.
func TestUnstreamed(t *testing.T) {
	const head = `{"v":1,"type":"session_opened","at":"2026-10-01T18:57:05Z","id":"s"}
{"v":1,"type":"run_started","at":"2026-10-01T18:57:06Z","run_id":"r1"}
`
	answer := func(deltas []string, full string) (string, bool) {
		var b strings.Builder
		b.WriteString(head)
		for _, d := range deltas {
			fmt.Fprintf(&b, `{"v":1,"type":"text_delta","at":"2026-10-01T18:57:06Z","item_id":"a","text":%q}`+"\n", d)
		}
		fmt.Fprintf(&b, `{"v":1,"type":"assistant_message","at":"2026-10-01T18:57:08Z","text":%q}`+"\n", full)
		var rest string
		var anew bool
		for l := range NewReader(strings.NewReader(b.String())).Lines() {
			if _, ok := l.DTO.(stream.AssistantMessageDTO); ok {
				rest, anew = l.Change.Unstreamed(full)
			}
		}
		return rest, anew
	}
	for _, c := range []struct {
		deltas []string
		full   string
		rest   string
		anew   bool
	}{
		{[]string{"Hel", "lo"}, "Hello", "", false},
		{[]string{"Hel", "lo"}, "Hello there", " there", false},
		{[]string{"Hel", "lo"}, "Goodbye", "Goodbye", true},
		{nil, "Hello", "Hello", false},
	} {
		rest, anew := answer(c.deltas, c.full)
		assert.Equal(t, c.rest, rest, "%q then %q", c.deltas, c.full)
		assert.Equal(t, c.anew, anew, "%q then %q", c.deltas, c.full)
	}
}

// A source that fails: every line before the failure, then the session's
// end, and the source's error from Err, never as a line's; a line that
// cannot be decoded is a line's Err, and the reading goes on.
func TestReaderErr(t *testing.T) {
	broken := errors.New("the disk went away")
	good := `{"v":1,"type":"run_started","at":"2026-11-01T10:00:00Z","run_id":"r","session_id":"s","provider":"p","model":"m","effort":"high","workspace":"/w"}` + "\n"
	rd := NewReader(io.MultiReader(strings.NewReader(good+"not json\n"), iotest.ErrReader(broken)))
	var n, lineErrs int
	var end bool
	for l := range rd.Lines() {
		n++
		if l.Err != nil {
			_, ok := errors.AsType[*stream.LineError](l.Err)
			require.True(t, ok, "a line's error is a *stream.LineError: %v", l.Err)
			lineErrs++
		}
		end = end || l.End
	}
	assert.Equal(t, 3, n, "two lines, then the end")
	assert.Equal(t, 1, lineErrs)
	assert.True(t, end)
	assert.ErrorIs(t, rd.Err(), broken)

	rd = NewReader(strings.NewReader(good))
	for range rd.Lines() {
	}
	assert.NoError(t, rd.Err(), "read to its end")
}

// A session stream ends by uah exec's rule (its ledger, row 126), which
// every view maps: 130 when the last run was interrupted, 3 at the disk
// limit, else 1 after any input_failed or error notice, else 0 with no
// run, else 0 when the last run is ok and 1 when not.
func TestASessionEndsByUahsExitRule(t *testing.T) {
	ok := sessions.Run{Message: "hi", Answer: "done"}
	failed := sessions.Run{Message: "x", CannotStart: true}
	interrupted := sessions.Run{Message: "stop", Answer: "half", Status: stream.StatusInterrupted}
	disk := sessions.Run{Message: "big", Answer: "full", Status: stream.StatusDiskLimit}
	noticed := sessions.Run{Message: "hi", Answer: "done", Notice: "error"}
	warned := sessions.Run{Message: "hi", Answer: "done", Notice: "warning"}
	timeout := sessions.Run{Message: "slow", Answer: "late", Status: stream.StatusTimeout}
	for _, c := range []struct {
		name string
		runs []sessions.Run
		want stream.Verdict
	}{
		{"an error notice, then an ok run", []sessions.Run{noticed, ok}, stream.Verdict{Ending: stream.EndFinished, Status: stream.StatusError, ExitCode: 1}},
		{"a warning is not an error", []sessions.Run{warned, ok}, stream.Verdict{Ending: stream.EndFinished, Status: stream.StatusOK, ExitCode: 0}},
		{"input_failed, then an ok run", []sessions.Run{failed, ok}, stream.Verdict{Ending: stream.EndFinished, Status: stream.StatusError, ExitCode: 1}},
		{"no run", nil, stream.Verdict{Ending: stream.EndNoRun, Status: stream.StatusOK, ExitCode: 0}},
		{"no run, an input failed", []sessions.Run{failed}, stream.Verdict{Ending: stream.EndNoRun, Status: stream.StatusError, ExitCode: 1}},
		{"interrupted last, after a failed input", []sessions.Run{failed, ok, interrupted}, stream.Verdict{Ending: stream.EndFinished, Status: stream.StatusInterrupted, ExitCode: 130}},
		{"disk limit last, after an error notice", []sessions.Run{noticed, disk}, stream.Verdict{Ending: stream.EndFinished, Status: stream.StatusDiskLimit, ExitCode: 3}},
		{"interrupted, then ok", []sessions.Run{interrupted, ok}, stream.Verdict{Ending: stream.EndFinished, Status: stream.StatusOK, ExitCode: 0}},
		{"a timeout last", []sessions.Run{ok, timeout}, stream.Verdict{Ending: stream.EndFinished, Status: stream.StatusTimeout, ExitCode: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := read(t, sessions.Write(sessions.Options{Runs: c.runs}))
			assert.Equal(t, c.want, s.Verdict())
			v := s.VerdictOf(c.want.ExitCode, "")
			assert.Equal(t, c.want, v, "with uah exec's own exit code")
		})
	}
	s, _ := read(t, sessions.Write(sessions.Options{Runs: []sessions.Run{ok}}))
	assert.Equal(t, stream.Verdict{Ending: stream.EndFinished, Status: stream.StatusInterrupted, ExitCode: 130}, s.VerdictOf(130, stream.StatusInterrupted),
		"a session stopped by Ctrl-C between runs")
}

// A compaction's own model call (compacted's stats.call) is counted in
// the session's totals apart from the runs', in the runner's field names
// or snake_case; a compaction without a call (a clear, an elision) is a
// compaction with no call.
func TestACompactionsCallIsCountedApart(t *testing.T) {
	s, runs := read(t, sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "hi", Answer: "done", Compaction: true}, {Message: "more", Answer: "ok"}}}))
	require.Len(t, runs, 2)
	tot := s.Totals()
	assert.Equal(t, Compaction{Compactions: 1, Calls: 1, Tokens: stream.TokensDTO{Input: 200000, CachedInput: 150000, Output: 4000}}, tot.Compaction)
	assert.Equal(t, int64(2*12873), tot.Tokens.Input, "the runs' tokens, without the compaction's")

	var c Compaction
	c.Add(`{"call":{"input_tokens":10,"cached_input_tokens":5,"cache_write_input_tokens":1,"output_tokens":2,"reasoning_tokens":1}}`)
	c.Add(`{"strategy":"clear"}`)
	c.Add(`{"call":null}`)
	c.Add(``)
	assert.Equal(t, Compaction{Compactions: 4, Calls: 1, Tokens: stream.TokensDTO{Input: 10, CachedInput: 5, CacheWriteInput: 1, Output: 2, Reasoning: 1}}, c)
}

// A call's usage in both namings is the runner's, never the two added.
func TestCallUsageInBothNamings(t *testing.T) {
	u, ok := CallUsage(`{"call":{"InputTokens":10,"input_tokens":10,"OutputTokens":1,"output_tokens":1}}`)
	require.True(t, ok)
	assert.Equal(t, stream.TokensDTO{Input: 10, Output: 1}, u)
}
