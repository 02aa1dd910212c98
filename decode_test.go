package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeAll decodes a whole stream, keeping values and errors in order.
func decodeAll(t testing.TB, r io.Reader, opts ...DecoderOption) (dtos []any, errs []error) {
	t.Helper()
	return decodeWith(t, NewDecoder(r, opts...))
}

// decodeChunked decodes a whole stream as decodeAll does, with lines
// longer than chunk bytes read as the Decoder reads lines longer than a
// MiB: in chunks, joined into memory the DTO owns, strings unescaped in
// place. Each line's Raw must still be the line as read.
func decodeChunked(t testing.TB, in []byte, chunk int) (dtos []any, errs []error) {
	t.Helper()
	dec := NewDecoder(bytes.NewReader(in))
	dec.chunk = chunk
	want := lines(bytes.TrimPrefix(in, byteOrderMark))
	return decodeWith(t, dec, func() {
		if n := dec.Line(); n <= len(want) && dec.Raw() != nil {
			require.Equal(t, string(bytes.TrimSuffix(want[n-1], []byte("\r"))), string(dec.Raw()), "line %d's Raw", n)
			require.Equal(t, string(bytes.TrimSuffix(want[n-1], []byte("\r"))), string(dec.Raw()), "line %d's Raw, asked twice", n)
		}
	})
}

// decodeAs is decodeAll when chunk is 0, else decodeChunked.
func decodeAs(t testing.TB, in []byte, chunk int) ([]any, []error) {
	t.Helper()
	if chunk == 0 {
		return decodeAll(t, bytes.NewReader(in))
	}
	return decodeChunked(t, in, chunk)
}

func decodeWith(t testing.TB, dec *Decoder, after ...func()) (dtos []any, errs []error) {
	for {
		v, err := dec.Decode()
		if err == io.EOF {
			return dtos, errs
		}
		for _, f := range after {
			f()
		}
		if err != nil {
			errs = append(errs, err)
			if _, ok := errors.AsType[*LineError](err); !ok {
				return dtos, errs
			}
			continue
		}
		dtos = append(dtos, v)
	}
}

// stdlibDecode is what most readers do: encoding/json into the DTO type the
// line's type names.
func stdlibDecode(t testing.TB, line []byte) any {
	t.Helper()
	var h struct{ Type string }
	require.NoError(t, json.Unmarshal(line, &h))
	k := kindByType[h.Type]
	require.NotNil(t, k, "type %q", h.Type)
	v := reflect.New(k.dto)
	require.NoError(t, json.Unmarshal(line, v.Interface()))
	return v.Elem().Interface()
}

func lines(b []byte) [][]byte {
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// sortedKeys rewrites a line with its keys in alphabetical order, as the
// conformance recordings have them.
func sortedKeys(t testing.TB, line []byte) []byte {
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(line, &m))
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return b
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	var stream []byte
	stream = append(stream, write(t, everyEvent())...)
	stream = append(stream, write(t, realisticRun())...)
	for _, s := range hostile {
		stream = append(stream, write(t, withString(s))...)
	}
	want := []any{}
	for _, l := range lines(stream) {
		want = append(want, stdlibDecode(t, l))
	}
	for name, r := range map[string]func() io.Reader{
		"whole":         func() io.Reader { return bytes.NewReader(stream) },
		"one byte":      func() io.Reader { return iotest.OneByteReader(bytes.NewReader(stream)) },
		"half reads":    func() io.Reader { return iotest.HalfReader(bytes.NewReader(stream)) },
		"eof with data": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(stream)) },
	} {
		t.Run(name, func(t *testing.T) {
			got, errs := decodeAll(t, r())
			require.Empty(t, errs)
			if diff := cmpDiff(want, got); diff != "" {
				t.Fatalf("(-encoding/json +Decoder):\n%s", diff)
			}
		})
	}
	t.Run("alphabetical keys", func(t *testing.T) {
		var sorted []byte
		for _, l := range lines(stream) {
			sorted = append(append(sorted, sortedKeys(t, l)...), '\n')
		}
		got, errs := decodeAll(t, bytes.NewReader(sorted))
		require.Empty(t, errs)
		if diff := cmpDiff(want, got); diff != "" {
			t.Fatalf("(-encoding/json +Decoder):\n%s", diff)
		}
	})
}

func TestDecodeRoundTripsEvents(t *testing.T) {
	evs := append(everyEvent()[:len(everyEvent())-1], realisticRun()...)
	dtos, errs := decodeAll(t, bytes.NewReader(write(t, evs)))
	require.Empty(t, errs)
	require.Len(t, dtos, len(evs))
	for i, e := range evs {
		want, _ := EventToDTO(e)
		if d, ok := want.(RunFinishedDTO); ok && d.Summary.Stats.ToolsByName == nil {
			d.Summary.Stats.ToolsByName = map[string]int{}
		}
		if diff := cmpDiff(want, dtos[i]); diff != "" {
			t.Errorf("%T DTO (-want +got):\n%s", e, diff)
		}
		back, ok := DTOToEvent(dtos[i])
		require.True(t, ok)
		if diff := cmpDiff(roundTripped(e), back); diff != "" {
			t.Errorf("%T event (-want +got):\n%s", e, diff)
		}
	}
}

