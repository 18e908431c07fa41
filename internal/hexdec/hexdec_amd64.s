//go:build !purego

#include "textflag.h"

// func lower32AVX512(dst *[32]byte, src *[64]byte) bool
TEXT ·lower32AVX512(SB), NOSPLIT, $0-17
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	VMOVDQU8 (SI), Z0
	MOVQ $0x30, AX
	VPBROADCASTB AX, Z1
	VPSUBB Z1, Z0, Z2          // x - '0'
	MOVQ $0x0a, AX
	VPBROADCASTB AX, Z3
	VPCMPUB $1, Z3, Z2, K1     // x - '0' < 10: a decimal digit
	MOVQ $0x61, AX
	VPBROADCASTB AX, Z4
	VPSUBB Z4, Z0, Z5          // x - 'a'
	MOVQ $0x06, AX
	VPBROADCASTB AX, Z6
	VPCMPUB $1, Z6, Z5, K2     // x - 'a' < 6: a letter
	KORQ K1, K2, K3
	VPADDB Z3, Z5, Z5          // x - 'a' + 10
	VMOVDQU8 Z2, K1, Z5        // the decimal digits' values over it
	MOVL $0x01100110, AX       // bytes 0x10, 0x01 in every word: 16 * first + second
	VPBROADCASTD AX, Z7
	VPMADDUBSW Z7, Z5, Z8
	VPMOVWB Z8, Y9
	VMOVDQU Y9, (DI)
	KORTESTQ K3, K3            // CF: every byte a digit
	SETCS ret+16(FP)
	VZEROUPPER
	RET
