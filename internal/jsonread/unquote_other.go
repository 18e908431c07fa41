//go:build !amd64 || purego

package jsonread

// useUnquoteAVX512 is false: there is no vector path here.
var useUnquoteAVX512 = false

// unquoteSimple is never called where useUnquoteAVX512 is false.
func unquoteSimple(buf []byte, n int, b []byte, j int) (int, int, bool) {
	panic("BUG: jsonread: unquoteSimple without AVX-512")
}
