// Package corpus generates uagent streams shaped like real ones, for
// benchmarks: deterministic for a seed, with the properties that decide a
// reader's speed set by flags.
package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/uagentkit/stream"
)

// Options shape a corpus. The zero Options, with a Size, is the
// real-shaped default: see Real.
type Options struct {
	Seed       uint64
	Size       int     // bytes, at least
	SortedKeys float64 // the fraction of lines re-encoded with their keys sorted, as the recorded conformance streams have them
	Escaped    float64 // the fraction of lines whose non-ASCII text is written as \uXXXX
	LongLines  int     // how many lines of 1–4 MB, holding together about a third of the bytes
	MaxText    int     // the longest ordinary tool argument or text, in bytes (10 B upward)
	Text       string  // what texts are made of: "mixed" (code with \n, \" and JSON inside JSON, non-ASCII prose), "plain", "escaped" or "nonascii"
	// OneRun makes the corpus one run of as many turns as Size needs,
	// instead of runs of 12 turns each.
	OneRun bool
}

// LongRun is one real-shaped run of size bytes: the texts, keys and
// escapes of Real, as many turns as it takes, and lines of 1–4 MB holding
// a third of the bytes (at most 4 MB each).
func LongRun(size int) Options {
	o := Real(size)
	o.OneRun, o.LongLines = true, max(4, size/3/(2750<<10)) // their text grows by about half as JSON
	return o
}

// Real is the corpus the issue describes: tool arguments and texts from
// 10 B to 40 KB with \n, \", JSON inside JSON and non-ASCII text; a quarter
// of the lines with their keys sorted; some non-ASCII written as \uXXXX;
// four lines of 1–4 MB holding a third of the bytes.
func Real(size int) Options {
	return Options{Seed: 1, Size: size, SortedKeys: 0.25, Escaped: 0.1, LongLines: 4, MaxText: 40 << 10, Text: "mixed"}
}

// Pieces of text. code has quotes, backslashes, tabs and newlines; prose
// is non-ASCII; plain is neither.
const (
	code  = "func (d *Decoder) Decode() (any, error) {\n\tif d.err != nil {\n\t\treturn nil, fmt.Errorf(\"stream: %w\", d.err)\n\t}\n\treturn d.next() // \\n is not a newline\n}\n"
	prose = "Le décodeur lit chaque ligne une fois — naïve façon, 速い読み取り, ελέγχει τα πεδία. "
	plain = "The decoder reads every line once and fills the struct as it goes along. "
)

