//go:build !purego

package canon

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

// haveIndexStop and indexStopFunc let the tests reach indexStop where it exists.
const haveIndexStop = true

var indexStopFunc = indexStop

// utf8BlockKernels are the implementations of the utf8 kernel that compute
// the window's error bitmap, by their names in the registry.
var utf8BlockKernels = []struct {
	name string
	f    func(p *byte, n int, prev *byte, high, bad *uint64)
}{
	{"ssse3", utf8BlocksSSSE3},
	{"avx512", utf8BlocksAVX512},
}

// checkUTF8Blocks runs the block kernel f over the blocks of buf[16:]
// (whose length is a multiple of 64), with buf[:16] as the bytes before
// them, and fails unless every block's bitmap is the model's.
func checkUTF8Blocks(t *testing.T, name string, f func(p *byte, n int, prev *byte, high, bad *uint64), buf []byte, what string) {
	t.Helper()
	prev, p := buf[:16], buf[16:]
	n := len(p) / 64
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
	f(&p[0], n, &prev[0], &high[0], &bad[0])
	for k := range n {
		var pv []byte
		if k == 0 {
			pv = prev
		} else {
			pv = p[64*k-16 : 64*k]
		}
		if want := utf8LookupModel(p[64*k:64*k+64], pv); bad[k] != want {
			t.Fatalf("%s: %s, block %d of %d: bitmap %064b, model %064b\nbytes before: % x\nblock: % x",
				name, what, k, n, bad[k], want, pv[13:], p[64*k:64*k+64])
		}
	}
}

// TestUTF8Blocks compares each block kernel with the Go model of the
// lookup method on random runs of blocks: mostly well-formed text with
// damage, pure ASCII blocks (which it skips), and sequences cut short just
// before a 16-byte boundary, where the SSSE3 kernel's chunks meet.
func TestUTF8Blocks(t *testing.T) {
	for _, kf := range utf8BlockKernels {
		t.Run("impl="+kf.name, func(t *testing.T) {
			impltest.Need(t, utf8Kernel, kf.name)
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
				checkUTF8Blocks(t, kf.name, kf.f, buf, fmt.Sprintf("iteration %d", iter))
			}
		})
	}
}

// utf8Adversarial lists byte sequences for the boundary tests: well-formed
// sequences of every length at the edges of their ranges, each of their
// truncations, and every kind of ill-formed sequence the lookup method
// tells apart (overlong, surrogate, too large, stray and extra
// continuations, a lead byte before a lead byte or ASCII).
func utf8Adversarial() [][]byte {
	whole := [][]byte{
		{0xC2, 0x80}, {0xDF, 0xBF}, {0xC3, 0xA9},
		{0xE0, 0xA0, 0x80}, {0xE1, 0x80, 0x80}, {0xEC, 0xBF, 0xBF}, {0xED, 0x9F, 0xBF},
		{0xEE, 0x80, 0x80}, {0xEF, 0xBF, 0xBF}, {0xE3, 0x81, 0x82},
		{0xF0, 0x90, 0x80, 0x80}, {0xF0, 0x9F, 0x98, 0x80}, {0xF3, 0xBF, 0xBF, 0xBF}, {0xF4, 0x8F, 0xBF, 0xBF},
	}
	seqs := slices.Clone(whole)
	for _, w := range whole {
		for n := 1; n < len(w); n++ {
			seqs = append(seqs, w[:n])                             // truncated
			seqs = append(seqs, append(slices.Clone(w[:n]), w...)) // truncated, then a lead byte
		}
		seqs = append(seqs, append(slices.Clone(w), 0x80)) // an extra continuation
	}
	seqs = append(seqs,
		[]byte{0x80}, []byte{0xBF}, []byte{0x80, 0x80}, []byte{0xBF, 0xBF, 0xBF, 0xBF}, // stray continuations
		[]byte{0xC0, 0x80}, []byte{0xC1, 0xBF}, // overlong two-byte
		[]byte{0xE0, 0x80, 0x80}, []byte{0xE0, 0x9F, 0xBF}, // overlong three-byte
		[]byte{0xF0, 0x80, 0x80, 0x80}, []byte{0xF0, 0x8F, 0xBF, 0xBF}, // overlong four-byte
		[]byte{0xED, 0xA0, 0x80}, []byte{0xED, 0xBF, 0xBF}, []byte{0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80}, // surrogates
		[]byte{0xF4, 0x90, 0x80, 0x80}, []byte{0xF4, 0xBF, 0xBF, 0xBF}, []byte{0xF5, 0x80, 0x80, 0x80}, // too large
		[]byte{0xF7, 0xBF, 0xBF, 0xBF}, []byte{0xF8, 0x88, 0x80, 0x80, 0x80}, []byte{0xFC, 0x84, 0x80, 0x80, 0x80, 0x80},
		[]byte{0xFE}, []byte{0xFF}, []byte{0xC0}, []byte{0xF5}, // bytes that never occur
		[]byte{0xC3, 0xC3, 0xA9}, []byte{0xE3, 0xE3, 0x81, 0x82}, []byte{0xF0, 0xC3, 0xA9}, // a lead byte before a lead byte
	)
	return seqs
}

