package stream_test

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/corpus"
)

// realCorpus is the default corpus of the benchmarks: 40 MB shaped like
// real streams (see internal/corpus.Real). BenchmarkDecode in
// bench_test.go keeps the older corpus as a second one.
var realCorpus = sync.OnceValue(func() []byte { return corpus.Generate(corpus.Real(40 << 20)) })

func BenchmarkDecodeReal(b *testing.B) {
	data := realCorpus()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		dec := stream.NewDecoder(bytes.NewReader(data))
		for {
			if _, err := dec.Decode(); err == io.EOF {
				break
			}
		}
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
