//go:build !purego

#include "textflag.h"

// The classes of a byte for the indexed fast path, as the AND of a lookup
// by its low nibble and one by its high nibble (VPSHUFB): bit 0 '[' ']'
// '{' '}', bit 1 ':', bit 2 ',', bits 3 and 4 the letters b f n and r t,
// bit 5 '"', bit 6 '\\'. Each class is a product of nibble sets, so the AND
// is exact; bytes of 0x80 and up have a high nibble with no class.
DATA indexLo<>+0(SB)/8, $0x0008001000380000
DATA indexLo<>+8(SB)/8, $0x0008014401020000
GLOBL indexLo<>(SB), RODATA|NOPTR, $16
DATA indexHi<>+0(SB)/8, $0x1108410002240000
DATA indexHi<>+8(SB)/8, $0x0000000000000000
GLOBL indexHi<>(SB), RODATA|NOPTR, $16

// The offsets 0 to 63 of a block's bytes.
DATA indexIota<>+0(SB)/8, $0x0706050403020100
DATA indexIota<>+8(SB)/8, $0x0f0e0d0c0b0a0908
DATA indexIota<>+16(SB)/8, $0x1716151413121110
DATA indexIota<>+24(SB)/8, $0x1f1e1d1c1b1a1918
DATA indexIota<>+32(SB)/8, $0x2726252423222120
DATA indexIota<>+40(SB)/8, $0x2f2e2d2c2b2a2928
DATA indexIota<>+48(SB)/8, $0x3736353433323130
DATA indexIota<>+56(SB)/8, $0x3f3e3d3c3b3a3938
GLOBL indexIota<>(SB), RODATA|NOPTR, $64

