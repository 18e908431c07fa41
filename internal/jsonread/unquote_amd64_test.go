//go:build !purego

package jsonread

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestCompressStore holds the kernel to a byte loop: it writes exactly
// the kept bytes, and nothing past them.
func TestCompressStore(t *testing.T) {
	if !useUnquoteAVX512 {
		t.Skip("no AVX-512 VBMI2 path on this CPU")
	}
	r := rand.New(rand.NewPCG(9, 10))
	src := make([]byte, 64)
	for range 20000 {
		l := 1 + r.IntN(64)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		keep := r.Uint64() & (^uint64(0) >> (64 - l))
		dst := bytes.Repeat([]byte{0xEE}, 80)
		compressStore(&dst[0], &src[0], l, keep)
		var want []byte
		for k := range l {
			if keep>>k&1 != 0 {
				want = append(want, src[k])
			}
		}
		n := bits.OnesCount64(keep)
		if !bytes.Equal(dst[:n], want) || bytes.Count(dst[n:], []byte{0xEE}) != 80-n {
			t.Fatalf("l=%d keep=%064b: wrote %x, want %x then untouched", l, keep, dst, want)
		}
	}
}
