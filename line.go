package stream

// Decoding one line: its members read in one pass into the scratch DTO of
// its type (members before the type kept and set once it is known), its
// header checked, the presence of its fields noted for the checks of
// required fields and for the summary's absent fields.

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	"github.com/uagentkit/stream/internal/jsonparse"
)

// lineState is what decoding one line has found so far: the header
// fields, the kind and its scratch DTO, and the first field fault, kept
// while the rest of the line is read.
type lineState struct {
	line                 []byte
	hasV, hasType, hasAt bool
	vPos, end            int // where the value of v is, where the object ends (its '}')
	v                    int64
	typ                  string
	at                   time.Time
	k                    *kind // nil until a known type is read
	dv                   reflect.Value
	base                 unsafe.Pointer        // dv's address
	fault                *jsonparse.ParseError // the first wrong-typed field or bad time
}

// decodeLine decodes one non-blank line: its members, then the members
// that came before its type, then the verdict.
func (d *Decoder) decodeLine(line []byte) (any, error) {
	p := &d.p
	p.Data, p.Pos = line, 0
	if p.Borrow { // the strings of the line before are gone
		p.Scratch = p.Scratch[:0]
	}
	ls := &d.ls
	*ls = lineState{line: line}
	d.pending = d.pending[:0]
	clear(p.Present[:jsonparse.Codecs])
	return d.decodeMembers()
}

func (d *Decoder) decodeMembers() (any, error) {
	p, ls := &d.p, &d.ls
	if p.Peek() != '{' {
		return nil, d.lineErr(p.Syntax("'{'"))
	}
	fault := p.Members(false, d.member)
	if err := jsonparse.KeepFault(&ls.fault, fault); err != nil {
		return nil, d.lineErr(err)
	}
	ls.end = p.Pos - 1
	if p.Peek() != 0 {
		return nil, d.lineErr(p.Syntax("the end of the line"))
	}
	if err := d.fillPending(); err != nil {
		return nil, d.lineErr(err)
	}
	if err := ls.verdict(); err != nil {
		return nil, d.lineErr(err)
	}
	if ls.k == nil {
		raw := ls.line
		switch {
		case p.Edited: // strings before the type were unescaped in place: the line as read, joined again
			raw = d.Raw()
		case !p.Own || p.Borrow: // the line is not the DTO's to keep
			raw = bytes.Clone(raw)
		}
		return UnknownDTO{V: int(ls.v), Type: ls.typ, At: ls.at, Raw: raw}, nil
	}
	*(*header)(ls.base) = header{V: int(ls.v), Type: ls.k.typ, At: ls.at} // every DTO starts with it
	if ls.k == finished.kind {
		(*RunFinishedDTO)(ls.base).absent = summaryAbsent(p)
	}
	if d.ref { // for the fold alone: the scratch DTO itself, not a copy
		return ls.k.ref(ls.base), nil
	}
	return ls.dv.Interface(), nil
}

// lineErr makes the LineError of a fault of the line; a syntax error at
// the end of the stream's last line is a truncated line.
func (d *Decoder) lineErr(e *jsonparse.ParseError) error {
	ls := &d.ls
	le := &LineError{Line: d.line, Offset: d.lineOff + int64(e.Pos), Type: ls.typ, Field: e.Field, Err: e.Err}
	if errors.Is(e.Err, ErrSyntax) && e.Pos >= len(ls.line) && d.atEOF() {
		le.Err = fmt.Errorf("%w: the stream ends inside the line (%d bytes)", ErrTruncated, len(ls.line))
	}
	return le
}

// member reads the value of one member of the line: a header field, a
// field of the DTO once the type is known, kept for later before it,
// skipped for an unknown type. When the key is the line's own bytes (it
// had no escapes), a kept member keeps them instead of reading it again.
func (d *Decoder) member(key []byte, keyPos, keyEnd int) *jsonparse.ParseError {
	p, ls := &d.p, &d.ls
	valPos := p.Pos
	keyInLine := len(key) == keyEnd-keyPos-2
	switch string(key) {
	case "v":
		ls.vPos = valPos
		err := d.headerV()
		ls.hasV = ls.hasV || err == nil
		return err
	case "type":
		if ls.hasType {
			err := &jsonparse.ParseError{Pos: valPos, Field: "type", Err: fmt.Errorf("%w: type given twice", ErrFieldType)}
			return cmp.Or(p.Skip(1), err)
		}
		ls.hasType = true
		err := d.headerType() // sets ls.k for a known type
		if ls.k != nil {
			ls.dv = d.dto(ls.k)
			ls.base = ls.dv.Addr().UnsafePointer()
		}
		return err
	case "at":
		err := d.headerAt()
		ls.hasAt = ls.hasAt || err == nil
		return err
	}
	switch {
	case ls.k != nil:
		return d.field(ls.k.codec, key, ls.base)
	case !ls.hasType: // before the type: decoded once it is known
		pf := pendingField{key: keyPos, val: valPos}
		if keyInLine {
			pf.name = key
		}
		var err *jsonparse.ParseError
		if p.Peek() == '"' && (p.Lean || p.SkipContent) { // read again once the type is known, built only if the fold reads it
			if end, ok := jsonparse.SkipStringValid(p.Data, p.Pos); ok {
				p.Pos = end
				d.pending = append(d.pending, pf)
				return nil
			}
		}
		if p.Peek() == '"' { // decoded once: pendingString sets it
			pf.str, err = p.Str()
			pf.isStr = err == nil
		} else {
			err = p.Skip(1)
		}
		d.pending = append(d.pending, pf)
		return err
	}
	return p.Skip(1)
}

