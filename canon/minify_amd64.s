//go:build !purego

#include "textflag.h"

// func minifyBlocksAVX512(dst, src *byte, n int, st *minState) int
//
// minifyGeneric (minify.go) over n 64-byte blocks, one block per iteration:
// byte compares into mask registers give the quote, backslash, whitespace
// and non-scalar bitmaps; the escape, in-string and merge arithmetic runs
// on general registers (the in-string prefix XOR by VPCLMULQDQ with all
// ones); VPCOMPRESSB packs the kept bytes, and a whole-block store writes
// them.
//
// Registers: SI src, CX src end, DI dst; the carried state R9 inString,
// R10 escNext, R11 prevS, R12 carry, R13 merged; AX BX DX R8 scratch;
// X2 the prefix XOR; X14 all ones (low quadword); Z16-Z25 byte constants.
TEXT ·minifyBlocksAVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ st+24(FP), DX
	SHLQ $6, CX
	ADDQ SI, CX
	MOVQ 0(DX), R9
	MOVQ 8(DX), R10
	MOVQ 16(DX), R11
	MOVQ 24(DX), R12
	MOVQ 32(DX), R13

	MOVQ $0x22, AX
	VPBROADCASTB AX, Z16 // '"'
	MOVQ $0x5c, AX
	VPBROADCASTB AX, Z17 // '\\'
	MOVQ $0x20, AX
	VPBROADCASTB AX, Z18 // ' ', and the bit ORed in to fold '[' ']' onto '{' '}'
	MOVQ $0x0a, AX
	VPBROADCASTB AX, Z19 // '\n'
	MOVQ $0x0d, AX
	VPBROADCASTB AX, Z20 // '\r'
	MOVQ $0x09, AX
	VPBROADCASTB AX, Z21 // '\t'
	MOVQ $0x7b, AX
	VPBROADCASTB AX, Z22 // '{' (and '[' | 0x20)
	MOVQ $0x7d, AX
	VPBROADCASTB AX, Z23 // '}' (and ']' | 0x20)
	MOVQ $0x3a, AX
	VPBROADCASTB AX, Z24 // ':'
	MOVQ $0x2c, AX
	VPBROADCASTB AX, Z25 // ','
	MOVQ $-1, AX
	VMOVQ AX, X14

	CMPQ SI, CX
	JAE  done

loop:
	VMOVDQU8 (SI), Z0
	VPCMPEQB Z16, Z0, K1 // quotes
	VPCMPEQB Z17, Z0, K2 // backslashes
	VPCMPEQB Z18, Z0, K3
	VPCMPEQB Z19, Z0, K4
	KORQ     K4, K3, K3
	VPCMPEQB Z20, Z0, K4
	KORQ     K4, K3, K3
	VPCMPEQB Z21, Z0, K4
	KORQ     K4, K3, K3  // whitespace
	VPORQ    Z18, Z0, Z1
	VPCMPEQB Z22, Z1, K4
	VPCMPEQB Z23, Z1, K5
	KORQ     K5, K4, K4
	VPCMPEQB Z24, Z0, K5
	KORQ     K5, K4, K4
	VPCMPEQB Z25, Z0, K5
	KORQ     K5, K4, K4
	KORQ     K1, K4, K4
	KORQ     K3, K4, K4  // not scalar: structural, quote or whitespace

	// Escaped bytes (BX), from the backslashes.
	KMOVQ K2, BX
	TESTQ BX, BX
	JNZ   escapes
	MOVQ  R10, BX        // only the first byte can be escaped
	XORL  R10, R10
	JMP   quotes

escapes:
	MOVQ $-0x5555555555555556, R8 // oddBits
	MOVQ R10, DX
	NOTQ DX
	ANDQ BX, DX                   // potential = bslash &^ escNext
	LEAQ (DX)(DX*1), AX
	ORQ  R8, AX
	SUBQ DX, AX
	XORQ R8, AX                   // code
	MOVQ AX, DX
	ANDQ BX, DX
	SHRQ $63, DX                  // next escNext = (code & bslash) >> 63
	ORQ  R10, BX
	XORQ AX, BX                   // escaped = code ^ (bslash | escNext)
	MOVQ DX, R10

quotes:
	// In-string mask (AX) = prefix XOR of the unescaped quotes ^ inString.
	KMOVQ      K1, AX
	NOTQ       BX
	ANDQ       BX, AX
	VMOVQ      AX, X2
	VPCLMULQDQ $0, X14, X2, X2
	VMOVQ      X2, AX
	XORQ       R9, AX
	MOVQ       AX, R9
	SARQ       $63, R9

	// remove (DX) = whitespace &^ inString; scalar (R8) = ^(notScalar | inString).
	NOTQ  AX
	KMOVQ K3, DX
	ANDQ  AX, DX
	KMOVQ K4, R8
	NOTQ  R8
	ANDQ  AX, R8

	// Runs of removed bytes after a scalar byte, carried through each run
	// to the byte after it; a scalar byte there is a merge.
	LEAQ  (R8)(R8*1), BX
	ORQ   R11, BX
	ANDQ  DX, BX                  // rs = remove & (scalar<<1 | prevS)
	MOVQ  R8, R11
	SHRQ  $63, R11                // prevS
	MOVQ  DX, AX
	BTQ   $0, R12                 // CF = carry
	ADCQ  BX, AX                  // sum = remove + rs + carry
	SBBQ  R12, R12
	NEGQ  R12                     // carry out
	MOVQ  DX, BX
	NOTQ  BX                      // keep = ^remove
	ANDQ  BX, AX
	ANDQ  R8, AX
	ORQ   AX, R13                 // merged |= sum &^ remove & scalar

	// Pack the kept bytes and store the whole block.
	KMOVQ       BX, K1
	VPCOMPRESSB Z0, K1, Z1
	VMOVDQU8    Z1, (DI)
	POPCNTQ     BX, BX
	ADDQ        BX, DI
	ADDQ        $64, SI
	CMPQ        SI, CX
	JB          loop

done:
	MOVQ st+24(FP), DX
	MOVQ R9, 0(DX)
	MOVQ R10, 8(DX)
	MOVQ R11, 16(DX)
	MOVQ R12, 24(DX)
	MOVQ R13, 32(DX)
	SUBQ dst+0(FP), DI
	MOVQ DI, ret+32(FP)
	VZEROUPPER
	RET
