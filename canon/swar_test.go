package canon

import (
	"math/rand/v2"
	"testing"
)

// TestSpecialBytes checks the SWAR test against a byte loop: the lowest
// flagged byte is the first special byte, on random words built from
// interesting byte values.
func TestSpecialBytes(t *testing.T) {
	vals := []byte{0, 1, 0x1f, 0x20, 0x21, '"', 0x23, '\\', 0x5b, 0x5d, 'a', 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 1_000_000; n++ {
		var w [8]byte
		for i := range w {
			w[i] = vals[r.IntN(len(vals))]
			if r.IntN(4) == 0 {
				w[i] = byte(r.Uint32())
			}
		}
		x := uint64(0)
		for i := 7; i >= 0; i-- {
			x = x<<8 | uint64(w[i])
		}
		want := -1
		for i, c := range w {
			if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
				want = i
				break
			}
		}
		m := specialBytes(x)
		got := -1
		if m != 0 {
			for i := 0; i < 8; i++ {
				if m>>(8*i+7)&1 != 0 {
					got = i
					break
				}
			}
		}
		if got != want {
			t.Fatalf("%q: first special byte %d, want %d", w, got, want)
		}
	}
}
