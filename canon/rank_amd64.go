//go:build !purego

package canon

import "github.com/bbdigest/bbdigest/internal/cpu"

// haveRankAVX512 reports that rankKeysAVX512 can run: AVX-512 F (the
// compares into mask registers, KMOVW) and POPCNT, with an OS that saves
// the AVX-512 state (internal/cpu checks that).
var haveRankAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasPOPCNT

// rankKeysAVX512 is rankKeysGeneric in AVX-512 (rank_amd64.s), for
// 1 <= n <= 16. It reads all sixteen keys; those past n are ignored.
//
//go:noescape
func rankKeysAVX512(keys *[rankMax]uint64, n int, rank *[rankMax]uint8)
