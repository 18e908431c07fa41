//go:build amd64 && !purego

package canon

import (
	"math/bits"
	"unicode/utf8"
)

// indexStop returns the offset of the first byte of s that is '"', '\\' or
// below 0x20, looking only at whole 16-byte blocks from the start of s; if
// none has one, it returns the end of the last whole block (len(s) &^ 15).
// high reports whether any byte before that offset is 0x80 or above.
// Implemented in scan_amd64.s with SSE2, which every amd64 CPU has.
//
//go:noescape
func indexStop(s []byte) (idx int, high bool)

// scanPlainString is scanPlainGeneric, with the string body scanned sixteen
// bytes per instruction group: the stop bytes ('"', '\\', controls) are
// found by indexStop, and the UTF-8 before them is checked in one call to
// utf8.Valid, only when a byte above 0x7F was seen. Where the fast scan
// cannot decide (ill-formed UTF-8, or a string running into the last
// fifteen bytes of the input), the generic scanner decides, so the result is
// always exactly scanPlainGeneric's.
func scanPlainString(src []byte, pos int) (int, bool) {
	i := pos + 1
	if i > len(src) {
		return scanPlainGeneric(src, pos)
	}
	k, high := indexStop(src[i:])
	j := i + k
	if j < len(src) {
		if b := src[j]; b == '"' || b == '\\' || b < 0x20 {
			if high && !utf8.Valid(src[i:j]) {
				return scanPlainGeneric(src, pos)
			}
			if b == '"' {
				return j + 1, false
			}
			return j, true
		}
	}
	// The string runs into the input's last partial block.
	if high {
		return scanPlainGeneric(src, pos)
	}
	return scanPlainFrom(src, j)
}

// classifyBlocks writes the stop and high bitmaps of n 64-byte blocks at p
// (see classWindow). Implemented in scan_amd64.s with SSE2.
//
//go:noescape
func classifyBlocks(p *byte, n int, stop, high *uint64)

// winWords is the number of 64-byte blocks a classWindow covers (4 KiB).
const winWords = 64

// classWindow holds two bitmaps over a window of the input, one bit per
// byte, computed a window at a time by classifyBlocks as the scan moves
// forward: stop marks '"', '\\' and the bytes below 0x20, high the bytes at
// or above 0x80. With them the end of a string (or its first escape) is a
// trailing-zero count away, with no call per string; and a string's UTF-8
// needs checking only when a high bit lies inside it. The final partial
// block is classified from a copy padded with zero bytes, which count as
// stops, so no search runs past the end of the input unnoticed.
type classWindow struct {
	lo    int // input offset of the first block (a multiple of 64)
	words int // blocks classified: the window covers [lo, lo+64*words)
	stop  [winWords]uint64
	high  [winWords]uint64
	pad   [64]byte
}

// reset empties the window, for a scan that starts again at offset 0.
func (w *classWindow) reset() { w.lo, w.words = 0, 0 }

// fill classifies the window of src that starts with the block holding
// offset i (i < len(src)).
func (w *classWindow) fill(src []byte, i int) {
	lo := i &^ 63
	full := min((len(src)-lo)/64, winWords)
	if full > 0 {
		classifyBlocks(&src[lo], full, &w.stop[0], &w.high[0])
	}
	w.lo, w.words = lo, full
	if tail := src[lo+64*full:]; full < winWords && len(tail) > 0 {
		n := copy(w.pad[:], tail)
		clear(w.pad[n:])
		classifyBlocks(&w.pad[0], 1, &w.stop[full], &w.high[full])
		w.words++
	}
}

// scanPlain is scanPlainString(c.src, pos) for a scan that moves forward
// through c.src: the string is found in the classification window, and only
// a string that leaves the window is handed to scanPlainString.
func (c *Canonicalizer) scanPlain(pos int) (int, bool) {
	src, w := c.src, &c.win
	i := pos + 1
	off := i - w.lo
	if off < 0 || off >= 64*w.words {
		if i >= len(src) {
			return scanPlainGeneric(src, pos)
		}
		w.fill(src, i)
		off = i - w.lo
	}
	k := off >> 6
	m := w.stop[k] >> (off & 63)
	h := w.high[k] >> (off & 63)
	if m == 0 {
		for {
			k++
			if k >= w.words {
				return scanPlainString(src, pos) // the string leaves the window
			}
			if m = w.stop[k]; m != 0 {
				break
			}
			h |= w.high[k]
		}
		h |= w.high[k] & (m ^ (m - 1))
		off = 64 * k
	} else {
		h &= m ^ (m - 1)
	}
	j := w.lo + off + bits.TrailingZeros64(m)
	if j >= len(src) {
		return scanPlainGeneric(src, pos) // unterminated
	}
	if h != 0 && !utf8.Valid(src[i:j]) {
		return scanPlainGeneric(src, pos)
	}
	if src[j] == '"' {
		return j + 1, false
	}
	return j, true
}
