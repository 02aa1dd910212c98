//go:build !purego

package jsonparse

// blockMasks tells that stringMask is vector code, which the unescape
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

// stringMask returns a bit for each of the 64 bytes at b[0] (len(b) is
// 64 or more) that a JSON string may not hold as it is: bit i for b[i].
func stringMask(b []byte) uint64 { return maskNEON(&b[0]) }

// stringMaskHigh is stringMask, and reports a byte of 0x80 or more among
// the 64.
func stringMaskHigh(b []byte) (uint64, bool) {
	_ = b[63]
	m, high := maskHighNEON(&b[0])
	return m, high&msb != 0
}

// stringMaskSplit is stringMask, and a bit for each backslash of the 64.
func stringMaskSplit(b []byte) (mask, backslash uint64) {
	_ = b[63]
	return maskSplitNEON(&b[0])
}

//go:noescape
func maskSplitNEON(b *byte) (mask, backslash uint64)

//go:noescape
func maskHighNEON(b *byte) (mask, high uint64)

//go:noescape
func maskNEON(b *byte) uint64

//go:noescape
func indexNEON(b []byte, high byte) int
