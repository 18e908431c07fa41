//go:build !purego

#include "textflag.h"

// func Masks(p *byte, l int) (q, bs, sl, other uint64)
//
// The l bytes at p (1 <= l <= 64) are read with a masked load, so that no
// byte past p+l is read; the bitmaps of '"', '\\' and '/' are byte
// compares, and that of the bytes below 0x20 or at or above 0x80 one
// signed compare (0x20 > x as signed bytes). Needs AVX-512 F and BW, and
// BMI2.
TEXT ·Masks(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), SI
	MOVQ l+8(FP), CX
	MOVQ $-1, AX
	BZHIQ CX, AX, AX
	KMOVQ AX, K1
	VMOVDQU8.Z (SI), K1, Z0
	MOVQ $0x22, AX
	VPBROADCASTB AX, Z1
	MOVQ $0x5c, AX
	VPBROADCASTB AX, Z2
	MOVQ $0x2f, AX
	VPBROADCASTB AX, Z3
	MOVQ $0x20, AX
	VPBROADCASTB AX, Z4
	VPCMPEQB Z1, Z0, K1, K2
	VPCMPEQB Z2, Z0, K1, K3
	VPCMPEQB Z3, Z0, K1, K4
	VPCMPGTB Z0, Z4, K1, K5
	KMOVQ K2, q+16(FP)
	KMOVQ K3, bs+24(FP)
	KMOVQ K4, sl+32(FP)
	KMOVQ K5, other+40(FP)
	VZEROUPPER
	RET
