//go:build purego || !(amd64 || arm64)

package jsonparse

// indexVector has no vector code here: the scan is scanWords'.
func indexVector(b []byte, high bool) int { return 0 }

// blockMasks tells that stringMasks is vector code, which the unescape
// reads 64 bytes a step with; the Go one is slower than its word loop.
const blockMasks = false

// vectorName names the vector code the scans use.
const vectorName = "none (Go, a word at a time)"

// stringMasks returns, for the 64 bytes at b[0] (len(b) is 64 or more),
// bit i for b[i]: in mask, a byte a JSON string may not hold as it is (a
// quote, a backslash, below 0x20); in backslash, a backslash; and whether
// a byte is 0x80 or more.
func stringMasks(b []byte) (mask, backslash uint64, high bool) { return stringMasksBytes(b) }
