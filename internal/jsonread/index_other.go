//go:build !amd64 || purego

package jsonread

// indexQuoteOrBackslash returns the index of the first byte of b that is
// '"' or '\\', or -1 when there is none.
func indexQuoteOrBackslash(b []byte) int { return indexQuoteOrBackslashGeneric(b) }
