package canon

import "math/bits"

// NOTE: whitespace compression before the engine.
//
// Pretty-printed input spends a quarter of the engine's time on whitespace:
// finding each run's end and copying the span between two runs. Where the
// CPU can compress a 64-byte block by a bit mask in one instruction
// (AVX-512 VBMI2 VPCOMPRESSB), the whitespace outside strings is removed
// first, sixty-four bytes at a time, into the arena, and the engine runs on
// the compact text. The compression pass is a simdjson-style stage 1: per
// block, bitmaps of quotes, backslashes, whitespace and structural bytes;
// the quotes that are escaped (after an odd run of backslashes) are
// dropped; a carry-less multiply by all ones turns the remaining quotes
// into the in-string mask; whitespace outside strings is removed.
//
// Why the compact text gives the same answer. Removing whitespace between
// tokens changes neither the tokens nor, therefore, the canonical form,
// with one exception: two scalar tokens that whitespace alone kept apart
// ("1 2", "- 1", "1 e5", "tru e") would merge into one. The pass flags
// every whitespace run that separates two bytes which are neither
// whitespace, structural ({ } [ ] : ,) nor quotes, outside strings; such a
// run never occurs in valid JSON, and when one is flagged the compact text
// is not used. The in-string mask agrees with the JSON lexer up to the
// first backslash outside a string, which is a syntax error in both texts.
// So the compact text is accepted exactly when the input is, with the same
// canonical form (FuzzMinifyEngine and TestMinifyEngineAgrees check it).
//
// Errors. An error's offset and JSON Pointer must refer to the caller's
// input, so when the engine rejects the compact text (or the pass flagged
// a merge, or the input ends inside a string), the engine runs again on the
// original input, and that run's error is returned. Invalid pretty input
// thus costs a second engine pass; valid input never does.
//
// Without AVX-512 VBMI2 (and under purego) no compression runs and the
// engine drops whitespace itself (see scan). minifyGeneric is the same
// block algorithm in Go: the reference the assembly is tested against, and
// a way to drive the compact-text path in tests on any machine.

// minState is the state carried from one 64-byte block to the next. Its
// layout is read by the assembly (minify_amd64.s).
type minState struct {
	inString uint64 // ^0 if the previous block ended inside a string, else 0
	escNext  uint64 // 1 if the first byte of the next block is escaped
	prevS    uint64 // 1 if the last byte of the previous block is a scalar byte
	carry    uint64 // 1 if a whitespace run after a scalar byte continues into the next block
	merged   uint64 // nonzero once a whitespace run has separated two scalar bytes
}

// Minification implementations (minifyImpl, chosen in impl.go), in the
// order of their names in the registry of kernels (minifyNames).
const (
	minifyOff    = iota // "off": the engine handles whitespace itself
	minifyGo            // "generic": minifyGeneric, the reference (tests)
	minifyAVX512        // "avx512": minifyBlocksAVX512
)

var minifyNames = [...]string{minifyOff: "off", minifyGo: "generic", minifyAVX512: "avx512"}

// defaultMinifyImpl is minifyAVX512 where the CPU has it, else minifyOff.
func defaultMinifyImpl() int32 {
	if haveMinifyAVX512 {
		return minifyAVX512
	}
	return minifyOff
}

// minifyMinLen is the input length below which compression is not tried:
// for a few dozen bytes the engine's own whitespace handling is as cheap.
const minifyMinLen = 64

// oddBits has the odd-numbered bits set.
const oddBits = 0xAAAAAAAAAAAAAAAA

// minify removes the whitespace outside strings from src into c's arena and
// returns the compact text, or ok false when it is not used: no compression
// implementation is selected, the input is short, its first 64 bytes have
// no whitespace to remove, a whitespace run separated two scalar bytes, or
// the input ends inside a string.
//
// The first block decides whether compression is worth a pass at all:
// pretty-printed text has whitespace there, while compact input (which
// reaches minify when the fast path finds it unsorted or otherwise not
// canonical) would pay a whole pass to remove nothing. Either way the
// result is the same; only the cost differs.
func (c *Canonicalizer) minify(src []byte) (compact []byte, ok bool) {
	impl := minifyImpl
	if impl == minifyOff || len(src) < minifyMinLen || len(src) > c.profile.MaxSize() {
		return nil, false
	}
	// The first block goes to the stack, so that compact input does not
	// allocate the arena buffer it will not use.
	var first [128]byte // the kernel stores whole blocks: room for two
	var st minState
	w := compressBlocks(impl, first[:], src[:64], &st)
	if w == 64 {
		return nil, false
	}
	need := len(src) + 64
	if cap(c.mini) < need {
		c.mini = make([]byte, need)
	}
	dst := c.mini[:need]
	copy(dst, first[:w])
	w += compress(impl, dst[w:], src[64:], &st)
	if st.inString != 0 || st.merged != 0 {
		return nil, false
	}
	return dst[:w], true
}

