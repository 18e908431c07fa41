//go:build !purego

#include "textflag.h"

// func rankKeysAVX512(keys *[16]uint64, n int, rank *[16]uint8)
//
// rankKeysGeneric (rank.go) for 1 <= n <= 16: the sixteen keys sit in Z0
// (lanes 0-7) and Z1 (lanes 8-15), masked to the first n by K2 and K3; for
// each key i, one broadcast and two unsigned compares give the lanes below
// it, and POPCNT counts them.
TEXT ·rankKeysAVX512(SB), NOSPLIT, $0-24
	MOVQ keys+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ rank+16(FP), DI
	MOVL $1, AX
	SHLL CX, AX
	DECL AX      // (1<<n) - 1: the lanes in use
	KMOVW AX, K2 // lanes 0-7
	SHRL $8, AX
	KMOVW AX, K3 // lanes 8-15
	VMOVDQU64 (SI), Z0
	VMOVDQU64 64(SI), Z1
	XORQ R8, R8 // i

loop:
	VPBROADCASTQ (SI)(R8*8), Z2
	VPCMPUQ $1, Z2, Z0, K2, K4 // keys[j] < keys[i], j < 8
	VPCMPUQ $1, Z2, Z1, K3, K5 // keys[j] < keys[i], j >= 8
	KMOVW   K4, AX
	KMOVW   K5, BX
	SHLL    $8, BX
	ORL     BX, AX
	POPCNTL AX, AX
	MOVB    AX, (DI)(R8*1)
	INCQ    R8
	CMPQ    R8, CX
	JB      loop

	VZEROUPPER
	RET
