package canon

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// lookupError is the lookup method of utf8_lookup.go for one byte: whether
// it shows an error, given the three bytes before it.
func lookupError(p3, p2, p1, cur byte) bool {
	t := &utf8Lookup
	special := t[0][p1>>4] & t[1][p1&15] & t[2][cur>>4]
	var must23 byte
	if p2 >= 0xE0 || p3 >= 0xF0 {
		must23 = 0x80
	}
	return special^must23 != 0
}

// utf8LookupModel is the error bitmap of the 64 bytes of p (bit k for
// p[k]), given the 16 bytes before them in prev: what the assembly must
// compute.
func utf8LookupModel(p, prev []byte) uint64 {
	at := func(k int) byte { // byte k of p, reaching back into prev
		if k < 0 {
			return prev[16+k]
		}
		return p[k]
	}
	var bad uint64
	for k := range 64 {
		if lookupError(at(k-3), at(k-2), at(k-1), at(k)) {
			bad |= 1 << k
		}
	}
	return bad
}

// modelValid runs the model over s between ASCII bytes: s is valid iff
// none of its bytes, nor the ASCII byte after it, shows an error.
func modelValid(s []byte) bool {
	at := func(k int) byte {
		if k < 0 || k >= len(s) {
			return 'a'
		}
		return s[k]
	}
	for k := 0; k <= len(s); k++ {
		if lookupError(at(k-3), at(k-2), at(k-1), at(k)) {
			return false
		}
	}
	return true
}

// TestUTF8LookupModel checks the tables against unicode/utf8 on every
// sequence of one to three bytes, on four-byte sequences built from the
// boundary values of every byte range, and on random strings.
func TestUTF8LookupModel(t *testing.T) {
	check := func(s []byte) {
		t.Helper()
		if got, want := modelValid(s), utf8.Valid(s); got != want {
			t.Fatalf("% x: lookup says valid=%v, unicode/utf8 says %v", s, got, want)
		}
	}
	for a := range 256 {
		check([]byte{byte(a)})
		for b := range 256 {
			check([]byte{byte(a), byte(b)})
			if testing.Short() && a%7 != 0 {
				continue
			}
			for c := range 256 {
				check([]byte{byte(a), byte(b), byte(c)})
			}
		}
	}
	edges := []byte{0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
		0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFF}
	for _, a := range edges {
		for _, b := range edges {
			for _, c := range edges {
				for _, d := range edges {
					check([]byte{a, b, c, d})
					check([]byte{a, b, c, d, 0x80})
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		s := randomUTF8ish(r, r.IntN(40))
		check(s)
	}
}

// randomUTF8ish returns n bytes that are mostly well-formed UTF-8 (runes of
// every length), with a few damaged bytes.
func randomUTF8ish(r *rand.Rand, n int) []byte {
	var s []byte
	for len(s) < n {
		switch r.IntN(8) {
		case 0:
			s = append(s, byte(r.IntN(256))) // anything
		case 1:
			s = append(s, byte(0x80+r.IntN(64))) // a stray continuation
		case 2:
			s = utf8.AppendRune(s, rune(0x10000+r.IntN(0x100000)))
		case 3:
			s = utf8.AppendRune(s, rune(0x800+r.IntN(0xF800)))
		case 4:
			s = utf8.AppendRune(s, rune(0x80+r.IntN(0x780)))
		default:
			s = append(s, byte(0x20+r.IntN(0x5F)))
		}
	}
	return s[:n]
}
