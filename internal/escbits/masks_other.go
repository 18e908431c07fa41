//go:build !amd64 || purego

package escbits

// HaveAVX512 is false: this build has no kernel, and Masks reads one byte
// at a time.
const HaveAVX512 = false

// Masks returns, for the l bytes at p (1 <= l <= 64; bit k for byte k),
// the bitmaps of the '"' bytes (q), the '\\' bytes (bs), the '/' bytes
// (sl), and the bytes below 0x20 or at or above 0x80 (other: those that
// end a run of printable ASCII). It reads no byte past p+l.
func Masks(p *byte, l int) (q, bs, sl, other uint64) { return masksGeneric(p, l) }
