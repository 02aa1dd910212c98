// Command peak measures the Decoder's peak memory on one long line:
//
//	go run ./peak -mb 60
//
// It prints the process's peak resident size beside the line's length.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/uagentkit/stream"
)

func main() {
	mb := flag.Int("mb", 60, "the line's length, MB")
	escaped := flag.Bool("escaped", false, "make the line's text need unescaping")
	flag.Parse()
	unit := "plain text, no escapes. "
	if *escaped {
		unit = `escaped \"text\"\n with \\ in it. `
	}
	f, err := os.CreateTemp("", "peak")
	if err != nil {
		panic(err)
	}
	defer os.Remove(f.Name())
	// Written in pieces: the peak measured is the Decoder's, not this.
	io.WriteString(f, `{"v":1,"type":"user_message","at":"2026-09-23T12:00:00Z","id":"u","text":"`)
	chunk := strings.Repeat(unit, (64<<10)/len(unit))
	for n := 0; n < *mb<<20; n += len(chunk) {
		io.WriteString(f, chunk)
	}
	io.WriteString(f, "\"}\n")
	f.Seek(0, 0)
	var before syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	dec := stream.NewDecoder(f)
	dto, err := dec.Decode()
	if err != nil {
		panic(err)
	}
	n := len(dto.(stream.UserMessageDTO).Text)
	var after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	peak := after.Maxrss >> 10 // MiB
	fmt.Printf("line %d MiB: peak RSS %d MiB (%.2f× the line; 2× the line + %d MiB)\n", *mb, peak, float64(after.Maxrss<<10)/float64(*mb<<20), peak-int64(2**mb))
	_ = n
}
