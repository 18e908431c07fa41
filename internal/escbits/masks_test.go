package escbits

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// naiveMasks builds Masks' four bitmaps of b from its definition, one
// predicate per bitmap.
func naiveMasks(b []byte) (q, bs, sl, other uint64) {
	set := func(pred func(byte) bool) (m uint64) {
		for k, c := range b {
			if pred(c) {
				m |= 1 << k
			}
		}
		return m
	}
	return set(func(c byte) bool { return c == '"' }),
		set(func(c byte) bool { return c == '\\' }),
		set(func(c byte) bool { return c == '/' }),
		set(func(c byte) bool { return c < 0x20 || c >= 0x80 })
}

// maskImpls are the implementations of Masks this build and CPU can run,
// by name: the byte loop always, the kernel where HaveAVX512.
func maskImpls(t *testing.T) map[string]func(p *byte, l int) (q, bs, sl, other uint64) {
	impls := map[string]func(p *byte, l int) (q, bs, sl, other uint64){"generic": masksGeneric}
	if HaveAVX512 {
		impls["avx512"] = Masks
	} else {
		t.Log("no AVX-512 kernel in this build or on this CPU: the byte loop alone is tested")
	}
	return impls
}

// interesting are the bytes each bitmap tells apart from its neighbours.
var interesting = []byte{'"', '\\', '/', 0x00, 0x1f, ' ', '!', '.', '0', '[', ']', '~', 0x7f, 0x80, 0xbf, 0xc3, 0xe2, 0xf0, 0xff, 'a', 'u'}

// TestMasks holds every implementation to the definition on every length
// from 1 to 64, on bytes of every kind and on random bytes, with bytes
// past the length that would set bits if they were read.
func TestMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	buf := make([]byte, 128)
	for name, masks := range maskImpls(t) {
		for l := 1; l <= 64; l++ {
			for round := range 200 {
				for k := range buf {
					if round%2 == 0 {
						buf[k] = interesting[r.IntN(len(interesting))]
					} else {
						buf[k] = byte(r.Uint32())
					}
				}
				for k := l; k < len(buf); k++ {
					buf[k] = "\"\\/\x01\xff"[k%5] // past the length: never in a bitmap
				}
				q, bs, sl, other := masks(&buf[0], l)
				wq, wbs, wsl, wo := naiveMasks(buf[:l])
				if q != wq || bs != wbs || sl != wsl || other != wo {
					t.Fatalf("%s: Masks(%x, %d) = %x %x %x %x, want %x %x %x %x", name, buf[:l], l, q, bs, sl, other, wq, wbs, wsl, wo)
				}
			}
		}
		// Every byte value at every position.
		for c := range 256 {
			for k := range 64 {
				b := bytes.Repeat([]byte{'a'}, 64)
				b[k] = byte(c)
				q, bs, sl, other := masks(&b[0], 64)
				wq, wbs, wsl, wo := naiveMasks(b)
				if q != wq || bs != wbs || sl != wsl || other != wo {
					t.Fatalf("%s: byte %#x at %d: %x %x %x %x, want %x %x %x %x", name, c, k, q, bs, sl, other, wq, wbs, wsl, wo)
				}
			}
		}
	}
}
