package act

// This file is the package's JSON reader. Calls are read from the
// canonical bytes the canon gate returns (no whitespace, members sorted by
// name, unique names, strings escaped only as RFC 8785 §3.2.2.2 requires),
// with obj and arr. The raw readers at the end (rawFind, rawArr) read the
// caller's input as written, for the two places that need offsets in it:
// error offsets, and the strict gate of the arguments of a call whose
// wrapper only the rfc8785 profile accepts.

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// span is a value's bytes [start, end) in a document. The zero span is no
// value: inside an object, no value starts at offset 0.
type span struct{ start, end int }

func (s span) found() bool { return s.start != 0 }

// obj walks the members of a canonical object, reading each byte once: the
// end of a value is found by whoever reads it (who then sets ve), or by
// skipValue when the walk moves on and nobody did.
type obj struct {
	b      []byte
	i      int // the next member's opening quote, or the closing brace
	ns, ne int // the current member's raw name, without its quotes
	vs, ve int // its value; ve < 0 while it has not been read
	end    int // just past the closing brace, once next has returned false
}

// open returns the walk of the canonical object at b[start] == '{'.
func open(b []byte, start int) obj { return obj{b: b, i: start + 1} }

// next advances to the next member and reports whether there is one.
func (o *obj) next() bool {
	i := o.i
	if o.vs != 0 { // past the first member
		i = o.valueEnd()
		if i < len(o.b) && o.b[i] == ',' {
			i++
		}
	}
	if i >= len(o.b) || o.b[i] != '"' {
		o.end = i + 1
		return false
	}
	o.ns = i + 1
	o.ne = skipString(o.b, i) - 1
	o.vs = o.ne + 2 // past '"' and ':'
	o.ve = -1
	return true
}

// name returns the current member's raw name.
func (o *obj) name() []byte { return o.b[o.ns:o.ne] }

// valueEnd returns the end of the current value, finding it if need be.
func (o *obj) valueEnd() int {
	if o.ve < 0 {
		o.ve = skipValue(o.b, o.vs)
	}
	return o.ve
}

// value returns the span of the current value.
func (o *obj) value() span { return span{o.vs, o.valueEnd()} }

// skipString returns the index just past the JSON string starting at
// b[i] == '"', in canonical form or as a valid input writes it: the closing
// quote is the first '"' that is not escaped. It reads eight bytes at a
// time (stringStop) between escapes.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		j = stringStop(b, j)
		if j >= len(b) {
			return len(b)
		}
		if b[j] == '"' {
			return j + 1
		}
		j += 2 // the backslash and the byte it escapes (\u's digits are plain)
	}
}

// stringStop returns the index of the first '"' or '\\' in b at or after j,
// or len(b).
func stringStop(b []byte, j int) int {
	for ; j+8 <= len(b); j += 8 {
		if m := quoteOrBackslash(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
	}
	for ; j < len(b); j++ {
		if b[j] == '"' || b[j] == '\\' {
			return j
		}
	}
	return j
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

// arr walks the elements of a canonical array.
type arr struct {
	b      []byte
	i      int // the next element, or the closing bracket
	vs, ve int // the current element
}

// openArr returns the walk of the canonical array at b[start] == '['.
func openArr(b []byte, start int) arr { return arr{b: b, i: start + 1} }

// next advances to the next element and reports whether there is one.
func (a *arr) next() bool {
	if a.i >= len(a.b) || a.b[a.i] == ']' {
		return false
	}
	a.vs, a.ve = a.i, skipValue(a.b, a.i)
	a.i = a.ve
	if a.i < len(a.b) && a.b[a.i] == ',' {
		a.i++
	}
	return true
}

// value returns the span of the current element.
func (a *arr) value() span { return span{a.vs, a.ve} }

// skipScalar returns the index just past the canonical scalar at b[i].
func skipScalar(b []byte, i int) int {
	if b[i] == '"' {
		return skipString(b, i)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !isWS(b[j]) {
		j++
	}
	return j
}

// skipContainer returns the index just past the object or array at b[i],
// in canonical JSON or in any valid JSON text (whitespace is passed over
// like any other byte outside strings).
func skipContainer(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			j = skipString(b, j) - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return j + 1
			}
		}
	}
	return len(b)
}

