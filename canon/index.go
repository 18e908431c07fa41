package canon

import (
	"math/bits"
	"unicode/utf8"
)

// NOTE: the indexed fast path.
//
// quickRun (quick.go) walks canonical input token by token, and each step
// waits for the last: a string's end is read off a bitmap at an offset
// computed from where the string began, the byte after it decides the
// next step, and so on; an escape or a string with a byte above 0x7F
// costs it a call more. On records of short strings, escapes and
// non-ASCII text (an archive of envelopes) that chain sets the pace.
// quickIndexed breaks it in two stages, as simdjson does:
//
//  1. index: each 64-byte block is classified at once (indexBlocks: its
//     quotes, backslashes, control bytes, high bytes, the characters
//     {}[]:, and the letters of the short escapes), its escaped bytes are
//     found with simdjson's escape arithmetic, the strings are masked with
//     a prefix XOR of the quotes that are not escaped, and the offsets of
//     those quotes and of the structural characters outside strings are
//     written to ix.idx, a closing quote's flagged (indexEscaped) when its
//     string holds a backslash. Everything about string bodies is decided here:
//     no control byte anywhere (inside a string it must be escaped,
//     outside it is whitespace), every escape a short one that JCS writes
//     (with \u or an invalid one, an input stage 2 would accept is left to
//     quickRun, indexUnsure),
//     no backslash or byte above 0x7F outside a string, UTF-8 checked
//     blockwise (utf8Blocks where the CPU has it, else utf8.Valid once):
//     a chunk with a high byte, and the chunk after one whose last three
//     bytes hold a high byte, since a sequence cut short there shows its
//     error only in the next chunk's first bytes (TestUTF8CutEverywhere).
//  2. quickIndexedRun walks the grammar over that list. The next offset is
//     known before the current token is done, so the loads overlap. Every
//     token must start where the one before it ended and every structural
//     character must be in the list: so no byte goes unread, and the bytes
//     between tokens (whitespace, stray letters) make it give up. Numbers and
//     literals are checked as quickRun checks them; member names are ordered
//     by the same keys and comparison.
//
// The stages alternate: stage 2 asks for the next chunk (indexFill) when
// fewer than three entries are left (no step reads more), the first chunk
// indexFirst blocks, the next ones indexChunk, so that compact input that
// stops being canonical early (members out of order) costs little more
// than the walk's give-up. It accepts only once the whole input is
// indexed.
//
// A name with an escape (its closing quote flagged) is left to quickRun
// (indexUnsure): it compares names decoded, which this pass does not do.
// Every other doubt gives up to the engine, as quickRun does. The pass
// runs on inputs of at most indexMaxInput bytes (its memory is fixed, the
// list kept a chunk at a time; longer inputs measured no faster with it)
// and longer ones take quickRun.
//
// Where the walk is cheap, the index is not: on ASCII text without
// escapes, in long strings (a canonical 6.4 envelope), building the list
// costs more than the walk's few steps; and on short input that is not
// canonical early (an OpenAI call's arguments text, ~200 bytes), the
// first chunk costs more than the walk's give-up. So the default kernel,
// adaptive, lets each Canonicalizer choose by its last input
// (indexer.preferWalk): the walk after the indexed pass refused an input,
// or accepted one with neither an escape nor a byte above 0x7F; the
// indexed pass after the walk accepted walkSlowRun inputs in a row in
// each of which it met one (Canonicalizer.walkSlow). The output is the
// same either way.
// TestQuickCanonicalAgrees and FuzzCanonicalize run under every
// implementation of the quick kernel (walk, index-generic, index-avx512,
// adaptive); TestIndexBlocks compares the block kernel with its model.

const (
	// indexMaxInput is the longest input the indexed fast path takes.
	indexMaxInput = 64 << 10
	// indexChunk is the number of 64-byte blocks indexed per call, and
	// indexFirst the number at the start of an input.
	indexChunk = 64
	indexFirst = 2
)

// The verdicts of quickIndexedRun.
const (
	indexNo     = iota // not canonical, or not valid: the engine decides
	indexYes           // valid and canonical
	indexUnsure        // a name with escapes, or an escape stage 1 does not check: quickRun decides
)

