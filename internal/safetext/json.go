package safetext

import (
	"bufio"
	"encoding/json"
	"io"
)

// JSONWriter is a writer of JSON text whose every Write goes through
// EscapeJSON: give it whole values (a Write that splits a character is
// escaped as invalid UTF-8).
type JSONWriter struct{ W io.Writer }

// Write writes p escaped; it reports len(p) when all of it was written.
func (j JSONWriter) Write(p []byte) (int, error) {
	if _, err := j.W.Write(EscapeJSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteArray writes items to w as an indented JSON array, each item as
// of makes it, escaped whole (EscapeJSON), one item at a time: of many
// thousands, none is kept written.
func WriteArray[T any](w io.Writer, items []T, of func(T) any) error {
	bw := bufio.NewWriter(w)
	out := JSONWriter{bw}
	if len(items) == 0 {
		bw.WriteString("[]\n")
		return bw.Flush()
	}
	bw.WriteString("[\n")
	for i, it := range items {
		b, err := json.MarshalIndent(of(it), "  ", "  ")
		if err != nil {
			return err
		}
		bw.WriteString("  ")
		if _, err := out.Write(b); err != nil {
			return err
		}
		if i < len(items)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("]\n")
	return bw.Flush()
}
