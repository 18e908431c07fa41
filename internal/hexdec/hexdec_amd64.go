//go:build !purego

package hexdec

import "github.com/bbdigest/bbdigest/internal/cpu"

// useAVX512 selects lower32AVX512: AVX-512 F and BW, with an OS that
// saves the AVX-512 state. Tests turn it off to run the generic path on
// the same inputs.
var useAVX512 = haveAVX512

// haveAVX512 reports that lower32AVX512 can run.
var haveAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW

// lower32AVX512 is Lower32 in one 64-byte step (hexdec_amd64.s): the
// digits are checked by two unsigned range compares, their values taken
// by a subtraction chosen per byte by the mask of the decimal ones, each
// pair joined by VPMADDUBSW (16 times the first, plus the second) and the
// 32 words narrowed to bytes by VPMOVWB.
//
//go:noescape
func lower32AVX512(dst *[32]byte, src *[64]byte) bool
