//go:build !purego

package canon

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

// haveIndexStop and indexStopFunc let the tests reach indexStop where it exists.
const haveIndexStop = true

var indexStopFunc = indexStop

// TestUTF8Blocks compares utf8Blocks with the Go model of the lookup method
// on random runs of blocks: mostly well-formed text with damage, pure ASCII
// blocks (which it skips), and sequences cut short just before a 16-byte
// boundary, where its chunks meet.
func TestUTF8Blocks(t *testing.T) {
	impltest.Need(t, utf8Kernel, "ssse3")
	r := rand.New(rand.NewPCG(11, 12))
	for iter := range 3000 {
		n := 1 + r.IntN(8)
		buf := make([]byte, 16+64*n)
		switch iter % 4 {
		case 0:
			copy(buf, randomUTF8ish(r, len(buf)))
		case 1: // ASCII with a few runes: most blocks skippable
			for i := range buf {
				buf[i] = byte(0x20 + r.IntN(0x5F))
			}
			for range r.IntN(4) {
				at := r.IntN(len(buf) - 4)
				copy(buf[at:], utf8.AppendRune(nil, rune(0x80+r.IntN(0x10FF00))))
			}
		case 2: // anything
			for i := range buf {
				buf[i] = byte(r.IntN(256))
			}
		default: // ASCII with a rune cut short, or whole, just before a 16-byte boundary
			for i := range buf {
				buf[i] = byte(0x20 + r.IntN(0x5F))
			}
			for range 1 + r.IntN(3) {
				rn := utf8.AppendRune(nil, rune(0x80+r.IntN(0x10FF00)))
				cut := rn[:1+r.IntN(len(rn))]
				end := 16 * (1 + r.IntN(len(buf)/16-1)) // a chunk boundary, prev included
				copy(buf[end-len(cut):], cut)
			}
		}
		prev, p := buf[:16], buf[16:]
		high := make([]uint64, n)
		for k := range n {
			for b := range 64 {
				if p[64*k+b] >= 0x80 {
					high[k] |= 1 << b
				}
			}
		}
		bad := make([]uint64, n)
		for k := range bad {
			bad[k] = 0xdeadbeef // every word must be written
		}
		utf8Blocks(&p[0], n, &prev[0], &high[0], &bad[0])
		for k := range n {
			var pv []byte
			if k == 0 {
				pv = prev
			} else {
				pv = p[64*k-16 : 64*k]
			}
			if want := utf8LookupModel(p[64*k:64*k+64], pv); bad[k] != want {
				t.Fatalf("iteration %d, block %d of %d: utf8Blocks = %064b, model = %064b\nblock: % x", iter, k, n, bad[k], want, p[64*k:64*k+64])
			}
		}
	}
}

// TestScanPlainWindowUTF8Paths runs the window tests with each UTF-8 check.
func TestScanPlainWindowUTF8Paths(t *testing.T) {
	impltest.ForEach(t, utf8Kernel, func(t *testing.T) {
		TestScanPlainWindow(t)
		TestStopRun(t)
	})
}

// TestQuickCanonicalUTF8Paths runs the fast-path agreement test with each
// UTF-8 check.
func TestQuickCanonicalUTF8Paths(t *testing.T) {
	impltest.ForEach(t, utf8Kernel, TestQuickCanonicalAgrees)
}

// TestScanPlainWindowCutSequence puts a multi-byte sequence, whole or cut
// short, against every block boundary of a window, with the string's end in
// a later block, the padded tail or past the window: the window's UTF-8
// check must agree with the generic scanner each time.
func TestScanPlainWindowCutSequence(t *testing.T) {
	defer impltest.Select(t, utf8Kernel, "ssse3")()
	var c Canonicalizer
	seqs := [][]byte{{0xE3}, {0xE3, 0x81}, {0xE3, 0x81, 0x82}, {0xF0, 0x9F}, {0xF0, 0x9F, 0x98, 0x80}, {0xC3}, {0xC3, 0xA9}, {0x80}, {0xED, 0xA0, 0x80}}
	for _, blockEnd := range []int{64, 128, 4096, 4160} {
		for _, seq := range seqs {
			for shift := -len(seq); shift <= 2; shift++ {
				for _, after := range []int{0, 1, 5, 70} {
					// src: ',' ... '"' body '"' x*after: the sequence ends at blockEnd+shift.
					start := blockEnd + shift - len(seq) - 3
					src := bytes.Repeat([]byte{','}, start)
					src = append(src, '"', 'a', 'b')
					src = append(src, seq...)
					src = append(src, '"')
					src = append(src, bytes.Repeat([]byte{'x'}, after)...)
					c.src = src
					c.win.reset()
					c.win.fill(src, 0) // the window starts at the input's start
					gotEnd, gotEsc := c.scanPlain(start)
					wantEnd, wantEsc := scanPlainGeneric(src, start)
					if gotEnd != wantEnd || gotEsc != wantEsc {
						t.Fatalf("sequence % x ending at %d of %d bytes: scanPlain = %d, %v; generic = %d, %v",
							seq, blockEnd+shift, len(src), gotEnd, gotEsc, wantEnd, wantEsc)
					}
				}
			}
		}
	}
	c.src = nil
}

// TestClassifyBlocksAVX512 compares the AVX-512 classification kernel with
// the SSE2 one on random blocks dense in the classified bytes, at every
// alignment.
func TestClassifyBlocksAVX512(t *testing.T) {
	impltest.Need(t, classifyKernel, "avx512")
	r := rand.New(rand.NewPCG(21, 22))
	alpha := []byte{'"', '\\', 0x00, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xbf, 0xc3, 0xff, 'a', 0x5b, 0xe0}
	for iter := range 2000 {
		n := 1 + r.IntN(70)
		off := r.IntN(64)
		buf := make([]byte, off+64*n)
		for i := range buf {
			if r.IntN(3) == 0 {
				buf[i] = byte(r.Uint32())
			} else {
				buf[i] = alpha[r.IntN(len(alpha))]
			}
		}
		p := buf[off:]
		s1, h1 := make([]uint64, n), make([]uint64, n)
		s2, h2 := make([]uint64, n), make([]uint64, n)
		classifyBlocks(&p[0], n, &s1[0], &h1[0])
		classifyBlocksAVX512(&p[0], n, &s2[0], &h2[0])
		for k := range n {
			if s1[k] != s2[k] || h1[k] != h2[k] {
				t.Fatalf("iteration %d, block %d: AVX-512 stop %064b high %064b, SSE2 stop %064b high %064b\nblock: % x",
					iter, k, s2[k], h2[k], s1[k], h1[k], p[64*k:64*k+64])
			}
		}
	}
	// Every byte value, at every position of a block.
	var blk [64]byte
	for v := range 256 {
		for i := range blk {
			blk[i] = byte(v + i)
		}
		var s1, h1, s2, h2 uint64
		classifyBlocks(&blk[0], 1, &s1, &h1)
		classifyBlocksAVX512(&blk[0], 1, &s2, &h2)
		if s1 != s2 || h1 != h2 {
			t.Fatalf("bytes %d..: AVX-512 %064b %064b, SSE2 %064b %064b", v, s2, h2, s1, h1)
		}
	}
}

// TestScanPlainWindowClassifyPaths runs the window and fast-path tests
// with each classification kernel.
func TestScanPlainWindowClassifyPaths(t *testing.T) {
	impltest.ForEach(t, classifyKernel, func(t *testing.T) {
		TestScanPlainWindow(t)
		TestScanPlainWindowCutSequence(t)
		TestStopRun(t)
		TestQuickCanonicalAgrees(t)
	})
}