// conformance returns the streams recorded from the real runner, read
// from ../shared/conformance, or none when that folder is absent: tests
// that check other fixtures too go on without them.
func conformance(t testing.TB) map[string][]byte {
	t.Helper()
	dir := filepath.Join("..", "shared", "conformance")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(paths) == 0 {
		t.Log("no ../shared/conformance streams: checking the other fixtures only")
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		out[filepath.Base(p)] = b
	}
	return out
}

// onlyConformance is conformance for tests that check nothing else: they
// skip when the streams are absent.
func onlyConformance(t testing.TB) map[string][]byte {
	t.Helper()
	streams := conformance(t)
	if len(streams) == 0 {
		t.Skip("no ../shared/conformance streams")
	}
	return streams
}

func TestDecodeConformanceStreams(t *testing.T) {
	for name, b := range onlyConformance(t) {
		t.Run(name, func(t *testing.T) {
			got, errs := decodeAll(t, bytes.NewReader(b))
			require.Empty(t, errs)
			ls := lines(b)
			require.Len(t, got, len(ls))
			for i, l := range ls {
				if diff := cmpDiff(stdlibDecode(t, l), got[i]); diff != "" {
					t.Errorf("line %d (-encoding/json +Decoder):\n%s", i+1, diff)
				}
			}
		})
	}
}

const (
	goodLine = `{"v":1,"type":"user_message","at":"2026-09-23T12:32:07.502515Z","id":"u1","text":"hi"}`
	goodTail = `{"v":1,"type":"runner_error","at":"2026-09-23T12:32:08Z","message":"after"}`
)

// Each bad line gives one error, with one position: the byte of the
// stream where the fault is (pos, here the line's byte, checked exactly:
// where the value at fault begins; for a missing field, the end of the
// object; for a syntax error, the byte the parser stopped at).
func TestDecodeBadLines(t *testing.T) {
	cases := []struct {
		name, line string
		cause      error
		field      string
		msg        string
		pos        int
	}{
		{"not json", `hello`, ErrSyntax, "", `invalid JSON: unexpected 'h', want '{'`, 0},
		{"array", `[1,2]`, ErrSyntax, "", "want '{'", 0},
		{"unclosed object", `{"v":1,"type":"user_message"`, ErrSyntax, "", "unexpected end of line", 28},
		{"trailing garbage", goodLine + `}`, ErrSyntax, "", "want the end of the line", 86},
		{"bad escape", `{"v":1,"type":"user_message","at":"2026-09-23T12:32:07Z","text":"\q"}`, ErrSyntax, "text", `invalid escape: 'q' after a backslash`, 65},
		{"raw control", "{\"v\":1,\"type\":\"user_message\",\"at\":\"2026-09-23T12:32:07Z\",\"text\":\"a\x01\"}", ErrSyntax, "text", "control character 0x01", 66},
		{"missing type", `{"v":1,"at":"2026-09-23T12:32:07Z","id":"u"}`, ErrMissingField, "type", "", 43},
		{"missing v", `{"type":"user_message","at":"2026-09-23T12:32:07Z"}`, ErrMissingField, "v", "", 50},
		{"missing at", `{"v":1,"type":"user_message"}`, ErrMissingField, "at", "", 28},
		{"type not a string", `{"v":1,"type":5,"at":"2026-09-23T12:32:07Z"}`, ErrFieldType, "type", "want string, got number", 14},
		{"v not an integer", `{"v":"1","type":"user_message","at":"2026-09-23T12:32:07Z"}`, ErrFieldType, "v", "want integer, got string", 5},
		{"v fractional", `{"v":1.5,"type":"user_message","at":"2026-09-23T12:32:07Z"}`, ErrFieldType, "v", "v is 1.5", 5},
		{"version 2", `{"v":2,"type":"user_message","at":"2026-09-23T12:32:07Z","text":5}`, ErrUnsupportedVersion, "v", "v is 2, this reader knows 1", 5},
		{"version 2 after fields", `{"type":"user_message","text":5,"v":2}`, ErrUnsupportedVersion, "v", "v is 2", 36},
		{"at unparsable", `{"v":1,"type":"user_message","at":"yesterday"}`, ErrBadTime, "at", `"yesterday" is not an RFC 3339 time in UTC`, 34},
		{"at not utc", `{"v":1,"type":"user_message","at":"2026-09-23T14:32:07+02:00"}`, ErrBadTime, "at", "in UTC", 34},
		{"at a number", `{"v":1,"type":"user_message","at":12}`, ErrFieldType, "at", "want string, got number", 34},
		{"turn a string", `{"v":1,"type":"turn_started","at":"2026-09-23T12:32:07Z","turn":"1"}`, ErrFieldType, "turn", "want integer, got string", 64},
		{"turn fractional", `{"v":1,"type":"turn_started","at":"2026-09-23T12:32:07Z","turn":1.5}`, ErrFieldType, "turn", fmt.Sprintf("1.5 is not a %d-bit integer", strconv.IntSize), 64},
		{"turn overflows", `{"v":1,"type":"turn_started","at":"2026-09-23T12:32:07Z","turn":9223372036854775808}`, ErrFieldType, "turn", fmt.Sprintf("not a %d-bit integer", strconv.IntSize), 64},
		{"ok a string", `{"v":1,"type":"tool_finished","at":"2026-09-23T12:32:07Z","ok":"true"}`, ErrFieldType, "ok", "want boolean, got string", 63},
		{"usage an array", `{"v":1,"type":"model_responded","at":"2026-09-23T12:32:07Z","usage":[]}`, ErrFieldType, "usage", "want object, got array", 68},
		{"nested field", `{"v":1,"type":"model_responded","at":"2026-09-23T12:32:07Z","usage":{"input":"x"}}`, ErrFieldType, "usage.input", "want integer", 77},
		{"deep summary field", `{"type":"run_finished","summary":{"stats":{"errors":[1]}},"v":1,"at":"2026-09-23T12:32:07Z"}`, ErrFieldType, "summary.stats.errors", "want string, got number", 53},
		{"bad started_at", `{"v":1,"type":"run_finished","at":"2026-09-23T12:32:07Z","summary":{"started_at":"soon"}}`, ErrBadTime, "summary.started_at", "not RFC 3339", 81},
		{"type twice", `{"v":1,"type":"user_message","type":"runner_error","at":"2026-09-23T12:32:07Z"}`, ErrFieldType, "type", "type given twice", 36},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := goodLine + "\n" + c.line + "\n" + goodTail + "\n"
			dtos, errs := decodeAll(t, strings.NewReader(in))
			require.Len(t, dtos, 2, "the lines around a bad line decode")
			assert.Equal(t, "u1", dtos[0].(UserMessageDTO).ID)
			assert.Equal(t, "after", dtos[1].(RunnerErrorDTO).Message)
			require.Len(t, errs, 1)
			le, ok := errors.AsType[*LineError](errs[0])
			require.True(t, ok, "%T", errs[0])
			assert.Equal(t, 2, le.Line)
			assert.ErrorIs(t, le, c.cause)
			assert.Equal(t, c.field, le.Field)
			if c.pos >= 0 {
				assert.Equal(t, int64(len(goodLine)+1+c.pos), le.Offset, "the fault's byte")
			}
			assert.GreaterOrEqual(t, le.Offset, int64(len(goodLine)+1))
			assert.LessOrEqual(t, le.Offset, int64(len(goodLine)+1+len(c.line)))
			assert.Equal(t, 1, strings.Count(le.Error(), "byte"), "one position: %s", le.Error())
			assert.True(t, strings.HasPrefix(le.Error(), "stream: line 2, byte "), le.Error())
			assert.Contains(t, le.Error(), c.msg)
		})
	}
}

