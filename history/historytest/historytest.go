// Package historytest writes a person's history for tests (this
// module's, and a program's that reads histories: an exporter, a view):
// run
// directories in uagent's state directory and uah's home, with the
// records, request and summary each run's uagent writes (DESIGN.md, "What
// uagent saves"), and uah's sidecars. The summaries' figures are what the
// tests pin the listings against: written here, not computed by the code
// under test.
package historytest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/statedir"
	"github.com/uagentkit/stream/uahstream"
)

// Run is one run to write.
type Run struct {
	// Homes are the state directories it is written to (two for a run
	// uah copied at its first start).
	Homes   []string
	ID      string
	Session string
	Start   time.Time
	Wall    time.Duration
	// Status is the summary's; NoSummary writes none (uagent died first).
	Status                             string
	NoSummary                          bool
	Provider, Model, Effort, Workspace string
	Prompt, Answer                     string
	// Command is the Bash command of its one tool call, when not empty.
	Command string
	Tokens  stream.TokensDTO
	// Requests, when not empty, are the usages of its model requests, a
	// turn each (they add up to Tokens); else it makes one request that
	// used Tokens.
	Requests []stream.TokensDTO
}

// Sidecar is uah's sidecar of a session, in a home.
type Sidecar struct {
	Home, ID, Source, Parent, FirstPrompt, Workspace string
	Review                                           bool
	Created                                          time.Time
}

// Write writes the runs (on all cores) and the sidecars.
func Write(runs []Run, sidecars []Sidecar) error {
	errs := make([]error, len(runs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				for _, home := range runs[i].Homes {
					if errs[i] == nil {
						errs[i] = runs[i].write(filepath.Join(home, "runs", runs[i].ID))
					}
				}
			}
		})
	}
	for i := range runs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, s := range sidecars {
		dir := filepath.Join(s.Home, "sessions")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		b, err := json.Marshal(map[string]any{"source": s.Source, "review": s.Review, "created": s.Created, "parent": s.Parent,
			"workspace": s.Workspace, "first_prompt": s.FirstPrompt})
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, s.ID+".uah.json"), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

type rec struct {
	Sequence   int
	RecordedAt time.Time
	Kind       string
	Data       any
}

