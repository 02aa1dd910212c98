package termstream

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

// LineWriter holds at most max bytes of a line: shorter lines go out whole,
// a longer one is reported and passed on as it comes, never cut inside a
// character; every byte arrives, in order, whatever the chunking.
func TestLineWriterBoundsALine(t *testing.T) {
	in := "a1\n" + "ééééééé" + "\n" + strings.Repeat("é", 12) + "x\n" + "short\n" + strings.Repeat("€", 9) + "tail"
	for chunk := 1; chunk <= len(in); chunk++ {
		w := &writes{}
		var long []int
		l := &LineWriter{w: w, max: 16, long: func(n int) { long = append(long, n) }}
		for i := 0; i < len(in); i += chunk {
			l.Write([]byte(in[i:min(i+chunk, len(in))]))
		}
		l.Flush()
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
	l := &LineWriter{w: io.Discard, max: 1 << 10, long: func(int) {}}
	for range 10000 {
		l.Write([]byte(strings.Repeat("x", 1000)))
		if len(l.buf) > 1<<10+1000 {
			t.Fatal(fmt.Sprintf("holds %d bytes", len(l.buf)))
		}
	}
}

// Every byte is looked at once: a long line written in small pieces costs
// what it is long, not what is held times the pieces (as a search of the
// whole held line on every write made it: run --json took seconds on a
// 60 MiB line).
func TestLineWriterLooksAtEachByteOnce(t *testing.T) {
	looked := 0
	count := func(b []byte, c byte) int {
		i := bytes.IndexByte(b, c)
		if i < 0 {
			looked += len(b)
		} else {
			looked += i + 1
		}
		return i
	}
	var out bytes.Buffer
	l := &LineWriter{w: &out, max: 64 << 20, long: func(int) {}, index: count}
	line := strings.Repeat("x", 8<<20) + "\n"
	for i := 0; i < len(line); i += 4096 {
		l.Write([]byte(line[i:min(i+4096, len(line))]))
	}
	l.Flush()
	assert.Equal(t, line, out.String())
	assert.Equal(t, len(line), looked, "each byte looked at once")
}

// BenchmarkLineWriterLongLine passes one long line through the line writer
// in 64 KiB writes, as run --json gets it: the time per byte does not grow
// with the line.
func BenchmarkLineWriterLongLine(b *testing.B) {
	for _, mib := range []int{8, 32} {
		line := []byte(strings.Repeat("x", mib<<20) + "\n")
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				l := &LineWriter{w: io.Discard, max: 64 << 20, long: func(int) {}}
				for i := 0; i < len(line); i += 64 << 10 {
					l.Write(line[i:min(i+64<<10, len(line))])
				}
			}
		})
	}
}
