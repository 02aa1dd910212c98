//go:build !purego

package jsonparse

// The CPU's features, read once: AVX2 needs the CPU's and the operating
// system's (which saves the YMM registers) consent.
var useAVX2 = func() bool {
	_, _, c1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 { // XMM and YMM state
		return false
	}
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}()

// blockMasks tells that stringMasks is vector code, which the unescape
// reads 64 bytes a step with; the Go one is slower than its word loop.
const blockMasks = true

// vectorName names the vector code the scans use.
var vectorName = map[bool]string{true: "AVX2 (32 bytes an instruction)", false: "SSE2 (16 bytes an instruction)"}[useAVX2]

// indexVector returns the index of the first byte of b that the scan stops
// at (see scanString; with high, also a byte of 0x80 or more) within its
// whole blocks of 32 (AVX2) or 16 (SSE2) bytes; without one there, the
// length those blocks cover, where the scan in Go goes on.
func indexVector(b []byte, high bool) int {
	if useAVX2 {
		return indexAVX2(b, highMask(high))
	}
	return indexSSE2(b, highMask(high))
}

func highMask(high bool) byte {
	if high {
		return 0x80
	}
	return 0
}

// stringMasks returns, for the 64 bytes at b[0] (len(b) is 64 or more),
// bit i for b[i]: in mask, a byte a JSON string may not hold as it is (a
// quote, a backslash, below 0x20); in backslash, a backslash; and whether
// a byte is 0x80 or more.
func stringMasks(b []byte) (mask, backslash uint64, high bool) {
	_ = b[63]
	var h uint64
	if useAVX2 {
		mask, backslash, h = masksAVX2(&b[0])
	} else {
		mask, backslash, h = masksSSE2(&b[0])
	}
	return mask, backslash, h != 0
}

//go:noescape
func masksAVX2(b *byte) (mask, backslash, high uint64)

//go:noescape
func masksSSE2(b *byte) (mask, backslash, high uint64)

//go:noescape
func indexAVX2(b []byte, high byte) int

//go:noescape
func indexSSE2(b []byte, high byte) int

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)