func (r Run) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	req, err := json.Marshal(map[string]any{"prompt": r.Prompt, "session_id": r.Session, "model": r.Model, "thinking_level": r.Effort})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "request.json"), req, 0o644); err != nil {
		return err
	}
	at := r.Start
	var recs []rec
	add := func(kind string, data any) {
		at = at.Add(100 * time.Millisecond)
		recs = append(recs, rec{len(recs) + 1, at, kind, data})
	}
	add("input", map[string]any{"ID": "m1", "Kind": "external", "Payload": r.Prompt})
	reqs := r.Requests
	if len(reqs) == 0 {
		reqs = []stream.TokensDTO{r.Tokens}
	}
	for i, u := range reqs {
		turn := fmt.Sprintf("t%d", i+1)
		add("turn", map[string]any{"ID": turn})
		var out []any
		if r.Command != "" && i == 0 {
			args, _ := json.Marshal(map[string]string{"command": r.Command})
			out = append(out, map[string]any{"Type": "tool_call", "Data": map[string]any{"CallID": "c1", "Name": "Bash", "Arguments": string(args)}})
		}
		if i == len(reqs)-1 {
			out = append(out, map[string]any{"Type": "message", "Data": map[string]any{"Role": "assistant", "Text": r.Answer, "Phase": "final_answer"}})
		}
		add("model_response", map[string]any{"TurnID": turn, "Response": map[string]any{"Stop": "complete", "Output": out,
			"Usage": map[string]any{"InputTokens": u.Input, "CachedInputTokens": u.CachedInput,
				"CacheWriteInputTokens": u.CacheWriteInput, "OutputTokens": u.Output, "ReasoningTokens": u.Reasoning}}})
	}
	if r.Command != "" {
		add("tool_call_status", map[string]any{"CallID": "c1", "Status": map[string]any{}, "Operations": []any{
			map[string]any{"ID": "op1", "Type": "shell", "Status": "completed", "State": map[string]any{"Result": map[string]any{"ExitCode": 0}}}}})
	}
	f, err := os.Create(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, x := range recs {
		if err := enc.Encode(x); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if r.NoSummary {
		return nil
	}
	// The summary's stats are what the records say (the runner's
	// arithmetic, as the stream package recomputes it), its identity
	// and ending what the run says.
	sr, err := statedir.OpenRun(dir)
	if err != nil {
		return err
	}
	var sum stream.SummaryDTO
	for l := range uahstream.ReadEvents(sr.Events()).Lines() {
		if l.Ended != nil {
			sum = l.Ended.Summary
		}
	}
	status := r.Status
	if status == "" {
		status = "ok"
	}
	sum.Status, sum.RunID, sum.SessionID, sum.Provider, sum.Model = status, r.ID, r.Session, r.Provider, r.Model
	sum.Effort, sum.Workspace, sum.StartedAt, sum.WallMS = r.Effort, r.Workspace, r.Start, r.Wall.Milliseconds()
	if sum.Stats.Tokens != r.Tokens {
		return fmt.Errorf("historytest: %s: the records' tokens %+v are not the run's %+v", r.ID, sum.Stats.Tokens, r.Tokens)
	}
	b, err := sum.MarshalIndent() // as stream.SummaryDTO.WriteFile writes it, without its syncs: a fixture is not a crash test
	if err != nil {
		return fmt.Errorf("historytest: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o600)
}

// Hostile is what a terminal acts on or a reader cannot see, in a title,
// a workspace and a model of the fixture.
const Hostile = "\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\u202e\u200b\x00<script>&"

// The fixture's session ids.
const (
	Flaky    = "a1f1a2b3-0000-4000-8000-000000000001" // tui, across midnight, with a subagent and a reviewer
	Sub      = "subagent-b2c3d4e5-0000-4000-8000-000000000002"
	Reviewer = "subagent-c3d4e5f6-0000-4000-8000-000000000003"
	Old      = "d4e5f607-0000-4000-8000-000000000004" // in uagent's directory under its old name, October
	Copied   = "e5f60718-0000-4000-8000-000000000005" // in both homes, openai-codex
	Unpriced = "f6071829-0000-4000-8000-000000000006" // a model no table has, hostile title and workspace
	Live     = "a7182930-0000-4000-8000-000000000007" // running (while HoldLive), after a run without summary (stopped)
)

// Fixture is a history of three homes under root (uagent's state
// directory under its name, under its old name, and uah's home), and
// what was written: sessions across midnight and across months, uah's
// sidecars, a subagent and a reviewer, a run in two homes, an unpriced
// model, a hostile title, a run still going (its summary says running:
// running while HoldLive holds its session's lock, stopped otherwise) and,
// before it in its session, one without a summary (stopped: uagent died).
type Fixture struct {
	Uagent, Old, Uah string
	Runs             []Run
	Sidecars         []Sidecar
}

// WriteFixture writes the fixture under root.
func WriteFixture(root string) (Fixture, error) {
	f := Fixture{Uagent: filepath.Join(root, "state", "uagent"), Old: filepath.Join(root, "state", "unreal-agent"), Uah: filepath.Join(root, ".uah")}
	at := func(s string) time.Time {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			panic(err)
		}
		return t
	}
	tok := func(in, cached, write, out, reasoning int64) stream.TokensDTO {
		return stream.TokensDTO{Input: in, CachedInput: cached, CacheWriteInput: write, Output: out, Reasoning: reasoning}
	}
	ws := "/home/dev/parser"
	f.Runs = []Run{
		{Homes: []string{f.Old}, ID: "20261031-100000-d4e5f607", Session: Old, Start: at("2026-10-31T10:00:00Z"), Wall: 90 * time.Second,
			Provider: "anthropic", Model: "claude-sonnet-4-5", Effort: "high", Workspace: "/home/dev/site", Prompt: "Update the footer year",
			Answer: "Done.", Tokens: tok(200000, 150000, 20000, 3000, 1000)},
		{Homes: []string{f.Uah}, ID: "20261101-235000-a1f1a2b3", Session: Flaky, Start: at("2026-11-01T23:50:00Z"), Wall: 5 * time.Minute,
			Provider: "openai", Model: "gpt-5.4", Effort: "medium", Workspace: ws, Prompt: "Fix the flaky test in parser_test.go",
			Answer: "It races on the cache.", Command: "go test -run TestFlaky -count 50 ./parser", Tokens: tok(1000000, 800000, 0, 20000, 5000)},
		{Homes: []string{f.Uah}, ID: "20261102-000500-b2c3d4e5", Session: Sub, Start: at("2026-11-02T00:05:00Z"), Wall: time.Minute,
			Provider: "openai", Model: "gpt-5.4-mini", Effort: "low", Workspace: ws, Prompt: "Find where the cache is shared",
			Answer: "In parser.go, line 88.", Command: "grep -n cache parser.go", Tokens: tok(100000, 50000, 0, 2000, 0)},
		{Homes: []string{f.Uah}, ID: "20261102-001000-c3d4e5f6", Session: Reviewer, Start: at("2026-11-02T00:10:00Z"), Wall: 2 * time.Minute,
			Provider: "openai", Model: "gpt-5.4", Effort: "high", Workspace: ws, Prompt: "Review the fix",
			Answer: "Looks right; the lock covers the map.", Tokens: tok(300000, 200000, 0, 4000, 3000)},
		{Homes: []string{f.Uah}, ID: "20261102-002000-a1f1a2b3", Session: Flaky, Start: at("2026-11-02T00:20:00Z"), Wall: 3 * time.Minute,
			Provider: "openai", Model: "gpt-5.4", Effort: "medium", Workspace: ws, Prompt: "Now make it Straße-proof: ÜBER tests",
			Answer: "Added a test of the Unicode keys.", Command: "go test ./parser", Tokens: tok(500000, 400000, 0, 10000, 2000)},
		{Homes: []string{f.Uagent, f.Uah}, ID: "20261103-090000-e5f60718", Session: Copied, Start: at("2026-11-03T09:00:00Z"), Wall: 40 * time.Second,
			Provider: "openai-codex", Model: "gpt-5.6-sol", Effort: "low", Workspace: "/home/dev/notes", Prompt: "Summarize the meeting notes",
			Answer: "Three decisions.", Tokens: tok(60000, 0, 10000, 1500, 500)},
		{Homes: []string{f.Uagent}, ID: "20261103-120000-f6071829", Session: Unpriced, Start: at("2026-11-03T12:00:00Z"), Wall: 10 * time.Second,
			Provider: "local", Model: "llama-9" + Hostile, Effort: "", Workspace: "/tmp/x" + Hostile, Prompt: "Say hi " + Hostile,
			Answer: "hi", Tokens: tok(1000, 0, 0, 10, 0)},
		{Homes: []string{f.Uagent}, ID: "20261104-080000-a7182930", Session: Live, Start: at("2026-11-04T08:00:00Z"), Wall: 0, Status: "running",
			Provider: "openai", Model: "gpt-5.4", Workspace: ws, Prompt: "Keep going", Tokens: tok(0, 0, 0, 0, 0)},
		{Homes: []string{f.Uagent}, ID: "20261104-070000-a7182930", Session: Live, Start: at("2026-11-04T07:00:00Z"), NoSummary: true,
			Provider: "openai", Model: "gpt-5.4", Workspace: ws, Prompt: "Start the long job", Answer: "Started.", Tokens: tok(2000, 0, 0, 100, 0)},
	}
	f.Sidecars = []Sidecar{
		{Home: f.Uah, ID: Flaky, Source: "tui", FirstPrompt: "Fix the flaky test in parser_test.go", Workspace: ws, Created: at("2026-11-01T23:49:00Z")},
		{Home: f.Uah, ID: Sub, Source: "subagent", Parent: Flaky, FirstPrompt: "Find where the cache is shared", Workspace: ws, Created: at("2026-11-02T00:05:00Z")},
		{Home: f.Uah, ID: Reviewer, Source: "subagent", Review: true, Parent: Flaky, FirstPrompt: "Review the fix", Workspace: ws, Created: at("2026-11-02T00:10:00Z")},
		{Home: f.Uah, ID: Copied, Source: "run", Created: at("2026-11-03T09:00:00Z")},
	}
	return f, Write(f.Runs, f.Sidecars)
}

// HoldLive holds the session lock of the fixture's live session (see
// Hold), as uagent does while its run goes on; release lets go of it.
func (f Fixture) HoldLive() (release func(), err error) { return Hold(f.Uagent, Live) }

// Dirs are the fixture's homes, as statedir.Homes lists them.
func (f Fixture) Dirs() []string { return []string{f.Uagent, f.Old, f.Uah} }

// Many writes a history of n runs under root in two homes (uagent's and
// uah's, a tenth of the runs in both, as uah's first start copied them),
// in sessions of five (with uah's sidecars of some), each run with its
// request, summary and a short events.jsonl, and returns the homes.
func Many(root string, n int) ([]string, error) {
	uagent, uah := filepath.Join(root, "uagent"), filepath.Join(root, "uah")
	at := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	var runs []Run
	var sidecars []Sidecar
	for i := range n {
		session := fmt.Sprintf("%08x-0000-4000-8000-%012x", i/5, i/5)
		homes := []string{uagent}
		switch {
		case i%10 == 0:
			homes = append(homes, uah)
		case i%2 == 0:
			homes = []string{uah}
		}
		runs = append(runs, Run{Homes: homes, ID: at.Add(time.Duration(i)*time.Minute).Format("20060102-150405-") + session[:8],
			Session: session, Start: at.Add(time.Duration(i) * time.Minute), Wall: 30 * time.Second, Provider: "openai", Model: "gpt-5.4",
			Effort: "high", Workspace: fmt.Sprintf("/home/dev/p%d", i%7), Prompt: fmt.Sprintf("task %d: make the decoder faster", i),
			Answer: "Done.", Command: "go test ./...", Tokens: stream.TokensDTO{Input: int64(1000 + i), CachedInput: 500, Output: 100}})
		if i%5 == 0 && i%2 == 0 {
			sidecars = append(sidecars, Sidecar{Home: uah, ID: session, Source: "tui", FirstPrompt: fmt.Sprintf("task %d", i)})
		}
	}
	return []string{uagent, uah}, Write(runs, sidecars)
}
