//go:build !purego

package canon

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"

	"github.com/bbdigest/bbdigest/internal/cpu"
)

// Feature bools of the scanner's kernels (the kernels in force are chosen
// in impl.go). Every amd64 CPU has SSE2, which indexStop and
// classifyBlocks need, so the classification window always exists here.
const haveClassifySSE2 = true

var (
	// haveClassifyAVX512 reports that classifyBlocksAVX512 can run:
	// AVX-512 F and BW, with an OS that saves the AVX-512 state.
	haveClassifyAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW
	// haveUTF8Lookup reports that utf8Blocks can run: SSSE3 (PSHUFB).
	haveUTF8Lookup = cpu.X86.HasSSSE3
	// haveUTF8AVX512 reports that utf8BlocksAVX512 can run: AVX-512 F
	// (VALIGNQ, VPTERNLOGD, VBROADCASTI32X4) and BW (VPSHUFB, VPALIGNR,
	// VPTESTMB on bytes), with an OS that saves the AVX-512 state: what
	// classifyBlocksAVX512 needs.
	haveUTF8AVX512 = haveClassifyAVX512
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

// classifyBlocksAVX512 is classifyBlocks with AVX-512 BW, one block per
// iteration (scan_amd64.s).
//
//go:noescape
func classifyBlocksAVX512(p *byte, n int, stop, high *uint64)

// classify is classifyBlocks or classifyBlocksAVX512, as selected.
func classify(p *byte, n int, stop, high *uint64) {
	if useClassifyAVX512 {
		classifyBlocksAVX512(p, n, stop, high)
		return
	}
	classifyBlocks(p, n, stop, high)
}

// utf8Blocks writes, for each of the n 64-byte blocks at p, the bitmap of
// the bytes that show a UTF-8 error by the lookup method (utf8_lookup.go)
// to bad[i], given the 16 bytes before p at prev. Blocks with no high byte
// (high[i] == 0) after three ASCII bytes are not examined. It jumps to
// utf8BlocksAVX512 if useUTF8AVX512 is set, else to utf8BlocksSSSE3
// (scan_amd64.s): the choice is made in the assembly, so that fillBad, its
// caller, stays as small as a single call.
//
//go:noescape
func utf8Blocks(p *byte, n int, prev *byte, high, bad *uint64)

// utf8BlocksSSSE3 is utf8Blocks with SSSE3, four 16-byte chunks per 64-byte
// block (scan_amd64.s).
//
//go:noescape
func utf8BlocksSSSE3(p *byte, n int, prev *byte, high, bad *uint64)

// utf8BlocksAVX512 is utf8Blocks with AVX-512 BW, one 64-byte block per
// iteration (scan_amd64.s); it writes the same bitmaps as utf8BlocksSSSE3.
//
//go:noescape
func utf8BlocksAVX512(p *byte, n int, prev *byte, high, bad *uint64)

// winWords is the number of 64-byte blocks a classWindow covers (4 KiB).
const winWords = 64

// classWindow holds two bitmaps over a window of the input, one bit per
// byte, computed a window at a time by classifyBlocks as the scan moves
// forward: stop marks '"', '\\' and the bytes below 0x20, high the bytes at
// or above 0x80. With them the end of a string (or its first escape) is a
// trailing-zero count away, with no call per string; and a string's UTF-8
// needs checking only when a high bit lies inside it, in the third bitmap,
// bad (see fillBad and validBody). The final partial
// block is classified from a copy padded with zero bytes, which count as
// stops, so no search runs past the end of the input unnoticed.
type classWindow struct {
	lo    int                  // input offset of the first block (a multiple of 64)
	words int                  // blocks classified: the window covers [lo, lo+64*words)
	n     int                  // bytes of the input in the window: min(64*words, len(src)-lo)
	stop  [winWords + 1]uint64 // stop[winWords] and high[winWords] stay zero (see scanPlainQuick)
	high  [winWords + 1]uint64
	pad   [64]byte
	bad   [winWords]uint64 // bytes that show a UTF-8 error (if useUTF8Lookup and badReady)
	// badReady reports that bad is computed for this window (fillBad).
	badReady bool
	// clean reports that bad is computed and has no bit set: then no
	// string body in the window is ill-formed (see validBody), and the
	// strings with high bytes in it need no check of their own.
	clean bool
}

// zero16 stands for the bytes before the start of the input.
var zero16 [16]byte

// reset empties the window, for a scan that starts again at offset 0.
func (w *classWindow) reset() { w.lo, w.words, w.n = 0, 0, 0 }

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
	if h != 0 && !w.clean {
		return c.scanPlainHigh(pos, j)
	}
	if src[j] == '"' {
		return j + 1, false
	}
	return j, true
}

