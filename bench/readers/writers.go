package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/bench/internal/cputime"
)

// writeClasses splits the events of a corpus by the size of their line.
func writeClasses(data []byte) map[string][]stream.Event {
	out := map[string][]stream.Event{}
	dec := stream.NewDecoder(bytes.NewReader(data))
	for dto, err := range dec.All() {
		if err != nil {
			continue
		}
		e, ok := stream.DTOToEvent(dto)
		if !ok {
			continue
		}
		n := len(dec.Raw())
		class := "lines < 64 KiB"
		switch {
		case n >= 1<<20:
			class = "lines of 1–4 MB"
		case n >= 64<<10:
			class = "lines of 64 KiB–1 MB"
		}
		out[class] = append(out[class], e)
		out["all events"] = append(out["all events"], e)
	}
	return out
}

// reference is what the uagent runner did before the Sink: EventToDTO,
// then a json.Encoder without HTML escaping, under a mutex.
func reference(w io.Writer) func(stream.Event) {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return func(e stream.Event) {
		dto, _ := stream.EventToDTO(e)
		mu.Lock()
		enc.Encode(dto)
		mu.Unlock()
	}
}

// sinkWriter writes through a Sink, a new one for every run (a Sink writes
// nothing after its run_finished).
func sinkWriter(w io.Writer) func(stream.Event) {
	s := stream.NewSink(w)
	return func(e stream.Event) {
		if _, ok := e.(stream.RunStarted); ok {
			s = stream.NewSink(w)
		}
		s.Emit(e)
	}
}

// measureWriters times both writers on each class, interleaved, and
// counts allocations per event.
func measureWriters(data []byte, rounds int) {
	classes := writeClasses(data)
	fmt.Printf("### writing: the Sink beside EventToDTO + json.Encoder\n\n| events | count | reference MB/CPU s | Sink MB/CPU s | ratio | Sink allocs/event |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, name := range []string{"all events", "lines < 64 KiB", "lines of 64 KiB–1 MB", "lines of 1–4 MB"} {
		evs := classes[name]
		if len(evs) == 0 {
			continue
		}
		var size bytes.Buffer
		w := sinkWriter(&size)
		for _, e := range evs {
			w(e)
		}
		writers := []func(io.Writer) func(stream.Event){reference, sinkWriter}
		times := make([][]time.Duration, 2)
		for round := range rounds {
			for k := range 2 {
				i := (k + round) % 2
				emit := writers[i](io.Discard)
				runtime.GC()
				start := cputime.Now()
				for _, e := range evs {
					emit(e)
				}
				times[i] = append(times[i], cputime.Now()-start)
			}
		}
		emit := sinkWriter(io.Discard)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, e := range evs {
			emit(e)
		}
		runtime.ReadMemStats(&after)
		mb := float64(size.Len()) / 1e6
		ref, sink := median(times[0]), median(times[1])
		fmt.Printf("| %s | %d | %.0f | %.0f | %.2f× | %.2f |\n", name, len(evs), mb/ref.Seconds(), mb/sink.Seconds(),
			ref.Seconds()/sink.Seconds(), float64(after.Mallocs-before.Mallocs)/float64(len(evs)))
	}
	fmt.Println()
}
