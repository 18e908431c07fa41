package jsonread

import "bytes"

// indexQuoteOrBackslashGeneric is indexQuoteOrBackslash in Go, for every
// platform without a kernel (and for the tests, on amd64): the first quote
// by bytes.IndexByte, then the first backslash before it.
func indexQuoteOrBackslashGeneric(b []byte) int {
	k := bytes.IndexByte(b, '"')
	if k < 0 {
		k = len(b)
	}
	if m := bytes.IndexByte(b[:k], '\\'); m >= 0 {
		return m
	}
	if k == len(b) {
		return -1
	}
	return k
}
