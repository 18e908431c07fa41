package canon

// NOTE: how strings are scanned.
//
// Most of a JSON document's bytes are inside strings, and most strings are
// plain: no escape, no control byte, well-formed UTF-8. Three scanners find
// where a plain string ends, all with the same contract as
// scanPlainGeneric, and the tests hold each to that one:
//
//   - scanPlainGeneric (this file) reads eight bytes at a time as a word
//     (SWAR): the purego build and architectures without assembly use it.
//   - On amd64, Canonicalizer.scanPlain looks the string's end up in two
//     bitmaps, stop bytes ('"', '\\', controls) and high bytes (>= 0x80),
//     which SSE2 code computes for a 4 KiB window at a time
//     (classifyBlocks) as the scan moves forward. A string then costs a
//     shift and a trailing-zero count. Its UTF-8 needs checking only when
//     a high bit lies inside it, and then a third bitmap answers: the
//     bytes that show a UTF-8 error, computed for windows that hold a
//     high byte by the lookup method of utf8_lookup.go (utf8BlocksAVX512
//     with AVX-512 BW, else utf8BlocksSSSE3 with SSSE3); without SSSE3,
//     utf8.Valid checks the string.
//   - A string that leaves the window goes to scanPlainString, which calls
//     the SSE2 indexStop directly on the rest of the input.

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// scanPlainGeneric scans the string at src[pos] == '"' as far as it is
// plain: printable ASCII and well-formed multi-byte UTF-8, no escapes. It
// returns the offset after the closing quote and false, or the offset where
// it stopped and true when the string needs the full scanner (an escape, a
// control byte, ill-formed UTF-8, or the end of input).
func scanPlainGeneric(src []byte, pos int) (int, bool) {
	return scanPlainFrom(src, pos+1)
}

// scanPlainFrom is scanPlainGeneric from offset i, where the string's bytes
// before i are known to be plain.
func scanPlainFrom(src []byte, i int) (int, bool) {
	for {
		// skipPlain, written out: this is the hottest loop.
		for i+16 <= len(src) {
			m := specialBytes(binary.LittleEndian.Uint64(src[i:]))
			m2 := specialBytes(binary.LittleEndian.Uint64(src[i+8:]))
			if m|m2 != 0 {
				i += firstSpecial(m, m2)
				goto special
			}
			i += 16
		}
		i = skipPlain(src, i)
	special:
		if i >= len(src) {
			return i, true
		}
		b := src[i]
		if b == '"' {
			return i + 1, false
		}
		if b < utf8.RuneSelf {
			return i, true
		}
		size := utf8Size(src, i)
		if size == 0 {
			return i, true
		}
		i += size
	}
}

// skipPlain returns the offset of the first byte at or after i that needs a
// closer look inside a string: '"', '\\', a control byte, or a non-ASCII
// byte. It tests eight bytes at a time (SWAR).
func skipPlain(s []byte, i int) int {
	for i+16 <= len(s) {
		m := specialBytes(binary.LittleEndian.Uint64(s[i:]))
		m2 := specialBytes(binary.LittleEndian.Uint64(s[i+8:]))
		if m|m2 != 0 {
			return i + firstSpecial(m, m2)
		}
		i += 16
	}
	if i+8 <= len(s) {
		if m := specialBytes(binary.LittleEndian.Uint64(s[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for i < len(s) && plainByte[s[i]] {
		i++
	}
	return i
}

// SWAR byte-lane constants.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specialBytes sets bit 7 of the lowest byte of x (little-endian) that is
// '"', '\\', below 0x20 or at least 0x80, and possibly of higher bytes too;
// it is zero when there is none: the stop bytes (stopLanes), and the high
// bytes.
func specialBytes(x uint64) uint64 { return (stopLanes(x) | x) & highs }

// stopLanes sets, once masked with highs, bit 7 of the lowest byte of x
// (little-endian) that is '"', '\\' or below 0x20, and possibly of higher
// bytes too; masked, it is zero when there is none. For a byte value v,
// (v - 1) &^ v has bit 7 set exactly when v is zero, for the lowest zero
// byte (a borrow can flag higher bytes falsely, but only the lowest flagged
// byte is used). The three tests share the &^ x: '"', '\\' and 0x20 have
// bit 7 clear, so x ^ '"' and x ^ '\\' have the same bit 7 as x. (The mask
// is the caller's, so that specialBytes applies it once.)
func stopLanes(x uint64) uint64 {
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return ((x - ones*0x20) | (q - ones) | (b - ones)) &^ x
}

// firstSpecial returns the index of the first flagged byte in the 16 bytes
// whose specialBytes masks are m (bytes 0-7) and m2 (bytes 8-15), at least
// one of them nonzero. It has no branch: which half holds the byte is as
// unpredictable as string lengths, and a mispredicted branch per string
// costs more than the arithmetic.
func firstSpecial(m, m2 uint64) int {
	t := uint(bits.TrailingZeros64(m)) / 8   // 8 when m == 0
	t2 := uint(bits.TrailingZeros64(m2)) / 8 // < 8 when m == 0
	return int(t + t2&-(t>>3))
}

// plainByte reports the bytes that skipPlain passes over.
var plainByte = func() (t [256]bool) {
	for i := 0x20; i < 0x80; i++ {
		t[i] = i != '"' && i != '\\'
	}
	return t
}()

// stopRunGeneric returns the offset j of the first byte at or after i that
// ends a run of string content: '"', '\\' or a control byte (len(src) if
// there is none), and whether src[i:j] is well-formed UTF-8. It is the run
// scanner of strings with escapes (Canonicalizer.stopRun), where a stop at
// every non-ASCII byte would cost a call per character of non-Latin text.
// Eight bytes are tested at a time (stopLanes); only the lowest flagged
// byte of a word is exact, and only it is used.
func stopRunGeneric(src []byte, i int) (int, bool) {
	start, high := i, uint64(0)
	for i+8 <= len(src) {
		x := binary.LittleEndian.Uint64(src[i:])
		if m := stopLanes(x) & highs; m != 0 {
			t := uint(bits.TrailingZeros64(m)) // bit 7 of the stop byte
			high |= x & highs & (1<<t - 1)
			i += int(t / 8)
			return i, high == 0 || utf8.Valid(src[start:i])
		}
		high |= x & highs
		i += 8
	}
	for ; i < len(src); i++ {
		if b := src[i]; b == '"' || b == '\\' || b < 0x20 {
			break
		} else if b >= utf8.RuneSelf {
			high = 1
		}
	}
	return i, high == 0 || utf8.Valid(src[start:i])
}
