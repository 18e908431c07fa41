package escbits

import (
	"math/rand/v2"
	"testing"
)

// naiveEscapes is Escapes one bit at a time: a backslash not
// escaped escapes the byte after it.
func naiveEscapes(bs uint64) (esc, escaped uint64) {
	for k := 0; k < 64; k++ {
		if bs>>k&1 == 0 || escaped>>k&1 != 0 {
			continue
		}
		esc |= 1 << k
		if k < 63 {
			escaped |= 1 << (k + 1)
		}
	}
	return esc, escaped
}

// TestEscapes holds Escapes to the rule on bitmaps of every density,
// runs of backslashes of every length at every position included.
func TestEscapes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	check := func(bs uint64) {
		e, x := Escapes(bs)
		we, wx := naiveEscapes(bs)
		if e != we || x != wx {
			t.Fatalf("Escapes(%064b):\nesc     %064b\nwant    %064b\nescaped %064b\nwant    %064b", bs, e, we, x, wx)
		}
	}
	for start := range 64 {
		for length := 1; start+length <= 64; length++ {
			check((^uint64(0) >> (64 - length)) << start)
		}
	}
	for range 100000 {
		bs := r.Uint64()
		for range r.IntN(3) {
			bs &= r.Uint64()
		}
		if r.IntN(2) == 0 {
			bs |= r.Uint64() & r.Uint64()
		}
		check(bs)
	}
	check(0)
	check(^uint64(0))
}