func TestDecodeUnknownTypesAndFields(t *testing.T) {
	in := `{"v":1,"type":"hologram","at":"2026-09-23T12:32:07Z","beam":{"x":[1,2,{"y":null}]}}` + "\n" +
		`{"future":"field","v":1,"type":"user_message","at":"2026-09-23T12:32:07Z","id":"u","extra":[true],"text":"t"}` + "\n"
	dtos, errs := decodeAll(t, strings.NewReader(in))
	require.Empty(t, errs)
	require.Len(t, dtos, 2)
	u := dtos[0].(UnknownDTO)
	assert.Equal(t, 1, u.V)
	assert.Equal(t, "hologram", u.Type)
	assert.Equal(t, "2026-09-23T12:32:07Z", u.At.Format(timeRFC3339Nano))
	assert.Equal(t, strings.Split(in, "\n")[0], string(u.Raw))
	assert.Equal(t, "hologram", typeOf(u))
	m := dtos[1].(UserMessageDTO)
	assert.Equal(t, "u", m.ID)
	assert.Equal(t, "t", m.Text)
}

const timeRFC3339Nano = "2006-01-02T15:04:05.999999999Z07:00"

func TestDecodeLineEndings(t *testing.T) {
	sep := "{\"v\":1,\"type\":\"user_message\",\"at\":\"2026-09-23T12:32:07Z\",\"text\":\"a\u2028b\u2029c\"}"
	in := goodLine + "\r\n" + "\n" + "   \r\n" + sep + "\r\n" + goodTail // no final newline
	dec := NewDecoder(strings.NewReader(in))
	var got []string
	var nums []int
	for dto, err := range dec.All() {
		require.NoError(t, err)
		got = append(got, typeOf(dto))
		nums = append(nums, dec.Line())
		if m, ok := dto.(UserMessageDTO); ok && m.ID == "" {
			assert.Equal(t, "a\u2028b\u2029c", m.Text)
		}
	}
	assert.Equal(t, []string{"user_message", "user_message", "runner_error"}, got)
	assert.Equal(t, []int{1, 4, 5}, nums)
}

