package history

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/uagentkit/stream"
	"github.com/uagentkit/stream/internal/regular"
	"github.com/uagentkit/stream/statedir"
)

// Match is where a run's text holds what Search looked for: the first
// such line of the run (its number in the run's v1 stream, run_started
// being line 1; 0 for the request's prompt, before the stream), its time,
// and a snippet of the text around it, on one line, as written
// (untrusted: a view sanitizes it).
type Match struct {
	Run     *Run
	Line    int
	At      time.Time
	Snippet string
}

// snippetRunes is how much of the text a snippet keeps around the match,
// on either side.
const snippetRunes = 40

// Search finds the runs whose prompts, messages, answers, tool labels or
// tool arguments contain text, compared by Unicode simple case folding
// (as strings.EqualFold compares), and yields each run's first match, in
// the order of runs. The runs are read on all cores; a run's records are
// decoded only when their bytes can hold text (see below), so that a
// search costs about what reading the files costs. What cannot be read
// of a run is yielded as an error (a *statedir.Problem), and the search
// goes on; ctx ends it.
//
// The bytes of a run's records are those uagent writes with encoding/json,
// which escapes only '"', '\\', control characters, '<', '>', '&', U+2028
// and U+2029: a text with none of these stands in the bytes as it does in
// the decoded strings, so that a file whose bytes do not hold it (folded)
// cannot hold it decoded. A text with any of them is looked for in the
// decoded records of every run. A file whose bytes
// hold an escaped "\\uXXXX" of one of the text's runes (tool arguments
// that spell a character so, which a Bash label decodes) is decoded too.
func (x *Index) Search(ctx context.Context, text string, runs []*Run) func(yield func(Match, error) bool) {
	return func(yield func(Match, error) bool) {
		m := newMatcher(text)
		if m == nil {
			return
		}
		type result struct {
			match    Match
			found    bool
			problems []error
		}
		results := make([]chan result, len(runs))
		for i := range results {
			results[i] = make(chan result, 1)
		}
		next := make(chan int)
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				buf := make([]byte, 1<<20)
				for i := range next {
					mt, found, problems := m.run(runs[i], buf)
					results[i] <- result{mt, found, problems}
				}
			})
		}
		go func() {
			defer close(next)
			for i := range runs {
				select {
				case next <- i:
				case <-ctx.Done():
					return
				}
			}
		}()
		defer wg.Wait()
		defer func() { // let the workers go
			for range next {
			}
		}()
		for i := range runs {
			var r result
			select {
			case r = <-results[i]:
			case <-ctx.Done():
				yield(Match{}, ctx.Err())
				return
			}
			for _, p := range r.problems {
				if !yield(Match{}, p) {
					return
				}
			}
			if r.found && !yield(r.match, nil) {
				return
			}
		}
	}
}

// matcher finds a text by simple case folding.
type matcher struct {
	needle []rune // each rune folded (see fold)
	runes  map[rune]bool
	raw    bool   // the records' bytes may be scanned for it first
	anchor int    // the needle's rune that is looked for first: the rarest
	first  []byte // the first bytes of the UTF-8 of every rune the anchor folds from
}

// common lists the bytes of records and prose from the most common on:
// the anchor is the needle's rune that comes last in it (a rune it lacks,
// last of all).
const common = " \"etaoinsrhldcu:,mfp.gwy_b/-v{}k0123456789xjqz"

// newMatcher is nil for an empty text.
func newMatcher(text string) *matcher {
	if text == "" {
		return nil
	}
	m := &matcher{raw: utf8.ValidString(text), runes: map[rune]bool{}}
	rarity := func(r rune) int {
		if r < utf8.RuneSelf {
			if i := strings.IndexByte(common, byte(unicode.ToLower(r))); i >= 0 {
				return i
			}
		}
		return len(common)
	}
	for i, r := range []rune(text) {
		switch {
		case r < 0x20, r == '"', r == '\\', r == '<', r == '>', r == '&', r == '\u2028', r == '\u2029':
			m.raw = false
		}
		f := fold(r)
		m.needle = append(m.needle, f)
		m.runes[f] = true
		if rarity(f) > rarity(m.needle[m.anchor]) {
			m.anchor = i
		}
	}
	for _, r := range orbit(m.needle[m.anchor]) {
		var b [utf8.UTFMax]byte
		utf8.EncodeRune(b[:], r)
		if !bytes.Contains(m.first, b[:1]) {
			m.first = append(m.first, b[0])
		}
	}
	return m
}

// fold is the rune of r's simple case folding orbit that stands for it
// (the smallest).
func fold(r rune) rune {
	min := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < min {
			min = f
		}
	}
	return min
}

// orbit is every rune that folds to r's fold.
func orbit(r rune) []rune {
	out := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f)
	}
	return out
}

// index returns where in b the needle begins, -1 if nowhere: each place
// its anchor stands is found by bytes.IndexByte, and the needle matched
// around it.
func (m *matcher) index(b []byte) int {
	next := make([]int, len(m.first)) // each first byte's next place, from 0
	for i := range next {
		next[i] = -2
	}
	from := 0
	for {
		at := -1
		for k, c := range m.first {
			if next[k] < from && next[k] != -1 {
				j := bytes.IndexByte(b[from:], c)
				if j >= 0 {
					j += from
				}
				next[k] = j
			}
			if next[k] >= 0 && (at < 0 || next[k] < at) {
				at = next[k]
			}
		}
		if at < 0 {
			return -1
		}
		if start := m.around(b, at); start >= 0 {
			return start
		}
		from = at + 1
	}
}