// scanPlainQuick is scanPlain for the canonical fast path (quick.go). The
// stop and high bits from the string's first byte are read with one
// unaligned load of the bitmap's bytes (at least 57 of them; stop[winWords]
// is always zero, and a bit read from a word past w.words is never used:
// the stop it marks is at or past the window's end, w.n, which sends the
// string to scanPlain), so a string shorter than 57 bytes costs no branch
// on where its end lies. Everything else (a window to fill, a longer string,
// the end of the input) is left to scanPlain, out of line.
//
// (The engine keeps scanPlain: there, a funnel made a pretty-printed
// envelope 5% slower. A funnel of two words shifted and combined, tried
// first, made the fast path slower on the 850-byte canonical envelope
// (+8.6%): its loads and variable shifts sit on the dependency chain of
// every string, where the loop before had one load and a predicted branch.)
func (c *Canonicalizer) scanPlainQuick(pos int) (int, bool) {
	w := &c.win
	off := pos + 1 - w.lo
	if uint(off) >= uint(w.n) {
		return c.scanPlain(pos)
	}
	// The bitmaps' bytes from the one holding bit off: one unaligned load
	// and a shift give at least 57 bits from off (off < w.n <= 64*winWords,
	// so the eight bytes lie within the array, one word past the window).
	b, s := uint(off>>3)&(8*winWords-1), uint(off&7)
	stop := (*[8 * (winWords + 1)]byte)(unsafe.Pointer(&w.stop))
	m := binary.LittleEndian.Uint64(stop[b:]) >> s
	t := bits.TrailingZeros64(m)
	if m == 0 || off+t >= w.n {
		return c.scanPlain(pos)
	}
	if !w.clean {
		high := (*[8 * (winWords + 1)]byte)(unsafe.Pointer(&w.high))
		if (binary.LittleEndian.Uint64(high[b:])>>s)&(m^(m-1)) != 0 {
			return c.scanPlainHigh(pos, pos+1+t)
		}
	}
	j := pos + 1 + t
	if c.src[j] == '"' {
		return j + 1, false
	}
	return j, true
}

// scanPlainHigh ends scanPlain for a string with a high byte before its
// stop byte at j: its UTF-8 is checked first. (Out of line, so that the
// common path of scanPlain stays short; TestInline pins that.)
func (c *Canonicalizer) scanPlainHigh(pos, j int) (int, bool) {
	c.walkSlow = true
	src := c.src
	if !c.win.validBody(src, pos+1, j) {
		return scanPlainGeneric(src, pos)
	}
	if src[j] == '"' {
		return j + 1, false
	}
	return j, true
}

// fill classifies the window of src that starts with the block holding
// offset i (i < len(src)).
func (w *classWindow) fill(src []byte, i int) {
	lo := i &^ 63
	full := min((len(src)-lo)/64, winWords)
	if full > 0 {
		classify(&src[lo], full, &w.stop[0], &w.high[0])
	}
	w.lo, w.words, w.n, w.badReady, w.clean = lo, full, 64*full, false, false
	if tail := src[lo+64*full:]; full < winWords && len(tail) > 0 {
		n := copy(w.pad[:], tail)
		clear(w.pad[n:])
		classify(&w.pad[0], 1, &w.stop[full], &w.high[full])
		w.words++
		w.n += n
	}
}