func TestDecodeTruncatedLastLine(t *testing.T) {
	for _, cut := range []int{1, 10, len(goodTail) / 2, len(goodTail) - 1} {
		in := goodLine + "\n" + goodLine + "\n" + goodTail[:cut]
		dtos, errs := decodeAll(t, strings.NewReader(in))
		assert.Len(t, dtos, 2, "every complete line comes first")
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], ErrTruncated)
		le, _ := errors.AsType[*LineError](errs[0])
		require.NotNil(t, le)
		assert.Equal(t, 3, le.Line)
		assert.Contains(t, le.Error(), "stream: line 3, byte ")
	}
	// A cut-off line in the middle is malformed, not truncated.
	_, errs := decodeAll(t, strings.NewReader(goodTail[:20]+"\n"+goodLine+"\n"))
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrSyntax)
	assert.NotErrorIs(t, errs[0], ErrTruncated)
}

func TestDecodeLongLines(t *testing.T) {
	long := `{"v":1,"type":"tool_called","at":"2026-09-23T12:32:07Z","call_id":"c","name":"Write","label":"w","arguments":"` +
		strings.Repeat("x", 10<<20) + `"}`
	t.Run("default limit decodes 10 MiB", func(t *testing.T) {
		dtos, errs := decodeAll(t, iotest.HalfReader(strings.NewReader(goodLine+"\n"+long+"\n"+goodTail+"\n")))
		require.Empty(t, errs)
		require.Len(t, dtos, 3)
		assert.Len(t, dtos[1].(ToolCalledDTO).Arguments, 10<<20)
	})
	t.Run("over the limit is skipped", func(t *testing.T) {
		const limit = 4096
		for _, tail := range []string{"\n" + goodTail + "\n", ""} {
			dec := NewDecoder(strings.NewReader(goodLine+"\n"+long+tail), WithMaxLineSize(limit))
			v, err := dec.Decode()
			require.NoError(t, err)
			assert.IsType(t, UserMessageDTO{}, v)
			_, err = dec.Decode()
			require.ErrorIs(t, err, ErrLineTooLong)
			assert.Contains(t, err.Error(), fmt.Sprintf("stream: line 2, byte %d: line too long: %d bytes, the limit is 4096", len(goodLine)+1, len(long)))
			assert.LessOrEqual(t, cap(dec.buf), limit+1, "the long line is not held")
			if tail != "" {
				v, err = dec.Decode()
				require.NoError(t, err)
				assert.Equal(t, "after", v.(RunnerErrorDTO).Message)
				assert.Equal(t, 3, dec.Line())
			}
			_, err = dec.Decode()
			assert.Equal(t, io.EOF, err)
		}
	})
	t.Run("over the limit while read in chunks", func(t *testing.T) {
		const limit = 3 * longChunk // the line is past a chunk before it is past the limit
		in := goodLine + "\n" + long + "\n" + goodTail + "\n"
		dec := NewDecoder(iotest.HalfReader(strings.NewReader(in)), WithMaxLineSize(limit))
		_, err := dec.Decode()
		require.NoError(t, err)
		_, err = dec.Decode()
		require.ErrorIs(t, err, ErrLineTooLong)
		assert.Contains(t, err.Error(), fmt.Sprintf("stream: line 2, byte %d: line too long: %d bytes, the limit is %d", len(goodLine)+1, len(long), limit))
		v, err := dec.Decode()
		require.NoError(t, err)
		assert.Equal(t, "after", v.(RunnerErrorDTO).Message)
		assert.Equal(t, int64(len(in)), dec.InputOffset())
		assert.Empty(t, dec.chunks, "the long line's chunks are let go")
	})
	t.Run("over the limit, its end in the chunk that passes it", func(t *testing.T) {
		// The newline is found in the chunk read after the line passed the
		// limit: the line is over it all the same.
		const limit = longChunk + 100
		head := `{"v":1,"type":"tool_called","at":"2026-09-23T12:32:07Z","call_id":"c","name":"Write","label":"w","arguments":"`
		for _, size := range []int{limit + 1, limit + 1000, 2*longChunk - 10, 2*longChunk + 50} {
			line := head + strings.Repeat("x", size-len(head)-2) + `"}`
			for _, end := range []string{"\n", "\r\n", ""} {
				in := goodLine + "\n" + line + end
				if end != "" {
					in += goodTail + "\n"
				}
				for _, r := range []io.Reader{strings.NewReader(in), iotest.HalfReader(strings.NewReader(in))} {
					dtos, errs := decodeAll(t, r, WithMaxLineSize(limit))
					require.Len(t, errs, 1, "a line of %d bytes, ending %q", size, end)
					assert.ErrorIs(t, errs[0], ErrLineTooLong)
					assert.Contains(t, errs[0].Error(), fmt.Sprintf("line 2, byte %d: line too long: %d bytes", len(goodLine)+1, size+len(end)-min(len(end), 1)))
					assert.Len(t, dtos, 1+min(len(end), 1), "the lines around it are read")
				}
			}
		}
		line := head + strings.Repeat("x", limit-len(head)-2) + `"}`
		for _, end := range []string{"\n", "\r\n", ""} {
			dtos, errs := decodeAll(t, iotest.HalfReader(strings.NewReader(line+end)), WithMaxLineSize(limit))
			assert.Empty(t, errs, "exactly the limit, ending %q", end)
			assert.Len(t, dtos, 1)
		}
		// Its '\r' the last byte of the chunk before the one its '\n'
		// begins: a line of 2*longChunk-1 bytes, the limit.
		line = head + strings.Repeat("x", 2*longChunk-1-len(head)-2) + `"}`
		dtos, errs := decodeAll(t, strings.NewReader(line+"\r\n"), WithMaxLineSize(len(line)))
		assert.Empty(t, errs, "exactly the limit, its \\r at a chunk's end")
		assert.Len(t, dtos, 1)
	})
	t.Run("exactly the limit", func(t *testing.T) {
		dtos, errs := decodeAll(t, strings.NewReader(goodLine+"\n"), WithMaxLineSize(len(goodLine)))
		assert.Empty(t, errs)
		assert.Len(t, dtos, 1)
		_, errs = decodeAll(t, strings.NewReader(goodLine+"\n"), WithMaxLineSize(len(goodLine)-1))
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], ErrLineTooLong)
	})
}