// around is where the needle begins when its anchor stands at b[i:], -1
// when it does not stand there.
func (m *matcher) around(b []byte, i int) int {
	if m.at(b, i, m.needle[m.anchor:]) < 0 {
		return -1
	}
	for k := m.anchor - 1; k >= 0; k-- {
		if i == 0 {
			return -1
		}
		r, n := utf8.DecodeLastRune(b[:i])
		if fold(r) != m.needle[k] {
			return -1
		}
		i -= n
	}
	return i
}

// at is the end of needle when it begins at b[i:], -1 when it does not.
func (m *matcher) at(b []byte, i int, needle []rune) int {
	for _, want := range needle {
		if i >= len(b) {
			return -1
		}
		r, n := utf8.DecodeRune(b[i:])
		if fold(r) != want {
			return -1
		}
		i += n
	}
	return i
}

// escapes reports whether b holds a rune of the needle written as an
// escape inside an escaped string ("\\u00e9": tool arguments that spell
// a character so, which a label decodes).
func (m *matcher) escapes(b []byte) bool {
	for {
		i := bytes.Index(b, []byte(`\\u`))
		if i < 0 {
			return false
		}
		b = b[i+3:]
		if len(b) < 4 {
			return true // cut by the buffer: it may be one
		}
		v, err := strconv.ParseUint(string(b[:4]), 16, 32)
		if err == nil && m.runes[fold(rune(v))] {
			return true
		}
		if err == nil && v >= 0xd800 && v < 0xe000 {
			return true // half of a pair: the rune it makes is not read here
		}
	}
}

// in reports the match in s: where it begins and ends, ok false when s
// does not hold it.
func (m *matcher) in(s string) (from, to int, ok bool) {
	b := []byte(s)
	i := m.index(b)
	if i < 0 {
		return 0, 0, false
	}
	return i, m.at(b, i, m.needle), true
}

// run finds the first match of a run: in its request's prompt and
// messages, else in its events, when its records' bytes can hold the
// needle. buf is the worker's, for reading.
func (m *matcher) run(r *Run, buf []byte) (Match, bool, []error) {
	if q, err := statedir.ReadRequest(r.Dir); err == nil { // read again: the index keeps only its title
		texts := []string{q.Prompt}
		for _, msg := range q.Messages {
			texts = append(texts, msg.Content)
		}
		for _, t := range texts {
			if from, to, ok := m.in(t); ok {
				return Match{Run: r, At: r.StartedAt, Snippet: snippet(t, from, to)}, true, nil
			}
		}
	}
	if m.raw {
		hold, err := m.fileHolds(filepath.Join(r.Dir, statedir.EventsFile), buf)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return Match{}, false, nil
			}
			return Match{}, false, []error{&statedir.Problem{File: filepath.Join(r.Dir, statedir.EventsFile), Err: err}}
		}
		if !hold {
			return Match{}, false, nil
		}
	}
	// The decoded events, from a Run of its own: a statedir.Run is not
	// safe for concurrent use, and the index's may be read by others.
	own, err := statedir.OpenRun(r.Dir)
	if err != nil {
		return Match{}, false, []error{err}
	}
	line := 0
	for e := range own.Events() {
		line++
		var texts []string
		switch e := e.(type) {
		case stream.UserMessage:
			texts = []string{e.Text}
		case stream.DeveloperMessage:
			texts = []string{e.Text}
		case stream.AssistantMessage:
			texts = []string{e.Text}
		case stream.ToolCalled:
			texts = []string{e.Label, e.Arguments}
		}
		for _, t := range texts {
			if from, to, ok := m.in(t); ok {
				return Match{Run: r, Line: line, At: e.OccurredAt(), Snippet: snippet(t, from, to)}, true, nil
			}
		}
	}
	return Match{}, false, nil
}

// fileHolds reports whether the bytes of a file hold the needle (folded),
// or an escaped "\u" (see Search), reading it a buffer at a time.
func (m *matcher) fileHolds(path string, buf []byte) (bool, error) {
	f, err := regular.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	keep := len(m.needle)*utf8.UTFMax + 2 // what a match across two reads needs
	n := 0
	for {
		k, err := io.ReadFull(f, buf[n:])
		n += k
		if m.index(buf[:n]) >= 0 || m.escapes(buf[:n]) {
			return true, nil
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		tail := min(keep, n)
		n = copy(buf, buf[n-tail:n])
	}
}

// snippet is the text around s[from:to], on one line: snippetRunes runes
// on either side, "…" where it is cut.
func snippet(s string, from, to int) string {
	start := from
	for n := 0; start > 0 && n < snippetRunes; n++ {
		_, w := utf8.DecodeLastRuneInString(s[:start])
		start -= w
	}
	end := to
	for n := 0; end < len(s) && n < snippetRunes; n++ {
		_, w := utf8.DecodeRuneInString(s[end:])
		end += w
	}
	out := oneLine(s[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(s) {
		out += "…"
	}
	return out
}
