package envelope

// This file is the package's one JSON reader. Envelopes (decode.go),
// their placement in a wrapper (parse.go) and resolutions (resolution.go)
// are all read from the canonical bytes the canon gate returns, with iter:
// no whitespace, members sorted by name, unique names, strings escaped only
// as RFC 8785 §3.2.2.2 requires, numbers as plain decimal integers. The raw
// readers at the end (rawFind) read the caller's input as written, for the
// one place that needs offsets in it: the strict gate of a binding_moment
// value inside a wrapper that only the rfc8785 profile accepts.

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// iter walks the members of a canonical object or the elements of a
// canonical array, reading each byte once: the end of a container value is
// found by whoever decodes it (who then sets ve), or by skipValue when the
// walk moves on and nobody did. For members, [ns, ne) is the raw (still
// escaped) name; the value starts at vs and ends at ve, which is -1 while
// the value is a container not yet read.
type iter struct {
	b              []byte
	i              int // the next member or element, or the closing bracket
	ns, ne, vs, ve int
	n              int // index of the current element, from 0
	started        bool
	end            int // just past the closing bracket, once next or elem returns false
}

// advance moves past the current value and the comma after it.
func (it *iter) advance() {
	if !it.started {
		it.started = true
		return
	}
	it.n++
	it.i = it.valueEnd()
	if it.i < len(it.b) && it.b[it.i] == ',' {
		it.i++
	}
}

// valueEnd returns the end of the current value, finding it if need be.
func (it *iter) valueEnd() int {
	if it.ve < 0 {
		it.ve = skipValue(it.b, it.vs)
	}
	return it.ve
}

// scalar returns the current value when it is a scalar, and its first byte
// (enough to name its kind) when it is a container.
func (it *iter) scalar() []byte {
	if it.ve < 0 {
		return it.b[it.vs : it.vs+1]
	}
	return it.b[it.vs:it.ve]
}

// at reads the value starting at vs: scalars are delimited at once,
// containers are left to the caller (ve = -1).
func (it *iter) at(vs int) bool {
	if vs >= len(it.b) {
		return false
	}
	it.vs = vs
	switch it.b[vs] {
	case '{', '[':
		it.ve = -1
	default:
		it.ve = skipValue(it.b, vs)
	}
	return true
}

// next advances to the next member of an object and reports whether there
// is one.
func (it *iter) next() bool {
	it.advance()
	if it.i >= len(it.b) || it.b[it.i] == '}' {
		it.end = it.i + 1
		return false
	}
	it.ns = it.i + 1
	it.ne = skipString(it.b, it.i) - 1
	return it.at(it.ne + 2) // past '"' and ':'
}

// elem advances to the next element of an array.
func (it *iter) elem() bool {
	it.advance()
	if it.i >= len(it.b) || it.b[it.i] == ']' {
		it.end = it.i + 1
		return false
	}
	return it.at(it.i)
}

// setEnd records the end of the current container value, as found by the
// caller that decoded it; -1 (not decoded) leaves it to skipValue.
func (it *iter) setEnd(end int) {
	if end >= 0 {
		it.ve = end
	}
}

// span is where a member lies in a canonical object: member is the offset
// of its name's opening quote, and [start, end) is its value. The zero span
// is no member: inside an object, no value starts at offset 0.
type span struct{ member, start, end int }

// found reports whether s is a member that was found.
func (s span) found() bool { return s.start != 0 }

// span returns the span of the current member.
func (it *iter) span() span { return span{member: it.ns - 1, start: it.vs, end: it.valueEnd()} }

// lookup returns the span of the member called name in the canonical value
// b: the zero span when b is not an object or has no such member.
func lookup(b []byte, name string) span {
	if len(b) == 0 || b[0] != '{' {
		return span{}
	}
	for it := (iter{b: b, i: 1}); it.next(); {
		if string(b[it.ns:it.ne]) == name {
			return it.span()
		}
	}
	return span{}
}

// skipString returns the index just past the canonical string starting at
// b[i] == '"'. Canonical strings escape a quote only as \", so the closing
// quote is the first one preceded by an even number of backslashes;
// bytes.IndexByte finds the candidates.
func skipString(b []byte, i int) int {
	j := i + 1
	for j < len(b) {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			break
		}
		j += k
		n := 0
		for m := j - 1; m > i && b[m] == '\\'; m-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
	return len(b)
}

// skipValue returns the index just past the JSON value starting at i: a
// canonical value, or one in valid JSON text that may hold whitespace (a
// scalar also ends at whitespace; strings and containers are read the same
// way in both).
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
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
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !isWS(b[j]) {
		j++
	}
	return j
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipWS(b []byte, i int) int {
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

// kind names the JSON type of the value starting with c.
func kind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// unescape decodes the body of a JSON string. In canonical JSON the only
// escapes are \" \\ \b \t \n \f \r and \u00XX (RFC 8785 §3.2.2.2); names
// read as the input wrote them (rawNameIs) may also hold \/ and any \uXXXX,
// a surrogate pair included. raw is the body of a string the canon gate
// accepted: valid, with no unpaired surrogate.
func unescape(raw []byte) string {
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			b.WriteByte(c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'u':
			if r, ok := hex4(raw, i+1); ok {
				i += 4
				if utf16.IsSurrogate(r) { // a pair, as encoding/json decodes one
					if r2, ok := hex4(raw, i+3); ok && raw[i+1] == '\\' && raw[i+2] == 'u' {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							r = d
							i += 6
						}
					}
				}
				b.WriteRune(r) // an unpaired surrogate as U+FFFD
				continue
			}
			b.WriteByte('u')
		default: // '"', '\\' and '/'
			b.WriteByte(raw[i])
		}
	}
	return b.String()
}

// hex4 decodes the four hex digits at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(raw) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(raw[i:i+4]), 16, 16)
	return rune(n), err == nil
}

// rawFind returns the span [vs, ve) in src of the value at the path of
// member names from the top-level object, reading src as it is (with
// whitespace and escaped names). src must be valid JSON without duplicate
// names, as the canon gate guarantees; ok is false when a step of the path
// is missing or not an object.
func rawFind(src []byte, names []string) (vs, ve int, ok bool) {
	vs = skipWS(src, 0)
	ve = len(src)
	for _, name := range names {
		if vs >= len(src) || src[vs] != '{' {
			return 0, 0, false
		}
		if vs, ve, ok = rawMember(src, vs, name); !ok {
			return 0, 0, false
		}
	}
	return vs, ve, true
}

// rawMember finds the member called name in the object starting at
// src[i] == '{' and returns its value span.
func rawMember(src []byte, i int, name string) (vs, ve int, ok bool) {
	i = skipWS(src, i+1)
	for i < len(src) && src[i] == '"' {
		ne := skipValue(src, i) // past the name's closing quote
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
// the canon gate accepted, decodes to name.
func rawNameIs(q []byte, name string) bool {
	if bytes.IndexByte(q, '\\') < 0 {
		return len(q) == len(name)+2 && string(q[1:len(q)-1]) == name
	}
	return len(q) >= 2 && unescape(q[1:len(q)-1]) == name
}
