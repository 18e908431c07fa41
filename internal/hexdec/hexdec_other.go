//go:build !amd64 || purego

package hexdec

// useAVX512 stays false: there is no vector path here (a variable, as on
// amd64, for the tests).
var useAVX512 = false

// haveAVX512 is false: there is no vector path here.
const haveAVX512 = false

// lower32AVX512 is never called where useAVX512 is false.
func lower32AVX512(dst *[32]byte, src *[64]byte) bool {
	panic("BUG: hexdec: lower32AVX512 without AVX-512")
}