// indexer is the memory of the indexed fast path, kept between calls,
// and the state of the pass in progress.
type indexer struct {
	// high holds the bitmaps of the high bytes of a chunk's blocks, for
	// the UTF-8 check (utf8Blocks); bad is that check's error bitmap.
	high, bad [indexChunk]uint64
	// pad holds the input's last partial block, padded with spaces.
	pad [64]byte
	// idx holds the index, a chunk at a time: offsets of the quotes that
	// are not escaped and of the structural characters outside strings,
	// in order, then, once the whole input is indexed, len(src) three
	// times. Its first avail entries are written; indexFill moves the
	// ones stage 2 has not read to the front before it indexes the next
	// chunk. Room: the entries left (fewer than three), one per byte of a
	// chunk, the whole vector the kernel stores past the last, the ends.
	idx   [64*indexChunk + 72]uint32
	avail int
	// anyBS reports that an input accepted has a backslash (stage 2 sets
	// it from the flags of its strings' closing quotes, indexEscaped).
	anyBS bool

	st      indexState // carried from the last block indexed
	lo      int        // the input offset up to which the input is indexed
	anyHigh bool       // a block indexed has a byte above 0x7F
	// tail is the high-byte bitmap of the last block indexed: a sequence
	// that its last three bytes start may end in the next chunk, whose
	// UTF-8 check must then run even if it is all ASCII.
	tail uint64
	done bool // the whole input is indexed

	// preferWalk is the adaptive kernel's choice for the next input: the
	// walk (see the NOTE above). slowRun counts the inputs in a row that
	// the walk accepted and met an escape or a high byte in.
	preferWalk bool
	slowRun    uint8
}

// walkSlowRun is the number of inputs in a row that the walk must accept,
// meeting an escape or a byte above 0x7F in each, before the adaptive
// kernel turns to the indexed pass: one alone is often a canonical record
// among others that are not (an archive of mixed styles), where the index
// would then only pay its first chunk for the next refusal.
const walkSlowRun = 3

// adaptAfterWalk updates the adaptive kernel's choice after the walk
// checked an input in its turn: slow reports that it accepted the input
// and met an escape or a high byte in it.
func (ix *indexer) adaptAfterWalk(slow bool) {
	if !slow {
		ix.slowRun = 0
		return
	}
	if ix.slowRun++; ix.slowRun >= walkSlowRun {
		ix.preferWalk, ix.slowRun = false, 0
	}
}

// quickIndexed is quickCanonical's indexed pass over src (see the NOTE
// above), with st (empty) for its open containers.
func (c *Canonicalizer) quickIndexed(src []byte, st []quickFrame) (int, []quickFrame) {
	if c.ix == nil {
		c.ix = new(indexer)
	}
	c.indexStart()
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
	escStr  uint64 // all ones if the string the next block starts in has a backslash
}

// indexEscaped flags, in the index, the offset of a closing quote whose
// string holds a backslash (offsets are below MaxSizeLimit, 2^30).
const indexEscaped uint32 = 1 << 31

// indexStart readies c.ix for a pass over an input: nothing indexed yet.
func (c *Canonicalizer) indexStart() {
	ix := c.ix
	ix.avail, ix.anyBS, ix.st, ix.lo, ix.anyHigh, ix.done, ix.tail = 0, false, indexState{}, 0, false, false, 0
}

// indexFill indexes chunks of src (stage 1 of the NOTE above) until at
// least three entries from k on are written, or the whole input is
// indexed, first moving the entries from k on to the front of ix.idx
// (stage 2 never reads back); it returns where entry k is then. It
// reports indexNo when src cannot be canonical or is not valid JSON text,
// and indexYes otherwise. (An escape that the pass does
// not check, \u or an invalid one, is noted in ix.st.odd: an input that
// would be accepted with one goes to quickRun, indexUnsure; one that
// stage 2 refuses anyway goes to the engine without that detour.)
func (c *Canonicalizer) indexFill(src []byte, k int) (int, int) {
	ix := c.ix
	for k+3 > ix.avail {
		if ix.done {
			return indexNo, k
		}
		ix.avail = copy(ix.idx[:], ix.idx[k:ix.avail])
		k = 0
		if v := c.indexMore(src); v != indexYes {
			return v, k
		}
	}
	return indexYes, k
}

// indexMore indexes the next chunk of src: indexFirst blocks at first (so
// that input that is not canonical early costs little), then indexChunk.
func (c *Canonicalizer) indexMore(src []byte) int {
	ix := c.ix
	n, lo := len(src), ix.lo
	chunk := indexChunk
	if lo == 0 {
		chunk = indexFirst
	}
	full := min((n-lo)/64, chunk)
	j := ix.avail
	if full > 0 {
		j += indexBlocks(src[lo:lo+64*full], &ix.st, ix.idx[j:], ix.high[:full])
	}
	blocks := full
	if full < chunk && lo+64*full < n {
		// The last, partial block, padded with spaces: outside a string
		// they are bytes between tokens, which stage 2 refuses where it
		// reads them; inside one, the string is unterminated.
		k := copy(ix.pad[:], src[lo+64*full:])
		copy(ix.pad[k:], spaces64[:])
		j += indexBlocks(ix.pad[:], &ix.st, ix.idx[j:], ix.high[full:full+1])
		blocks++
	}
	ix.avail = j
	ix.lo = min(lo+64*blocks, n)
	if ix.st.fails != 0 || ix.lo == n && ix.st.inStr|ix.st.escNext != 0 {
		return indexNo // a string that runs to the end of the input, too
	}
	// A sequence cut short where the last chunk ended shows its error in
	// this one's first bytes: check this chunk then, even if it is ASCII.
	high := ix.tail >> 61
	for b := range blocks {
		high |= ix.high[b]
	}
	if blocks > 0 {
		ix.tail = ix.high[blocks-1]
	}
	if high != 0 {
		ix.anyHigh = true
		if !c.indexUTF8(src, lo, full, blocks) {
			return indexNo
		}
	}
	if ix.lo < n {
		return indexYes
	}
	if ix.anyHigh && !useUTF8Lookup && !utf8.Valid(src) {
		return indexNo
	}
	ix.idx[j], ix.idx[j+1], ix.idx[j+2] = uint32(n), uint32(n), uint32(n)
	ix.avail = j + 3
	ix.done = true
	return indexYes
}

