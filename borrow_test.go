package stream

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The borrowed strings (WithBorrowedStrings): what they are valid for,
// and that what keeps them (a Fold, an UnknownDTO) keeps copies.

// decodeBorrowed decodes a whole stream with borrowed strings, each DTO
// deep-copied before the next Decode (and each line's Raw checked), with
// lines longer than chunk bytes (when it is not 0) read as long ones.
func decodeBorrowed(t testing.TB, in []byte, chunk int) (dtos []any, errs []error) {
	t.Helper()
	dec := NewDecoder(bytes.NewReader(in), WithBorrowedStrings())
	if chunk > 0 {
		dec.chunk = chunk
	}
	want := lines(bytes.TrimPrefix(in, byteOrderMark))
	for {
		v, err := dec.Decode()
		if err == io.EOF {
			return dtos, errs
		}
		if n := dec.Line(); n <= len(want) && dec.Raw() != nil {
			require.Equal(t, string(bytes.TrimSuffix(want[n-1], []byte("\r"))), string(dec.Raw()), "line %d's Raw", n)
		}
		if err != nil {
			errs = append(errs, err)
			if _, ok := errors.AsType[*LineError](err); !ok {
				return dtos, errs
			}
			continue
		}
		dtos = append(dtos, deepCopy(t, v))
	}
}

// deepCopy returns a copy of a DTO whose strings are its own.
func deepCopy(t testing.TB, v any) any {
	t.Helper()
	rv := reflect.New(reflect.TypeOf(v))
	rv.Elem().Set(reflect.ValueOf(v))
	cloneStrings(rv.Elem())
	return rv.Elem().Interface()
}

// cloneStrings gives every string reachable from v memory of its own.
func cloneStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(strings.Clone(v.String()))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if f.CanSet() {
				cloneStrings(f)
			} else if f.CanAddr() {
				cloneStrings(reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem())
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			c := reflect.New(v.Type().Elem())
			c.Elem().Set(v.Elem())
			cloneStrings(c.Elem())
			v.Set(c)
		}
	case reflect.Slice:
		if !v.IsNil() {
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(c, v)
			for i := range c.Len() {
				cloneStrings(c.Index(i))
			}
			v.Set(c)
		}
	case reflect.Map:
		if !v.IsNil() {
			c := reflect.MakeMapWithSize(v.Type(), v.Len())
			for it := v.MapRange(); it.Next(); {
				k := reflect.New(it.Key().Type()).Elem()
				k.Set(it.Key())
				cloneStrings(k)
				e := reflect.New(it.Value().Type()).Elem()
				e.Set(it.Value())
				cloneStrings(e)
				c.SetMapIndex(k, e)
			}
			v.Set(c)
		}
	}
}

// lineAtATime gives a stream one line per Read, so that the Decoder reads
// each line into the start of its buffer, over the line before.
type lineAtATime struct{ lines [][]byte }

func (r *lineAtATime) Read(p []byte) (int, error) {
	if len(r.lines) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.lines[0])
	r.lines[0] = r.lines[0][n:]
	if len(r.lines[0]) == 0 {
		r.lines = r.lines[1:]
	}
	return n, nil
}

// A borrowed string is valid until the next Decode, and no longer: kept
// past it, it changes (the docs of WithBorrowedStrings say so). Without
// the option, it does not.
func TestBorrowedStringsChangeOnTheNextDecode(t *testing.T) {
	in := [][]byte{
		[]byte(`{"v":1,"type":"user_message","at":"2026-09-23T12:00:00Z","id":"first","text":"one\ttwo\tthree"}` + "\n"),
		[]byte(`{"v":1,"type":"user_message","at":"2026-09-23T12:00:01Z","id":"again","text":"uno\tdos\ttres"}` + "\n"),
	}
	for _, borrow := range []bool{false, true} {
		var opts []DecoderOption
		if borrow {
			opts = append(opts, WithBorrowedStrings())
		}
		dec := NewDecoder(&lineAtATime{lines: slices.Clone(in)}, opts...)
		v, err := dec.Decode()
		require.NoError(t, err)
		first := v.(UserMessageDTO)
		id, text := first.ID, first.Text // a plain string, and one unescaped
		require.Equal(t, "first", id)
		require.Equal(t, "one\ttwo\tthree", text)
		_, err = dec.Decode()
		require.NoError(t, err)
		if borrow {
			assert.Equal(t, "again", id, "the plain string kept is the next line's bytes now")
			assert.NotEqual(t, "one\ttwo\tthree", text, "the unescaped string kept is written over by the next line's")
		} else {
			assert.Equal(t, "first", id)
			assert.Equal(t, "one\ttwo\tthree", text)
		}
	}
}

