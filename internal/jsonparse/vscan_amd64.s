//go:build !purego

#include "textflag.h"

// func indexAVX2(b []byte, high byte) int
// The first byte of b's whole 32-byte blocks that is a quote, a backslash,
// below 0x20, or (high = 0x80) 0x80 or more; else the blocks' length.
TEXT ·indexAVX2(SB), NOSPLIT, $0-40
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVBQZX high+24(FP), DX
	XORQ AX, AX
	MOVQ $0x22, R8
	MOVQ R8, X1
	VPBROADCASTB X1, Y1          // '"'
	MOVQ $0x5c, R8
	MOVQ R8, X3
	VPBROADCASTB X3, Y3          // '\\'
	MOVQ $0x1f, R8
	MOVQ R8, X5
	VPBROADCASTB X5, Y5          // 0x1f
	MOVQ DX, X7
	VPBROADCASTB X7, Y7          // the high bit, or none
	ANDQ $-32, CX                // the whole blocks
loop:
	CMPQ AX, CX
	JAE  none
	VMOVDQU (SI)(AX*1), Y0
	VPCMPEQB Y0, Y1, Y2
	VPCMPEQB Y0, Y3, Y4
	VPMAXUB Y0, Y5, Y6
	VPCMPEQB Y6, Y5, Y6          // max(c, 0x1f) == 0x1f: c <= 0x1f
	VPAND Y0, Y7, Y8
	VPOR Y2, Y4, Y2
	VPOR Y6, Y8, Y6
	VPOR Y2, Y6, Y2
	VPMOVMSKB Y2, R10
	TESTL R10, R10
	JNZ  found
	ADDQ $32, AX
	JMP  loop
found:
	BSFL R10, R10
	ADDQ R10, AX
none:
	VZEROUPPER
	MOVQ AX, ret+32(FP)
	RET

// func indexSSE2(b []byte, high byte) int
// indexAVX2 with 16-byte blocks.
TEXT ·indexSSE2(SB), NOSPLIT, $0-40
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	MOVBQZX high+24(FP), DX
	XORQ AX, AX
	MOVQ $0x2222222222222222, R8
	MOVQ R8, X1
	PUNPCKLQDQ X1, X1            // '"'
	MOVQ $0x5c5c5c5c5c5c5c5c, R8
	MOVQ R8, X3
	PUNPCKLQDQ X3, X3            // '\\'
	MOVQ $0x1f1f1f1f1f1f1f1f, R8
	MOVQ R8, X5
	PUNPCKLQDQ X5, X5            // 0x1f
	MOVQ $0x0101010101010101, R8
	IMULQ R8, DX
	MOVQ DX, X7
	PUNPCKLQDQ X7, X7            // the high bit, or none
	ANDQ $-16, CX
loop:
	CMPQ AX, CX
	JAE  none
	MOVOU (SI)(AX*1), X0
	MOVO X0, X2
	PCMPEQB X1, X2
	MOVO X0, X4
	PCMPEQB X3, X4
	MOVO X0, X6
	PMAXUB X5, X6
	PCMPEQB X5, X6
	MOVO X0, X8
	PAND X7, X8
	POR X4, X2
	POR X8, X6
	POR X6, X2
	PMOVMSKB X2, R10
	TESTL R10, R10
	JNZ  found
	ADDQ $16, AX
	JMP  loop
found:
	BSFL R10, R10
	ADDQ R10, AX
none:
	MOVQ AX, ret+32(FP)
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// func masksAVX2(b *byte) (mask, backslash, high uint64)
// For the 64 bytes at b, bit i for b[i]: in mask, a quote, a backslash or
// a byte below 0x20; in backslash, a backslash. high has a bit for each of
// the 32 positions at which either half has a byte of 0x80 or more: zero
// when all 64 are ASCII.
TEXT ·masksAVX2(SB), NOSPLIT, $0-32
	MOVQ b+0(FP), SI
	MOVQ $0x22, R8
	MOVQ R8, X1
	VPBROADCASTB X1, Y1          // '"'
	MOVQ $0x5c, R8
	MOVQ R8, X3
	VPBROADCASTB X3, Y3          // '\'
	MOVQ $0x1f, R8
	MOVQ R8, X5
	VPBROADCASTB X5, Y5          // 0x1f
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y8
	VPOR Y0, Y8, Y15
	VPMOVMSKB Y15, R9            // the high bits of both halves
	VPCMPEQB Y0, Y1, Y2
	VPCMPEQB Y0, Y3, Y4
	VPMOVMSKB Y4, CX
	VPMAXUB Y0, Y5, Y6
	VPCMPEQB Y6, Y5, Y6          // max(c, 0x1f) == 0x1f: c <= 0x1f
	VPOR Y2, Y4, Y2
	VPOR Y2, Y6, Y2
	VPCMPEQB Y8, Y1, Y10
	VPCMPEQB Y8, Y3, Y12
	VPMOVMSKB Y12, BX
	VPMAXUB Y8, Y5, Y14
	VPCMPEQB Y14, Y5, Y14
	VPOR Y10, Y12, Y10
	VPOR Y10, Y14, Y10
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y10, DX
	SHLQ $32, DX
	ORQ DX, AX
	SHLQ $32, BX
	ORQ BX, CX
	VZEROUPPER
	MOVQ AX, mask+8(FP)
	MOVQ CX, backslash+16(FP)
	MOVQ R9, high+24(FP)
	RET

// func masksSSE2(b *byte) (mask, backslash, high uint64)
// masksAVX2 with four 16-byte blocks; high has a bit for each of 16
// positions.
TEXT ·masksSSE2(SB), NOSPLIT, $0-32
	MOVQ b+0(FP), SI
	MOVQ $0x2222222222222222, R8
	MOVQ R8, X1
	PUNPCKLQDQ X1, X1            // '"'
	MOVQ $0x5c5c5c5c5c5c5c5c, R8
	MOVQ R8, X3
	PUNPCKLQDQ X3, X3            // '\'
	MOVQ $0x1f1f1f1f1f1f1f1f, R8
	MOVQ R8, X5
	PUNPCKLQDQ X5, X5            // 0x1f
	PXOR X9, X9
	XORQ AX, AX
	XORQ BX, BX
	XORQ CX, CX
block:
	MOVOU (SI)(CX*1), X0
	POR X0, X9                   // the high bits of every block
	MOVO X0, X2
	PCMPEQB X1, X2
	MOVO X0, X4
	PCMPEQB X3, X4
	PMOVMSKB X4, DI
	SHLQ CX, DI
	ORQ DI, BX
	PMAXUB X5, X0
	PCMPEQB X5, X0
	POR X4, X2
	POR X0, X2
	PMOVMSKB X2, DX
	SHLQ CX, DX
	ORQ DX, AX
	ADDQ $16, CX
	CMPQ CX, $64
	JB block
	PMOVMSKB X9, R9
	MOVQ AX, mask+8(FP)
	MOVQ BX, backslash+16(FP)
	MOVQ R9, high+24(FP)
	RET
