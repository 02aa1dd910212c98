// Command records measures reading uagent's runner records (a run
// directory's events.jsonl) with the statedir package beside the
// baseline, uagent's own way of reading them (encoding/json, a second
// reading of a record that does not fit), on records shaped like a real
// run's (internal/corpus.WriteRecords):
//
//	go run ./records -mb 40 -rounds 9
//
// Both read the same file, in interleaved rounds in one process; a
// reader's time counts only after both gave the same events (a checksum
// over every field of every event). The figures are the medians.
//
// With -state N it writes instead a state directory of N runs (sessions
// of one to five runs, records of 20 KB to 2 MB each) to -o, for timing
// an export of it:
//
//	go run ./records -state 1000 -o /tmp/state
//	/usr/bin/time -v uagent-stream export -o /tmp/tables --state-dir /tmp/state
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"hash"
	"hash/fnv"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/corpus"
	"github.com/uagentkit/stream/statedir"
)

func main() {
	mb := flag.Int("mb", 40, "the records' size, MB")
	rounds := flag.Int("rounds", 9, "interleaved rounds")
	kind := flag.String("text", "mixed", "what texts are made of: mixed, plain, escaped, nonascii")
	state := flag.Int("state", 0, "write a state directory of this many runs to -o instead")
	out := flag.String("o", "", "the state directory to write, with -state")
	profile := flag.String("cpuprofile", "", "write a CPU profile of statedir's rounds to this file")
	flag.Parse()
	if *state > 0 {
		if *out == "" {
			log.Fatal("records: -state needs -o DIR")
		}
		if err := writeState(*out, *state); err != nil {
			log.Fatal(err)
		}
		return
	}
	dir, err := os.MkdirTemp("", "records-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	o := corpus.Real(*mb << 20)
	o.Text = *kind
	run := filepath.Join(dir, "runs", "20260923-120000-7ef82dc2")
	if err := writeRun(run, o, "7ef82dc2-d9b4-4728-abc2-2f4e6060c8f8", corpus.RecordsAt); err != nil {
		log.Fatal(err)
	}
	events := filepath.Join(run, statedir.EventsFile)
	fi, err := os.Stat(events)
	if err != nil {
		log.Fatal(err)
	}
	ours := func(use func(stream.Event)) {
		r, err := statedir.OpenRun(run)
		if err != nil {
			log.Fatal(err)
		}
		for e := range r.Events() {
			switch e.(type) {
			case stream.RunStarted, stream.RunFinished, stream.PreflightWarning: // not of the records
				continue
			}
			use(e)
		}
		if p := r.Problems(); len(p) > 0 {
			log.Fatalf("records: statedir: %v", p)
		}
	}
	base := func(use func(stream.Event)) {
		f, err := os.Open(events)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		if err := readBaseline(f, use); err != nil {
			log.Fatal(err)
		}
	}
	// First the events are checked, then timed with nothing done to them
	// but counting.
	hOurs, hBase := newSum(), newSum()
	na, nb := 0, 0
	ours(func(e stream.Event) { hOurs.add(e); na++ })
	base(func(e stream.Event) { hBase.add(e); nb++ })
	if a, b := hOurs.Sum64(), hBase.Sum64(); a != b || na != nb {
		log.Fatalf("records: statedir gave %d events (sum %x), the baseline %d (sum %x)%s", na, a, nb, b, firstDifference(run, events))
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		for range *rounds {
			ours(func(stream.Event) {})
		}
		pprof.StopCPUProfile()
		f.Close()
		return
	}
	var tOurs, tBase []time.Duration
	count := 0
	use := func(stream.Event) { count++ }
	for range *rounds {
		for i, f := range []func(func(stream.Event)){base, ours} {
			runtime.GC()
			t := time.Now()
			f(use)
			d := time.Since(t)
			if i == 0 {
				tBase = append(tBase, d)
			} else {
				tOurs = append(tOurs, d)
			}
		}
	}
	mbs := func(d time.Duration) float64 { return float64(fi.Size()) / 1e6 / d.Seconds() }
	mo, mbase := median(tOurs), median(tBase)
	fmt.Printf("records: %.1f MB, %d events, text %s, %d rounds\n", float64(fi.Size())/1e6, na, *kind, *rounds)
	fmt.Printf("| reader | MB/s | ratio |\n| --- | --- | --- |\n")
	fmt.Printf("| uagent's (encoding/json) | %.0f | 1.00× |\n", mbs(mbase))
	fmt.Printf("| statedir | %.0f | **%.2f×** |\n", mbs(mo), mbase.Seconds()/mo.Seconds())
}

// firstDifference says where the two readers' events first differ.
func firstDifference(run, events string) string {
	var ours, base [][]byte
	r, err := statedir.OpenRun(run)
	if err != nil {
		return err.Error()
	}
	for e := range r.Events() {
		switch e.(type) {
		case stream.RunStarted, stream.RunFinished, stream.PreflightWarning:
			continue
		}
		ours = append(ours, encode(e))
	}
	f, err := os.Open(events)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	readBaseline(f, func(e stream.Event) { base = append(base, encode(e)) })
	for i := range min(len(ours), len(base)) {
		if !bytes.Equal(ours[i], base[i]) {
			return fmt.Sprintf("; event %d:\nstatedir %s\nbaseline %s", i, ours[i], base[i])
		}
	}
	return ""
}

// encode is an event's line. The error of a record that does not decode
// is said in each reader's words (encoding/json names its Go types), so
// only what failed to decode is compared.
func encode(e stream.Event) []byte {
	if re, ok := e.(stream.RunnerError); ok && strings.HasPrefix(re.Message, "failed to decode ") {
		re.Message, _, _ = strings.Cut(re.Message, ": ")
		e = re
	}
	dto, _ := stream.EventToDTO(e)
	b, err := json.Marshal(dto)
	if err != nil {
		log.Fatal(err)
	}
	return b
}

func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// sum is a checksum over every field of the events, through their JSON.
type sum struct{ hash.Hash64 }

func newSum() sum { return sum{fnv.New64a()} }

func (s sum) add(e stream.Event) { s.Write(encode(e)) }

// writeRun writes a run directory: request.json, events.jsonl of the
// records o shapes, and the summary.json uagent would write when the run
// ended, its stats from the records.
func writeRun(dir string, o corpus.Options, session string, at time.Time) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var rec bytes.Buffer
	if err := corpus.WriteRecords(&rec, o); err != nil {
		return err
	}
	// The records start at corpus.RecordsAt; move them to the run's start.
	recs := bytes.ReplaceAll(rec.Bytes(), []byte(`"RecordedAt":"2026-09-23T12:`), []byte(`"RecordedAt":"`+at.Format("2006-01-02T15:")))
	if err := os.WriteFile(filepath.Join(dir, statedir.EventsFile), recs, 0o644); err != nil {
		return err
	}
	req, _ := json.Marshal(map[string]any{"prompt": "make the decoder faster", "model": "gpt-6-sol", "session_id": session, "thinking_level": "high"})
	if err := os.WriteFile(filepath.Join(dir, statedir.RequestFile), req, 0o644); err != nil {
		return err
	}
	id := filepath.Base(dir)
	s := stream.SummaryDTO{V: 1, RunID: id, SessionID: session, Provider: "openai-codex", Model: "gpt-6-sol", Effort: "high",
		Workspace: "/home/dev/demo", StartedAt: at, Status: "running"}
	if err := s.WriteFile(filepath.Join(dir, statedir.SummaryFile)); err != nil {
		return err
	}
	r, err := statedir.OpenRun(dir)
	if err != nil {
		return err
	}
	var f stream.Fold
	for e := range r.Events() {
		f.AddEvent(e)
	}
	first, last := f.Times()
	f.EndAt(last)
	st := f.Stats()
	s.Stats = stream.SummaryToDTO(stream.Result{Stats: st}).Stats
	s.Status = string(stream.Classify("", 0, st))
	// The run started at its first record, and took until its last: a
	// summary that validate and stats --check find nothing wrong with.
	s.StartedAt, s.WallMS = first, max(0, last.Sub(first).Milliseconds())
	s.Answer = f.Answer()
	return s.WriteFile(filepath.Join(dir, statedir.SummaryFile))
}

// writeState writes a state directory of n runs: sessions of one to five
// runs, each run's records 20 KB to 2 MB (most near 200 KB).
func writeState(dir string, n int) error {
	r := rand.New(rand.NewPCG(7, 7))
	at := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	for i := 0; i < n; {
		session := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1))
		for range 1 + r.IntN(5) {
			if i == n {
				break
			}
			size := 20<<10 + int(r.ExpFloat64()*float64(200<<10))
			o := corpus.Real(min(size, 2<<20))
			o.Seed = uint64(i)
			id := at.Format("20060102-150405-") + session[:8]
			if err := writeRun(filepath.Join(dir, "runs", id), o, session, at); err != nil {
				return err
			}
			at = at.Add(time.Duration(10+r.IntN(50)) * time.Minute)
			i++
		}
	}
	return nil
}
