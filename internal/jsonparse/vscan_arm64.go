//go:build !purego

package jsonparse

// blockMasks tells that stringMasks is vector code, which the unescape
// reads 64 bytes a step with; the Go one is slower than its word loop.
const blockMasks = true

// vectorName names the vector code the scans use.
const vectorName = "NEON (16 bytes an instruction)"

// indexVector returns the index of the first byte of b that the scan stops
// at (see scanString; with high, also a byte of 0x80 or more) within its
// whole blocks of 16 bytes; without one there, the length those blocks
// cover, where the scan in Go goes on.
func indexVector(b []byte, high bool) int {
	if high {
		return indexNEON(b, 0x80)
	}
	return indexNEON(b, 0)
}

// stringMasks returns, for the 64 bytes at b[0] (len(b) is 64 or more),
// bit i for b[i]: in mask, a byte a JSON string may not hold as it is (a
// quote, a backslash, below 0x20); in backslash, a backslash; and whether
// a byte is 0x80 or more.
func stringMasks(b []byte) (mask, backslash uint64, high bool) {
	_ = b[63]
	mask, backslash, h := masksNEON(&b[0])
	return mask, backslash, h&msb != 0
}

//go:noescape
func masksNEON(b *byte) (mask, backslash, high uint64)

//go:noescape
func indexNEON(b []byte, high byte) int
