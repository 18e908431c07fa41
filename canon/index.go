package canon

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// NOTE: the indexed fast path.
//
// quickRun (quick.go) walks canonical input token by token, and each step
// waits for the last: a string's end is read off a bitmap at an offset
// computed from where the string began, the byte after it decides the
// next step, and so on, three dependent loads per token. On records of
// short strings that chain, not the bytes, sets the pace (about 50 cycles
// per string on a Zen 5 core). quickIndexed breaks it in two stages, as
// simdjson does:
//
//  1. index: every 64-byte block is classified at once (indexBlocks: its
//     quotes, backslashes, control bytes, high bytes and the characters
//     {}[]:,), its escapes are found and checked (indexEscapes, one trip
//     per backslash), the strings are masked with a prefix XOR of the
//     quotes that are not escaped, and the offsets of the quotes, of the
//     structural characters outside strings and of the escapes (flagged
//     escFlag) are written to ix.idx. Everything about string bodies is
//     decided here: no control byte anywhere (inside a string it must be
//     escaped, outside it is whitespace), every escape one that JCS writes,
//     no backslash or byte above 0x7F outside a string, UTF-8 checked
//     blockwise (utf8Blocks where the CPU has it, else utf8.Valid once).
//  2. quickIndexedRun walks the grammar over that list. The next offset is
//     known before the current token is done, so the loads overlap. Every
//     token must start where the one before it ended and every structural
//     character must be in the list: so no byte goes unread, and the bytes
//     between tokens (whitespace, stray letters) make it give up. Numbers and
//     literals are checked as quickRun checks them; member names are ordered
//     by the same keys and comparison.
//
// A name with an escape is left to quickRun (the verdict indexUnsure): it
// compares names decoded, which this pass does not do. Every other
// doubt gives up to the engine, as quickRun does. The pass runs on inputs
// of at most indexMaxInput bytes, where its list (4 bytes per entry) stays
// small; longer ones take quickRun. TestQuickCanonicalAgrees and
// FuzzCanonicalize run under every implementation of the quick kernel
// (walk, index-generic, index-avx512).

const (
	// indexMaxInput is the longest input the indexed fast path takes.
	indexMaxInput = 64 << 10
	// indexChunk is the number of 64-byte blocks classified per call.
	indexChunk = 64
)

// The verdicts of quickIndexedRun.
const (
	indexNo     = iota // not canonical, or not valid: the engine decides
	indexYes           // valid and canonical
	indexUnsure        // a name with escapes: quickRun decides
)

// indexer is the memory of the indexed fast path, kept between calls.
type indexer struct {
	// high holds the bitmaps of the high bytes of a chunk's blocks, for
	// the UTF-8 check (utf8Blocks); bad is that check's error bitmap.
	high, bad [indexChunk]uint64
	// pad holds the input's last partial block, padded with spaces.
	pad [64]byte
	// idx is the index: offsets of the quotes that are not escaped and of
	// the structural characters outside strings, in order, then len(src)
	// twice.
	idx []uint32
	// bsAll is the bitmap of the backslashes of the whole input, and a
	// zero word, for the names (a name with an escape is left to
	// quickRun); anyBS reports that it has a bit set.
	bsAll []uint64
	anyBS bool
}

// quickIndexed is quickCanonical's indexed pass over src (see the NOTE
// above), with st (empty) for its open containers.
func (c *Canonicalizer) quickIndexed(src []byte, st []quickFrame) (int, []quickFrame) {
	if c.ix == nil {
		c.ix = new(indexer)
	}
	if v := c.index(src); v != indexYes {
		return v, st
	}
	return c.quickIndexedRun(src, st)
}

// indexState is the state index carries from one 64-byte block to the
// next, through indexBlocks and its kernels.
type indexState struct {
	inStr   uint64 // all ones if the next block starts inside a string
	escNext uint64 // 1 if the next block's first byte is escaped
	base    uint64 // the input offset of the next block
	fails   uint64 // not zero: a byte that no canonical text has there
	odd     uint64 // not zero: an escape other than \" \\ \b \f \n \r \t
}

