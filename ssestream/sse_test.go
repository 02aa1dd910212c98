package ssestream

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

// sseEvent is one event as an EventSource dispatches it.
type sseEvent struct {
	id, event, data string
}

// parseSSE parses an event stream as the WHATWG HTML standard's "event
// stream interpretation" says (written from the standard, not from the
// server's code): the stream is UTF-8 with an optional leading BOM; lines
// end at CRLF, LF or CR; a line starting with ':' is a comment; "field:
// value" with one leading space of the value dropped, a line without ':'
// is a field with an empty value; event sets the type, data appends the
// value and a LF, id sets the last event ID unless the value holds NUL; an
// empty line dispatches the event when its data is not empty (the last LF
// of the data removed, type "message" by default) and resets data and
// type; an event not ended by an empty line is dropped. comments counts the
// comment lines.
func parseSSE(r io.Reader) (events []sseEvent, comments int) {
	b, _ := io.ReadAll(bufio.NewReader(r))
	text := strings.ToValidUTF8(string(b), string(utf8.RuneError))
	text = strings.TrimPrefix(text, "\uFEFF")
	var lastID, typ string
	var data strings.Builder
	for len(text) > 0 {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			break // no line end: an incomplete line, dropped at the end of the stream
		}
		line := text[:i]
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		text = text[i+1:]
		switch {
		case line == "":
			if data.Len() > 0 {
				events = append(events, sseEvent{lastID, cmpOr(typ, "message"), strings.TrimSuffix(data.String(), "\n")})
			}
			data.Reset()
			typ = ""
			continue
		case line[0] == ':':
			comments++
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			typ = value
		case "data":
			data.WriteString(value)
			data.WriteByte('\n')
		case "id":
			if !strings.Contains(value, "\x00") {
				lastID = value
			}
		}
	}
	return events, comments
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// eachLineStart calls f with the first bytes (up to 32) of every line of r,
// reading through a fixed 32 KiB buffer whatever the lines' length.
func eachLineStart(r io.Reader, f func(prefix []byte)) {
	buf := make([]byte, 32<<10)
	var prefix []byte
	atStart, collecting := true, false
	for {
		n, err := r.Read(buf)
		for _, c := range buf[:n] {
			if atStart {
				prefix, collecting, atStart = prefix[:0], true, false
			}
			if c == '\n' {
				if collecting {
					f(prefix)
				}
				collecting, atStart = false, true
				continue
			}
			if collecting {
				if len(prefix) < 32 {
					prefix = append(prefix, c)
				} else {
					f(prefix)
					collecting = false
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// lines splits a stream into its lines, without line ends.
func lines(b []byte) [][]byte {
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// contractTypes are the 14 event types the contract names.
var contractTypes = []string{"run_started", "preflight_warning", "user_message", "developer_message", "control_input",
	"turn_started", "model_responded", "tool_called", "tool_started", "tool_finished", "assistant_message",
	"reasoning", "runner_error", "run_finished"}
