//go:build !purego

#include "textflag.h"

// func indexNEON(b []byte, high byte) int
// The first byte of b's whole 16-byte blocks that is a quote, a backslash,
// below 0x20, or (high = 0x80) 0x80 or more; else the blocks' length.
TEXT ·indexNEON(SB), NOSPLIT, $0-40
	MOVD  b_base+0(FP), R0
	MOVD  b_len+8(FP), R1
	MOVBU high+24(FP), R2
	MOVD  $0, R3
	AND   $-16, R1, R1
	MOVD  $0x22, R4
	VDUP  R4, V1.B16              // '"'
	MOVD  $0x5c, R4
	VDUP  R4, V2.B16              // '\\'
	MOVD  $0x1f, R4
	VDUP  R4, V3.B16              // 0x1f
	VDUP  R2, V4.B16              // the high bit, or none
loop:
	CMP   R1, R3
	BGE   none
	ADD   R0, R3, R5
	VLD1  (R5), [V0.B16]
	VCMEQ V0.B16, V1.B16, V5.B16
	VCMEQ V0.B16, V2.B16, V6.B16
	VUMIN V0.B16, V3.B16, V7.B16  // min(c, 0x1f)
	VCMEQ V0.B16, V7.B16, V7.B16  // == c: c <= 0x1f
	VCMTST V0.B16, V4.B16, V16.B16
	VORR  V5.B16, V6.B16, V5.B16
	VORR  V7.B16, V16.B16, V7.B16
	VORR  V5.B16, V7.B16, V5.B16
	VMOV  V5.D[0], R6
	VMOV  V5.D[1], R7
	ORR   R6, R7, R8
	CBNZ  R8, found
	ADD   $16, R3, R3
	B     loop
found:
	CBNZ  R6, low
	RBIT  R7, R7
	CLZ   R7, R7
	LSR   $3, R7, R7
	ADD   $8, R7, R7
	ADD   R7, R3, R3
	B     none
low:
	RBIT  R6, R6
	CLZ   R6, R6
	LSR   $3, R6, R6
	ADD   R6, R3, R3
none:
	MOVD  R3, ret+32(FP)
	RET

// The weight of each byte's bit in its group of eight, for masksNEON.
DATA weights<>+0(SB)/8, $0x8040201008040201
DATA weights<>+8(SB)/8, $0x8040201008040201
GLOBL weights<>(SB), RODATA|NOPTR, $16

// func masksNEON(b *byte) (mask, backslash, high uint64)
// For the 64 bytes at b, bit i for b[i]: in mask, a quote, a backslash or
// a byte below 0x20; in backslash, a backslash (each block's flags weighted
// by their bit in their group of eight, then added pairwise to one byte a
// group). high is the four blocks ORed, folded to a word: its high bits
// are all clear when the 64 bytes are ASCII.
TEXT ·masksNEON(SB), NOSPLIT, $0-32
	MOVD  b+0(FP), R0
	MOVD  $0x22, R4
	VDUP  R4, V1.B16
	MOVD  $0x5c, R4
	VDUP  R4, V2.B16
	MOVD  $0x1f, R4
	VDUP  R4, V3.B16
	MOVD  $weights<>(SB), R5
	VLD1  (R5), [V20.B16]
	VLD1  (R0), [V16.B16, V17.B16, V18.B16, V19.B16]
	VORR  V16.B16, V17.B16, V21.B16
	VORR  V18.B16, V19.B16, V22.B16
	VORR  V21.B16, V22.B16, V21.B16
	VMOV  V21.D[0], R3
	VMOV  V21.D[1], R6
	ORR   R6, R3, R3
	VCMEQ V16.B16, V1.B16, V4.B16
	VCMEQ V16.B16, V2.B16, V28.B16
	VUMIN V16.B16, V3.B16, V6.B16
	VCMEQ V16.B16, V6.B16, V6.B16
	VORR  V4.B16, V28.B16, V4.B16
	VORR  V4.B16, V6.B16, V24.B16
	VCMEQ V17.B16, V1.B16, V4.B16
	VCMEQ V17.B16, V2.B16, V29.B16
	VUMIN V17.B16, V3.B16, V6.B16
	VCMEQ V17.B16, V6.B16, V6.B16
	VORR  V4.B16, V29.B16, V4.B16
	VORR  V4.B16, V6.B16, V25.B16
	VCMEQ V18.B16, V1.B16, V4.B16
	VCMEQ V18.B16, V2.B16, V30.B16
	VUMIN V18.B16, V3.B16, V6.B16
	VCMEQ V18.B16, V6.B16, V6.B16
	VORR  V4.B16, V30.B16, V4.B16
	VORR  V4.B16, V6.B16, V26.B16
	VCMEQ V19.B16, V1.B16, V4.B16
	VCMEQ V19.B16, V2.B16, V31.B16
	VUMIN V19.B16, V3.B16, V6.B16
	VCMEQ V19.B16, V6.B16, V6.B16
	VORR  V4.B16, V31.B16, V4.B16
	VORR  V4.B16, V6.B16, V27.B16
	VAND  V20.B16, V24.B16, V24.B16
	VAND  V20.B16, V25.B16, V25.B16
	VAND  V20.B16, V26.B16, V26.B16
	VAND  V20.B16, V27.B16, V27.B16
	VADDP V25.B16, V24.B16, V24.B16
	VADDP V27.B16, V26.B16, V26.B16
	VADDP V26.B16, V24.B16, V24.B16
	VADDP V24.B16, V24.B16, V24.B16
	VMOV  V24.D[0], R1
	VAND  V20.B16, V28.B16, V28.B16
	VAND  V20.B16, V29.B16, V29.B16
	VAND  V20.B16, V30.B16, V30.B16
	VAND  V20.B16, V31.B16, V31.B16
	VADDP V29.B16, V28.B16, V28.B16
	VADDP V31.B16, V30.B16, V30.B16
	VADDP V30.B16, V28.B16, V28.B16
	VADDP V28.B16, V28.B16, V28.B16
	VMOV  V28.D[0], R2
	MOVD  R1, mask+8(FP)
	MOVD  R2, backslash+16(FP)
	MOVD  R3, high+24(FP)
	RET
