package stream_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/corpus"
)

// realCorpus is the default corpus of the benchmarks: 40 MB shaped like
// real streams (see internal/corpus.Real). BenchmarkDecode in
// bench_test.go keeps the older corpus as a second one.
var realCorpus = sync.OnceValue(func() []byte { return corpus.Generate(corpus.Real(40 << 20)) })

// benchDecode decodes data once per iteration, from a bytes.Reader.
func benchDecode(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		decodeEvery(stream.NewDecoder(bytes.NewReader(data)))
	}
}

// decodeEvery reads a stream to its end, the values dropped.
func decodeEvery(dec *stream.Decoder) {
	for {
		if _, err := dec.Decode(); err == io.EOF {
			return
		}
	}
}

func BenchmarkDecodeReal(b *testing.B) { benchDecode(b, realCorpus()) }

// heldOutCorpus is the real-shaped corpus with a seed the code was not
// tuned on (BENCHMARKS.md, "The reader by CPU").
var heldOutCorpus = sync.OnceValue(func() []byte {
	o := corpus.Real(40 << 20)
	o.Seed = 58
	return corpus.Generate(o)
})

// BenchmarkHeldOut: the Decoder (owned and borrowed strings) and
// Summarize on the held-out corpus, with their allocations.
func BenchmarkHeldOut(b *testing.B) {
	data := heldOutCorpus()
	for _, c := range []struct {
		name string
		read func()
	}{
		{"Decoder", func() { decodeEvery(stream.NewDecoder(bytes.NewReader(data))) }},
		{"Decoder borrowed", func() { decodeEvery(stream.NewDecoder(bytes.NewReader(data), stream.WithBorrowedStrings())) }},
		{"Summarize", func() { stream.Summarize(bytes.NewReader(data)) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				c.read()
			}
		})
	}
}

func BenchmarkValidateReal(b *testing.B) {
	data := realCorpus()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		stream.Validate(bytes.NewReader(data))
	}
}

func BenchmarkSummarizeReal(b *testing.B) {
	data := realCorpus()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		stream.Summarize(bytes.NewReader(data))
	}
}

// classCorpora are the line classes of bench/readers, each its own corpus
// (smaller here: 8 MB), for profiling one class at a time.
var classCorpora = sync.OnceValue(func() map[string][]byte {
	const mb = 8 << 20
	out := map[string][]byte{}
	for name, o := range map[string]corpus.Options{
		"small":    {Seed: 2, Size: mb, MaxText: 200, Text: "mixed"},
		"plain":    {Seed: 3, Size: mb, MaxText: 40 << 10, Text: "plain", LongLines: 2},
		"escaped":  {Seed: 4, Size: mb, MaxText: 40 << 10, Text: "escaped", LongLines: 2},
		"nonascii": {Seed: 5, Size: mb, MaxText: 40 << 10, Text: "nonascii", LongLines: 2},
		"sorted":   {Seed: 6, Size: mb, MaxText: 40 << 10, Text: "mixed", SortedKeys: 1},
	} {
		out[name] = corpus.Generate(o)
	}
	return out
})

func BenchmarkDecodeClass(b *testing.B) {
	for _, name := range []string{"small", "plain", "escaped", "nonascii", "sorted"} {
		b.Run(name, func(b *testing.B) { benchDecode(b, classCorpora()[name]) })
	}
}

// TestDecodeKeepsEveryValue decodes a real-shaped corpus (lines over
// 64 KiB read in chunks, joined, their strings unescaped in place and
// sharing the line) in small reads, keeps every DTO, and only then compares each
// with encoding/json's reading of its line: no later read wrote over a
// string an earlier DTO holds.
func TestDecodeKeepsEveryValue(t *testing.T) {
	o := corpus.Real(6 << 20)
	o.LongLines = 2
	data := corpus.Generate(o)
	var got []any
	var raws [][]byte
	dec := stream.NewDecoder(iotest.HalfReader(bytes.NewReader(data)))
	for dto, err := range dec.All() {
		require.NoError(t, err)
		got = append(got, dto)
		raws = append(raws, bytes.Clone(dec.Raw()))
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	require.Len(t, got, len(lines))
	long := 0
	for i, line := range lines {
		long += min(len(line)>>20, 1)
		require.Equal(t, string(line), string(raws[i]), "line %d's Raw", i+1)
		want := reflect.New(reflect.TypeOf(got[i]))
		require.NoError(t, json.Unmarshal(line, want.Interface()))
		if d := cmp.Diff(want.Elem().Interface(), got[i], cmp.Exporter(func(reflect.Type) bool { return true }), cmpopts.IgnoreFields(stream.RunFinishedDTO{}, "absent")); d != "" {
			t.Fatalf("line %d (-encoding/json +Decoder):\n%s", i+1, d)
		}
	}
	require.Equal(t, 2, long, "lines over a MiB")
}

// BenchmarkDecodeRealFile reads the real-shaped corpus from a file after a
// collection, as bench/readers times every reader: each pass starts cold.
func BenchmarkDecodeRealFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "real.jsonl")
	require.NoError(b, os.WriteFile(path, realCorpus(), 0o644))
	b.SetBytes(int64(len(realCorpus())))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		f, err := os.Open(path)
		require.NoError(b, err)
		b.StartTimer()
		decodeEvery(stream.NewDecoder(f))
		f.Close()
	}
}
