//go:build !purego

package canon

// haveIndexAVX512 reports that indexBlocksAVX512 can run: it needs AVX-512
// F and BW (byte tests into mask registers, VPSHUFB), VBMI2
// (VPCOMPRESSB), PCLMULQDQ (the in-string mask) and POPCNT, and an OS that
// saves the AVX-512 state (internal/cpu checks that): what
// minifyBlocksAVX512 needs.
var haveIndexAVX512 = haveMinifyAVX512

// indexBlocksAVX512 is indexBlocksGeneric over n whole 64-byte blocks at p,
// in AVX-512 (index_amd64.s). It stores whole vectors of 16 offsets, up
// to four at a block, so idx must have room for 64 past the last one
// written. It returns the number of offsets written.
//
//go:noescape
func indexBlocksAVX512(p *byte, n int, st *indexState, idx *uint32, high *uint64) int

// indexBlocks is indexBlocksGeneric with the kernel in force. idx must
// have room for 64 offsets per block and 64 more.
func indexBlocks(b []byte, st *indexState, idx []uint32, high []uint64) int {
	if useIndexAVX512 {
		n := len(b) / 64
		_, _ = idx[64*n+63], high[n-1]
		return indexBlocksAVX512(&b[0], n, st, &idx[0], &high[0])
	}
	return indexBlocksGeneric(b, st, idx, high)
}

// indexUTF8 reports whether the blocks of the chunk at lo (full of them
// in src, and the padded last one in c.ix.pad when blocks > full) hold no
// UTF-8 error, from c.ix.high, with the lookup kernel (utf8Blocks). A
// sequence cut by the chunk's end is judged with the next chunk, and one
// cut by the input's end shows its error in the padding. Without the
// lookup kernel it reports true, and index checks the whole input with
// utf8.Valid.
func (c *Canonicalizer) indexUTF8(src []byte, lo, full, blocks int) bool {
	if !useUTF8Lookup {
		return true
	}
	ix := c.ix
	if full > 0 {
		utf8Blocks(&src[lo], full, before(src, lo), &ix.high[0], &ix.bad[0])
	}
	if full < blocks {
		utf8Blocks(&ix.pad[0], 1, before(src, lo+64*full), &ix.high[full], &ix.bad[full])
	}
	any := uint64(0)
	for _, b := range ix.bad[:blocks] {
		any |= b
	}
	return any == 0
}