// func indexBlocksAVX512(p *byte, n int, st *indexState, idx *uint32, high *uint64) int
//
// indexBlocksGeneric (index.go) over n 64-byte blocks, one block per
// iteration: two nibble lookups classify the bytes (indexLo, indexHi) and
// byte tests into mask registers give the quote, backslash, structural,
// escapable, control and high bitmaps; the escape and in-string arithmetic
// runs on general registers (as in minifyBlocksAVX512: the in-string
// prefix XOR by VPCLMULQDQ with all ones); VPCOMPRESSB packs the offsets
// (in the block) of the bits of the index mask, and their first 16,
// widened to 32 bits and added to the block's input offset, are stored as
// one vector (all four quarters when there are more than 16), so idx needs
// room for 64 offsets past the last. A closing quote whose string holds a
// backslash gets indexEscaped (bit 31): with s the in-string mask and B
// the backslashes in it, s + B + carry carries out of each string that
// holds one into its closing quote (s is zero there), and out of bit 63
// into the next block (escStr); VPCOMPRESSB packs those flags as it packs
// the offsets, and they are shifted to bit 31.
//
// Registers: SI p, CX p's end, DI idx; the carried state R9 inStr, R10
// escNext, R13 fails, R14 odd, R12 escStr; R11 high; AX BX DX R8 scratch;
// X2 the prefix XOR; X14 all ones (low quadword); Z16-Z23 constants, Z24
// the block's input offset in each 32-bit lane, Z25 64s.
TEXT ·indexBlocksAVX512(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ st+16(FP), DX
	MOVQ idx+24(FP), DI
	MOVQ high+32(FP), R11
	SHLQ $6, CX
	ADDQ SI, CX
	MOVQ 0(DX), R9
	MOVQ 8(DX), R10
	MOVQ 24(DX), R13
	MOVQ 32(DX), R14
	MOVQ 40(DX), R12
	MOVL 16(DX), AX
	VPBROADCASTD AX, Z24
	MOVL         $64, AX
	VPBROADCASTD AX, Z25

	VBROADCASTI32X4 indexLo<>(SB), Z16
	VBROADCASTI32X4 indexHi<>(SB), Z17
	VMOVDQU8        indexIota<>(SB), Z18
	MOVQ            $0x0f, AX
	VPBROADCASTB    AX, Z19 // low nibble
	MOVQ            $0xe0, AX
	VPBROADCASTB    AX, Z20 // the bits of 0x20 and up
	MOVQ            $0x20, AX
	VPBROADCASTB    AX, Z21 // class '"'
	MOVQ            $0x40, AX
	VPBROADCASTB    AX, Z22 // class '\\'
	MOVQ            $0x07, AX
	VPBROADCASTB    AX, Z23 // the structural classes
	MOVQ            $0x78, AX
	VPBROADCASTB    AX, Z15 // what may follow a backslash: '"', '\\', b f n r t
	MOVQ            $-1, AX
	VMOVQ           AX, X14

	CMPQ SI, CX
	JAE  done

loop:
	VMOVDQU8  (SI), Z0
	VPSRLW    $4, Z0, Z1
	VPANDQ    Z19, Z1, Z1
	VPANDQ    Z19, Z0, Z2
	VPSHUFB   Z2, Z16, Z2
	VPSHUFB   Z1, Z17, Z1
	VPANDQ    Z2, Z1, Z1   // the classes
	VPTESTMB  Z21, Z1, K1  // quotes
	VPTESTMB  Z22, Z1, K2  // backslashes
	VPTESTNMB Z20, Z0, K3  // controls
	VPMOVB2M  Z0, K4       // high bytes
	VPTESTMB  Z23, Z1, K5  // structural
	VPTESTMB  Z15, Z1, K6  // escapable

	KMOVQ K4, AX
	MOVQ  AX, (R11)
	ADDQ  $8, R11
	KMOVQ K3, DX
	ORQ   DX, R13          // fails |= controls
	KMOVQ K2, BX

	// Escaped bytes (BX), from the backslashes, without a branch: a
	// block's backslashes are as unpredictable as its text.
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

escaped:
	// odd |= escaped &^ (quote | bslash | letter)
	KMOVQ K6, DX
	NOTQ  DX
	ANDQ  BX, DX
	ORQ   DX, R14

	// In-string mask (DX) = prefix XOR of the unescaped quotes (R8) ^ inStr.
	KMOVQ      K1, R8
	NOTQ       BX
	ANDQ       BX, R8
	VMOVQ      R8, X2
	VPCLMULQDQ $0, X14, X2, X2
	VMOVQ      X2, DX
	XORQ       R9, DX
	MOVQ       DX, R9
	SARQ       $63, R9

	// The flags (BX): (s + (bslash & s) + escStr) & closing quotes, the
	// carry out to escStr (0 or all ones).
	KMOVQ K2, AX
	ANDQ  DX, AX
	MOVQ  DX, BX
	BTQ   $0, R12
	ADCQ  AX, BX
	SBBQ  R12, R12
	MOVQ  DX, AX
	NOTQ  AX
	ANDQ  R8, AX
	ANDQ  AX, BX

	// fails |= (bslash | high) &^ s; the index mask (DX) = q | structural &^ s.
	NOTQ  DX
	KORQ  K2, K4, K7
	KMOVQ K7, AX
	ANDQ  DX, AX
	ORQ   AX, R13
	KMOVQ K5, AX
	ANDQ  AX, DX
	ORQ   R8, DX

	// Pack the offsets of DX's bits, and the flags of BX's (bytes of all
	// ones, shifted to bit 31 of their offsets).
	KMOVQ       DX, K1
	KMOVQ       BX, K3
	VPMOVM2B    K3, Z5
	VPCOMPRESSB Z18, K1, Z2
	VPCOMPRESSB Z5, K1, Z6
	VPMOVZXBD   X2, Z3
	VPMOVZXBD   X6, Z7
	VPSLLD      $31, Z7, Z7
	VPADDD      Z24, Z3, Z3
	VPORD       Z7, Z3, Z3
	VMOVDQU32   Z3, (DI)
	POPCNTQ     DX, DX
	CMPQ        DX, $16
	JA          more

packed:
	LEAQ   (DI)(DX*4), DI
	VPADDD Z25, Z24, Z24
	ADDQ   $64, SI
	CMPQ   SI, CX
	JB     loop
	JMP    done

more:
	VEXTRACTI32X4 $1, Z2, X4
	VEXTRACTI32X4 $1, Z6, X5
	VPMOVZXBD     X4, Z3
	VPMOVZXBD     X5, Z7
	VPSLLD        $31, Z7, Z7
	VPADDD        Z24, Z3, Z3
	VPORD         Z7, Z3, Z3
	VMOVDQU32     Z3, 64(DI)
	VEXTRACTI32X4 $2, Z2, X4
	VEXTRACTI32X4 $2, Z6, X5
	VPMOVZXBD     X4, Z3
	VPMOVZXBD     X5, Z7
	VPSLLD        $31, Z7, Z7
	VPADDD        Z24, Z3, Z3
	VPORD         Z7, Z3, Z3
	VMOVDQU32     Z3, 128(DI)
	VEXTRACTI32X4 $3, Z2, X4
	VEXTRACTI32X4 $3, Z6, X5
	VPMOVZXBD     X4, Z3
	VPMOVZXBD     X5, Z7
	VPSLLD        $31, Z7, Z7
	VPADDD        Z24, Z3, Z3
	VPORD         Z7, Z3, Z3
	VMOVDQU32     Z3, 192(DI)
	JMP           packed

done:
	MOVQ st+16(FP), DX
	MOVQ R9, 0(DX)
	MOVQ R10, 8(DX)
	MOVQ R13, 24(DX)
	MOVQ R14, 32(DX)
	MOVQ R12, 40(DX)
	MOVQ n+8(FP), AX
	SHLQ $6, AX
	ADDQ AX, 16(DX)
	SUBQ idx+24(FP), DI
	SHRQ $2, DI
	MOVQ DI, ret+40(FP)
	VZEROUPPER
	RET
