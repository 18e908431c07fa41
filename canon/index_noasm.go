//go:build !amd64 || purego

package canon

// haveIndexAVX512 is false: there is no assembly here.
const haveIndexAVX512 = false

// indexBlocks is indexBlocksGeneric.
func indexBlocks(b []byte, st *indexState, idx []uint32, high []uint64) int {
	return indexBlocksGeneric(b, st, idx, high)
}

// indexUTF8 reports true: without the lookup kernel, index checks the
// whole input with utf8.Valid.
func (c *Canonicalizer) indexUTF8(src []byte, lo, full, blocks int) bool { return true }
