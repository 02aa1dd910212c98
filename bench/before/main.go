//go:build before

// Command before reads the benchmark corpora with this tree's Decoder and
// with an earlier commit's (copied into before/old by before.sh), or with
// their Summarize (-summarize), passes alternated in one process, and
// prints medians and the ratio. The machine's noise moves both alike.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/uagentkit/stream"
	old "github.com/uagentkit/stream/bench/before/old"
	"github.com/uagentkit/stream/bench/internal/cputime"
	"github.com/uagentkit/stream/internal/corpus"
)

func main() {
	rounds := flag.Int("rounds", 31, "alternated passes of each Decoder")
	summarize := flag.Bool("summarize", false, "time Summarize (the Decoder and the fold) instead of the Decoder alone")
	flag.Parse()
	const mb = 12 << 20
	cs := []struct {
		name string
		o    corpus.Options
	}{
		{"real", corpus.Real(24 << 20)},
		{"long lines", corpus.Real(24 << 20)}, // the real corpus's lines over 64 KiB
		{"small", corpus.Options{Seed: 2, Size: mb, MaxText: 200, Text: "mixed"}},
		{"plain", corpus.Options{Seed: 3, Size: mb, MaxText: 40 << 10, Text: "plain", LongLines: 2}},
		{"escaped", corpus.Options{Seed: 4, Size: mb, MaxText: 40 << 10, Text: "escaped", LongLines: 2}},
		{"nonascii", corpus.Options{Seed: 5, Size: mb, MaxText: 40 << 10, Text: "nonascii", LongLines: 2}},
		{"sorted", corpus.Options{Seed: 6, Size: mb, MaxText: 40 << 10, Text: "mixed", SortedKeys: 1}},
	}
	fmt.Println("| corpus | before, MB/CPU s | now, MB/CPU s | now / before (medians of CPU time) |\n| --- | --- | --- | --- |")
	for _, c := range cs {
		data := corpus.Generate(c.o)
		if c.name == "long lines" {
			var long []byte
			for _, l := range bytes.SplitAfter(data, []byte("\n")) {
				if len(l) > 64<<10 {
					long = append(long, l...)
				}
			}
			data = long
		}
		var to, tn []time.Duration
		for r := range *rounds {
			for k := 0; k < 2; k++ {
				useOld := (r+k)%2 == 0
				runtime.GC()
				s := cputime.Now()
				switch {
				case *summarize && useOld:
					old.Summarize(bytes.NewReader(data))
				case *summarize:
					stream.Summarize(bytes.NewReader(data))
				case useOld:
					d := old.NewDecoder(bytes.NewReader(data), oldOptions...)
					for {
						if _, err := d.Decode(); err == io.EOF {
							break
						}
					}
				default:
					d := stream.NewDecoder(bytes.NewReader(data), newOptions...)
					for {
						if _, err := d.Decode(); err == io.EOF {
							break
						}
					}
				}
				e := cputime.Now() - s
				if useOld {
					to = append(to, e)
				} else {
					tn = append(tn, e)
				}
			}
		}
		slices.Sort(to)
		slices.Sort(tn)
		mbs := func(d time.Duration) float64 { return float64(len(data)) / 1e6 / d.Seconds() }
		m := len(to) / 2
		fmt.Printf("| %s | %.0f | %.0f | %.2f× |\n", c.name, mbs(to[m]), mbs(tn[m]), to[m].Seconds()/tn[m].Seconds())
	}
}
