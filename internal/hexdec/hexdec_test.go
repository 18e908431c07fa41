package hexdec

import (
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// paths are the implementations of Lower32 this platform has, each with a
// function that forces it (nil: nothing to force).
func paths() []struct {
	name  string
	lower func(*[32]byte, *[64]byte) bool
} {
	p := []struct {
		name  string
		lower func(*[32]byte, *[64]byte) bool
	}{{"generic", lower32Generic}, {"default", Lower32}}
	if haveAVX512 {
		p = append(p, struct {
			name  string
			lower func(*[32]byte, *[64]byte) bool
		}{"avx512", lower32AVX512})
	}
	return p
}

// reference decodes src with encoding/hex, after refusing what is not a
// lowercase digit (encoding/hex takes uppercase too).
func reference(src *[64]byte) ([32]byte, bool) {
	var d [32]byte
	for _, c := range src {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return d, false
		}
	}
	_, err := hex.Decode(d[:], src[:])
	return d, err == nil
}

// TestLower32 holds every path to encoding/hex: on random digests, on each
// digest with one byte at each position replaced by each of the 256 byte
// values, and on random bytes.
func TestLower32(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	const digits = "0123456789abcdef"
	check := func(src *[64]byte) {
		want, wantOK := reference(src)
		for _, p := range paths() {
			var got [32]byte
			ok := p.lower(&got, src)
			if ok != wantOK || ok && got != want {
				t.Fatalf("%s(%q) = %x, %v; want %x, %v", p.name, src[:], got, ok, want, wantOK)
			}
		}
	}
	for range 200 {
		var src [64]byte
		for i := range src {
			src[i] = digits[r.IntN(16)]
		}
		check(&src)
		at := r.IntN(64)
		keep := src[at]
		for v := range 256 {
			src[at] = byte(v)
			check(&src)
		}
		src[at] = keep
	}
	for range 2000 {
		var src [64]byte
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		check(&src)
	}
	var all [64]byte
	for i := range all {
		all[i] = digits[i%16]
	}
	check(&all)
}

// TestLower32Forced checks that Lower32 follows useAVX512.
func TestLower32Forced(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512 BW here")
	}
	old := useAVX512
	t.Cleanup(func() { useAVX512 = old })
	var src [64]byte
	for i := range src {
		src[i] = "0123456789abcdef"[i%16]
	}
	for _, on := range []bool{false, true} {
		useAVX512 = on
		var d [32]byte
		if !Lower32(&d, &src) || d[0] != 0x01 || d[31] != 0xef {
			t.Fatalf("useAVX512=%v: %x", on, d)
		}
	}
}

// BenchmarkLower32 decodes one digest with each path.
func BenchmarkLower32(b *testing.B) {
	var src [64]byte
	for i := range src {
		src[i] = "0123456789abcdef"[(i*7)%16]
	}
	for _, p := range paths() {
		b.Run("path="+p.name, func(b *testing.B) {
			var d [32]byte
			for b.Loop() {
				if !p.lower(&d, &src) {
					b.Fatal("refused")
				}
			}
		})
	}
}
