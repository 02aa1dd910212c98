package stream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sourceText is the kind of text tool arguments carry: code with quotes,
// tabs, newlines and some non-ASCII.
const sourceText = "func (d *Decoder) Decode() (any, error) {\n\tif d.err != nil {\n\t\treturn nil, fmt.Errorf(\"stream: %w — café\", d.err)\n\t}\n\treturn d.next()\n}\n"

// makeCorpus writes realistic runs through the Sink until the stream has at
// least size bytes: every event type, tool arguments from a few bytes to a
// few MB (one in 400 calls), the rest ordinary.
func makeCorpus(size int) []byte {
	rnd := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	s := NewSink(&buf)
	s.now = func() time.Time { return t0 }
	for run := 0; buf.Len() < size; run++ {
		s.finished = false
		ms := func(n int) time.Time { return t0.Add(time.Duration(run)*time.Hour + time.Duration(n)*time.Millisecond) }
		s.Emit(RunStarted{At: ms(0), RunID: fmt.Sprint("run-", run), SessionID: "7ef82dc2-d9b4-4728-abc2-2f4e6060c8f8", Provider: "openai-codex", Model: "gpt-6-sol", Effort: "high", Workspace: "/home/dev/demo"})
		s.Emit(PreflightWarning{At: ms(1), Code: "auth_expiring", Message: "credentials expire in 2 days"})
		s.Emit(ControlInput{At: ms(2), ID: "c1", Mode: ControlSettings, Effort: "low"})
		s.Emit(UserMessage{At: ms(3), ID: "u1", Text: "Refactor the decoder and run the tests; report failures."})
		s.Emit(DeveloperMessage{At: ms(4), ID: "d1", Text: "Repository context: " + sourceText})
		now := 5
		for turn := 1; turn <= 20 && buf.Len() < size; turn++ {
			s.Emit(TurnStarted{At: ms(now), Turn: turn, TurnID: fmt.Sprint("turn-", turn)})
			s.Emit(ReasoningSummary{At: ms(now + 100), Turn: turn, Text: "Looking at the failing test and the decoder's buffer handling."})
			now += 2000
			s.Emit(ModelResponded{At: ms(now), Turn: turn, TurnID: fmt.Sprint("turn-", turn), Duration: 2 * time.Second,
				Usage: Tokens{InputTokens: 5000, CachedInputTokens: 4000, OutputTokens: 300, ReasoningTokens: 100}, Stop: StopComplete})
			for call := range 3 {
				id := fmt.Sprintf("call_%d_%d_%d", run, turn, call)
				var args string
				switch n := rnd.IntN(400); {
				case n == 0:
					args = strings.Repeat(sourceText, (1<<20+rnd.IntN(3<<20))/len(sourceText)) // 1–4 MB
				case n < 40:
					args = strings.Repeat(sourceText, 1+rnd.IntN(200)) // up to 30 KB
				default:
					args = sourceText[:rnd.IntN(len(sourceText))]
				}
				argJSON, _ := json.Marshal(map[string]string{"path": "decode.go", "content": args})
				s.Emit(ToolCalled{At: ms(now), CallID: id, Name: "Write", Label: "write decode.go", Arguments: string(argJSON)})
				s.Emit(ToolStarted{At: ms(now + 1), CallID: id, OpID: "op-" + id, Name: "Write", Label: "write decode.go", OpType: "file"})
				s.Emit(ToolFinished{At: ms(now + 50), CallID: id, OpID: "op-" + id, Name: "Write", Label: "write decode.go", OK: call != 2,
					Detail: "exit 0", Duration: 49 * time.Millisecond, OpType: "file", OutPath: "/state/" + id + "/out", ErrPath: "/state/" + id + "/err"})
			}
			now += 60
			s.Emit(AssistantMessage{At: ms(now), Turn: turn, Text: "Updated decode.go; running the tests next."})
		}
		s.Emit(RunnerError{At: ms(now + 1), Message: "runner: line is not JSON: Traceback (most recent call last)"})
		s.Emit(RunFinished{At: ms(now + 10), Result: fullResult()})
	}
	return buf.Bytes()
}

var benchCorpus = sync.OnceValue(func() []byte { return makeCorpus(24 << 20) })

// repeatReader reads data n times over without holding n copies.
type repeatReader struct {
	data []byte
	n    int
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	c := copy(p, r.data[r.off:])
	r.off += c
	if r.off == len(r.data) {
		r.off, r.n = 0, r.n-1
	}
	return c, nil
}

// baselineDecode is what most readers do: a bufio.Scanner with a raised
// buffer, then encoding/json once for the type and once into the DTO.
func baselineDecode(r io.Reader) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), DefaultMaxLineSize)
	n := 0
	for sc.Scan() {
		var h struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			return n, err
		}
		k := kindByType[h.Type]
		if k == nil {
			continue
		}
		v := reflect.New(k.dto).Interface()
		if err := json.Unmarshal(sc.Bytes(), v); err != nil {
			return n, err
		}
		n++
	}
	return n, sc.Err()
}

func decoderDecode(r io.Reader) (int, error) {
	dec := NewDecoder(r)
	n := 0
	for {
		_, err := dec.Decode()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

func BenchmarkDecode(b *testing.B) {
	corpus := benchCorpus()
	lines := bytes.Count(corpus, []byte("\n"))
	for _, bc := range []struct {
		name   string
		decode func(io.Reader) (int, error)
		times  int
	}{
		{"baseline", baselineDecode, 1},
		{"decoder", decoderDecode, 1},
		{"decoder-10x", decoderDecode, 10},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(corpus) * bc.times))
			for b.Loop() {
				n, err := bc.decode(&repeatReader{data: corpus, n: bc.times})
				if err != nil || n != lines*bc.times {
					b.Fatalf("decoded %d of %d lines: %v", n, lines*bc.times, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines*bc.times), "ns/line")
		})
	}
}

// TestDecoderMemoryIsBounded decodes a corpus ten times over through one
// Decoder: every pass after the first (which grows the buffer) allocates
// about the same bytes per line (not the same to the byte: where the reads
// fall in a long line decides how many chunks it is read in, and whether a
// buffer strings still share is replaced), and the live heap stays bounded
// by the longest line, not the stream.
func TestDecoderMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 60 MB")
	}
	corpus := makeCorpus(6 << 20)
	longest := 0
	for _, l := range lines(corpus) {
		longest = max(longest, len(l))
	}
	lineCount := bytes.Count(corpus, []byte("\n"))
	const passes = 10
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, last := ms.HeapAlloc, ms.TotalAlloc
	var perPass []float64
	var peak uint64
	dec := NewDecoder(&repeatReader{data: corpus, n: passes})
	for n := 1; ; n++ {
		_, err := dec.Decode()
		if err == io.EOF {
			require.Equal(t, passes*lineCount+1, n)
			break
		}
		require.NoError(t, err)
		if n%500 == 0 || n%lineCount == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc-min(ms.HeapAlloc, base))
		}
		if n%lineCount == 0 {
			perPass = append(perPass, float64(ms.TotalAlloc-last)/float64(lineCount))
			last = ms.TotalAlloc
		}
	}
	t.Logf("longest line %d B; bytes allocated per line, pass by pass: %.0f; peak heap growth %d B", longest, perPass, peak)
	for i := 2; i < passes; i++ {
		assert.InEpsilon(t, perPass[1], perPass[i], 0.3, "pass %d allocates about as much per line as pass 2", i+1)
	}
	assert.Less(t, peak, uint64(8*longest+16<<20), "peak heap is bounded by the longest line")
}