// skipValue returns the index just past the JSON value at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	if b[i] == '{' || b[i] == '[' {
		return skipContainer(b, i)
	}
	return skipScalar(b, i)
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipWS(b []byte, i int) int {
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

// kind names the JSON type of the value starting with c, with its article.
func kind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// decodeString appends the decoded text of the JSON string at b[i] == '"'
// to dst, and returns the extended buffer and the index just past the
// closing quote. The string is from input a canon gate accepted: in
// canonical form its only escapes are \" \\ \b \t \n \f \r and \u00XX
// (RFC 8785 §3.2.2.2), but names read as the input wrote them (rawNameIs)
// may also hold \/ and any \uXXXX, a surrogate pair included, which are
// decoded too (an unpaired surrogate, which the gates reject, as U+FFFD).
//
// It copies eight bytes at a time between escapes, into dst's spare
// capacity, which it first grows to hold the rest of b: the decoded text
// is never longer than the string.
func decodeString(dst, b []byte, i int) ([]byte, int) {
	n := len(dst)
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
				break
			}
			j, n = j+8, n+8
		}
		for j < len(b) && b[j] != '"' && b[j] != '\\' {
			buf[n] = b[j]
			j, n = j+1, n+1
		}
		if j >= len(b) {
			return buf[:n], len(b)
		}
		if b[j] == '"' {
			return buf[:n], j + 1
		}
		// An escape.
		if j+1 >= len(b) {
			return buf[:n], len(b)
		}
		c := b[j+1]
		j += 2
		switch c {
		case 'b':
			c = '\b'
		case 't':
			c = '\t'
		case 'n':
			c = '\n'
		case 'f':
			c = '\f'
		case 'r':
			c = '\r'
		case 'u':
			r, ok := hex4(b[j:])
			if !ok {
				break // not from a gate; kept as 'u'
			}
			j += 4
			if utf16.IsSurrogate(r) && j+6 <= len(b) && b[j] == '\\' && b[j+1] == 'u' {
				if r2, ok := hex4(b[j+2:]); ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						j += 6
					}
				}
			}
			n += utf8.EncodeRune(buf[n:], r) // at most 4 bytes for at least 6 read
			continue
		}
		buf[n] = c // '"', '\\' and '/' as they are
		n++
	}
}

// hex4 decodes the four hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
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

// rawFind returns the span in src of the value at the path from the
// top-level value, reading src as it is written (with whitespace and
// escaped names). A step of the path is a member name, or in an array an
// index in decimal. src must be a JSON text without duplicate names, as
// the canon gates guarantee; ok is false when a step of the path is
// missing or not an object or array. The empty path is the top-level
// value.
func rawFind(src []byte, path []string) (s span, ok bool) {
	vs := skipWS(src, 0)
	return rawFindAt(src, span{vs, skipValue(src, vs)}, path)
}

// rawFindAt is rawFind from the value at s in src.
func rawFindAt(src []byte, s span, path []string) (span, bool) {
	for _, name := range path {
		if s.start >= len(src) {
			return span{}, false
		}
		switch src[s.start] {
		case '{':
			vs, ve, ok := rawMember(src, s.start, name)
			if !ok {
				return span{}, false
			}
			s = span{vs, ve}
		case '[':
			k, err := strconv.Atoi(name)
			if err != nil || k < 0 {
				return span{}, false
			}
			a := openRawArr(src, s.start)
			for a.next() && k > 0 {
				k--
			}
			if k > 0 || !a.found {
				return span{}, false
			}
			s = a.cur
		default:
			return span{}, false
		}
	}
	return s, true
}

// rawArr walks the elements of an array in src as it is written.
type rawArr struct {
	src   []byte
	i     int  // the next element, or the closing bracket
	cur   span // the current element
	found bool // whether next found one
}

// openRawArr returns the walk of the array at src[start] == '['.
func openRawArr(src []byte, start int) rawArr {
	return rawArr{src: src, i: skipWS(src, start+1)}
}

// next advances to the next element and reports whether there is one.
func (a *rawArr) next() bool {
	i := a.i
	if i >= len(a.src) || a.src[i] == ']' {
		a.found = false
		return false
	}
	a.cur = span{i, skipValue(a.src, i)}
	i = skipWS(a.src, a.cur.end)
	if i < len(a.src) && a.src[i] == ',' {
		i = skipWS(a.src, i+1)
	}
	a.i, a.found = i, true
	return true
}

// rawMember finds the member called name in the object at src[i] == '{'
// and returns its value's span.
func rawMember(src []byte, i int, name string) (vs, ve int, ok bool) {
	i = skipWS(src, i+1)
	for i < len(src) && src[i] == '"' {
		ne := skipString(src, i)
		match := rawNameIs(src[i:ne], name)
		i = skipWS(src, ne)
		if i >= len(src) || src[i] != ':' {
			return 0, 0, false
		}
		vs = skipWS(src, i+1)
		ve = skipValue(src, vs)
		if match {
			return vs, ve, true
		}
		i = skipWS(src, ve)
		if i < len(src) && src[i] == ',' {
			i = skipWS(src, i+1)
		}
	}
	return 0, 0, false
}

// rawNameIs reports whether the JSON string q (quotes included), from input
// a canon gate accepted, decodes to name.
func rawNameIs(q []byte, name string) bool {
	if len(q) < 2 {
		return false
	}
	body := q[1 : len(q)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body) == name
	}
	var buf [64]byte
	text, _ := decodeString(buf[:0], q, 0)
	return string(text) == name
}