var errBroken = errors.New("broken pipe")

func TestDecodeReadErrors(t *testing.T) {
	r := io.MultiReader(strings.NewReader(goodLine+"\n"+goodTail[:10]), iotest.ErrReader(errBroken))
	dec := NewDecoder(r)
	_, err := dec.Decode()
	require.NoError(t, err)
	_, err = dec.Decode()
	assert.ErrorIs(t, err, ErrTruncated, "the partial line is reported first")
	_, err = dec.Decode()
	require.ErrorIs(t, err, errBroken)
	assert.Equal(t, "stream: read after line 2, byte 97: broken pipe", err.Error())
	_, err = dec.Decode()
	assert.ErrorIs(t, err, errBroken, "the read error is sticky")

	dec = NewDecoder(strings.NewReader(""))
	_, err = dec.Decode()
	assert.True(t, err == io.EOF, "io.EOF is returned as it is: %v", err)

	var n int
	for range NewDecoder(io.MultiReader(strings.NewReader(goodLine+"\n"), iotest.ErrReader(errBroken))).All() {
		n++
	}
	assert.Equal(t, 2, n, "All yields the line, then the read error, then stops")
}

// chunkReader returns data in chunks of pseudo-random sizes.
type chunkReader struct {
	data []byte
	rnd  *rand.Rand
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), 1+c.rnd.IntN(64))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func FuzzDecode(f *testing.F) {
	for _, s := range [][]byte{[]byte(goodLine), []byte("{"), []byte(`{"v":1,"type":"x","at":"2026-09-23T12:32:07Z"}`),
		[]byte(`{"at":"2026-09-23T12:07:00Z","turn":"\n\"2\"","type":"turn_started","v":1}`),
		[]byte("\xef\xbb\xbf" + `{"v":1,"type":"user_message","at":"2026-09-23T12:07:00Z","text":"a\"b\"c"}`),
		[]byte("\r\n\r\n"), []byte(`{"v":1,"type":"run_finished","at":"2026-09-23T12:32:07Z","summary":{"stats":{"tools_by_name":{"a":1}}}}`),
		// Strings with escapes, one after the other, and one longer than a block:
		[]byte(`{"v":1,"type":"tool_called","at":"2026-09-23T12:07:00Z","call_id":"c\t1","name":"Bash","label":"ls\t-l","arguments":"{\"command\":\"ls -l \\\"a b\\\"\",\"description\":\"list the files of the directory, long, with \u00e9 and \\\\ \\n in it\"}"}`)} {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		// The fuzz bytes, then a valid line that must survive them.
		in := append(append(bytes.Clone(data), '\n'), goodTail...)
		in = append(in, '\n')
		whole, wholeErrs := decodeAll(t, bytes.NewReader(in))
		chunked, chunkedErrs := decodeAll(t, &chunkReader{data: in, rnd: rand.New(rand.NewPCG(seed, 7))})
		for _, err := range append(wholeErrs, chunkedErrs...) {
			le, ok := errors.AsType[*LineError](err)
			require.True(t, ok, "not a line error: %v", err)
			require.GreaterOrEqual(t, le.Line, 1)
			require.True(t, strings.HasPrefix(err.Error(), "stream: line "), err.Error())
		}
		require.NotEmpty(t, whole, "the valid last line was lost")
		last := whole[len(whole)-1]
		require.Equal(t, RunnerErrorDTO{header: header{V: 1, Type: TypeRunnerError, At: last.(RunnerErrorDTO).At}, Message: "after"}, last)
		require.Equal(t, len(wholeErrs), len(chunkedErrs), "chunking changes nothing")
		if diff := cmpDiff(whole, chunked); diff != "" {
			t.Fatalf("chunking changed the result:\n%s", diff)
		}
		oneByte, oneByteErrs := decodeAll(t, iotest.OneByteReader(iotest.DataErrReader(bytes.NewReader(in))))
		require.Equal(t, len(wholeErrs), len(oneByteErrs))
		if diff := cmpDiff(whole, oneByte); diff != "" {
			t.Fatalf("one-byte reads changed the result:\n%s", diff)
		}
		long, longErrs := decodeChunked(t, in, 1+int(seed%16))
		require.Equal(t, errStrings(wholeErrs), errStrings(longErrs), "reading lines as long ones changes no error")
		if diff := cmpDiff(whole, long); diff != "" {
			t.Fatalf("reading lines as long ones changed the result:\n%s", diff)
		}
		for _, chunk := range []int{0, 1 + int(seed%16)} {
			borrowed, borrowedErrs := decodeBorrowed(t, in, chunk)
			require.Equal(t, errStrings(wholeErrs), errStrings(borrowedErrs), "borrowing (chunk %d) changes no error", chunk)
			if diff := cmpDiff(whole, borrowed); diff != "" {
				t.Fatalf("borrowing (chunk %d) changed the result:\n%s", chunk, diff)
			}
		}
	})
}

