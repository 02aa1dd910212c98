package jsonparse

import "math/bits"

// skipValid skips the value at p.pos, and reports true, when it is valid
// JSON nested at most skipLevels deep: in one loop over the bytes, with
// no call per member, which is what skipping a runner record's usage
// attribution or an operation's state costs. Otherwise it leaves p.pos
// as it was and reports false, and skipChecked reads the value again to
// say what is wrong. It accepts exactly what skipChecked accepts (depth
// as there) and ends where it ends.
func (p *Parser) skipValid(depth int) bool {
	data := p.Data
	i := p.Pos
	var open [skipLevels / 64]uint64 // a bit per open container: 1 an object
	n := 0
	obj := func() bool { return open[(n-1)>>6]>>((n-1)&63)&1 == 1 }
value:
	for {
		i = skipSpace(data, i)
		if i >= len(data) {
			return false
		}
		switch c := data[i]; c {
		case '"':
			var ok bool
			if i, ok = SkipStringValid(data, i); !ok {
				return false
			}
		case '{', '[':
			if n == skipLevels || depth+n+1 > MaxDepth {
				return false
			}
			closer := byte(']')
			if c == '{' {
				closer = '}'
			}
			if i = skipSpace(data, i+1); i < len(data) && data[i] == closer {
				i++
				break
			}
			if c == '{' {
				open[n>>6] |= 1 << (n & 63)
			} else {
				open[n>>6] &^= 1 << (n & 63)
			}
			n++
			if c == '{' {
				var ok bool
				if i, ok = skipKey(data, i); !ok {
					return false
				}
			}
			continue value
		case 't':
			if len(data)-i < 4 || string(data[i:i+4]) != "true" {
				return false
			}
			i += 4
		case 'f':
			if len(data)-i < 5 || string(data[i:i+5]) != "false" {
				return false
			}
			i += 5
		case 'n':
			if len(data)-i < 4 || string(data[i:i+4]) != "null" {
				return false
			}
			i += 4
		default:
			var ok bool
			if i, ok = skipNumber(data, i); !ok {
				return false
			}
		}
		// after a value: the end, a comma or a closer
		for {
			if n == 0 {
				p.Pos = i
				return true
			}
			if i = skipSpace(data, i); i >= len(data) {
				return false
			}
			switch data[i] {
			case ',':
				if obj() {
					var ok bool
					if i, ok = skipKey(data, i+1); !ok {
						return false
					}
				} else {
					i++
				}
				continue value
			case '}':
				if !obj() {
					return false
				}
			case ']':
				if obj() {
					return false
				}
			default:
				return false
			}
			i++
			n--
		}
	}
}

// skipLevels is how deep skipValid follows objects and arrays; deeper
// values are skipChecked's.
const skipLevels = 256

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipKey skips a key and its colon, and the space after it.
func skipKey(data []byte, i int) (int, bool) {
	if i = skipSpace(data, i); i >= len(data) || data[i] != '"' {
		return i, false
	}
	i, ok := SkipStringValid(data, i)
	if !ok {
		return i, false
	}
	if i = skipSpace(data, i); i >= len(data) || data[i] != ':' {
		return i, false
	}
	return i + 1, true
}

// SkipStringValid skips the string at data[i] (its quote) when it is
// valid: no control character, every escape one JSON has. Its UTF-8 is
// not checked: invalid UTF-8 in a string is replaced, never an error. A
// long string is read 64 bytes a step where the vector code is: from the
// block's backslashes, the bytes they escape (escapedBytes), so that the
// string's end is the first quote or control byte not escaped, and only
// the escaped bytes before it are looked at, one by one.
func SkipStringValid(data []byte, i int) (int, bool) {
	i++
	if blockMasks {
		var carry uint64 // 1 when a block's first byte is escaped
		for len(data)-i >= 64 {
			m, bs, _ := stringMasks(data[i:])
			escaped := carry
			if bs|carry != 0 {
				escaped, carry = escapedBytes(bs, carry)
			}
			stops := m &^ bs &^ escaped // quotes and controls, not escaped
			in := stops&-stops - 1      // the string's bytes in the block (all, without a stop)
			for e := escaped & in; e != 0; e &= e - 1 {
				k := i + bits.TrailingZeros64(e)
				if simpleEscape[data[k]] == 0 {
					if _, ok := hex4(data, k+1); data[k] != 'u' || !ok {
						return k - 1, false
					}
				}
			}
			if stops != 0 {
				k := i + bits.TrailingZeros64(stops)
				if data[k] == '"' {
					return k + 1, true
				}
				return k, false // a control byte
			}
			i += 64
		}
		if carry != 0 {
			i-- // back to the backslash that escapes the next byte
		}
	}
	return skipStops(data, i)
}

// skipStops is SkipStringValid from data[i], a byte of the string, stop
// by stop in Go: where there is no vector code, and the last bytes.
func skipStops(data []byte, i int) (int, bool) {
	for {
		i += scanWords(data[i:], 0)
		next, ok, end := stringStop(data, i)
		if !ok || end {
			return next, ok
		}
		i = next
	}
}

// oddBits has the odd bits of a word set.
const oddBits = 0xaaaaaaaaaaaaaaaa

// escapedBytes returns the bytes of a block that a backslash escapes,
// given its backslashes bs and carry (1 when its first byte is escaped by
// the block before), and the carry for the next block: in each run of
// backslashes, every other one escapes the byte after it, from the run's
// first. It is simdjson's arithmetic: the runs that start on an even bit
// and on an odd one told apart by a subtraction, whose borrows run the
// length of each run.
func escapedBytes(bs, carry uint64) (escaped, next uint64) {
	potential := bs &^ carry // a backslash that is escaped escapes nothing
	code := (((potential << 1) | oddBits) - potential) ^ oddBits
	escaped = code ^ (bs | carry)
	return escaped, (code & bs) >> 63
}

// stringStop handles the byte at data[j] where a scan of a string
// stopped: past the closing quote (ok and end); past an escape, when it
// is one JSON has (ok); else where the string goes wrong.
func stringStop(data []byte, j int) (next int, ok, end bool) {
	if j >= len(data) {
		return j, false, false
	}
	switch data[j] {
	case '"':
		return j + 1, true, true
	case '\\':
		if j+1 < len(data) && simpleEscape[data[j+1]] != 0 {
			return j + 2, true, false
		}
		if j+1 < len(data) && data[j+1] == 'u' {
			if _, ok := hex4(data, j+2); ok {
				return j + 6, true, false
			}
		}
	}
	return j, false, false
}

// skipNumber skips a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(data []byte, i int) (int, bool) {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = digits(data, i+1)
	default:
		return i, false
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func digits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}
