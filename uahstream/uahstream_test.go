package uahstream

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
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
	in.WriteString(`{"v":1,"type":"goal_updated","at":"2026-10-01T18:57:05Z","goal":"x"}` + "\n")
	dec := NewDecoder(strings.NewReader(in.String()))
	for i, l := range lines {
		dto, err := dec.Decode()
		require.NoError(t, err, l.line)
		if d := cmp.Diff(l.want, dto); d != "" {
			t.Errorf("line %d (-want +got):\n%s", i+1, d)
		}
		assert.Equal(t, strings.SplitN(strings.SplitN(l.line, `"type":"`, 2)[1], `"`, 2)[0], TypeOf(dto))
	}
	dto, err := dec.Decode()
	require.NoError(t, err)
	u, ok := dto.(stream.UnknownDTO)
	require.True(t, ok, "a newer harness type stays raw")
	assert.Equal(t, "goal_updated", u.Type)
	assert.Contains(t, string(u.Raw), `"goal":"x"`)
	_, err = dec.Decode()
	assert.Equal(t, io.EOF, err)
}

// A harness line with a field of the wrong JSON type is a LineError that
// names its line, byte and field, and the next line decodes.
func TestAHarnessLineOfTheWrongTypes(t *testing.T) {
	in := `{"v":1,"type":"idle","at":"2026-10-01T18:57:05Z"}` + "\n" +
		`{"v":1,"type":"input_sent","at":"2026-10-01T18:57:05Z","ids":"m1"}` + "\n" +
		`{"v":1,"type":"idle","at":"2026-10-01T18:57:06Z"}` + "\n"
	dec := NewDecoder(strings.NewReader(in))
	_, err := dec.Decode()
	require.NoError(t, err)
	_, err = dec.Decode()
	le, ok := errors.AsType[*stream.LineError](err)
	require.True(t, ok, "%v", err)
	assert.ErrorIs(t, err, stream.ErrFieldType)
	assert.Equal(t, 2, le.Line)
	assert.Equal(t, "ids", le.Field)
	assert.Equal(t, "input_sent", le.Type)
	assert.Equal(t, int64(50+strings.Index(strings.Split(in, "\n")[1], `"m1"`)), le.Offset, "the byte of the value in the stream")
	dto, err := dec.Decode()
	require.NoError(t, err)
	assert.IsType(t, IdleDTO{}, dto)
}

func readAll(t *testing.T, b []byte) *Session {
	t.Helper()
	var s Session
	for dto, err := range NewDecoder(bytes.NewReader(b)).All() {
		s.Add(dto, err)
	}
	return &s
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
// lines alone (turns counted from 1 in each), the totals add them up, and
// every message ends delivered.
func TestASessionOfTwoRuns(t *testing.T) {
	b := sessions.Write(sessions.Options{Runs: []sessions.Run{
		{Message: "Run ls twice", Answer: "DONE", Calls: 2},
		{Message: "And again?", Answer: "Again: DONE", Calls: 1, Failed: true},
	}})
	s := readAll(t, b)
	assert.Equal(t, sessions.ID, s.ID())
	runs := s.Runs()
	require.Len(t, runs, 2)
	alone := runLines(b)
	for i, r := range runs {
		want, err := stream.Summarize(bytes.NewReader(alone[i]))
		require.NoError(t, err)
		if d := cmp.Diff(want.Summary, r.Summary); d != "" {
			t.Errorf("run %d (-alone +in the session):\n%s", i+1, d)
		}
		assert.Empty(t, r.Diff(), "the writer's summaries are true")
		assert.False(t, r.Open)
		assert.Equal(t, stream.EndFinished, r.Verdict.Ending)
		assert.Equal(t, 2, r.Summary.Stats.Turns, "turns start at 1 in every run")
	}
	assert.Equal(t, stream.StatusOK, stream.Status(runs[0].Summary.Status))
	assert.Equal(t, 1, runs[1].Summary.Stats.FailedToolCalls)
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

// The streamed text: each delta comes as it is written, the response's
// message takes the place of the oldest streamed item of its kind (the
// same text), and a stream_reset voids what streamed.
func TestLiveText(t *testing.T) {
	b := sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "hi", Answer: "Hello there", Reset: true}}})
	var s Session
	var got []string
	for dto, err := range NewDecoder(bytes.NewReader(b)).All() {
		ch := s.Add(dto, err)
		switch ch.LiveStep {
		case Streamed:
			got = append(got, "delta "+ch.Delta)
		case Replaced:
			got = append(got, "replaced "+ch.Live.Text+" same="+map[bool]string{true: "yes", false: "no"}[ch.Same])
		case Void:
			for _, l := range ch.Voided {
				got = append(got, "void "+l.Text)
			}
		}
	}
	assert.Equal(t, []string{
		"delta Thinking ", "delta it over.", "delta A first try",
		"void A first try", "void Thinking it over.",
		"delta Thinking it over.", "delta Hello", "delta  there",
		"replaced Thinking it over. same=yes", "replaced Hello there same=yes",
	}, got)
	assert.Empty(t, s.Pending())
}

