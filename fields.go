package stream

// The field table: what reflection finds once per DTO type in its json and
// stream tags. The encoder (encode.go), the parser (parse.go), Validate and
// the schema generator all read it, so the DTO structs are the one place a
// field is declared.

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uagentkit/stream/internal/jsonparse"
)

type fieldKind uint8

const (
	kindString fieldKind = iota
	kindInt
	kindBool
	kindTime
	kindStruct
	kindMapInt
	kindStrings
	kindStructs // a slice of structs
	kindRaw     // jsonparse.Raw: any JSON value, as its text
	kindPtr     // a pointer to a struct: nil for null
)

var kindNames = [...]string{
	kindString:  "string",
	kindInt:     "integer",
	kindBool:    "boolean",
	kindTime:    "string",
	kindStruct:  "object",
	kindMapInt:  "object",
	kindStrings: "array",
	kindStructs: "array",
	kindRaw:     "value",
	kindPtr:     "object",
}

type field struct {
	name      string // JSON name
	key       string // `"name":`, as written
	index     []int  // reflect index path
	kind      fieldKind
	omitEmpty bool
	identity  bool         // tagged stream:"id": required even in compatible mode
	unread    bool         // a string the fold does not read (see unreadFields)
	strict    bool         // a time of a strict codec: one with an escape is an error
	bits      int          // size of an integer field
	sub       *structCodec // fields of a nested struct, or of a slice's elements
	elem      reflect.Type // the elements' type of a slice of structs
	offset    uintptr      // where the field is in its top struct, for the parser
}

type structCodec struct {
	id     int // index of the codec's presence bits in a parser
	typ    reflect.Type
	fields []field
	byName map[string]int
	// strict: what encoding/json reads otherwise than the parser is an
	// error, so that a reader that must read as encoding/json does (the
	// runner's records) can read such a line another way: a key that is
	// not a field's name but matches one ignoring case, a field's key
	// twice in one object (encoding/json merges the two values), a time
	// with an escape (time.Time.UnmarshalJSON does not unescape).
	strict bool
	// byLen lists, for each key length, the fields whose name has it: the
	// parser finds a key among one or two names instead of hashing it.
	byLen [32][]uint8
}

// makeStrict makes c, and the codecs of its nested structs, strict (see
// structCodec.strict). A strict codec has at most 64 fields.
func (c *structCodec) makeStrict() {
	if len(c.fields) > 64 {
		panic("stream: a strict codec of more than 64 fields: " + c.typ.String())
	}
	c.strict = true
	for i := range c.fields {
		f := &c.fields[i]
		f.strict = f.kind == kindTime
		if f.sub != nil && !f.sub.strict {
			f.sub.makeStrict()
		}
	}
}

// folds reports whether key matches a field's name ignoring case, as
// encoding/json matches keys (Unicode simple folding: "KIND", and "Kınd"
// is not, but "\u212aind" with the Kelvin sign is).
func (c *structCodec) folds(key []byte) bool {
	ascii := true
	for _, b := range key {
		if b >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		if len(key) >= len(c.byLen) {
			return false
		}
		for _, i := range c.byLen[len(key)] {
			if asciiEqualFold(key, c.fields[i].name) {
				return true
			}
		}
		return false
	}
	for _, f := range c.fields {
		if bytes.EqualFold(key, []byte(f.name)) {
			return true
		}
	}
	return false
}

func asciiEqualFold(a []byte, b string) bool {
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// find returns the index of the field named key.
func (c *structCodec) find(key []byte) (int, bool) {
	if len(key) < len(c.byLen) {
		for _, i := range c.byLen[len(key)] {
			if string(key) == c.fields[i].name {
				return int(i), true
			}
		}
	}
	return 0, false
}

// codecs counts the codecs built, which gives each its id; every codec is
// built at init, so a parser's presence bits have room for all of them.
var codecs int

// maxCodecs bounds the codecs a parser tracks presence for.
const maxCodecs = 64

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[jsonparse.Raw]()
)

// codecFor builds the field table of a DTO struct type. It panics on a field
// type the codec does not support: that is a programming error caught by the
// package's own tests.
func codecFor(t reflect.Type) *structCodec { return newCodec(t, true) }

// newCodec builds a field table; one without presence (the shapes of the
// module's other packages, see jsonparse) takes no presence bits.
func newCodec(t reflect.Type, presence bool) *structCodec {
	c := &structCodec{id: -1, typ: t, byName: map[string]int{}}
	if t.NumField() > 64 {
		panic("stream: a struct of more than 64 fields")
	}
	if presence {
		c.id = codecs
		codecs++
		if c.id >= maxCodecs {
			panic("stream: too many DTO codecs for the presence bits")
		}
	}
	c.addFields(t, nil, 0, presence)
	for i, f := range c.fields {
		c.byName[f.name] = i
		if len(f.name) >= len(c.byLen) {
			panic("stream: a DTO field name longer than the key table")
		}
		c.byLen[len(f.name)] = append(c.byLen[len(f.name)], uint8(i))
	}
	return c
}

func (c *structCodec) addFields(t reflect.Type, prefix []int, base uintptr, presence bool) {
	for i := range t.NumField() {
		sf := t.Field(i)
		index := append(slices.Clone(prefix), i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			c.addFields(sf.Type, index, base+sf.Offset, presence)
			continue
		}
		tag, ok := sf.Tag.Lookup("json")
		if !ok || !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		f := field{name: name, key: `"` + name + `":`, index: index, omitEmpty: opts == "omitempty",
			identity: sf.Tag.Get("stream") == "id", offset: base + sf.Offset}
		switch {
		case sf.Type == timeType:
			f.kind = kindTime
		case sf.Type == rawType:
			f.kind = kindRaw
		case sf.Type.Kind() == reflect.String:
			f.kind = kindString
		case sf.Type.Kind() == reflect.Int || sf.Type.Kind() == reflect.Int64:
			f.kind, f.bits = kindInt, sf.Type.Bits()
			if f.bits != 32 && f.bits != 64 {
				panic("stream: unsupported integer size in " + t.String() + "." + sf.Name)
			}
		case sf.Type.Kind() == reflect.Bool:
			f.kind = kindBool
		case sf.Type.Kind() == reflect.Struct:
			f.kind, f.sub = kindStruct, newCodec(sf.Type, presence)
		case sf.Type == reflect.TypeFor[map[string]int]():
			f.kind = kindMapInt
		case sf.Type == reflect.TypeFor[[]string]():
			f.kind = kindStrings
		case sf.Type.Kind() == reflect.Slice && sf.Type.Elem().Kind() == reflect.Struct && sf.Type.Elem() != timeType:
			f.kind, f.elem, f.sub = kindStructs, sf.Type.Elem(), newCodec(sf.Type.Elem(), presence)
		case sf.Type.Kind() == reflect.Pointer && sf.Type.Elem().Kind() == reflect.Struct && sf.Type.Elem() != timeType:
			f.kind, f.elem, f.sub = kindPtr, sf.Type.Elem(), newCodec(sf.Type.Elem(), presence)
		default:
			panic("stream: unsupported DTO field " + t.String() + "." + sf.Name)
		}
		c.fields = append(c.fields, f)
	}
}

// summaryCodec is the field table of summary.json.
var summaryCodec = codecFor(reflect.TypeFor[SummaryDTO]())

// fieldOf is v.FieldByIndex for the short paths of the DTOs.
func fieldOf(v reflect.Value, index []int) reflect.Value {
	for _, i := range index {
		v = v.Field(i)
	}
	return v
}