// fillBad computes the error bitmap of the window, padded block included (a
// sequence cut short at the last full block shows its error there). It runs
// at the first string with a high byte, so ASCII input never pays for it.
func (w *classWindow) fillBad(src []byte) {
	full := w.words
	if w.lo+64*full > len(src) {
		full-- // the last block is the padded copy
	}
	if full > 0 {
		utf8Blocks(&src[w.lo], full, before(src, w.lo), &w.high[0], &w.bad[0])
	}
	if full < w.words {
		t := w.lo + 64*full
		utf8Blocks(&w.pad[0], 1, before(src, t), &w.high[full], &w.bad[full])
	}
	w.badReady = true
	any := uint64(0)
	for _, b := range w.bad[:w.words] {
		any |= b
	}
	w.clean = any == 0
}

// before returns the 16 bytes before offset t of src (t is 0 or at least
// 64), as utf8Blocks takes them.
func before(src []byte, t int) *byte {
	if t < 16 {
		return &zero16[0]
	}
	return &src[t-16]
}

// validBody reports whether the string body src[i:j] (j in the window: the
// byte that ends the body) is well-formed UTF-8. With
// the lookup bitmap it answers from the errors at the body's bytes and the
// byte after it: an ill-formed body always shows one there (utf8_lookup.go),
// while an error caused only by bytes before i is a false alarm, which costs
// the caller a slow scan, never a wrong result.
func (w *classWindow) validBody(src []byte, i, j int) bool {
	s := src[i:j]
	if !useUTF8Lookup {
		return utf8.Valid(s)
	}
	if !w.badReady {
		w.fillBad(src)
	}
	if w.clean {
		return true
	}
	a := i - w.lo
	b := a + len(s)
	ka, kb := a>>6, b>>6
	m := w.bad[ka] >> (a & 63)
	if ka == kb {
		return m&(2<<(b-a)-1) == 0
	}
	if m != 0 {
		return false
	}
	for k := ka + 1; k < kb; k++ {
		if w.bad[k] != 0 {
			return false
		}
	}
	return w.bad[kb]&(2<<(b&63)-1) == 0
}

// stopRun is stopRunGeneric(c.src, i) for a run that starts after an ASCII
// byte (the string's quote or the last byte of an escape), except that ok
// may be false for a well-formed run (a false alarm of validBody, which the
// caller resolves by checking the run rune by rune). Inside the classification window the run
// is read off the stop and high bitmaps, and its UTF-8 off the error
// bitmap; a run that is not in the window, or leaves it, is scanned by
// indexStop.
func (c *Canonicalizer) stopRun(i int) (int, bool) {
	src, w := c.src, &c.win
	off := i - w.lo
	if off >= 0 && off < 64*w.words {
		// The bitmap lookup of scanPlain, written out again: a helper
		// shared by the two would be too large to inline, and a call per
		// run of string content costs more than the copy (bench/cgab.sh on
		// Validate/input=canonical-envelopes-1M measures it).
		k := off >> 6
		m := w.stop[k] >> (off & 63)
		h := w.high[k] >> (off & 63)
		if m == 0 {
			for {
				k++
				if k >= w.words {
					goto leaves
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
		if j >= len(src) { // a stop in the zero padding: the input ends
			return len(src), h == 0 || utf8.Valid(src[i:])
		}
		return j, h == 0 || w.validBody(src, i, j)
	}
leaves:
	if i >= len(src) {
		return i, true
	}
	n, high := indexStop(src[i:])
	j := i + n
	if j < len(src) {
		if b := src[j]; b == '"' || b == '\\' || b < 0x20 {
			return j, !high || utf8.Valid(src[i:j])
		}
	}
	// The run reaches the input's last partial block.
	end, ok := stopRunGeneric(src, j)
	return end, ok && (!high || utf8.Valid(src[i:j]))
}
