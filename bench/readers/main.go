// Command readers measures the stream package's Decoder and Sink beside
// the usual readers and writers, on corpora shaped like real streams. It
// lives in a module of its own so that the peers it measures never become
// dependencies of the library.
//
//	go run ./readers -size 40 -rounds 11
//
// Every reader reads the same file, in interleaved rounds in one process;
// a reader's time counts only after it decoded the same values as the
// others (a checksum over every field of every line). The figures are
// CPU time (getrusage: user and system, every thread's, the collector's
// included), the medians of the rounds, given as MB per CPU second.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/bench/internal/cputime"
	"github.com/uagentkit/stream/internal/corpus"
)

// Line is the union struct the peers decode into: every field of every
// event type.
type Line struct {
	V          int               `json:"v"`
	Type       string            `json:"type"`
	At         time.Time         `json:"at"`
	RunID      string            `json:"run_id"`
	SessionID  string            `json:"session_id"`
	Provider   string            `json:"provider"`
	Model      string            `json:"model"`
	Effort     string            `json:"effort"`
	Workspace  string            `json:"workspace"`
	Code       string            `json:"code"`
	Message    string            `json:"message"`
	ID         string            `json:"id"`
	Text       string            `json:"text"`
	Mode       string            `json:"mode"`
	Reason     string            `json:"reason"`
	Turn       int               `json:"turn"`
	TurnID     string            `json:"turn_id"`
	DurationMS int64             `json:"duration_ms"`
	Usage      stream.TokensDTO  `json:"usage"`
	Stop       string            `json:"stop"`
	Failure    string            `json:"failure"`
	CallID     string            `json:"call_id"`
	Name       string            `json:"name"`
	Label      string            `json:"label"`
	Arguments  string            `json:"arguments"`
	OpID       string            `json:"op_id"`
	OpType     string            `json:"op_type"`
	OutPath    string            `json:"out_path"`
	ErrPath    string            `json:"err_path"`
	OK         bool              `json:"ok"`
	Detail     string            `json:"detail"`
	Final      bool              `json:"final"`
	Summary    stream.SummaryDTO `json:"summary"`
}

// reader decodes a whole file; sum, when not nil, is called with every
// decoded value (a *Line or a stream DTO) for the checksum.
type reader struct {
	name string
	read func(r io.Reader, sum func(any)) (lines int, err error)
}

// scanLines is how most readers split a stream: a bufio.Scanner with its
// buffer raised to the longest line.
func scanLines(r io.Reader, each func([]byte) error) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), stream.DefaultMaxLineSize)
	n := 0
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := each(sc.Bytes()); err != nil {
			return n, err
		}
		n++
	}
	return n, sc.Err()
}

var readers = []reader{
	{"baseline: Scanner + 2× encoding/json", func(r io.Reader, sum func(any)) (int, error) {
		return scanLines(r, func(b []byte) error {
			var h struct{ Type string }
			if err := json.Unmarshal(b, &h); err != nil {
				return err
			}
			var l Line
			if err := json.Unmarshal(b, &l); err != nil {
				return err
			}
			if sum != nil {
				sum(&l)
			}
			return nil
		})
	}},
	{"encoding/json, one pass (json.Decoder)", func(r io.Reader, sum func(any)) (int, error) {
		dec := json.NewDecoder(r)
		n := 0
		for {
			var l Line
			if err := dec.Decode(&l); err == io.EOF {
				return n, nil
			} else if err != nil {
				return n, err
			}
			if sum != nil {
				sum(&l)
			}
			n++
		}
	}},
	{"stream.Decoder", decoderReader()},
	{"stream.Decoder, borrowed strings", decoderReader(stream.WithBorrowedStrings())},
}

// decoderReader reads with a stream.Decoder made with opts (the checksum
// of a borrowed string is taken before the next Decode).
func decoderReader(opts ...stream.DecoderOption) func(io.Reader, func(any)) (int, error) {
	return func(r io.Reader, sum func(any)) (int, error) {
		dec := stream.NewDecoder(r, opts...)
		n := 0
		for {
			dto, err := dec.Decode()
			if err == io.EOF {
				return n, nil
			} else if err != nil {
				return n, err
			}
			if sum != nil {
				sum(dto)
			}
			n++
		}
	}
}

// flatten collects the non-zero leaves of v by their JSON paths.
func flatten(v reflect.Value, prefix string, out map[string]string) {
	if v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	switch x := v.Interface().(type) {
	case time.Time:
		if !x.IsZero() {
			out[prefix] = x.UTC().Format(time.RFC3339Nano)
		}
		return
	case stream.UnknownDTO:
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(v.Type()) {
			tag, ok := f.Tag.Lookup("json")
			if !ok || f.Anonymous {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			flatten(v.FieldByIndex(f.Index), prefix+"."+name, out)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			out[prefix+"["+k.String()+"]"] = fmt.Sprint(v.MapIndex(k))
		}
	case reflect.Slice:
		for i := range v.Len() {
			out[fmt.Sprintf("%s[%d]", prefix, i)] = fmt.Sprint(v.Index(i))
		}
	default:
		if !v.IsZero() {
			out[prefix] = fmt.Sprint(v.Interface())
		}
	}
}

// checksum reads the file with a reader and hashes every decoded field.
func checksum(rd reader, path string) (uint64, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	h := fnv.New64a()
	n, err := rd.read(f, func(v any) {
		m := map[string]string{}
		flatten(reflect.ValueOf(v), "", m)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(h, "%s=%s\x00", k, m[k])
		}
		h.Write([]byte{'\n'})
	})
	return h.Sum64(), n, err
}

