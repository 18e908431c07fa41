//go:build amd64 && !purego

#include "textflag.h"

// func indexStop(s []byte) (idx int, high bool)
//
// Per 16-byte block: the stop mask is (x == '"') | (x == '\\') | (0x20 > x)
// as signed bytes, which also flags every byte >= 0x80; those are removed
// with the block's own sign bits (PMOVMSKB x), since no stop byte has bit 7
// set. The sign bits of blocks passed over are ORed into X7 for high.
TEXT ·indexStop(SB), NOSPLIT, $0-33
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), BX
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X1
	PUNPCKLQDQ X1, X1
	MOVQ $0x5c5c5c5c5c5c5c5c, AX
	MOVQ AX, X2
	PUNPCKLQDQ X2, X2
	MOVQ $0x2020202020202020, AX
	MOVQ AX, X3
	PUNPCKLQDQ X3, X3
	PXOR X7, X7
	XORQ DX, DX

loop:
	LEAQ 16(DX), CX
	CMPQ CX, BX
	JGT  partial
	MOVOU (SI)(DX*1), X0
	MOVO  X0, X4
	PCMPEQB X1, X4
	MOVO  X0, X5
	PCMPEQB X2, X5
	MOVO  X3, X6
	PCMPGTB X0, X6
	POR   X4, X5
	POR   X6, X5
	PMOVMSKB X5, AX
	PMOVMSKB X0, R8
	MOVL  R8, R9
	NOTL  R9
	ANDL  R9, AX
	JNZ   found
	POR   X0, X7
	MOVQ  CX, DX
	JMP   loop

found:
	// High bytes before the stop byte: R8 & (AX ^ (AX-1)) (the stop byte
	// itself has bit 7 clear).
	MOVL AX, R9
	DECL R9
	XORL AX, R9
	ANDL R9, R8
	PMOVMSKB X7, R10
	ORL  R8, R10
	BSFL AX, AX
	ADDQ DX, AX
	MOVQ AX, idx+24(FP)
	TESTL R10, R10
	SETNE high+32(FP)
	RET

partial:
	PMOVMSKB X7, R10
	MOVQ DX, idx+24(FP)
	TESTL R10, R10
	SETNE high+32(FP)
	RET
