//go:build !purego

#include "textflag.h"

// LOADMASKED loads the CX bytes at SI (1 <= CX <= 64) into Z0, zeroing the
// rest, with their mask in K1: no byte past SI+CX is read (clobbers AX).
#define LOADMASKED \
	MOVQ $-1, AX \
	BZHIQ CX, AX, AX \
	KMOVQ AX, K1 \
	VMOVDQU8.Z (SI), K1, Z0

// func quoteMasks(p *byte, l int) (q, bs, sl uint64)
//
// The bitmaps of the '"', '\\' and '/' bytes of the l bytes at p (1 <= l
// <= 64), read with a masked load: no byte past p+l is read.
// Needs AVX-512 F and BW, and BMI2.
TEXT ·quoteMasks(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ l+8(FP), CX
	LOADMASKED
	MOVQ $0x22, AX
	VPBROADCASTB AX, Z1
	MOVQ $0x5c, AX
	VPBROADCASTB AX, Z2
	MOVQ $0x2f, AX
	VPBROADCASTB AX, Z3
	VPCMPEQB Z1, Z0, K1, K2
	VPCMPEQB Z2, Z0, K1, K3
	VPCMPEQB Z3, Z0, K1, K4
	KMOVQ K2, q+16(FP)
	KMOVQ K3, bs+24(FP)
	KMOVQ K4, sl+32(FP)
	VZEROUPPER
	RET

// func compressStore(dst, src *byte, l int, keep uint64)
//
// Writes the bytes of the l bytes at src (1 <= l <= 64) whose bits are
// set in keep (none at or past l), in order, to dst: popcount(keep)
// bytes, with a masked store, so that no byte past them is written.
// Needs AVX-512 F, BW and VBMI2 (VPCOMPRESSB), BMI2 and POPCNT.
TEXT ·compressStore(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ l+16(FP), CX
	MOVQ keep+24(FP), DX
	LOADMASKED
	KMOVQ DX, K2
	VPCOMPRESSB.Z Z0, K2, Z1
	POPCNTQ DX, DX
	MOVQ $-1, AX
	BZHIQ DX, AX, AX
	KMOVQ AX, K3
	VMOVDQU8 Z1, K3, (DI)
	VZEROUPPER
	RET
