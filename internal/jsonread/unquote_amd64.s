//go:build !purego

#include "textflag.h"

// LOADMASKED loads the CX bytes at SI (1 <= CX <= 64) into Z0, zeroing the
// rest, with their mask in K1: no byte past SI+CX is read (clobbers AX).
#define LOADMASKED \
	MOVQ $-1, AX \
	BZHIQ CX, AX, AX \
	KMOVQ AX, K1 \
	VMOVDQU8.Z (SI), K1, Z0

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
