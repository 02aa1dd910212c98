package jsonparse

// The vector scan: the search the parser and the writer make most, for
// the next byte of a string that is not itself (a quote, a backslash, a
// C0 control; and, for scanASCII, any byte of a multi-byte sequence), 32
// bytes an instruction with AVX2 or 16 with SSE2 on amd64 (chosen once, by
// the CPU's features), 16 with NEON on arm64, and a word (8 bytes) at a
// time in Go elsewhere and under the purego build tag. Each vector path is
// held byte for byte to the Go one by FuzzScan.

import (
	"encoding/binary"
	"math/bits"
)

// vectorMin is the length from which a scan calls the vector code; a
// shorter one (a key, an id) is scanned in Go, where the call would cost
// more than it saves.
const vectorMin = 32

// scanString returns the index in b of the first byte a JSON string may not
// hold as it is: a quote, a backslash or a byte below 0x20; len(b) when
// there is none.
func scanString(b []byte) int { return scan(b, 0) }

// scanASCII is scanString that also stops at a byte of 0x80 or more.
func scanASCII(b []byte) int { return scan(b, msb) }

// scan looks at the first 16 bytes in Go, where a stop close by (an
// escape every few words, in real text) costs no call, and hands a longer
// run to the vector code, then the rest of it to the Go words.
func scan(b []byte, high uint64) int {
	if len(b) < 16 {
		return scanWords(b, high)
	}
	w, v := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	if m := specials(w) | w&high; m != 0 {
		return bits.TrailingZeros64(m) / 8
	}
	if m := specials(v) | v&high; m != 0 {
		return 8 + bits.TrailingZeros64(m)/8
	}
	i := 16
	if len(b)-i >= vectorMin {
		i += indexVector(b[i:], high != 0)
	}
	return i + scanWords(b[i:], high)
}

// scanWords is the scan in Go, a word at a time: the first byte that
// specials flags, or that has a bit of high set (msb or 0).
func scanWords(b []byte, high uint64) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if m := specials(w) | w&high; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' || high != 0 && c >= 0x80 {
			return i
		}
	}
	return i
}

// stringMasksBytes is stringMasks in Go, a byte at a time.
func stringMasksBytes(b []byte) (mask, backslash uint64, high bool) {
	for i, c := range b[:64] {
		if c < 0x20 || c == '"' || c == '\\' {
			mask |= 1 << i
		}
		if c == '\\' {
			backslash |= 1 << i
		}
		high = high || c >= 0x80
	}
	return mask, backslash, high
}
