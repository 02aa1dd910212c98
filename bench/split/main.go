// Command split writes the real-shaped corpus (internal/corpus.Real) as one
// file per run, for measuring commands that read many runs (export beside
// stats):
//
//	go run ./split -size 40 -o DIR
//	go run ./split -size 120 -long 0 -o DIR   # about 1,000 runs without the long lines
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/uagentkit/stream/internal/corpus"
)

func main() {
	size := flag.Int("size", 40, "corpus size in MB")
	long := flag.Int("long", 4, "lines of 1–4 MB in the corpus (corpus.Real has 4)")
	out := flag.String("o", "runs", "write the runs to this directory")
	flag.Parse()
	o := corpus.Real(*size << 20)
	o.LongLines = *long
	data := corpus.Generate(o)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	n := 0
	for len(data) > 0 {
		// A run ends after its run_finished line.
		end := bytes.Index(data, []byte(`"type":"run_finished"`))
		if end < 0 {
			end = len(data)
		} else if nl := bytes.IndexByte(data[end:], '\n'); nl >= 0 {
			end += nl + 1
		} else {
			end = len(data)
		}
		if err := os.WriteFile(filepath.Join(*out, fmt.Sprintf("run-%05d.jsonl", n)), data[:end], 0o644); err != nil {
			log.Fatal(err)
		}
		data, n = data[end:], n+1
	}
	fmt.Fprintf(os.Stderr, "%d runs\n", n)
}
