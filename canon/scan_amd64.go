//go:build amd64 && !purego

package canon

import "unicode/utf8"

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