// A session cut off while the model wrote: the run is open, its summary
// so far that of a cut-off stream, and what streamed is pending.
func TestACutOffSession(t *testing.T) {
	b := sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "hi", Answer: "DONE"}, {Message: "more", Answer: "never said", CutOff: true}}})
	s := readAll(t, b)
	runs := s.Runs()
	require.Len(t, runs, 2)
	assert.True(t, runs[1].Open)
	assert.True(t, runs[1].CutOff)
	assert.Equal(t, stream.EndCutOff, s.Verdict().Ending)
	require.Len(t, s.Pending(), 2)
	assert.Equal(t, "never said", s.Pending()[0].Text)
	assert.True(t, s.Pending()[1].Reasoning)
}

// A run that could not start has no run_started: the session has no run
// for it, and its message failed.
func TestARunThatCouldNotStart(t *testing.T) {
	b := sessions.Write(sessions.Options{Runs: []sessions.Run{{Message: "hi", CannotStart: true}, {Message: "again", Answer: "ok"}}})
	s := readAll(t, b)
	require.Len(t, s.Runs(), 1)
	m := s.Messages()
	require.Len(t, m, 2)
	assert.Equal(t, Failed, m[0].State)
	assert.Equal(t, "the runner could not start", m[0].Reason)
	assert.Equal(t, Delivered, m[1].State)
}

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		in      string
		session bool
	}{
		{`{"v":1,"type":"session_opened","at":"2026-10-01T18:57:05Z","id":"s"}` + "\n{}", true},
		{"\n\n" + `{"type":"session_opened","v":1}` + "\n", true},
		{`{"v":1,"type":"run_started","at":"2026-10-01T18:57:05Z"}` + "\n", false},
		{"", false},
		{"not json\n", false},
		{strings.Repeat(" ", 100000) + `{"type":"session_opened"}`, true},
	} {
		r, ok, err := Sniff(strings.NewReader(c.in))
		require.NoError(t, err)
		assert.Equal(t, c.session, ok, "%.40q", c.in)
		all, err := io.ReadAll(r)
		require.NoError(t, err)
		assert.Equal(t, c.in, string(all), "the whole stream is read again")
	}
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
	var s Session
	var got []string
	for dto, err := range NewDecoder(strings.NewReader(in)).All() {
		ch := s.Add(dto, err)
		for _, l := range ch.Unreplaced {
			got = append(got, "unreplaced "+strconv.Itoa(l.Index)+" "+l.Text)
		}
		if ch.LiveStep == Replaced {
			got = append(got, "replaced "+strconv.Itoa(ch.Live.Index)+" "+ch.Live.Text)
		}
		if ch.LiveStep == Streamed {
			got = append(got, "streamed "+strconv.Itoa(ch.Live.Index))
		}
	}
	assert.Equal(t, []string{"streamed 0", "unreplaced 0 left", "streamed 1", "replaced 1 said"}, got)
	assert.Empty(t, s.Pending())
}
