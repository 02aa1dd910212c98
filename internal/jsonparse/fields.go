package jsonparse

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
)

type FieldKind uint8

const (
	KindString FieldKind = iota
	KindInt
	KindBool
	KindTime
	KindStruct
	KindMapInt
	KindStrings
	KindStructs // a slice of structs
	KindRaw     // Raw: any JSON value, as its text
	KindPtr     // a pointer to a struct: nil for null
)

var KindNames = [...]string{
	KindString:  "string",
	KindInt:     "integer",
	KindBool:    "boolean",
	KindTime:    "string",
	KindStruct:  "object",
	KindMapInt:  "object",
	KindStrings: "array",
	KindStructs: "array",
	KindRaw:     "value",
	KindPtr:     "object",
}

type Field struct {
	Name      string // JSON name
	key       string // `"name":`, as written
	Index     []int  // reflect index path
	Kind      FieldKind
	OmitEmpty bool
	Identity  bool         // tagged stream:"id": required even in compatible mode
	Unread    bool         // a string the fold does not read (see unreadFields)
	Content   bool         // a string people or models wrote (see contentFields)
	strict    bool         // a time of a strict codec: one with an escape is an error
	bits      int          // size of an integer field
	Sub       *StructCodec // fields of a nested struct, or of a slice's elements
	elem      reflect.Type // the elements' type of a slice of structs
	Offset    uintptr      // where the field is in its top struct, for the parser
}

type StructCodec struct {
	ID     int // index of the codec's presence bits in a parser
	Type   reflect.Type
	Fields []Field
	ByName map[string]int
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
func (c *StructCodec) makeStrict() {
	if len(c.Fields) > 64 {
		panic("stream: a strict codec of more than 64 fields: " + c.Type.String())
	}
	c.strict = true
	for i := range c.Fields {
		f := &c.Fields[i]
		f.strict = f.Kind == KindTime
		if f.Sub != nil && !f.Sub.strict {
			f.Sub.makeStrict()
		}
	}
}

// folds reports whether key matches a field's name ignoring case, as
// encoding/json matches keys (Unicode simple folding: "KIND", and "Kınd"
// is not, but "\u212aind" with the Kelvin sign is).
func (c *StructCodec) folds(key []byte) bool {
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
			if asciiEqualFold(key, c.Fields[i].Name) {
				return true
			}
		}
		return false
	}
	for _, f := range c.Fields {
		if bytes.EqualFold(key, []byte(f.Name)) {
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

// Find returns the index of the field named key.
func (c *StructCodec) Find(key []byte) (int, bool) {
	if len(key) < len(c.byLen) {
		for _, i := range c.byLen[len(key)] {
			if string(key) == c.Fields[i].Name {
				return int(i), true
			}
		}
	}
	return 0, false
}

// Codecs counts the Codecs built, which gives each its id; every codec is
// built at init, so a parser's presence bits have room for all of them.
var Codecs int

// maxCodecs bounds the codecs a parser tracks presence for.
const maxCodecs = 64

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[Raw]()
)

// CodecFor builds the field table of a DTO struct type. It panics on a field
// type the codec does not support: that is a programming error caught by the
// package's own tests.
func CodecFor(t reflect.Type) *StructCodec { return newCodec(t, true) }

// newCodec builds a field table; one without presence (the shapes of the
// module's other packages, see jsonparse) takes no presence bits.
func newCodec(t reflect.Type, presence bool) *StructCodec {
	c := &StructCodec{ID: -1, Type: t, ByName: map[string]int{}}
	if t.NumField() > 64 {
		panic("stream: a struct of more than 64 fields")
	}
	if presence {
		c.ID = Codecs
		Codecs++
		if c.ID >= maxCodecs {
			panic("stream: too many DTO codecs for the presence bits")
		}
	}
	c.addFields(t, nil, 0, presence)
	for i, f := range c.Fields {
		c.ByName[f.Name] = i
		if len(f.Name) >= len(c.byLen) {
			panic("stream: a DTO field name longer than the key table")
		}
		c.byLen[len(f.Name)] = append(c.byLen[len(f.Name)], uint8(i))
	}
	return c
}

func (c *StructCodec) addFields(t reflect.Type, prefix []int, base uintptr, presence bool) {
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
		f := Field{Name: name, key: `"` + name + `":`, Index: index, OmitEmpty: opts == "omitempty",
			Identity: sf.Tag.Get("stream") == "id", Offset: base + sf.Offset}
		switch {
		case sf.Type == timeType:
			f.Kind = KindTime
		case sf.Type == rawType:
			f.Kind = KindRaw
		case sf.Type.Kind() == reflect.String:
			f.Kind = KindString
		case sf.Type.Kind() == reflect.Int || sf.Type.Kind() == reflect.Int64:
			f.Kind, f.bits = KindInt, sf.Type.Bits()
			if f.bits != 32 && f.bits != 64 {
				panic("stream: unsupported integer size in " + t.String() + "." + sf.Name)
			}
		case sf.Type.Kind() == reflect.Bool:
			f.Kind = KindBool
		case sf.Type.Kind() == reflect.Struct:
			f.Kind, f.Sub = KindStruct, newCodec(sf.Type, presence)
		case sf.Type == reflect.TypeFor[map[string]int]():
			f.Kind = KindMapInt
		case sf.Type == reflect.TypeFor[[]string]():
			f.Kind = KindStrings
		case sf.Type.Kind() == reflect.Slice && sf.Type.Elem().Kind() == reflect.Struct && sf.Type.Elem() != timeType:
			f.Kind, f.elem, f.Sub = KindStructs, sf.Type.Elem(), newCodec(sf.Type.Elem(), presence)
		case sf.Type.Kind() == reflect.Pointer && sf.Type.Elem().Kind() == reflect.Struct && sf.Type.Elem() != timeType:
			f.Kind, f.elem, f.Sub = KindPtr, sf.Type.Elem(), newCodec(sf.Type.Elem(), presence)
		default:
			panic("stream: unsupported DTO field " + t.String() + "." + sf.Name)
		}
		c.Fields = append(c.Fields, f)
	}
}

// FieldOf is v.FieldByIndex for the short paths of the DTOs.
func FieldOf(v reflect.Value, index []int) reflect.Value {
	for _, i := range index {
		v = v.Field(i)
	}
	return v
}