func errStrings(errs []error) []string {
	var out []string
	for _, err := range errs {
		out = append(out, err.Error())
	}
	return out
}

// FuzzRoundTrip writes events holding arbitrary strings and numbers through
// the Sink, decodes them, and compares with encoding/json's reading.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range hostile[:len(hostile)-1] {
		f.Add(s, int64(1234567))
	}
	f.Fuzz(func(t *testing.T, s string, n int64) {
		evs := withString(s)
		evs = append(evs[:len(evs)-1], ModelResponded{At: t0.Add(time.Duration(n)), Turn: int(n), Duration: time.Duration(n),
			Usage: Tokens{InputTokens: n, OutputTokens: -n}}, evs[len(evs)-1])
		out := write(t, evs)
		got, errs := decodeAll(t, bytes.NewReader(out))
		require.Empty(t, errs)
		for i, l := range lines(out) {
			if diff := cmpDiff(stdlibDecode(t, l), got[i]); diff != "" {
				t.Fatalf("line %d (-encoding/json +Decoder):\n%s", i+1, diff)
			}
		}
	})
}

// TestDecodeHandWrittenLines compares the Decoder with encoding/json on
// lines no writer of ours produces but JSON allows.
func TestDecodeHandWrittenLines(t *testing.T) {
	for _, line := range []string{
		` { "v" : 1 , "type" : "turn_started" , "at" : "2026-09-23T12:39:21Z" , "turn" : -0 } `,
		"{\"v\":1,\"type\":\"turn_started\",\"at\":\"2026-09-23T12:39:21Z\",\t\"turn\":\r 2}",
		`{"v":1,"type":"user_message","at":"2026-09-23T12:39:21Z","text":"a","text":"b","id":null}`,
		`{"v":1,"\u0074ype":"user_message","at":"2026-09-23T12:39:21Z","te\u0078t":"escaped keys"}`,
		`{"v":1,"type":"user_message","at":"2026-09-23T12:39:21Z","text":"\/ \ud83d\ude00 \ud800 \udc00x \u00e9 \u2028"}`,
		`{"v":1,"type":"user_message","at":"2026-09-23T12:39:21.123456789Z","text":"` + "raw \xff\xfe bytes \xe2\x82" + `"}`,
		`{"v":1,"type":"model_responded","at":"2026-09-23T12:39:21Z","usage":null,"turn":1,"stop":null}`,
		`{"v":1,"type":"run_finished","at":"2026-09-23T12:39:21Z","summary":{"stats":{"tools_by_name":{"a":1,"b":null,"a":3},"errors":["x",null],"failures":null,"tokens":{"input":9007199254740993}},"started_at":"2026-09-23T14:39:21.5+02:00"}}`,
		`{"v":1,"type":"tool_finished","at":"2026-09-23T12:39:21Z","ok":false,"extra":{"deep":[[[{"x":[true,false,null,1e5,-2.5E-3,"s"]}]]]}}`,
		`{"type":"assistant_message","final":true,"text":"order does not matter","turn":3,"v":1,"at":"2026-09-23T12:39:21Z"}`,
		`{"at":"2026-09-23T12:39:21Z","te\u0078t":"escaped keys before the type","\u0069d":"i","type":"user_message","v":1}`,
		`{"at":"2026-09-23T12:39:21Z","extra":"\nbefore \"type\", \\\" escaped","text":"\"a\"\n","type":"user_message","v":1}`,
	} {
		got, errs := decodeAll(t, strings.NewReader(line+"\n"))
		require.Empty(t, errs, line)
		require.Len(t, got, 1)
		if d := cmpDiff(stdlibDecode(t, []byte(line)), got[0]); d != "" {
			t.Errorf("%s (-encoding/json +Decoder):\n%s", line, d)
		}
		got, errs = decodeChunked(t, []byte(line+"\n"), 4)
		require.Empty(t, errs, line)
		if d := cmpDiff(stdlibDecode(t, []byte(line)), got[0]); d != "" {
			t.Errorf("%s as a long line (-encoding/json +Decoder):\n%s", line, d)
		}
	}
}

