//go:build !amd64 || purego

package canon

// haveMinifyAVX512 is false off amd64 and under purego: no compression
// pass runs by default, and the engine drops whitespace itself.
const haveMinifyAVX512 = false

// minifyBlocksAVX512 exists so that the code compiles everywhere; it is
// never selected where haveMinifyAVX512 is false.
func minifyBlocksAVX512(dst, src *byte, n int, st *minState) int {
	panic("BUG: canon: minifyBlocksAVX512 without AVX-512")
}
