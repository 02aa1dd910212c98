// Command longrun writes one real-shaped run (internal/corpus.LongRun) of
// the given size to a file, for measuring what reading one long run costs:
//
//	go run ./longrun -mb 180 -o run.jsonl
//	/usr/bin/time -v uagent-stream stats run.jsonl   # "Maximum resident set size"
package main

import (
	"bufio"
	"flag"
	"log"
	"os"

	"github.com/uagentkit/stream/internal/corpus"
)

func main() {
	mb := flag.Int("mb", 180, "the run's size, MB")
	out := flag.String("o", "run.jsonl", "write the run to this file")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := corpus.Write(w, corpus.LongRun(*mb<<20)); err != nil {
		log.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
