// Package hexdec decodes the 64 lowercase hex digits of a SHA-256 digest
// as the binding-moment envelope writes it (§6.2: "sha256:" and 64
// lowercase hex digits), refusing any other byte: on amd64 with AVX-512
// BW all 64 at once, elsewhere eight at a time in a word. envelope decodes
// an option's action_digest with it, and hashing.ParseDigest and ParseHex
// every digest text they accept.
package hexdec

import "encoding/binary"

// Lower32 decodes the 64 lowercase hex digits of src into dst and reports
// whether every byte of src is one, '0'-'9' or 'a'-'f'; when it is not,
// dst is unspecified.
func Lower32(dst *[32]byte, src *[64]byte) bool {
	if useAVX512 {
		return lower32AVX512(dst, src)
	}
	return lower32Generic(dst, src)
}

// lower32Generic is Lower32 eight digits at a time, into four bytes of
// dst.
func lower32Generic(dst *[32]byte, src *[64]byte) bool {
	for k := range 8 {
		x := binary.LittleEndian.Uint64(src[8*k:])
		if !lowerHex8(x) {
			return false
		}
		binary.LittleEndian.PutUint32(dst[4*k:], hex8(x))
	}
	return true
}

// hex8 decodes eight lowercase hex digits x (little-endian: the first
// digit in the lowest byte) into the four bytes they write, the first in
// the lowest byte. A digit's value is its low nibble, plus 9 for a letter
// (bit 6 set); each pair of digits is joined in its even lane, and the
// even lanes are gathered.
func hex8(x uint64) uint32 {
	const ones = 0x0101010101010101
	n := x&(ones*0x0f) + (x>>6&ones)*9
	p := (n<<4 | n>>8) & 0x00ff00ff00ff00ff
	p = (p | p>>8) & 0x0000ffff0000ffff
	return uint32(p | p>>16)
}

// lowerHex8 reports whether each of the eight bytes of x is a lowercase
// hex digit, '0'-'9' or 'a'-'f'. For a byte v below 0x80, v+(0x80-lo) has
// bit 7 set exactly when v >= lo, and v+(0x7f-hi) exactly when v > hi;
// neither sum carries into the next byte.
func lowerHex8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	digit := (x + ones*(0x80-'0')) &^ (x + ones*(0x7f-'9'))
	letter := (x + ones*(0x80-'a')) &^ (x + ones*(0x7f-'f'))
	return x&highs == 0 && (digit|letter)&highs == highs
}
