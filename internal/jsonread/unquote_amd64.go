//go:build !purego

package jsonread

import (
	"math/bits"

	"github.com/bbdigest/bbdigest/internal/cpu"
	"github.com/bbdigest/bbdigest/internal/escbits"
)

// useUnquoteAVX512 selects unquoteSimple's AVX-512 path: escbits.Masks
// (AVX-512 F and BW, BMI2), and VPCOMPRESSB (AVX-512 VBMI2) with POPCNT,
// with an OS that saves the AVX-512 state. Tests turn it off to run the
// scalar decoder alone on the same inputs.
var useUnquoteAVX512 = escbits.HaveAVX512 && cpu.X86.HasAVX512VBMI2 && cpu.X86.HasPOPCNT

// compressStore writes to dst the bytes of the l bytes at src (1 <= l <=
// 64) whose bits are set in keep, in order: popcount(keep) bytes, and
// none past them (unquote_amd64.s).
//
//go:noescape
func compressStore(dst, src *byte, l int, keep uint64)

// unquoteSimple decodes the string body b[j:] into buf[n:], 64 bytes per
// step, for as long as its escapes are \", \\ and \/ (JSON text held in a
// string is full of them): b[j] is a backslash that starts one of them.
// It returns where it stopped in b and buf, and whether that is past the
// string's closing quote (done). When not done, j is at an escape that
// the caller decodes (another escape, or a backslash that ends the
// input), at the end of the input, or at a byte that no escape leaves in
// the middle of; buf[:n] holds the text before it. buf has room for the
// text of b[j:] (AppendUnquote grows it so).
//
// Per step the bitmaps of quotes, backslashes and slashes give the
// escaping backslashes and the bytes they escape, in a run of
// backslashes of any length (escbits.Escapes); the first quote not escaped
// ends the string; the bytes before the first end (the quote, an escape
// of another kind, a backslash whose escaped byte lies past the step),
// less the escaping backslashes, are packed into buf by one VPCOMPRESSB.
func unquoteSimple(buf []byte, n int, b []byte, j int) (int, int, bool) {
	for j < len(b) {
		l := min(len(b)-j, 64)
		q, bs, sl, _ := escbits.Masks(&b[j], l)
		esc, escaped := escbits.Escapes(bs)
		lim := l
		if esc>>(l-1)&1 != 0 {
			lim = l - 1 // its escaped byte is in the next step, or past the input
		}
		if other := escaped &^ (q | bs | sl); other != 0 {
			lim = min(lim, bits.TrailingZeros64(other)-1)
		}
		done := false
		if end := q &^ escaped; end != 0 {
			if e := bits.TrailingZeros64(end); e < lim {
				lim, done = e, true
			}
		}
		keep := ^esc
		if lim < 64 {
			keep &= 1<<lim - 1
		}
		if keep != 0 {
			compressStore(&buf[n], &b[j], l, keep)
			n += bits.OnesCount64(keep)
		}
		if done {
			return j + lim + 1, n, true
		}
		j += lim
		if lim < l {
			return j, n, false
		}
	}
	return j, n, false
}