// fillPending decodes the members that came before the type into the DTO
// (strings decoded in the first pass are set as they are).
func (d *Decoder) fillPending() *jsonparse.ParseError {
	p, ls := &d.p, &d.ls
	if ls.k == nil {
		return nil
	}
	end := p.Pos
	c := ls.k.codec
	for _, pf := range d.pending {
		key := pf.name
		if key == nil {
			p.Pos = pf.key
			key, _ = p.StringBytes() // checked in the first pass
		}
		if pf.isStr {
			if err := jsonparse.KeepFault(&ls.fault, d.pendingString(c, key, pf)); err != nil {
				return err
			}
			continue
		}
		p.Pos = pf.val
		if err := jsonparse.KeepFault(&ls.fault, d.field(c, key, ls.base)); err != nil {
			return err
		}
	}
	clear(d.pending) // let go of the strings
	p.Pos = end
	return nil
}

// pendingString sets the DTO field named key to a string value decoded in
// the first pass, without reading it again (in a line unescaped in place,
// its bytes are no longer the string): what field would do with it.
func (d *Decoder) pendingString(c *jsonparse.StructCodec, key []byte, pf pendingField) *jsonparse.ParseError {
	i, ok := c.Find(key)
	if !ok {
		return nil
	}
	f := &c.Fields[i]
	d.p.Present[c.ID] |= 1 << i
	fp := unsafe.Add(d.ls.base, f.Offset)
	switch f.Kind {
	case jsonparse.KindString:
		*(*string)(fp) = pf.str
		return nil
	case jsonparse.KindTime:
		t, ok := jsonparse.ParseTime([]byte(pf.str))
		if !ok {
			return &jsonparse.ParseError{Pos: pf.val, Field: f.Name, Err: fmt.Errorf("%w: %q is not RFC 3339", ErrBadTime, pf.str)}
		}
		*(*time.Time)(fp) = t
		return nil
	}
	return &jsonparse.ParseError{Pos: pf.val, Field: f.Name, Err: fmt.Errorf("%w: want %s, got string", ErrFieldType, jsonparse.KindNames[f.Kind])}
}

// verdict is the line's error, if any, in the order of what matters most:
// another version, a broken v or type, a missing type or v, a field fault,
// a missing at. Each points at its field: at its value, or, for a field
// that is missing, at the end of the object.
func (ls *lineState) verdict() *jsonparse.ParseError {
	switch {
	case ls.hasV && ls.v != SchemaVersion:
		return &jsonparse.ParseError{Pos: ls.vPos, Field: "v", Err: fmt.Errorf("%w: v is %d, this reader knows %d", ErrUnsupportedVersion, ls.v, SchemaVersion)}
	case ls.fault != nil && (ls.fault.Field == "type" || ls.fault.Field == "v"):
		return ls.fault
	case !ls.hasType: // where it is missing: at the end of the object
		return &jsonparse.ParseError{Pos: ls.end, Field: "type", Err: fmt.Errorf("%w: every line has a type", ErrMissingField)}
	case !ls.hasV:
		return &jsonparse.ParseError{Pos: ls.end, Field: "v", Err: fmt.Errorf("%w: every line has a v", ErrMissingField)}
	case ls.fault != nil:
		return ls.fault
	case !ls.hasAt:
		return &jsonparse.ParseError{Pos: ls.end, Field: "at", Err: fmt.Errorf("%w: every line has an at", ErrMissingField)}
	}
	return nil
}

// dto returns the zeroed scratch DTO of kind k.
func (d *Decoder) dto(k *kind) reflect.Value {
	i := k.index
	if !d.scratch[i].IsValid() {
		d.scratch[i] = reflect.New(k.dto).Elem()
	} else {
		d.scratch[i].SetZero()
	}
	return d.scratch[i]
}