// A Fold fed borrowed strings (WithBorrowedStrings, read a byte at a time,
// so that every read writes over the line before) answers as one fed
// strings of their own: it keeps copies of what it keeps.
func TestFoldKeepsCopiesOfBorrowedStrings(t *testing.T) {
	streams := conformance(t)
	for _, name := range []string{"every-event.jsonl", "run.jsonl"} {
		streams[name] = mustRead(t, filepath.Join("testdata", name))
	}
	streams["realistic"] = write(t, realisticRun())
	streams["notices and failures"] = []byte(`{"v":1,"type":"run_started","at":"2026-09-23T12:00:00Z","run_id":"r\u0031","session_id":"s","provider":"p","model":"m\u00e9","effort":"e","workspace":"/w"}
{"v":1,"type":"preflight_warning","at":"2026-09-23T12:00:00Z","code":"c\u0031","message":"warned\ttwice"}
{"v":1,"type":"preflight_warning","at":"2026-09-23T12:00:00Z","code":"c\u0031","message":"warned\ttwice"}
{"v":1,"type":"turn_started","at":"2026-09-23T12:00:01Z","turn":1,"turn_id":"t\u00311"}
{"v":1,"type":"tool_called","at":"2026-09-23T12:00:02Z","call_id":"c\u0031","name":"B\u0061sh","label":"l\tl","arguments":"{\"a\":1}"}
{"v":1,"type":"tool_started","at":"2026-09-23T12:00:02Z","call_id":"c\u0031","op_id":"o\u0031","name":"B\u0061sh","label":"l\tl","op_type":"s\u0068ell","out_path":"/o\tut","err_path":"/e\trr"}
{"v":1,"type":"model_responded","at":"2026-09-23T12:00:03Z","turn":1,"turn_id":"t\u00311","duration_ms":5,"stop":"l\u0065ngth","failure":"f\tail","usage":{"input":1,"output":2}}
{"v":1,"type":"runner_error","at":"2026-09-23T12:00:04Z","message":"err\tor"}
{"v":1,"type":"tool_finished","at":"2026-09-23T12:00:05Z","call_id":"c\u0031","op_id":"o\u0031","name":"B\u0061sh","label":"l\tl","ok":false,"detail":"d\tetail","duration_ms":3,"op_type":"s\u0068ell"}
{"v":1,"type":"assistant_message","at":"2026-09-23T12:00:06Z","id":"a","text":"the \"answer\"","final":true}
{"v":1,"type":"run_finished","at":"2026-09-23T12:00:07Z","summary":{"v":1,"status":"f\u0061iled","run_id":"r\u0031","session_id":"s","provider":"p","model":"m\u00e9","effort":"e","workspace":"/w","started_at":"2026-09-23T12:00:00Z","wall_ms":7000,"stats":{"tools_by_name":{"Bash":1},"failures":["f\tail"],"errors":["err\tor"],"warnings":["warned\ttwice"],"tokens":{}},"answer":"the \"answer\""}}
{"v":1,"type":"runner_error","at":"2026-09-23T12:00:08Z","message":"a line after the end, to write over the one before it: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\t"}
`)
	streams["an open turn"] = []byte(`{"v":1,"type":"run_started","at":"2026-09-23T12:00:00Z","run_id":"r\u0031","session_id":"s\u0031","provider":"p\u0031","model":"m\u00e9","effort":"e\u0031","workspace":"/w\u0031"}
{"v":1,"type":"turn_started","at":"2026-09-23T12:00:01Z","turn":1,"turn_id":"t\u00311"}
{"v":1,"type":"user_message","at":"2026-09-23T12:00:02Z","id":"u","text":"a line to write over the ones before it: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\t"}
`)
	type answers struct {
		Recomputed Recomputed
		Notices    []Notice
		Calls      []ToolCall
		Tools      []ToolInterval
		Turns      []TurnInterval
		Answer     string
		Started    *RunStartedDTO
	}
	fold := func(dec *Decoder) answers {
		var f Fold
		f.KeepArguments()
		for dto, err := range dec.All() {
			f.Add(dto, err)
		}
		return answers{f.Recomputed(), f.Notices(), f.Calls(), f.Tools(), f.Turns(), f.Answer(), f.Started()}
	}
	for name, b := range streams {
		t.Run(name, func(t *testing.T) {
			want := fold(NewDecoder(bytes.NewReader(b)))
			got := fold(NewDecoder(iotest.OneByteReader(bytes.NewReader(b)), WithBorrowedStrings()))
			if d := cmpDiff(want, got); d != "" {
				t.Fatalf("borrowed (-own +borrowed):\n%s", d)
			}
		})
	}
}

// kind.ref makes an interface whose value is the DTO's memory: for every
// kind, the DTO is larger than a word (so that an interface holds it
// through a pointer, which ref sets), reads back as the DTO, and changes
// with that memory.
func TestKindRefIsTheDTOsMemory(t *testing.T) {
	for _, k := range kinds {
		require.Greater(t, k.dto.Size(), unsafe.Sizeof(uintptr(0)), k.typ)
		p := reflect.New(k.dto)
		(*header)(p.UnsafePointer()).Type = k.typ
		v := k.ref(p.UnsafePointer())
		require.Equal(t, p.Elem().Interface(), v, k.typ)
		(*header)(p.UnsafePointer()).Type = "changed"
		require.Equal(t, "changed", reflect.ValueOf(v).FieldByName("Type").String(), k.typ)
	}
}

// Borrowing, an UnknownDTO's Type and Raw are still its own, of a long
// line too (joined into memory the next long line is joined into).
func TestBorrowedUnknownRawIsItsOwn(t *testing.T) {
	first := `{"v":1,"type":"hologram","at":"2026-09-23T12:00:00Z","beam":"` + strings.Repeat("a", 100) + `"}`
	second := `{"v":1,"type":"phantasm","at":"2026-09-23T12:00:01Z","beam":"` + strings.Repeat("b", 100) + `"}`
	for _, chunk := range []int{0, 16} {
		dec := NewDecoder(strings.NewReader(first+"\n"+second+"\n"), WithBorrowedStrings())
		if chunk > 0 {
			dec.chunk = chunk
		}
		v, err := dec.Decode()
		require.NoError(t, err)
		u := v.(UnknownDTO)
		_, err = dec.Decode()
		require.NoError(t, err)
		assert.Equal(t, first, string(u.Raw), "chunk %d", chunk)
		assert.Equal(t, "hologram", u.Type, "chunk %d", chunk)
	}
}
