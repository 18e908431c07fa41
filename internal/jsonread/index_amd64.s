//go:build !purego

#include "textflag.h"

// STEP32 and STEP16 test the 32 (AVX2) or 16 (SSE2) bytes at SI+DX, with
// '"' and '\\' in every byte of Y1/X1 and Y2/X2, and jump to avxfound or
// found with the bitmap of the matches in AX if any byte is either.
#define STEP32 \
	VMOVDQU (SI)(DX*1), Y0 \
	VPCMPEQB Y1, Y0, Y3 \
	VPCMPEQB Y2, Y0, Y0 \
	VPOR     Y3, Y0, Y0 \
	VPMOVMSKB Y0, AX \
	TESTL AX, AX \
	JNZ   avxfound

#define STEP16 \
	MOVOU (SI)(DX*1), X0 \
	MOVO  X0, X3 \
	PCMPEQB X1, X3 \
	PCMPEQB X2, X0 \
	POR   X3, X0 \
	PMOVMSKB X0, AX \
	TESTL AX, AX \
	JNZ   found

// func indexQuoteOrBackslash(b []byte) int
TEXT ·indexQuoteOrBackslash(SB), NOSPLIT, $0-32
	CMPB ·useIndexAVX2(SB), $0
	JEQ  sse2
	CMPQ b_len+8(FP), $32
	JLT  sse2
	JMP  ·indexQuoteOrBackslashAVX2(SB)

sse2:
	JMP ·indexQuoteOrBackslashSSE2(SB)

// func indexQuoteOrBackslashAVX2(b []byte) int (len(b) >= 32)
TEXT ·indexQuoteOrBackslashAVX2(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	MOVQ $0x22, AX
	MOVQ AX, X1
	VPBROADCASTB X1, Y1
	MOVQ $0x5c, AX
	MOVQ AX, X2
	VPBROADCASTB X2, Y2
	XORQ DX, DX

avxloop:
	// DX+32 <= BX: a whole step at DX.
	STEP32
	ADDQ  $32, DX
	LEAQ  32(DX), CX
	CMPQ  CX, BX
	JLE   avxloop
	CMPQ  DX, BX
	JEQ   avxnone
	// Fewer than 32 bytes left: the last 32 bytes of b (see the SSE2
	// kernel's tail).
	MOVQ  BX, DX
	SUBQ  $32, DX
	STEP32

avxnone:
	VZEROUPPER
	MOVQ $-1, ret+24(FP)
	RET

avxfound:
	VZEROUPPER
	BSFL AX, AX
	ADDQ DX, AX
	MOVQ AX, ret+24(FP)
	RET

// func indexQuoteOrBackslashSSE2(b []byte) int
TEXT ·indexQuoteOrBackslashSSE2(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X1
	PUNPCKLQDQ X1, X1
	MOVQ $0x5c5c5c5c5c5c5c5c, AX
	MOVQ AX, X2
	PUNPCKLQDQ X2, X2
	XORQ DX, DX
	CMPQ BX, $16
	JLT  small

loop:
	// DX+16 <= BX: a whole block at DX.
	STEP16
	ADDQ  $16, DX
	LEAQ  16(DX), CX
	CMPQ  CX, BX
	JLE   loop
	CMPQ  DX, BX
	JEQ   none
	// Fewer than 16 bytes left: the last 16 bytes of b, whose bytes
	// before DX hold neither, so the first match is at or after DX.
	MOVQ  BX, DX
	SUBQ  $16, DX
	STEP16

none:
	MOVQ $-1, ret+24(FP)
	RET

found:
	BSFL AX, AX
	ADDQ DX, AX
	MOVQ AX, ret+24(FP)
	RET

small:
	CMPQ DX, BX
	JGE  none
	MOVBLZX (SI)(DX*1), AX
	CMPB AL, $0x22
	JEQ  smallfound
	CMPB AL, $0x5c
	JEQ  smallfound
	INCQ DX
	JMP  small

smallfound:
	MOVQ DX, ret+24(FP)
	RET