// field decodes the value at p.pos into the DTO field named key, or skips it
// when the DTO has no such field.
func (d *Decoder) field(c *jsonparse.StructCodec, key []byte, base unsafe.Pointer) *jsonparse.ParseError {
	p := &d.p
	i, ok := c.Find(key)
	if !ok {
		return p.Skip(1)
	}
	f := &c.Fields[i]
	p.Present[c.ID] |= 1 << i
	if err := p.Value(f, unsafe.Add(base, f.Offset), 1); err != nil {
		return jsonparse.WithField(err, f.Name)
	}
	return nil
}

// finished is where run_finished's summary is in the field table: the
// codecs of its summary and of the summary's stats, and their indexes. The
// event table's init sets it.
var finished struct {
	kind                    *kind
	summary, stats          *jsonparse.StructCodec
	statsField, answerField int
}

func initFinished() {
	f := &finished
	f.kind = kindByType[TypeRunFinished]
	f.summary = f.kind.codec.Fields[f.kind.codec.ByName["summary"]].Sub
	f.statsField, f.answerField = f.summary.ByName["stats"], f.summary.ByName["answer"]
	f.stats = f.summary.Fields[f.statsField].Sub
}

// summaryAbsent returns the bits of RunFinishedDTO.absent for the line just
// parsed: the stats fields and the answer its summary lacks.
func summaryAbsent(p *jsonparse.Parser) uint64 {
	has := p.Present[finished.summary.ID]
	var absent uint64
	if has&(1<<finished.answerField) == 0 {
		absent |= answerAbsent
	}
	stats := uint64(0)
	if has&(1<<finished.statsField) != 0 {
		stats = p.Present[finished.stats.ID]
	}
	return absent | ^stats&(1<<len(finished.stats.Fields)-1)
}

// missing returns the dotted paths of the required fields that the line
// last decoded (a DTO of kind k) does not have, nested objects included
// when they are present: its identity fields, and in strict mode every
// field that is not omitempty. It reads the presence the parse recorded.
func (d *Decoder) missing(k *kind, strict bool) []string {
	return missing(&d.p, k.codec, "", strict)
}

func missing(p *jsonparse.Parser, c *jsonparse.StructCodec, prefix string, strict bool) []string {
	var out []string
	for i, f := range c.Fields {
		switch {
		case len(f.Index) == 2 && f.Index[0] == 0: // v, type, at: the Decoder requires them
		case p.Present[c.ID]&(1<<i) == 0:
			if f.Identity || (strict && !f.OmitEmpty) {
				out = append(out, prefix+f.Name)
			}
		case f.Kind == jsonparse.KindStruct:
			out = append(out, missing(p, f.Sub, prefix+f.Name+".", strict)...)
		}
	}
	return out
}

// headerV decodes v, an integer.
func (d *Decoder) headerV() *jsonparse.ParseError {
	p := &d.p
	start := p.Pos
	if c := p.Peek(); c != '-' && (c < '0' || c > '9') {
		return d.wrongType(start, "v", "integer")
	}
	span, integer, err := p.Number()
	if err != nil {
		return err
	}
	n, ok := int64(0), false
	if integer {
		n, ok = jsonparse.ParseInt(span, 64)
	}
	if !ok {
		return &jsonparse.ParseError{Pos: start, Field: "v", Err: fmt.Errorf("%w: v is %s, want an integer", ErrFieldType, span)}
	}
	d.ls.v = n
	return nil
}

// headerType decodes type, a string, and finds its kind when the type is
// known.
func (d *Decoder) headerType() *jsonparse.ParseError {
	p := &d.p
	if p.Peek() != '"' {
		return d.wrongType(p.Pos, "type", "string")
	}
	b, err := p.StringBytes()
	if err != nil {
		return err
	}
	if k, ok := kindByType[string(b)]; ok {
		d.ls.typ, d.ls.k = k.typ, k
	} else {
		d.ls.typ = string(b)
	}
	return nil
}

// headerAt decodes at, an RFC 3339 time in UTC.
func (d *Decoder) headerAt() *jsonparse.ParseError {
	p := &d.p
	start := p.Pos
	if p.Peek() != '"' {
		return d.wrongType(start, "at", "string")
	}
	b, err := p.StringBytes()
	if err != nil {
		return err
	}
	t, ok := jsonparse.ParseAt(b)
	if !ok {
		return &jsonparse.ParseError{Pos: start, Field: "at", Err: fmt.Errorf("%w: %q is not an RFC 3339 time in UTC", ErrBadTime, b)}
	}
	d.ls.at = t
	return nil
}

func (d *Decoder) wrongType(start int, name, want string) *jsonparse.ParseError {
	p := &d.p
	got := p.JSONKind()
	if err := p.Skip(1); err != nil {
		return err
	}
	return &jsonparse.ParseError{Pos: start, Field: name, Err: fmt.Errorf("%w: want %s, got %s", ErrFieldType, want, got)}
}
