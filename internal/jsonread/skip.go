package jsonread

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// IsSpace reports whether c is JSON whitespace (RFC 8259, section 2).
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte of b at or after i that is
// not JSON whitespace, or len(b).
func SkipSpace(b []byte, i int) int {
	for uint(i) < uint(len(b)) && IsSpace(b[i]) {
		i++
	}
	return i
}

// SkipString returns the index just past the JSON string that starts at
// b[i] == '"': past its first quote that no backslash escapes. It returns
// -1 when b[i] is not a quote (or i is not in b) and when b ends inside
// the string.
//
// A short string (most member names) ends within two words, found eight
// bytes at a time; a longer one, or one with an escape, ends at the first
// quote bytes.IndexByte finds after an even number of backslashes.
func SkipString(b []byte, i int) int {
	if uint(i) >= uint(len(b)) || b[i] != '"' {
		return -1
	}
	return skipString(b, i)
}

// skipString is SkipString of the string at b[i] == '"', which the caller
// has checked.
func skipString(b []byte, i int) int {
	j := i + 1
	for w := 0; w < 2 && j+8 <= len(b); w++ {
		if m := quoteOrBackslash(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			if k := j + bits.TrailingZeros64(m)>>3; b[k] == '"' {
				return k + 1 // no backslash before it in the string
			}
			break
		}
		j += 8
	}
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0 // the backslashes right before the quote, within the string
		for m := j - 1; m > i && b[m] == '\\'; m-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// skipFrom is skipString of the string at b[i] from b[j], a byte of it
// that no escape leaves in the middle of (no backslash before it escapes
// it): it reads from quote or backslash to the next with
// indexQuoteOrBackslash, each backslash passing over the byte it escapes,
// and the first quote not escaped ends the string. (A quote ends the
// string exactly when an even number of backslashes comes right before
// it, skipString's rule: a backslash that follows any other byte is never
// itself escaped.)
func skipFrom(b []byte, j int) int {
	for j < len(b) {
		k := indexQuoteOrBackslash(b[j:])
		if k < 0 {
			return -1
		}
		if j += k; b[j] == '"' {
			return j + 1
		}
		j += 2 // the backslash and the byte it escapes
	}
	return -1
}

// StringEnd is SkipString that also reports whether the string's body is
// plain: without a backslash, so that the body is the string's text. It
// returns -1 and false where SkipString returns -1. It reads the first
// 16 bytes a word at a time (short strings end there), and the rest of a
// longer string up to its first quote or backslash with one call of
// indexQuoteOrBackslash (on amd64, 16 or 32 bytes per step); a string
// with an escape is finished by skipFrom.
func StringEnd(b []byte, i int) (end int, plain bool) {
	if uint(i) >= uint(len(b)) || b[i] != '"' {
		return -1, false
	}
	j := i + 1
	for w := 0; w < 2 && j+8 <= len(b); w++ {
		if m := quoteOrBackslash(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			k := j + bits.TrailingZeros64(m)>>3
			if b[k] == '"' {
				return k + 1, true
			}
			return skipFrom(b, k), false
		}
		j += 8
	}
	k := indexQuoteOrBackslash(b[j:])
	if k < 0 {
		return -1, false
	}
	if j += k; b[j] == '"' {
		return j + 1, true
	}
	return skipFrom(b, j), false
}

// quoteOrBackslash returns a word whose lowest set bit is the high bit of
// the first byte of x (in memory order) that is '"' or '\\', or 0 when
// there is none. (The classic has-zero-byte test: a byte above a match may
// be flagged too, never one below it.)
func quoteOrBackslash(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ ('"' * ones)
	s := x ^ ('\\' * ones)
	return ((q-ones)&^q | (s-ones)&^s) & highs
}

// SkipValue returns the index just past the JSON value that starts at
// b[i], in canonical JSON or in JSON text as written:
//
//   - a string ends past its closing quote (SkipString);
//   - an object or array past the bracket that closes it, found by
//     counting brackets outside strings (so whitespace inside is passed
//     over like any other byte);
//   - any other value (a number, true, false, null) at the first byte
//     that may follow a value: ',', '}', ']' or whitespace, or at len(b).
//     A "value" that starts with such a byte ends where it starts: the
//     result is i.
//
// It returns -1 when i is not in b, and when b ends inside a string or
// before a container closes. It reads the brackets and quotes only: what
// lies between them is for canon to have checked.
func SkipValue(b []byte, i int) int {
	if uint(i) >= uint(len(b)) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = skipString(b, j); j < 0 {
					return -1
				}
				j-- // the loop's j++ moves past the closing quote
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !IsSpace(b[j]) {
		j++
	}
	return j
}

// Kind names the JSON type of the value that starts with the byte c:
// "object", "array", "string", "boolean", "null" or "number" (anything
// else).
func Kind(c byte) string { return kinds[kindOf(c)] }

// KindWithArticle is Kind with its indefinite article, for messages: "an
// object", "an array", "a string", "a boolean", "null" or "a number".
func KindWithArticle(c byte) string { return kindsWithArticle[kindOf(c)] }

var (
	kinds            = [...]string{"object", "array", "string", "boolean", "null", "number"}
	kindsWithArticle = [...]string{"an object", "an array", "a string", "a boolean", "null", "a number"}
)

// kindOf returns the index in kinds of the type of the value that starts
// with c.
func kindOf(c byte) int {
	switch c {
	case '{':
		return 0
	case '[':
		return 1
	case '"':
		return 2
	case 't', 'f':
		return 3
	case 'n':
		return 4
	}
	return 5
}
