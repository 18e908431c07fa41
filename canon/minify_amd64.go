//go:build !purego

package canon

import "github.com/bbdigest/bbdigest/internal/cpu"

// haveMinifyAVX512 reports that minifyBlocksAVX512 can run: it needs
// AVX-512 F and BW (byte compares into mask registers), VBMI2
// (VPCOMPRESSB), PCLMULQDQ (the in-string mask) and POPCNT, and an OS that
// saves the AVX-512 state (internal/cpu checks that).
var haveMinifyAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI2 &&
	cpu.X86.HasPCLMULQDQ && cpu.X86.HasPOPCNT && cpu.X86.HasAVX

// minifyBlocksAVX512 is minifyGeneric over n whole 64-byte blocks at src,
// in AVX-512 (minify_amd64.s). It stores whole 64-byte blocks at dst, so dst
// must have room for the output plus 64 bytes. It returns the number of
// bytes written.
//
//go:noescape
func minifyBlocksAVX512(dst, src *byte, n int, st *minState) int