func timeRead(rd reader, path string) (time.Duration, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	runtime.GC()
	start := cputime.Now()
	_, err = rd.read(f, nil)
	return cputime.Now() - start, err
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func main() {
	size := flag.Int("size", 40, "corpus size, MB")
	rounds := flag.Int("rounds", 11, "interleaved rounds")
	classes := flag.Bool("classes", true, "also measure each line class on its own corpus")
	writing := flag.Bool("writers", true, "also measure the Sink beside the reference writer")
	only := flag.String("readers", "", "a regular expression: only the readers whose names match it (the baseline always)")
	seed := flag.Uint64("seed", 1, "the real-shaped corpus's seed (1 is the one the code was tuned on; any other is held out)")
	dir := flag.String("dir", "", "where to write the corpora (default: a temporary directory)")
	flag.Parse()
	if *dir == "" {
		d, err := os.MkdirTemp("", "uagent-bench")
		check(err)
		defer os.RemoveAll(d)
		*dir = d
	}
	mb := *size << 20
	corpora := []struct {
		name string
		opts corpus.Options
	}{{"real-shaped (the default)", corpus.Real(mb)}}
	corpora[0].opts.Seed = *seed
	if *only != "" {
		re := regexp.MustCompile(*only)
		rest := slices.DeleteFunc(slices.Clone(readers[1:]), func(r reader) bool { return !re.MatchString(r.name) })
		readers = append([]reader{readers[0]}, rest...)
	}
	if *classes {
		for _, c := range []struct {
			name string
			opts corpus.Options
		}{
			{"small lines (texts ≤ 200 B)", corpus.Options{Seed: 2, Size: mb / 2, MaxText: 200, Text: "mixed"}},
			{"long plain text (40 KB)", corpus.Options{Seed: 3, Size: mb / 2, MaxText: 40 << 10, Text: "plain", LongLines: 2}},
			{"long escaped text (40 KB)", corpus.Options{Seed: 4, Size: mb / 2, MaxText: 40 << 10, Text: "escaped", LongLines: 2}},
			{"long non-ASCII text (40 KB)", corpus.Options{Seed: 5, Size: mb / 2, MaxText: 40 << 10, Text: "nonascii", LongLines: 2}},
			{"sorted keys (every line)", corpus.Options{Seed: 6, Size: mb / 2, MaxText: 40 << 10, Text: "mixed", SortedKeys: 1}},
		} {
			corpora = append(corpora, c)
		}
	}
	fmt.Printf("%s, %s/%s, %d cores, %d interleaved rounds, medians of CPU time (MB per CPU second)\n\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), *rounds)
	for ci, c := range corpora {
		path := filepath.Join(*dir, fmt.Sprintf("corpus-%d.jsonl", ci))
		data := corpus.Generate(c.opts)
		check(os.WriteFile(path, data, 0o644))
		// Same values first, then the clock.
		var want uint64
		for i, rd := range readers {
			sum, _, err := checksum(rd, path)
			if err != nil {
				fmt.Printf("%s: %s: %v\n", c.name, rd.name, err)
				os.Exit(1)
			}
			if i == 0 {
				want = sum
			} else if sum != want {
				fmt.Printf("%s: %s decoded other values than the baseline (checksum %x, want %x)\n", c.name, rd.name, sum, want)
				os.Exit(1)
			}
		}
		times := make([][]time.Duration, len(readers))
		for round := range *rounds {
			for k := range readers {
				i := (k + round) % len(readers) // interleaved, a different order each round
				d, err := timeRead(readers[i], path)
				check(err)
				times[i] = append(times[i], d)
			}
		}
		fmt.Printf("### %s: %.1f MB\n\n| reader | MB/CPU s | ratio to the baseline |\n| --- | --- | --- |\n", c.name, float64(len(data))/1e6)
		base := median(times[0])
		for i, rd := range readers {
			m := median(times[i])
			fmt.Printf("| %s | %.0f | %.2f× |\n", rd.name, float64(len(data))/1e6/m.Seconds(), base.Seconds()/m.Seconds())
		}
		fmt.Println()
		os.Remove(path)
		if ci == 0 && *writing {
			measureWriters(data, *rounds)
		}
	}
	_ = bytes.MinRead
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "readers:", err)
		os.Exit(1)
	}
}
