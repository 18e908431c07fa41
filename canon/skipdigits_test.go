package canon

import (
	"math/rand/v2"
	"testing"
)

// TestSkipDigits compares skipDigits with a byte loop on every byte value
// as the first non-digit, at every position of runs around the eight-byte
// steps, with any bytes after it.
func TestSkipDigits(t *testing.T) {
	slow := func(src []byte, i int) int {
		for i < len(src) && isDigit(src[i]) {
			i++
		}
		return i
	}
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 40; n++ {
		for stop := 0; stop <= n; stop++ {
			for b := range 256 {
				src := make([]byte, n)
				for k := range src {
					src[k] = byte('0' + r.IntN(10))
				}
				if stop < n {
					src[stop] = byte(b)
					for k := stop + 1; k < n; k++ { // anything after it
						src[k] = byte(r.IntN(256))
					}
				}
				for start := 0; start <= min(n, 3); start++ {
					if got, want := skipDigits(src, start), slow(src, start); got != want {
						t.Fatalf("skipDigits(%q, %d) = %d, want %d", src, start, got, want)
					}
				}
			}
		}
	}
}
