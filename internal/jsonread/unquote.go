package jsonread

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// AppendUnquote appends the text of the JSON string that starts at
// b[i] == '"' to dst, and returns the extended buffer and the index just
// past the string's closing quote. It decodes every escape of RFC 8259
// (section 7) as encoding/json does: \" \\ \/ \b \f \n \r \t, and \uXXXX in
// either case of hex, a surrogate pair as the one rune it encodes and a
// surrogate that is not half of a pair (which canon rejects) as U+FFFD.
// Every other byte is copied as it stands: canon has checked that it is
// valid UTF-8 and no control character.
//
// It returns dst unchanged and -1 when b[i] is not a quote, when b ends
// inside the string, and when an escape is none of those.
//
// It first grows dst to hold len(b)-i more bytes (the text is never
// longer than its JSON string), and then copies eight bytes at a time
// between escapes: to decode a short string in a long document, give b
// cut after the string, or a dst with room, and nothing is allocated.
// From its first \" or \\ on, a run of \" \\ and \/ escapes (JSON text
// held in a string) is decoded 64 bytes per step on an amd64 CPU with
// AVX-512 VBMI2 (unquoteSimple).
func AppendUnquote(dst, b []byte, i int) ([]byte, int) {
	if uint(i) >= uint(len(b)) || b[i] != '"' {
		return dst, -1
	}
	n0, n := len(dst), len(dst)
	buf := slices.Grow(dst, len(b)-i+8)
	buf = buf[:cap(buf)]
	j := i + 1
	for {
		// A run of plain bytes, eight at a time: the word is stored whole,
		// and the bytes past a stop are overwritten next.
		for j+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[j:])
			binary.LittleEndian.PutUint64(buf[n:], x)
			if m := quoteOrBackslash(x); m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				j, n = j+k, n+k
				// \" and \\ (JSON text held in a string is full of
				// them) are decoded here, and the run goes on.
				if b[j] == '\\' && j+1 < len(b) && (b[j+1] == '"' || b[j+1] == '\\') {
					if useUnquoteAVX512 {
						var done bool
						if j, n, done = unquoteSimple(buf, n, b, j); done {
							return buf[:n], j
						}
						continue
					}
					buf[n] = b[j+1]
					j, n = j+2, n+1
					continue
				}
				break
			}
			j, n = j+8, n+8
		}
		for j < len(b) && b[j] != '"' && b[j] != '\\' {
			buf[n] = b[j]
			j, n = j+1, n+1
		}
		switch {
		case j >= len(b) || j+1 >= len(b) && b[j] == '\\':
			return dst[:n0], -1
		case b[j] == '"':
			return buf[:n], j + 1
		}
		// An escape: at most 4 bytes of text for at least 2 read.
		c := b[j+1]
		j += 2
		switch c {
		case '"', '\\', '/':
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		case 'u':
			r, ok := hex4(b, j)
			if !ok {
				return dst[:n0], -1
			}
			j += 4
			if utf16.IsSurrogate(r) { // a pair, or U+FFFD as encoding/json decodes a lone half
				if r2, ok := hex4(b, j+2); ok && b[j] == '\\' && b[j+1] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						j += 6
					}
				}
			}
			n += utf8.EncodeRune(buf[n:], r) // a lone surrogate as U+FFFD
			continue
		default:
			return dst[:n0], -1
		}
		buf[n] = c
		n++
	}
}

// hex4 decodes the four hex digits at b[i:], in either case.
func hex4(b []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Unquote returns the text of the JSON string literal q, quotes included
// and nothing after them, as AppendUnquote decodes it; false if q is not
// one string literal. A string without escapes costs one scan and the
// returned string; one with escapes up to 512 bytes long is decoded on the
// stack, so that the returned string is all it allocates.
func Unquote(q []byte) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	body := q[1 : len(q)-1]
	if k := bytes.IndexByte(body, '\\'); k < 0 {
		if bytes.IndexByte(body, '"') >= 0 {
			return "", false
		}
		return string(body), true
	}
	var stack [512]byte
	text, end := AppendUnquote(stack[:0], q, 0)
	if end != len(q) {
		return "", false
	}
	return string(text), true
}
