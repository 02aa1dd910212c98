package uahstream

import (
	"bufio"
	"bytes"
	"io"
	"reflect"

	"github.com/uagentkit/stream/internal/jsonparse"
)

// sniffLimit is how far Sniff looks for the first line.
const sniffLimit = 1 << 20

var headerCodec = jsonparse.NewCodec(reflect.TypeFor[struct {
	Type string `json:"type"`
}]())

// Sniff reports whether r holds a session stream: whether its first line
// that is not blank (within the first MiB) is a session_opened. It reads
// that line, and returns a reader of the whole of r again. The error is
// the reader's, other than the end.
func Sniff(r io.Reader) (io.Reader, bool, error) {
	br := bufio.NewReaderSize(r, 4<<10) // small: the rest of r is read through it, in the reader's own sizes
	var head []byte
	for len(head) < sniffLimit {
		b, err := br.ReadSlice('\n')
		head = append(head, b...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(bytes.TrimSpace(b)) > 0 || err != nil {
			again := io.MultiReader(bytes.NewReader(head), br)
			if err != nil && err != io.EOF {
				return again, false, err
			}
			var h struct {
				Type string `json:"type"`
			}
			first := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("\xef\xbb\xbf")))
			jsonparse.Parse(headerCodec, first, &h)
			return again, h.Type == TypeSessionOpened, nil
		}
	}
	return io.MultiReader(bytes.NewReader(head), br), false, nil
}
