//go:build !amd64 || purego

package canon

import "unsafe"

// haveMinifyAVX512 is false off amd64 and under purego: no compression
// pass runs, and the engine drops whitespace itself.
const haveMinifyAVX512 = false

// minifyBlocksAVX512 is not selected where haveMinifyAVX512 is false; it is
// minifyGeneric, so that the code compiles, and stays correct, everywhere.
func minifyBlocksAVX512(dst, src *byte, n int, st *minState) int {
	return minifyGeneric(unsafe.Slice(dst, 64*n+64), unsafe.Slice(src, 64*n), st)
}