// TestUTF8BlocksBoundaries places every sequence of utf8Adversarial at
// every offset of three blocks and the 16 bytes before them, on
// backgrounds of ASCII, of well-formed two-, three- and four-byte text and
// of bytes that are never UTF-8: so each sequence straddles every 16- and
// 64-byte boundary, and runs from the bytes before the first block into it.
// Each block kernel must give the model's bitmaps every time.
func TestUTF8BlocksBoundaries(t *testing.T) {
	backgrounds := []struct {
		name string
		unit []byte
	}{
		{"ascii", []byte("a")},
		{"two-byte", []byte("é")},
		{"three-byte", []byte("あ")},
		{"four-byte", []byte("😀")},
		{"mixed", []byte("aé😀あ")},
		{"invalid", []byte{0xFF}},
	}
	seqs := utf8Adversarial()
	for _, kf := range utf8BlockKernels {
		t.Run("impl="+kf.name, func(t *testing.T) {
			impltest.Need(t, utf8Kernel, kf.name)
			const size = 16 + 3*64
			for _, bg := range backgrounds {
				base := bytes.Repeat(bg.unit, size/len(bg.unit)+1)[:size]
				buf := make([]byte, size)
				for _, seq := range seqs {
					for at := 0; at < size; at++ {
						copy(buf, base)
						copy(buf[at:], seq) // cut short at the end of the last block
						checkUTF8Blocks(t, kf.name, kf.f, buf, fmt.Sprintf("% x at offset %d of %s", seq, at-16, bg.name))
					}
				}
			}
		})
	}
}

// TestUTF8BlocksDispatch checks utf8Blocks, the entry fillBad calls,
// under each block kernel put in force through the registry: it must jump
// to a kernel that writes the model's bitmaps (with the arguments intact).
func TestUTF8BlocksDispatch(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, kf := range utf8BlockKernels {
		t.Run("impl="+kf.name, func(t *testing.T) {
			defer impltest.Select(t, utf8Kernel, kf.name)()
			for iter := range 200 {
				buf := randomUTF8ish(r, 16+64*(1+r.IntN(6)))
				checkUTF8Blocks(t, "utf8Blocks under "+kf.name, utf8Blocks, buf, fmt.Sprintf("iteration %d", iter))
			}
		})
	}
}

// FuzzUTF8Blocks compares each block kernel with the model on arbitrary
// bytes: the first 16 are the bytes before the blocks, the rest is padded
// with the byte skip to whole blocks (ASCII for skip < 0x80, so that the
// skipping of ASCII blocks is reached too).
func FuzzUTF8Blocks(f *testing.F) {
	f.Add([]byte("0123456789abcdef東京 😀 café \xed\xa0\x80"), byte('a'))
	f.Add(bytes.Repeat([]byte{0xF0, 0x9F, 0x98}, 30), byte(0x80))
	f.Add(append(bytes.Repeat([]byte{'x'}, 15), 0xE3), byte('x'))
	f.Fuzz(func(t *testing.T, in []byte, pad byte) {
		buf := make([]byte, 16+64*max(1, (len(in)+47)/64))
		for i := range buf {
			buf[i] = pad
		}
		copy(buf, in)
		for _, kf := range utf8BlockKernels {
			if utf8Kernel.Has(kf.name) {
				checkUTF8Blocks(t, kf.name, kf.f, buf, "fuzz input")
			}
		}
	})
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
	impltest.ForEach(t, utf8Kernel, scanPlainWindowCutSequence)
}