// compressBlocks runs implementation impl over the whole 64-byte blocks of
// src (len(src) a multiple of 64); dst has room for len(src)+64 bytes.
func compressBlocks(impl int32, dst, src []byte, st *minState) int {
	if len(src) == 0 {
		return 0
	}
	if impl == minifyAVX512 {
		return minifyBlocksAVX512(&dst[0], &src[0], len(src)/64, st)
	}
	return minifyGeneric(dst, src, st)
}

// compress runs implementation impl over src: its whole 64-byte blocks,
// then the rest padded with spaces to a block (removed outside strings; in
// an unterminated one the input is rejected anyway). dst must have room
// for len(src)+64 bytes. It returns the number of bytes written; st is the
// state after the last block.
func compress(impl int32, dst, src []byte, st *minState) int {
	full := len(src) / 64
	var pad [64]byte
	tail := src[64*full:]
	copy(pad[:], tail)
	for i := len(tail); i < 64; i++ {
		pad[i] = ' '
	}
	w := compressBlocks(impl, dst, src[:64*full], st)
	if len(tail) > 0 {
		w += compressBlocks(impl, dst[w:], pad[:], st)
	}
	return w
}

// minifyGeneric is the block algorithm of minifyBlocksAVX512 in Go: it
// compresses the whole 64-byte blocks of src into dst (which has room for
// len(src) bytes) and returns the number of bytes written.
func minifyGeneric(dst, src []byte, st *minState) int {
	w := 0
	for b := 0; b+64 <= len(src); b += 64 {
		blk := src[b : b+64]
		var quote, bslash, ws, other uint64
		for i, x := range blk {
			bit := uint64(1) << i
			switch x {
			case '"':
				quote |= bit
			case '\\':
				bslash |= bit
			case ' ', '\t', '\n', '\r':
				ws |= bit
			case '{', '}', '[', ']', ':', ',':
				other |= bit
			}
		}
		other |= quote | ws // the bytes that are not scalar bytes

		// Escaped bytes: those after an odd run of backslashes.
		var escaped uint64
		escaped, st.escNext = escapedBytes(bslash, st.escNext)

		// In-string mask: prefix XOR of the real quotes (opening quote and
		// body set, closing quote clear).
		p := prefixXOR(quote&^escaped) ^ st.inString
		st.inString = uint64(int64(p) >> 63)

		remove := ws &^ p
		scalar := ^(other | p)
		// Runs of removed bytes that start after a scalar byte: carry each
		// through its run to the first byte after it.
		rs := remove & (scalar<<1 | st.prevS)
		st.prevS = scalar >> 63
		sum, carry := bits.Add64(remove, rs, st.carry)
		st.carry = carry
		st.merged |= sum &^ remove & scalar

		keep := ^remove
		for keep != 0 {
			i := bits.TrailingZeros64(keep)
			dst[w] = blk[i]
			w++
			keep &= keep - 1
		}
	}
	return w
}

// escapedBytes returns the bitmap of the bytes of a 64-byte block that a
// backslash escapes (those after a run of backslashes of odd length),
// given its backslashes and escNext (1 if the block before escapes its
// first byte), and escNext for the block after: simdjson's escape
// scanner, without a branch. The Go model of the assembly kernels of
// minify and of the indexed fast path (index.go), which do the same
// arithmetic.
func escapedBytes(bslash, escNext uint64) (escaped, next uint64) {
	potential := bslash &^ escNext // a backslash that is itself escaped escapes nothing
	code := ((potential<<1 | oddBits) - potential) ^ oddBits
	return code ^ (bslash | escNext), (code & bslash) >> 63
}

// prefixXOR returns the mask whose bit i is the XOR of bits 0..i of x (what
// a carry-less multiplication by all ones computes).
func prefixXOR(x uint64) uint64 {
	x ^= x << 1
	x ^= x << 2
	x ^= x << 4
	x ^= x << 8
	x ^= x << 16
	x ^= x << 32
	return x
}
