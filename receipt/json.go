package receipt

// This file is the package's one JSON reader, and its one writer.
//
// The reader reads canonical JSON only: a receipt line once it is known to
// be its own JCS form, or the output of the strict canon gate for an EP
// document. So it needs no whitespace handling, no duplicate checks and
// no number parsing beyond plain decimal integers: canon has settled all
// of that. Members come sorted by name, strings are escaped only as RFC
// 8785 §3.2.2.2 requires. Given bytes that are not canonical it returns
// false rather than a wrong reading, and never panics (FuzzVerifyLine).
//
// The writer writes the strings of a payload as JCS does (jcs.AppendString),
// and the tests hold its output to canon's.

import (
	"unicode/utf16"
	"unicode/utf8"
)

// members walks the members of the canonical object that starts at b[0].
// next returns each member's raw name (still quoted) and its value; once
// it returns false, ok reports whether the object was well formed and
// ended exactly at the end of b.
type members struct {
	b    []byte
	i    int
	bad  bool
	done bool
}

func newMembers(b []byte) members {
	m := members{b: b, i: 1}
	if len(b) < 2 || b[0] != '{' {
		m.bad = true
	}
	return m
}

func (m *members) next() (name, value []byte, more bool) {
	if m.bad || m.done {
		return nil, nil, false
	}
	b, i := m.b, m.i
	if i < len(b) && b[i] == '}' && i == 1 {
		m.done = true
		m.bad = i+1 != len(b)
		return nil, nil, false
	}
	ne := skipString(b, i)
	if ne < 0 || ne >= len(b) || b[ne] != ':' {
		m.bad = true
		return nil, nil, false
	}
	ve := skipValue(b, ne+1)
	if ve < 0 || ve >= len(b) {
		m.bad = true
		return nil, nil, false
	}
	switch b[ve] {
	case ',':
		m.i = ve + 1
	case '}':
		m.done = true
		m.bad = ve+1 != len(b)
		m.i = ve + 1
	default:
		m.bad = true
		return nil, nil, false
	}
	return b[i+1 : ne-1], b[ne+1 : ve], true
}

// ok reports whether the walk ended at the object's end, well formed.
func (m *members) ok() bool { return m.done && !m.bad }

// elements walks the elements of the canonical array b, as members does.
type elements struct {
	b    []byte
	i    int
	bad  bool
	done bool
}

func newElements(b []byte) elements {
	e := elements{b: b, i: 1}
	if len(b) < 2 || b[0] != '[' {
		e.bad = true
	}
	return e
}

func (e *elements) next() ([]byte, bool) {
	if e.bad || e.done {
		return nil, false
	}
	b, i := e.b, e.i
	if i == 1 && b[i] == ']' {
		e.done = true
		e.bad = len(b) != 2
		return nil, false
	}
	ve := skipValue(b, i)
	if ve < 0 || ve >= len(b) {
		e.bad = true
		return nil, false
	}
	switch b[ve] {
	case ',':
		e.i = ve + 1
	case ']':
		e.done = true
		e.bad = ve+1 != len(b)
	default:
		e.bad = true
		return nil, false
	}
	return b[i:ve], true
}

func (e *elements) ok() bool { return e.done && !e.bad }

// skipString returns the index just past the string that starts at b[i],
// or -1.
func skipString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i++
		}
	}
	return -1
}

// skipValue returns the index just past the value that starts at b[i], or
// -1. Containers are skipped by counting brackets outside strings, which
// the canon gate has already matched.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				j := skipString(b, i)
				if j < 0 {
					return -1
				}
				i = j - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']':
			return i
		}
	}
	return i
}

// unquote returns the text of the canonical string literal v (quotes
// included), or false.
func unquote(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	raw := v[1 : len(v)-1]
	i := 0
	for i < len(raw) && raw[i] != '\\' && raw[i] != '"' && raw[i] >= 0x20 {
		i++
	}
	if i == len(raw) {
		if !utf8.Valid(raw) {
			return "", false
		}
		return string(raw), true
	}
	out := make([]byte, 0, len(raw))
	out = append(out, raw[:i]...)
	for ; i < len(raw); i++ {
		c := raw[i]
		if c == '"' || c < 0x20 {
			return "", false
		}
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 >= len(raw) {
			return "", false
		}
		i++
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(raw, i+1)
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := hex4(raw, i+3)
				if !ok || i+2 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
					return "", false
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return "", false
				}
				i += 6
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	if !utf8.Valid(out) {
		return "", false
	}
	return string(out), true
}

// hex4 reads the four hex digits at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[i : i+4] {
		d, ok := hexDigit(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// isString reports whether v is the string literal s, which needs no
// escaping.
func isString(v []byte, s string) bool {
	return len(v) == len(s)+2 && v[0] == '"' && string(v[1:len(v)-1]) == s && v[len(v)-1] == '"'
}

// parseInt reads the canonical integer v: "0", or an optional "-" and
// digits without a leading zero, at most 16 of them (the strict profile
// bounds integers to 2^53-1).
func parseInt(v []byte) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 16 || (v[0] == '0' && (len(v) > 1 || neg)) {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if n > maxSafe {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// maxSafe is 2^53-1, the largest integer of the strict profile.
const maxSafe = 1<<53 - 1

// parseHex32 reads exactly 64 lowercase hex digits.
func parseHex32(v []byte) ([32]byte, bool) {
	var out [32]byte
	if len(v) != 64 {
		return out, false
	}
	for i := range out {
		hi, ok1 := lowerHex(v[2*i])
		lo, ok2 := lowerHex(v[2*i+1])
		if !ok1 || !ok2 {
			return out, false
		}
		out[i] = hi<<4 | lo
	}
	return out, true
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}