func scanPlainWindowCutSequence(t *testing.T) {
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

// BenchmarkUTF8Blocks measures each block kernel on a window of 64 blocks
// (4 KiB): text=mixed is well-formed text of runes of every length, in
// which every block holds a high byte and is checked; text=ascii-runes is
// ASCII with a rune every 200 bytes, so that most blocks are checked and
// some skipped.
func BenchmarkUTF8Blocks(b *testing.B) {
	const n = winWords
	r := rand.New(rand.NewPCG(31, 32))
	mixed := make([]byte, 0, 16+64*n+4)
	for len(mixed) < 16+64*n {
		switch r.IntN(4) {
		case 0:
			mixed = append(mixed, byte(0x20+r.IntN(0x5F)))
		case 1:
			mixed = utf8.AppendRune(mixed, rune(0x80+r.IntN(0x780)))
		case 2:
			mixed = utf8.AppendRune(mixed, rune(0x3000+r.IntN(0x6000)))
		default:
			mixed = utf8.AppendRune(mixed, rune(0x1F300+r.IntN(0x300)))
		}
	}
	ascii := make([]byte, 16+64*n)
	for i := range ascii {
		ascii[i] = byte(0x20 + r.IntN(0x5F))
	}
	for at := 100; at+4 < len(ascii); at += 200 {
		copy(ascii[at:], "😀")
	}
	for _, in := range []struct {
		name string
		buf  []byte
	}{{"mixed", mixed[:16+64*n]}, {"ascii-runes", ascii}} {
		prev, p := in.buf[:16], in.buf[16:]
		var high, bad [n]uint64
		for k := range n {
			for i := range 64 {
				if p[64*k+i] >= 0x80 {
					high[k] |= 1 << i
				}
			}
		}
		for _, kf := range utf8BlockKernels {
			b.Run("text="+in.name+"/impl="+kf.name, func(b *testing.B) {
				impltest.Need(b, utf8Kernel, kf.name)
				b.SetBytes(64 * n)
				for b.Loop() {
					kf.f(&p[0], n, &prev[0], &high[0], &bad[0])
				}
				if bad != [n]uint64{} {
					b.Fatal("the kernel reports errors in well-formed text")
				}
			})
		}
	}
}

// TestScanPlainWindowStale runs scanPlainQuick over inputs that end exactly
// at a block boundary inside or at the end of a string, right after a
// longer input has filled every word of the window with stop bits: the
// words past the new window's last (which scanPlainQuick's eight-byte load
// reads when a string starts in the window's last word) hold the old
// input's bits, and a stop read from them must never end a string. Each
// result must be the generic scanner's.
func TestScanPlainWindowStale(t *testing.T) {
	var c Canonicalizer
	dense := bytes.Repeat([]byte(`\\`), 2*64*winWords) // stop bits everywhere
	for blocks := 1; blocks <= 9; blocks++ {
		for _, last := range []byte{'a', '"', 0xa9} {
			for start := 2; start < 64*blocks-1; start += 3 {
				src := bytes.Repeat([]byte{'a'}, 64*blocks)
				src[0], src[1] = '"', '"' // an empty string first: it places the window
				src[start] = '"'
				src[len(src)-1] = last
				if last == 0xa9 { // the first byte of a cut sequence ends the input
					src[len(src)-1] = 0xc3
				}
				// Prime the window with the dense input, then scan src.
				c.src = dense
				c.win.reset()
				c.scanPlainQuick(len(dense) - 3)
				c.scanPlainQuick(0)
				c.src = src
				c.win.reset()
				if end, esc := c.scanPlainQuick(0); end != 2 || esc {
					t.Fatalf("%d-byte input: scanPlainQuick(0) = %d, %v; want 2, false", len(src), end, esc)
				}
				gotEnd, gotEsc := c.scanPlainQuick(start)
				wantEnd, wantEsc := scanPlainGeneric(src, start)
				if gotEnd != wantEnd || gotEsc != wantEsc {
					t.Fatalf("%d-byte input, string at %d, last byte %#x: scanPlainQuick = %d, %v; scanPlainGeneric = %d, %v",
						len(src), start, src[len(src)-1], gotEnd, gotEsc, wantEnd, wantEsc)
				}
			}
		}
	}
	c.src = nil
}
