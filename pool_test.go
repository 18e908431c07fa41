package bbdigest

import (
	"bytes"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/poolcap"
)

// TestDigesterPoolDropsLarge checks that the pool of Digesters does not
// keep one that a large input has grown past poolcap.Max.
func TestDigesterPoolDropsLarge(t *testing.T) {
	big := getDigester(canon.Strict)
	src := append(append([]byte("["), bytes.Repeat([]byte(`{"b":1,"a":"x"},`), poolcap.Max/8)...), "{}]"...)
	if _, err := big.Digest(src); err != nil {
		t.Fatal(err)
	}
	if big.c.Poolable() {
		t.Fatalf("after %d bytes of input: the Canonicalizer is Poolable, want it past poolcap.Max", len(src))
	}
	putDigester(big)
	for range 4 {
		if d := getDigester(canon.Strict); d == big {
			t.Fatal("the pool kept a Digester grown past poolcap.Max")
		}
	}
}
