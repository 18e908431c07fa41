//go:build !amd64 || purego

package canon

// haveRankAVX512 is false: there is no vector rank kernel in this build.
const haveRankAVX512 = false

// rankKeysAVX512 is never selected here.
func rankKeysAVX512(keys *[rankMax]uint64, n int, rank *[rankMax]uint8) {
	panic("BUG: canon: rankKeysAVX512 without AVX-512")
}
