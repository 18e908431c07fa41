//go:build !purego

package escbits

import "github.com/bbdigest/bbdigest/internal/cpu"

// HaveAVX512 reports that Masks runs its AVX-512 kernel: AVX-512 F and BW
// (a masked load, compares into mask registers) and BMI2 (BZHI), with an
// OS that saves the AVX-512 state. Where it is false, Masks must not be
// called: callers choose their scalar paths then.
var HaveAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasBMI2

// Masks returns, for the l bytes at p (1 <= l <= 64; bit k for byte k),
// the bitmaps of the '"' bytes (q), the '\\' bytes (bs), the '/' bytes
// (sl), and the bytes below 0x20 or at or above 0x80 (other: those that
// end a run of printable ASCII). It reads no byte past p+l (one masked
// load), and needs HaveAVX512 (masks_amd64.s).
//
//go:noescape
func Masks(p *byte, l int) (q, bs, sl, other uint64)