// index fills c.ix.idx for src (stage 1 of the NOTE above). It reports
// indexNo when src cannot be canonical, or is not valid JSON text, and
// indexUnsure when it has an escape that the pass does not check (\u, and
// the invalid ones), which quickRun then judges.
func (c *Canonicalizer) index(src []byte) int {
	ix := c.ix
	n := len(src)
	words := n/64 + 1
	if cap(ix.bsAll) < words+1 {
		ix.bsAll = make([]uint64, words+1)
	}
	ix.bsAll = ix.bsAll[:words+1]
	ix.bsAll[words] = 0
	// Room for an entry per byte, the whole vector the kernel stores past
	// the last entry, and the two ends.
	if cap(ix.idx) < 64*words+64 {
		ix.idx = make([]uint32, 64*words+64)
	}
	idx := ix.idx[:cap(ix.idx)]
	ix.bsAll[n/64] = 0 // no block of its own when 64 divides n
	st := indexState{}
	j := 0
	anyHigh := false
	for lo := 0; lo < n; lo += 64 * indexChunk {
		full := min((n-lo)/64, indexChunk)
		if full > 0 {
			j += indexBlocks(src[lo:lo+64*full], &st, idx[j:], ix.high[:full], ix.bsAll[lo/64:])
		}
		blocks := full
		if full < indexChunk && lo+64*full < n {
			// The last, partial block, padded with spaces: outside a
			// string they are bytes between tokens, which stage 2 refuses
			// where it reads them; inside one, the string is unterminated.
			k := copy(ix.pad[:], src[lo+64*full:])
			for i := k; i < len(ix.pad); i++ {
				ix.pad[i] = ' '
			}
			j += indexBlocks(ix.pad[:], &st, idx[j:], ix.high[full:full+1], ix.bsAll[lo/64+full:])
			blocks++
		}
		if st.fails != 0 {
			return indexNo
		}
		high := uint64(0)
		for _, h := range ix.high[:blocks] {
			high |= h
		}
		if high != 0 {
			anyHigh = true
			if !c.indexUTF8(src, lo, full, blocks) {
				return indexNo
			}
		}
	}
	if st.inStr != 0 || st.escNext != 0 {
		return indexNo // a string runs to the end of the input
	}
	if st.odd != 0 {
		return indexUnsure
	}
	if anyHigh && !useUTF8Lookup && !utf8.Valid(src) {
		return indexNo
	}
	idx[j], idx[j+1] = uint32(n), uint32(n)
	ix.idx = idx[:j+2]
	ix.anyBS = false
	for _, w := range ix.bsAll {
		if w != 0 {
			ix.anyBS = true
			break
		}
	}
	return indexYes
}

// indexBlocksGeneric is indexBlocks in Go, byte by byte: the model of the
// assembly kernel, which TestIndexBlocks compares with it. For each
// 64-byte block of b, with the state st carried from the block before, it
// writes the bitmap of its high bytes to high and of its backslashes to
// bsAll (a word each), the offsets (st.base and up) of its quotes that are
// not escaped and of its structural characters {}[]:, outside strings to
// idx, and notes in st.fails a control byte, or a backslash or high byte
// outside a string, and in st.odd an escaped byte other than '"', '\\',
// b, f, n, r and t. It returns the number of offsets written.
func indexBlocksGeneric(b []byte, st *indexState, idx []uint32, high, bsAll []uint64) int {
	j := 0
	for k := 0; k+64 <= len(b); k += 64 {
		var quote, bslash, ctl, hi, structural, letter uint64
		for i, ch := range b[k : k+64] {
			bit := uint64(1) << i
			switch {
			case ch == '"':
				quote |= bit
			case ch == '\\':
				bslash |= bit
			case ch < 0x20:
				ctl |= bit
			case ch >= 0x80:
				hi |= bit
			case ch == '{', ch == '}', ch == '[', ch == ']', ch == ':', ch == ',':
				structural |= bit
			case ch == 'b', ch == 'f', ch == 'n', ch == 'r', ch == 't':
				letter |= bit
			}
		}
		high[k/64], bsAll[k/64] = hi, bslash
		// The escaped bytes (simdjson's escape scanner, as minifyGeneric).
		potential := bslash &^ st.escNext
		code := ((potential<<1 | oddBits) - potential) ^ oddBits
		escaped := code ^ (bslash | st.escNext)
		st.escNext = (code & bslash) >> 63
		st.odd |= escaped &^ (quote | bslash | letter)
		q := quote &^ escaped
		s := prefixXor(q) ^ st.inStr
		st.inStr = uint64(int64(s) >> 63)
		st.fails |= ctl | (bslash|hi)&^s
		for m := q | structural&^s; m != 0; m &= m - 1 {
			idx[j] = uint32(st.base) + uint32(bits.TrailingZeros64(m))
			j++
		}
		st.base += 64
	}
	return j
}

