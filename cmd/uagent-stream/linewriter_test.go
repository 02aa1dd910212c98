package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// writes records each write it is given.
type writes struct{ got [][]byte }

func (w *writes) Write(p []byte) (int, error) {
	w.got = append(w.got, bytes.Clone(p))
	return len(p), nil
}

// lineWriter holds at most max bytes of a line: shorter lines go out whole,
// a longer one is reported and passed on as it comes, never cut inside a
// character; every byte arrives, in order, whatever the chunking.
func TestLineWriterBoundsALine(t *testing.T) {
	in := "a1\n" + "ééééééé" + "\n" + strings.Repeat("é", 12) + "x\n" + "short\n" + strings.Repeat("€", 9) + "tail"
	for chunk := 1; chunk <= len(in); chunk++ {
		w := &writes{}
		var long []int
		l := &lineWriter{w: w, max: 16, long: func(n int) { long = append(long, n) }}
		for i := 0; i < len(in); i += chunk {
			l.Write([]byte(in[i:min(i+chunk, len(in))]))
		}
		l.flush()
		all := bytes.Join(w.got, nil)
		assert.Equal(t, in, string(all), "chunk %d: every byte, in order", chunk)
		assert.Equal(t, []int{3, 5}, long, "chunk %d: the overlong lines, by number", chunk)
		// Every cut between writes is at a line's end, or inside an
		// overlong line (the third and the fifth) between characters.
		third := strings.Index(in, "éééééééééééé")
		fifth := strings.Index(in, "€")
		end := 0
		for _, g := range w.got[:len(w.got)-1] {
			end += len(g)
			inLong := end > third && end <= third+25 || end > fifth
			assert.True(t, in[end-1] == '\n' || inLong && utf8.RuneStart(in[end]), "chunk %d: a cut at byte %d", chunk, end)
		}
	}
}

// A line of any length costs at most max bytes held.
func TestLineWriterHoldsAtMostMax(t *testing.T) {
	l := &lineWriter{w: io.Discard, max: 1 << 10, long: func(int) {}}
	for range 10000 {
		l.Write([]byte(strings.Repeat("x", 1000)))
		if len(l.buf) > 1<<10+1000 {
			t.Fatal(fmt.Sprintf("holds %d bytes", len(l.buf)))
		}
	}
}