// spaces64 pads the last partial block.
var spaces64 = [64]byte{' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
	' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '}

// indexBlocksGeneric is indexBlocks in Go, byte by byte: the model of the
// assembly kernel, which TestIndexBlocks compares with it. For each
// 64-byte block of b, with the state st carried from the block before, it
// writes the bitmap of its high bytes to high (a word each), the offsets
// (st.base and up) of its quotes that are not escaped and of its
// structural characters {}[]:, outside strings to idx, a closing quote's
// with indexEscaped when its string holds a backslash, and notes in
// st.fails a control byte, or a backslash or high byte outside a string,
// and in st.odd an escaped byte other than '"', '\\', b, f, n, r and t.
// It returns the number of offsets written.
func indexBlocksGeneric(b []byte, st *indexState, idx []uint32, high []uint64) int {
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
		high[k/64] = hi
		var escaped uint64
		escaped, st.escNext = escapedBytes(bslash, st.escNext)
		st.odd |= escaped &^ (quote | bslash | letter)
		q := quote &^ escaped
		s := prefixXOR(q) ^ st.inStr
		st.inStr = uint64(int64(s) >> 63)
		st.fails |= ctl | (bslash|hi)&^s
		// The strings' backslashes, in order: a closing quote (a quote
		// outside s) gets the flag when its string had one.
		var flagged uint64
		for i := range 64 {
			bit := uint64(1) << i
			if bslash&s&bit != 0 {
				st.escStr = ^uint64(0)
			}
			if q&^s&bit != 0 {
				flagged |= bit & st.escStr
				st.escStr = 0
			}
		}
		for m := q | structural&^s; m != 0; m &= m - 1 {
			idx[j] = uint32(st.base) + uint32(bits.TrailingZeros64(m))
			if flagged&m&-m != 0 {
				idx[j] |= indexEscaped
			}
			j++
		}
		st.base += 64
	}
	return j
}

// quickIndexedRun is stage 2 of the NOTE above: the walk of the grammar
// over c.ix.idx. Its steps are quickRun's.
func (c *Canonicalizer) quickIndexedRun(src []byte, st []quickFrame) (int, []quickFrame) {
	idx, avail := &c.ix.idx, 0
	maxDepth := c.profile.MaxDepth()
	strict := !c.profile.rfc8785
	n := len(src)
	pos, k := 0, 0
	var esc uint32 // the flags of the value strings' closing quotes, ORed

value:
	if k+3 > avail { // every step reads at most three entries
		var v int
		if v, k = c.indexFill(src, k); v != indexYes {
			return v, st
		}
		avail = c.ix.avail
	}
	if pos >= n {
		return indexNo, st
	}
	switch src[pos] {
	case '"':
		if idx[k] != uint32(pos) {
			return indexNo, st
		}
		esc |= idx[k+1]
		pos = int(idx[k+1]&^indexEscaped) + 1 // its body is checked
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
	if k+3 > avail {
		var v int
		if v, k = c.indexFill(src, k); v != indexYes {
			return v, st
		}
		avail = c.ix.avail
	}
	if len(st) == 0 {
		if pos != n || !c.ix.done { // done: no entry is left, so indexFill indexed it all
			return indexNo, st
		}
		if c.ix.st.odd != 0 {
			return indexUnsure, st // an escape this pass does not check: quickRun's
		}
		c.ix.anyBS = esc&indexEscaped != 0
		return indexYes, st
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
	if k+3 > avail {
		var v int
		if v, k = c.indexFill(src, k); v != indexYes {
			return v, st
		}
		avail = c.ix.avail
	}
	if pos >= n || src[pos] != '"' || idx[k] != uint32(pos) {
		return indexNo, st
	}
	{
		if idx[k+1]&indexEscaped != 0 {
			return indexUnsure, st // compared decoded by quickRun
		}
		ns, ne := pos+1, int(idx[k+1])
		k += 2
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