// TestDecodeRawStringsMatchEncodingJSON puts random raw bytes and escapes
// into string values, as no writer of ours would, and compares the Decoder
// with encoding/json wherever encoding/json accepts the line.
func TestDecodeRawStringsMatchEncodingJSON(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "é", "😀", "\xff", "\xe2\x82", "\xed\xa0\x80", "\x80", "\\n", "\\\"", "\\\\", "\\u00e9",
		"\\ud83d\\ude00", "\\ud800", "\\udc00", "\\u0000", "\u2028", "\\/", " ", "\x7f", "\xc3\xa9", "\xf4\x90\x80\x80"}
	accepted := 0
	for range 5000 {
		var b strings.Builder
		for range rnd.IntN(30) {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		line := `{"v":1,"type":"user_message","at":"2026-09-23T12:39:21Z","id":"` + b.String() + `","text":"x` + b.String() + `"}`
		var want UserMessageDTO
		if json.Unmarshal([]byte(line), &want) != nil {
			continue
		}
		accepted++
		got, errs := decodeAll(t, strings.NewReader(line))
		require.Empty(t, errs, "%q", line)
		if d := cmpDiff(want, got[0]); d != "" {
			t.Fatalf("%q (-encoding/json +Decoder):\n%s", line, d)
		}
		// As a long line: strings unescaped in place.
		got, errs = decodeChunked(t, []byte(line+"\n"), 1+rnd.IntN(64))
		require.Empty(t, errs, "%q", line)
		if d := cmpDiff(want, got[0]); d != "" {
			t.Fatalf("%q as a long line (-encoding/json +Decoder):\n%s", line, d)
		}
	}
	assert.Greater(t, accepted, 4000)
}

// FuzzDecodeMatchesEncodingJSON: whatever line the Decoder accepts as a
// known event, encoding/json reads into the same DTO (when the keys are the
// exact ones, since encoding/json also matches them ignoring case).
func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	for _, name := range []string{"every-event.jsonl", "run.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range lines(b) {
			f.Add(l)
		}
	}
	f.Add([]byte(`{"v":1,"type":"tool_called","at":"2026-09-23T12:07:00Z","call_id":"c\t1","name":"Bash","label":"ls\t-l","arguments":"{\"command\":\"ls -l \\\"a b\\\"\",\"description\":\"list the files of the directory, long, with \\\\ \\n and \\t in it, and more words to pass a block of sixty-four bytes\"}"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		got, errs := decodeAll(t, bytes.NewReader(line))
		if len(errs) > 0 || len(got) == 0 {
			return
		}
		k, ok := kindByDTO[reflect.TypeOf(got[0])]
		if !ok || bytes.ContainsFunc(line, func(r rune) bool { return r >= 'A' && r <= 'Z' }) || bytes.Contains(line, []byte(`\u`)) {
			return
		}
		want := reflect.New(k.dto)
		require.NoError(t, json.Unmarshal(line, want.Interface()), "encoding/json refuses what the Decoder accepted: %q", line)
		if d := cmpDiff(want.Elem().Interface(), got[0]); d != "" {
			t.Fatalf("%q (-encoding/json +Decoder):\n%s", line, d)
		}
		long, errs := decodeChunked(t, line, 8)
		require.Empty(t, errs)
		if d := cmpDiff(want.Elem().Interface(), long[0]); d != "" {
			t.Fatalf("%q as a long line (-encoding/json +Decoder):\n%s", line, d)
		}
		for _, chunk := range []int{0, 8} {
			borrowed, errs := decodeBorrowed(t, line, chunk)
			require.Empty(t, errs)
			if d := cmpDiff(want.Elem().Interface(), borrowed[0]); d != "" {
				t.Fatalf("%q borrowed (chunk %d) (-encoding/json +Decoder):\n%s", line, chunk, d)
			}
		}
	})
}

// One option list reaches the Decoder of every reader.
func TestOptionsReachEveryReader(t *testing.T) {
	run := write(t, realisticRun())
	limit := WithMaxLineSize(200) // shorter than several lines of the run
	long := 0
	for _, l := range lines(run) {
		if len(l) > 200 {
			long++
		}
	}
	require.Positive(t, long)

	_, errs := decodeAll(t, bytes.NewReader(run), limit)
	assert.Len(t, errs, long, "NewDecoder")
	for _, err := range errs {
		assert.ErrorIs(t, err, ErrLineTooLong)
	}

	sum, err := Summarize(bytes.NewReader(run), limit)
	require.NoError(t, err)
	assert.Equal(t, long, sum.LineErrors, "Summarize")

	findings, err := Validate(bytes.NewReader(run), limit)
	require.NoError(t, err)
	tooLong := 0
	for _, f := range findings {
		if strings.Contains(f.Message, "line too long") {
			tooLong++
		}
	}
	assert.Equal(t, long, tooLong, "Validate")

}

func TestDecodeByteOrderMark(t *testing.T) {
	run := write(t, realisticRun())
	dtos, errs := decodeAll(t, bytes.NewReader(append([]byte("\xef\xbb\xbf"), run...)))
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrByteOrderMark)
	assert.Contains(t, errs[0].Error(), "stream: line 1, byte 0: a byte-order mark (U+FEFF")
	want, _ := decodeAll(t, bytes.NewReader(run))
	assert.Equal(t, want, dtos, "nothing else is lost: line 1 is read without the mark")

	findings, err := Validate(bytes.NewReader(append([]byte("\xef\xbb\xbf"), run...)))
	require.NoError(t, err)
	require.Len(t, findings, 1, "the mark, and nothing else: the first line is still run_started")
	assert.Equal(t, RuleJSON, findings[0].Rule)

	_, errs = decodeAll(t, bytes.NewReader([]byte("{}\n\xef\xbb\xbf{}\n")))
	for _, err := range errs {
		assert.NotErrorIs(t, err, ErrByteOrderMark, "only at the start of the stream")
	}

	// Line 1 read as a long line, its strings unescaped in place: Raw is
	// still the line without the mark.
	line := `{"v":1,"type":"user_message","at":"2026-09-23T12:39:21Z","text":"\"quoted\"\n"}`
	dtos, errs = decodeChunked(t, []byte("\xef\xbb\xbf"+line+"\n"), 8)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrByteOrderMark)
	require.Len(t, dtos, 1)
	assert.Equal(t, "\"quoted\"\n", dtos[0].(UserMessageDTO).Text)
}

func TestLineErrorQuotesAnUnprintableType(t *testing.T) {
	_, errs := decodeAll(t, strings.NewReader(`{"v":1,"type":"\u001b[2J\u202e","at":"yesterday"}`+"\n"+`{"v":1,"type":"tool_called","at":"yesterday"}`+"\n"))
	require.Len(t, errs, 2)
	assert.Equal(t, `stream: line 1, byte 37: "\x1b[2J\u202e": field "at": invalid time: "yesterday" is not an RFC 3339 time in UTC`, errs[0].Error())
	assert.Contains(t, errs[1].Error(), ": tool_called: field", "printable types stay as they are")
}

// Lines that end inside a string, a backslash at every place of the last
// word the parser reads whole: an error, never a read past the line.
func TestDecodeLineEndsInAnEscape(t *testing.T) {
	for n := range 24 {
		for _, tail := range []string{`\`, `\u`, `\u00`, `\"`, `\\`} {
			line := `{"v":1,"type":"user_message","at":"2026-09-23T12:39:21Z","text":"` + `a\"` + strings.Repeat("x", n) + tail
			for _, chunk := range []int{0, 4} {
				_, errs := decodeAs(t, []byte(line), chunk)
				require.Len(t, errs, 1, "%q", line)
				require.ErrorIs(t, errs[0], ErrTruncated, "%q", line)
			}
		}
	}
}

