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

// blockMasks tells that stringMask is vector code, which the unescape
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

// stringMask returns a bit for each of the 64 bytes at b[0] (len(b) is
// 64 or more) that a JSON string may not hold as it is: bit i for b[i].
func stringMask(b []byte) uint64 {
	if useAVX2 {
		return maskAVX2(&b[0])
	}
	return maskSSE2(&b[0])
}

// stringMaskHigh is stringMask, and reports a byte of 0x80 or more among
// the 64.
func stringMaskHigh(b []byte) (uint64, bool) {
	_ = b[63]
	if useAVX2 {
		m, high := maskHighAVX2(&b[0])
		return m, high != 0
	}
	m, high := maskHighSSE2(&b[0])
	return m, high != 0
}

// stringMaskSplit is stringMask, and a bit for each backslash of the 64.
func stringMaskSplit(b []byte) (mask, backslash uint64) {
	_ = b[63]
	if useAVX2 {
		return maskSplitAVX2(&b[0])
	}
	return maskSplitSSE2(&b[0])
}

//go:noescape
func maskSplitAVX2(b *byte) (mask, backslash uint64)

//go:noescape
func maskSplitSSE2(b *byte) (mask, backslash uint64)

//go:noescape
func maskHighAVX2(b *byte) (mask, high uint64)

//go:noescape
func maskHighSSE2(b *byte) (mask, high uint64)

//go:noescape
func maskAVX2(b *byte) uint64

//go:noescape
func maskSSE2(b *byte) uint64

//go:noescape
func indexAVX2(b []byte, high byte) int

//go:noescape
func indexSSE2(b []byte, high byte) int

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)
