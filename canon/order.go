package canon

// CompareUTF16 compares two well-formed UTF-8 strings by their UTF-16 code
// units, the member order of RFC 8785 §3.2.3, and returns -1, 0 or +1.
//
// UTF-8 byte order equals code point order, which differs from UTF-16 code
// unit order in one place only: supplementary code points (U+10000 and up,
// UTF-16 surrogates D800–DFFF, UTF-8 lead bytes F0–F4) sort before
// U+E000–U+FFFF (UTF-8 lead bytes EE and EF). Two strings that share a
// prefix are aligned on code points at their first differing byte, and
// within one lead byte every code point falls on the same side of that
// boundary, so remapping lead bytes EE and EF above F4 at the first
// difference gives the UTF-16 order.
func CompareUTF16(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		switch {
		case len(a) < len(b):
			return -1
		case len(a) > len(b):
			return +1
		}
		return 0
	}
	x, y := utf16Key(a[i]), utf16Key(b[i])
	if x < y {
		return -1
	}
	return +1
}

// utf16Key maps a UTF-8 byte so that byte order matches UTF-16 order at the
// first difference between two strings (see CompareUTF16).
func utf16Key(c byte) uint {
	if c == 0xEE || c == 0xEF {
		return uint(c) + 0x10
	}
	return uint(c)
}
