//go:build !purego

package canon

import "math/bits"

// skipQuoteEscapes returns how far the content of a string that is kept
// verbatim (not rewritten, not a name) can be passed over from i, just
// after an escape: plain runs and \" and \\ escapes (canonical, and the
// bulk of JSON text held in a string, such as an OpenAI arguments string),
// read off the classification window's word that holds i. Each stop byte
// of the word is looked at in turn: a backslash followed by '"' or '\\' is
// one such escape, and both of its bits are cleared; the first other stop
// byte (the closing quote, another escape, a control byte) ends the walk,
// and its offset is returned, for scanEscaped to handle it as it would
// after stopRun. A run with a high byte, unless the window is clean (no
// UTF-8 error in it), ends the walk before that run, which then goes
// through stopRun and its UTF-8 check; so does the end of the word and
// anything within two bytes of the end of the input. The walk only skips
// what scanEscaped would have accepted unchanged, one stopRun and one
// escape at a time: it saves a call per escape, and its chain from one
// escape to the next is a trailing-zero count and a mask, not a load.
// TestSkipQuoteEscapes and FuzzCanonicalize hold it to that.
func (c *Canonicalizer) skipQuoteEscapes(i int) int {
	src, w := c.src, &c.win
	off := i - w.lo
	if off < 0 || off >= 64*w.words {
		return i
	}
	k := off >> 6
	base := w.lo + 64*k
	sh := uint(off & 63)
	m := w.stop[k] >> sh << sh // the stop bytes at or after i in word k
	h := w.high[k] >> sh << sh
	if w.clean {
		h = 0
	}
	for m != 0 {
		t := uint(bits.TrailingZeros64(m))
		p := base + int(t)
		if p+1 >= len(src) || h&(1<<t-1) != 0 {
			// Near the end of the input (or in the padded block), or a
			// high byte in the run before p: the stopRun of scanEscaped
			// decides from i.
			return i
		}
		if t == 63 || src[p] != '\\' {
			return p // the run up to p is plain; scanEscaped handles src[p]
		}
		if e := src[p+1]; e != '"' && e != '\\' {
			return p
		}
		m &^= 3 << t // the backslash and the escaped byte, a stop byte too
		i = p + 2
	}
	return i
}