// text returns n bytes (about) of the given kind.
func text(r *rand.Rand, kind string, n int) string {
	var parts []string
	switch kind {
	case "plain":
		parts = []string{plain}
	case "escaped":
		parts = []string{code}
	case "nonascii":
		parts = []string{prose}
	default:
		parts = []string{code, prose, plain, `{"path":"a.go","content":"x := \"y\"\n"}`}
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	s := b.String()
	for i := min(n, len(s)); i > 0; i-- { // cut on a rune boundary
		if i == len(s) || s[i]&0xc0 != 0x80 {
			return s[:i]
		}
	}
	return s
}

// size draws a text length from 10 B to max, most of them short.
func size(r *rand.Rand, limit int) int {
	switch n := r.IntN(100); {
	case n < 70:
		return min(10+r.IntN(200), limit)
	case n < 95:
		return min(200+r.IntN(4<<10), limit)
	default:
		return 4<<10 + r.IntN(max(limit-4<<10, 1))
	}
}

// emitter sends an event to the Sink and the stats.
type emitter func(stream.Event)

func (f emitter) Emit(e stream.Event) { f(e) }

// Generate returns a corpus: whole runs written by the package's Sink, then
// reshaped line by line as the options say.
func Generate(o Options) []byte {
	var out bytes.Buffer
	Write(&out, o)
	return out.Bytes()
}

// counter counts the bytes written through it.
type counter struct {
	w io.Writer
	n int
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// Write writes the corpus Generate returns to w, a run at a time (a line at
// a time for OneRun), so that a corpus larger than memory can be written.
func Write(w io.Writer, o Options) error {
	r := rand.New(rand.NewPCG(o.Seed, 17))
	if o.MaxText < 10 {
		o.MaxText = 10
	}
	t0 := time.Date(2026, 9, 23, 12, 0, 0, 0, time.UTC)
	out := &counter{w: w}
	// The long lines go at fixed places: after each quarter of the rest.
	longAt := map[int]bool{}
	for i := range o.LongLines {
		longAt[(i+1)*o.Size*2/3/(o.LongLines+1)] = false
	}
	longBytes := 0
	if o.LongLines > 0 {
		longBytes = o.Size / 3 / o.LongLines
	}
	for run := 0; out.n < o.Size; run++ {
		var buf bytes.Buffer
		reshape := func() error { // the lines written so far, reshaped, to out
			for _, line := range bytes.SplitAfter(buf.Bytes(), []byte("\n")) {
				if len(line) == 0 {
					continue
				}
				if r.Float64() < o.SortedKeys {
					line = sortKeys(line)
				}
				if r.Float64() < o.Escaped {
					line = escapeNonASCII(line)
				}
				if _, err := out.Write(line); err != nil {
					return err
				}
			}
			buf.Reset()
			return nil
		}
		sink := stream.NewSink(&buf)
		var stats stream.Fold
		s := emitter(func(e stream.Event) { sink.Emit(e); stats.AddEvent(e) })
		ms := func(n int) time.Time { return t0.Add(time.Duration(run)*time.Hour + time.Duration(n)*time.Millisecond) }
		s.Emit(stream.RunStarted{At: ms(0), RunID: fmt.Sprint("run-", run), SessionID: "7ef82dc2-d9b4-4728-abc2-2f4e6060c8f8",
			Provider: "openai-codex", Model: "gpt-6-sol", Effort: "high", Workspace: "/home/dev/demo"})
		s.Emit(stream.UserMessage{At: ms(3), ID: "u1", Text: text(r, o.Text, size(r, o.MaxText))})
		now := 5
		for turn := 1; turn <= 12 || o.OneRun && out.n+buf.Len() < o.Size; turn++ {
			s.Emit(stream.TurnStarted{At: ms(now), Turn: turn, TurnID: fmt.Sprint("turn-", turn)})
			s.Emit(stream.ReasoningSummary{At: ms(now + 100), Turn: turn, Text: text(r, o.Text, size(r, 400))})
			now += 1500 + r.IntN(1000)
			s.Emit(stream.ModelResponded{At: ms(now), Turn: turn, TurnID: fmt.Sprint("turn-", turn), Duration: 2 * time.Second,
				Usage: stream.Tokens{InputTokens: 5000, CachedInputTokens: 4000, OutputTokens: 300, ReasoningTokens: 100}, Stop: stream.StopComplete})
			for c := range 1 + r.IntN(3) {
				id := fmt.Sprintf("call_%d_%d_%d", run, turn, c)
				n := size(r, o.MaxText)
				if len(longAt) > 0 {
					for at, done := range longAt {
						if !done && out.n+buf.Len() >= at {
							longAt[at] = true
							n = longBytes
							break
						}
					}
				}
				args, _ := json.Marshal(map[string]string{"path": "decode.go", "content": text(r, o.Text, n)})
				label := "write decode.go"
				s.Emit(stream.ToolCalled{At: ms(now), CallID: id, Name: "Write", Label: label, Arguments: string(args)})
				s.Emit(stream.ToolStarted{At: ms(now + 1), CallID: id, OpID: "op-" + id, Name: "Write", Label: label, OpType: "file"})
				s.Emit(stream.ToolFinished{At: ms(now + 50), CallID: id, OpID: "op-" + id, Name: "Write", Label: label, OK: c != 2,
					Detail: "exit 0", Duration: 49 * time.Millisecond, OpType: "file", OutPath: "/state/" + id + "/out", ErrPath: "/state/" + id + "/err"})
			}
			now += 60
			s.Emit(stream.AssistantMessage{At: ms(now), Turn: turn, Text: text(r, o.Text, size(r, o.MaxText))})
			if o.OneRun {
				if err := reshape(); err != nil {
					return err
				}
			}
		}
		end := ms(now + 10)
		stats.EndAt(end)
		st := stats.Stats()
		s.Emit(stream.RunFinished{At: end, Result: stream.Result{Status: stream.Classify("", 0, st), StartedAt: ms(0),
			Wall: end.Sub(ms(0)), Request: stream.Request{RunID: fmt.Sprint("run-", run), SessionID: "7ef82dc2-d9b4-4728-abc2-2f4e6060c8f8",
				Provider: "openai-codex", Model: "gpt-6-sol", Effort: "high", Workspace: "/home/dev/demo"}, Stats: st, Answer: stats.Answer()}})
		if err := reshape(); err != nil {
			return err
		}
	}
	return nil
}

// sortKeys re-encodes a line with its keys in alphabetical order, as
// encoding/json writes a map, without HTML escaping.
func sortKeys(line []byte) []byte {
	var m map[string]any
	if json.Unmarshal(line, &m) != nil {
		return line
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(m)
	return b.Bytes()
}

// escapeNonASCII writes every non-ASCII character of the line as a \uXXXX
// escape (a surrogate pair above U+FFFF). In a JSON line non-ASCII bytes
// can only stand inside strings, so the line means the same.
func escapeNonASCII(line []byte) []byte {
	var b bytes.Buffer
	for _, r := range string(line) {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.Bytes()
}
