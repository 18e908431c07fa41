//go:build !purego

#include "textflag.h"

// STOPCONSTS sets X1, X2 and X3 to '"', '\\' and 0x20 in every byte
// (clobbers AX).
#define STOPCONSTS \
	MOVQ $0x2222222222222222, AX \
	MOVQ AX, X1 \
	PUNPCKLQDQ X1, X1 \
	MOVQ $0x5c5c5c5c5c5c5c5c, AX \
	MOVQ AX, X2 \
	PUNPCKLQDQ X2, X2 \
	MOVQ $0x2020202020202020, AX \
	MOVQ AX, X3 \
	PUNPCKLQDQ X3, X3

// func indexStop(s []byte) (idx int, high bool)
//
// Per 16-byte block: the stop mask is (x == '"') | (x == '\\') | (0x20 > x)
// as signed bytes, which also flags every byte >= 0x80; those are removed
// with the block's own sign bits (PMOVMSKB x), since no stop byte has bit 7
// set. The sign bits of blocks passed over are ORed into X7 for high.
TEXT ·indexStop(SB), NOSPLIT, $0-33
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), BX
	STOPCONSTS
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

// func classifyBlocks(p *byte, n int, stop, high *uint64)
//
// For each of the n 64-byte blocks at p, writes two bitmaps (bit k for byte
// k): stop[i], the bytes that are '"', '\\' or below 0x20, and high[i], the
// bytes at or above 0x80. Same per-16-byte test as indexStop.
TEXT ·classifyBlocks(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ stop+16(FP), DI
	MOVQ high+24(FP), R8
	STOPCONSTS
	XORQ R9, R9

block:
	CMPQ R9, CX
	JGE  done

#define CLASSIFY(off, s, h) \
	MOVOU off(SI), X0 \
	MOVO  X0, X4 \
	PCMPEQB X1, X4 \
	MOVO  X0, X5 \
	PCMPEQB X2, X5 \
	MOVO  X3, X6 \
	PCMPGTB X0, X6 \
	POR   X4, X5 \
	POR   X6, X5 \
	PMOVMSKB X5, s \
	PMOVMSKB X0, h

	CLASSIFY(0, AX, BX)
	CLASSIFY(16, DX, R10)
	CLASSIFY(32, R11, R12)
	CLASSIFY(48, R13, R15)
	SHLQ $16, DX
	SHLQ $16, R10
	SHLQ $32, R11
	SHLQ $32, R12
	SHLQ $48, R13
	SHLQ $48, R15
	ORQ  DX, AX
	ORQ  R11, AX
	ORQ  R13, AX
	ORQ  R10, BX
	ORQ  R12, BX
	ORQ  R15, BX
	// stop = (stop | high) &^ high: no stop byte has bit 7 set.
	MOVQ BX, DX
	NOTQ DX
	ANDQ DX, AX
	MOVQ AX, (DI)(R9*8)
	MOVQ BX, (R8)(R9*8)
	ADDQ $64, SI
	INCQ R9
	JMP  block

done:
	RET

// UTF8CHUNK computes the error bitmap of the 16 bytes at off(SI), with the
// 16 bytes before them in X1, ORs it into R9 at bit off, and leaves the
// chunk in X1 for the next one. Constants: X8-X10 the tables, X11 the
// nibble mask, X12 0x60, X13 0x70, X14 0x80, X7 zero (see utf8_lookup.go).
#define UTF8CHUNK(off) \
	MOVOU off(SI), X0 \
	MOVO  X0, X2 \
	PALIGNR $15, X1, X2 \
	MOVO  X0, X3 \
	PALIGNR $14, X1, X3 \
	MOVO  X0, X4 \
	PALIGNR $13, X1, X4 \
	PSUBUSB X12, X3 \
	PSUBUSB X13, X4 \
	POR   X4, X3 \
	PAND  X14, X3 \
	MOVO  X2, X4 \
	PSRLW $4, X4 \
	PAND  X11, X4 \
	MOVO  X8, X5 \
	PSHUFB X4, X5 \
	PAND  X11, X2 \
	MOVO  X9, X6 \
	PSHUFB X2, X6 \
	PAND  X6, X5 \
	MOVO  X0, X4 \
	PSRLW $4, X4 \
	PAND  X11, X4 \
	MOVO  X10, X6 \
	PSHUFB X4, X6 \
	PAND  X6, X5 \
	PXOR  X3, X5 \
	PCMPEQB X7, X5 \
	PMOVMSKB X5, AX \
	XORQ  $0xFFFF, AX \
	SHLQ  $off, AX \
	ORQ   AX, R9 \
	MOVO  X0, X1

// func utf8BlocksSSSE3(p *byte, n int, prev *byte, high, bad *uint64)
//
// For each of the n 64-byte blocks at p, writes bad[i]: bit k set where
// byte k shows a UTF-8 error by the lookup method (utf8_lookup.go), given
// the 16 bytes before p at prev. A block whose high[i] is zero, after a
// block whose last three bytes are ASCII, cannot show an error and is
// skipped. Needs SSSE3 (PSHUFB, PALIGNR).
TEXT ·utf8BlocksSSSE3(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ prev+16(FP), DI
	MOVQ high+24(FP), DX
	MOVQ bad+32(FP), BX
	LEAQ ·utf8Lookup(SB), R8
	MOVOU 0(R8), X8
	MOVOU 16(R8), X9
	MOVOU 32(R8), X10
	MOVOU 48(R8), X11
	MOVOU 64(R8), X12
	MOVOU 80(R8), X13
	MOVOU 96(R8), X14
	PXOR  X7, X7
	MOVOU (DI), X1
	PMOVMSKB X1, R10
	SHRL  $13, R10 // high bits of the three bytes before p

block:
	TESTQ CX, CX
	JZ    done
	MOVQ  (DX), R11
	MOVQ  R11, AX
	ORQ   R10, AX
	JNZ   check
	MOVQ  $0, (BX)
	MOVOU 48(SI), X1
	JMP   next

check:
	XORQ  R9, R9
	UTF8CHUNK(0)
	UTF8CHUNK(16)
	UTF8CHUNK(32)
	UTF8CHUNK(48)
	MOVQ  R9, (BX)

next:
	MOVQ  R11, R10
	SHRQ  $61, R10
	ADDQ  $64, SI
	ADDQ  $8, DX
	ADDQ  $8, BX
	DECQ  CX
	JMP   block

done:
	RET

// func classifyBlocksAVX512(p *byte, n int, stop, high *uint64)
//
// classifyBlocks with AVX-512 BW: one 64-byte block per iteration, each
// bitmap from byte compares into mask registers. Below 0x20 is "no bit of
// 0xE0 set" (VPTESTNMB); high is the sign bits (VPMOVB2M).
TEXT ·classifyBlocksAVX512(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ stop+16(FP), DI
	MOVQ high+24(FP), R8
	MOVQ $0x22, AX
	VPBROADCASTB AX, Z1 // '"'
	MOVQ $0x5c, AX
	VPBROADCASTB AX, Z2 // '\\'
	MOVQ $0xe0, AX
	VPBROADCASTB AX, Z3 // the bits of 0x20 and up
	XORQ R9, R9
	TESTQ CX, CX
	JLE  avxdone

avxblock:
	VMOVDQU8  (SI), Z0
	VPCMPEQB  Z1, Z0, K1
	VPCMPEQB  Z2, Z0, K2
	VPTESTNMB Z3, Z0, K3
	VPMOVB2M  Z0, K4
	KORQ      K2, K1, K1
	KORQ      K3, K1, K1
	KMOVQ     K1, (DI)(R9*8)
	KMOVQ     K4, (R8)(R9*8)
	ADDQ      $64, SI
	INCQ      R9
	CMPQ      R9, CX
	JLT       avxblock

avxdone:
	VZEROUPPER
	RET

// func utf8BlocksAVX512(p *byte, n int, prev *byte, high, bad *uint64)
//
// utf8BlocksSSSE3 with AVX-512 BW, one 64-byte block per iteration: the tables
// and constants are broadcast to the four 128-bit lanes of Z8-Z14. The
// bytes one, two and three back come from T = [the 16 bytes before the
// block, its bytes 0-47] (VALIGNQ of the block with those 16 bytes
// broadcast), and VPALIGNR of the block with T in each lane. The error of
// a byte is special ^ (must23 & 0x80) (VPTERNLOGD), non-zero bytes into the
// bitmap by VPTESTMB. Blocks are skipped as by utf8BlocksSSSE3; R12 points to
// the 16 bytes before the current block (prev for the first).
TEXT ·utf8BlocksAVX512(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ prev+16(FP), R12
	MOVQ high+24(FP), DX
	MOVQ bad+32(FP), BX
	LEAQ ·utf8Lookup(SB), R8
	VBROADCASTI32X4 0(R8), Z8   // by the high nibble of prev1
	VBROADCASTI32X4 16(R8), Z9  // by the low nibble of prev1
	VBROADCASTI32X4 32(R8), Z10 // by the high nibble of the byte
	VBROADCASTI32X4 48(R8), Z11 // 0x0F
	VBROADCASTI32X4 64(R8), Z12 // 0x60
	VBROADCASTI32X4 80(R8), Z13 // 0x70
	VBROADCASTI32X4 96(R8), Z14 // 0x80
	MOVBLZX 13(R12), AX
	MOVBLZX 14(R12), R9
	MOVBLZX 15(R12), R10
	ANDL  $0x80, AX
	ANDL  $0x80, R9
	ANDL  $0x80, R10
	ORL   R9, AX
	ORL   AX, R10 // non-zero if one of the three bytes before p is high

avx512block:
	TESTQ CX, CX
	JZ    avx512done
	MOVQ  (DX), R11
	MOVQ  R11, AX
	ORQ   R10, AX
	JNZ   avx512check
	MOVQ  $0, (BX)
	JMP   avx512next

avx512check:
	VMOVDQU8        (SI), Z0
	VBROADCASTI32X4 (R12), Z1
	VALIGNQ         $6, Z1, Z0, Z1 // T: the 16 bytes before the block, then its bytes 0-47
	VPALIGNR        $15, Z1, Z0, Z2 // prev1
	VPALIGNR        $14, Z1, Z0, Z3 // prev2
	VPALIGNR        $13, Z1, Z0, Z4 // prev3
	VPSUBUSB        Z12, Z3, Z3
	VPSUBUSB        Z13, Z4, Z4
	VPORQ           Z4, Z3, Z3      // bit 7: prev2 >= 0xE0 or prev3 >= 0xF0
	VPSRLW          $4, Z2, Z5
	VPANDQ          Z11, Z5, Z5
	VPSHUFB         Z5, Z8, Z5
	VPANDQ          Z11, Z2, Z6
	VPSHUFB         Z6, Z9, Z6
	VPSRLW          $4, Z0, Z7
	VPANDQ          Z11, Z7, Z7
	VPSHUFB         Z7, Z10, Z7
	VPTERNLOGD      $0x80, Z7, Z6, Z5  // special = Z5 & Z6 & Z7
	VPTERNLOGD      $0x78, Z14, Z3, Z5 // special ^ (must23 & 0x80)
	VPTESTMB        Z5, Z5, K1
	KMOVQ           K1, (BX)

avx512next:
	MOVQ R11, R10
	SHRQ $61, R10
	LEAQ 48(SI), R12
	ADDQ $64, SI
	ADDQ $8, DX
	ADDQ $8, BX
	DECQ CX
	JMP  avx512block

avx512done:
	VZEROUPPER
	RET

// func utf8Blocks(p *byte, n int, prev *byte, high, bad *uint64)
//
// Jumps to the kernel in force: utf8BlocksAVX512 if useUTF8AVX512 (impl.go)
// is set, else utf8BlocksSSSE3. Both take the same arguments.
TEXT ·utf8Blocks(SB), NOSPLIT, $0-40
	CMPB ·useUTF8AVX512(SB), $0
	JEQ  ssse3
	JMP  ·utf8BlocksAVX512(SB)

ssse3:
	JMP ·utf8BlocksSSSE3(SB)