// escapedName reports whether the name src[ns:ne] has a backslash (bsAll
// has a bit in [ns, ne)). A name shorter than 57 bytes is one unaligned
// load of the bitmap's bytes and a shift (the word past the last block
// is zero, and bytes past ne are masked off).
func (ix *indexer) escapedName(ns, ne int) bool {
	if ne-ns > 56 {
		return bitsIn(ix.bsAll, ns, ne)
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&ix.bsAll[0])), 8*len(ix.bsAll))
	return binary.LittleEndian.Uint64(b[ns>>3:])>>(ns&7)&(1<<(ne-ns)-1) != 0
}

// bitsIn reports whether any bit in [a, b) of the bitmap bm is set.
func bitsIn(bm []uint64, a, b int) bool {
	if a >= b {
		return false
	}
	wa, wb := a>>6, (b-1)>>6
	lo, hi := ^uint64(0)<<(a&63), ^uint64(0)>>(63-(b-1)&63)
	if wa == wb {
		return bm[wa]&lo&hi != 0
	}
	if bm[wa]&lo != 0 || bm[wb]&hi != 0 {
		return true
	}
	for _, w := range bm[wa+1 : wb] {
		if w != 0 {
			return true
		}
	}
	return false
}

// prefixXor returns the word whose bit i is the XOR of bits 0 to i of x:
// over the unescaped quotes, the bytes from an opening quote up to (not
// including) its closing one.
func prefixXor(x uint64) uint64 {
	x ^= x << 1
	x ^= x << 2
	x ^= x << 4
	x ^= x << 8
	x ^= x << 16
	x ^= x << 32
	return x
}

// quickIndexedRun is stage 2 of the NOTE above: the walk of the grammar
// over c.ix.idx. Its steps are quickRun's.
func (c *Canonicalizer) quickIndexedRun(src []byte, st []quickFrame) (int, []quickFrame) {
	idx := c.ix.idx
	maxDepth := c.profile.MaxDepth()
	strict := !c.profile.rfc8785
	n := len(src)
	pos, k := 0, 0

value:
	if pos >= n {
		return indexNo, st
	}
	switch src[pos] {
	case '"':
		if idx[k] != uint32(pos) {
			return indexNo, st
		}
		pos = int(idx[k+1]) + 1 // its body is checked
		k += 2
	case '{', '[':
		if idx[k] != uint32(pos) || len(st) >= maxDepth {
			return indexNo, st
		}
		k++
		object := src[pos] == '{'
		pos++
		if pos < n && src[pos] == src[pos-1]+2 { // {} or []
			if idx[k] != uint32(pos) {
				return indexNo, st
			}
			k++
			pos++
			goto next
		}
		st = pushQuick(st)
		st[len(st)-1] = quickFrame{object: object, prev: -1}
		if object {
			goto name
		}
		goto value
	case 't':
		if n-pos < 4 || string(src[pos:pos+4]) != "true" {
			return indexNo, st
		}
		pos += 4
	case 'f':
		if n-pos < 5 || string(src[pos:pos+5]) != "false" {
			return indexNo, st
		}
		pos += 5
	case 'n':
		if n-pos < 4 || string(src[pos:pos+4]) != "null" {
			return indexNo, st
		}
		pos += 4
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		c.pend = pos
		end, err := c.number(pos, strict)
		if err != nil || c.pend != pos {
			return indexNo, st
		}
		pos = end
	default:
		return indexNo, st
	}

next:
	if len(st) == 0 {
		if pos == n {
			return indexYes, st
		}
		return indexNo, st
	}
	if pos >= n || idx[k] != uint32(pos) {
		return indexNo, st
	}
	k++
	switch src[pos] {
	case ',':
		pos++
		if st[len(st)-1].object {
			goto name
		}
		goto value
	case '}':
		if !st[len(st)-1].object {
			return indexNo, st
		}
	case ']':
		if st[len(st)-1].object {
			return indexNo, st
		}
	default:
		return indexNo, st
	}
	st = st[:len(st)-1]
	pos++
	goto next

name:
	if pos >= n || src[pos] != '"' || idx[k] != uint32(pos) {
		return indexNo, st
	}
	{
		ns, ne := pos+1, int(idx[k+1])
		k += 2
		if c.ix.anyBS && c.ix.escapedName(ns, ne) {
			return indexUnsure, st // compared decoded by quickRun
		}
		key := nameKeyAt(src, ns, ne)
		f := &st[len(st)-1]
		if f.prev >= 0 && (key < f.prevKey || key == f.prevKey && CompareUTF16(src[f.prev:f.prev2], src[ns:ne]) >= 0) {
			return indexNo, st
		}
		f.prevKey, f.prev, f.prev2 = key, ns, ne
		pos = ne + 1
	}
	if pos >= n || src[pos] != ':' || idx[k] != uint32(pos) {
		return indexNo, st
	}
	k++
	pos++
	goto value
}
