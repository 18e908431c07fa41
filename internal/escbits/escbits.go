// Package escbits finds the escapes of a JSON string 64 bytes at a time,
// for canon's and jsonread's vector paths over strings full of escapes
// (JSON text held in a string): Masks gives a step's bitmaps of quotes,
// backslashes, slashes and the bytes that end printable ASCII, in one
// AVX-512 kernel (a byte loop where there is none), and Escapes, from the
// backslashes, which of them escape the byte after them and which bytes
// they escape.
package escbits

// Escapes returns, for the bitmap bs of the backslashes of a run of bytes
// that starts where no escape leaves off (bit k for byte k), the
// backslashes that escape the byte after them (esc), and the bytes they
// escape (escaped; the byte after bit 63 is not in the bitmap): in a run
// of backslashes, the first, the third, and so on. It is simdjson's
// branchless escape scanner (json_escape_scanner): subtracting bs from
// the shifted bits with every odd bit set carries through each run,
// which tells runs that start on an even byte from those that start on
// an odd one.
func Escapes(bs uint64) (esc, escaped uint64) {
	const odd = 0xAAAAAAAAAAAAAAAA
	code := ((bs<<1 | odd) - bs) ^ odd
	return code & bs, code ^ bs
}