// A string value before the type is set from its first reading: a field of
// another kind, or a time that does not parse, gives the fault it gives
// after the type, and an unknown field is ignored.
func TestPendingStringsFaultAsAfterTheType(t *testing.T) {
	for _, c := range []struct{ typ, member string }{
		{"turn_started", `"turn":"\n2"`},
		{"tool_finished", `"ok":"yes"`},
		{"model_responded", `"usage":"many"`},
		{"model_responded", `"duration_ms":"\u0031"`},
		{"user_message", `"text":"fine","unknown":"\"x\""`},
	} {
		head := `"v":1,"at":"2026-09-23T12:39:21Z"`
		after := `{"type":"` + c.typ + `",` + head + `,` + c.member + "}\n"
		before := `{` + c.member + `,` + head + `,"type":"` + c.typ + "\"}\n"
		_, afterErrs := decodeAll(t, strings.NewReader(after))
		for _, chunk := range []int{0, 8} {
			_, errs := decodeAs(t, []byte(before), chunk)
			require.Len(t, errs, len(afterErrs), before)
			for i, err := range errs {
				want, got := afterErrs[i].(*LineError), err.(*LineError)
				assert.Equal(t, want.Field, got.Field, before)
				assert.Equal(t, want.Err.Error(), got.Err.Error(), before)
			}
		}
	}
}

// pendingString reads a time field from its string too (no DTO has one at
// the top level today; the summary's started_at stands in for one).
func TestPendingStringReadsATime(t *testing.T) {
	var s SummaryDTO
	d := NewDecoder(strings.NewReader(""))
	d.ls.base = unsafe.Pointer(&s)
	require.Nil(t, d.pendingString(summaryCodec, []byte("started_at"), pendingField{str: "2026-09-23T14:39:21.5+02:00"}))
	assert.Equal(t, time.Date(2026, 9, 23, 12, 39, 21, 5e8, time.UTC), s.StartedAt.UTC())
	err := d.pendingString(summaryCodec, []byte("started_at"), pendingField{str: "noon", val: 7})
	require.NotNil(t, err)
	assert.ErrorIs(t, err.Err, ErrBadTime)
	assert.Equal(t, "started_at", err.Field)
	assert.Equal(t, 7, err.Pos)
}

// The Raw of an unknown type's line is the line as read, also for a line
// longer than 64 KiB whose strings before its type have escapes (which
// are unescaped in place in a long line).
func TestUnknownRawOfALongLineWithEscapes(t *testing.T) {
	for _, pad := range []int{100, 70000} {
		line := `{"v":1,"at":"2026-09-23T12:32:07Z","x":"\b\n\u0041\"\\","pad":"` + strings.Repeat("A", pad) + `","type":"future_event"}`
		dtos, errs := decodeAll(t, strings.NewReader(line+"\n"+goodTail+"\n"))
		require.Empty(t, errs)
		u, ok := dtos[0].(UnknownDTO)
		require.True(t, ok, "%T", dtos[0])
		assert.Equal(t, line, string(u.Raw), "pad %d", pad)
	}
}
