package escbits

import "unsafe"

// The bitmaps that the vector paths over strings full of escapes start
// each 64-byte step from: canon's escape runs (escapeRun) read q, bs and
// other; jsonread's unquoteSimple reads q, bs and sl. One kernel gives all
// four (Masks): one masked load, four compares.

// masksGeneric is Masks one byte at a time: the reference of the tests,
// and Masks itself where there is no kernel.
func masksGeneric(p *byte, l int) (q, bs, sl, other uint64) {
	for k, c := range unsafe.Slice(p, l) {
		switch {
		case c == '"':
			q |= 1 << k
		case c == '\\':
			bs |= 1 << k
		case c == '/':
			sl |= 1 << k
		case c < 0x20 || c >= 0x80:
			other |= 1 << k
		}
	}
	return q, bs, sl, other
}
