//go:build purego || !(amd64 || arm64)

package jsonparse

// indexVector has no vector code here: the scan is scanWords'.
func indexVector(b []byte, high bool) int { return 0 }

// blockMasks tells that stringMask is vector code, which the unescape
// reads 64 bytes a step with; the Go one is slower than its word loop.
const blockMasks = false

// vectorName names the vector code the scans use.
const vectorName = "none (Go, a word at a time)"

// stringMask returns a bit for each of the 64 bytes at b[0] (len(b) is
// 64 or more) that a JSON string may not hold as it is: bit i for b[i].
func stringMask(b []byte) uint64 { return stringMaskBytes(b) }

// stringMaskHigh is stringMask, and reports a byte of 0x80 or more among
// the 64.
func stringMaskHigh(b []byte) (uint64, bool) {
	high := false
	for _, c := range b[:64] {
		high = high || c >= 0x80
	}
	return stringMaskBytes(b), high
}

// stringMaskSplit is stringMask, and a bit for each backslash of the 64.
func stringMaskSplit(b []byte) (mask, backslash uint64) {
	for i, c := range b[:64] {
		if c == '\\' {
			backslash |= 1 << i
		}
	}
	return stringMaskBytes(b), backslash
}
