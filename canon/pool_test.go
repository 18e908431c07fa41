package canon

import (
	"bytes"
	"testing"

	"github.com/bbdigest/bbdigest/internal/poolcap"
)

// bigDoc is a valid document whose canonical form is about twice
// poolcap.Max, pretty and unsorted, so that View writes that form into the
// arena (and, where whitespace is compressed first, the compact text too).
func bigDoc() []byte {
	return append(append([]byte("[\n"), bytes.Repeat([]byte(`{"b": 1, "a": "x"},`+"\n"), poolcap.Max/8)...), "{}]"...)
}

// TestPoolDropsLarge checks the measure of a Canonicalizer's scratch
// memory that every pool applies, and that the package's pool does not
// keep a Canonicalizer that one large input has grown past poolcap.Max.
func TestPoolDropsLarge(t *testing.T) {
	var c Canonicalizer
	if _, err := c.View([]byte(`{"b":1,"a":2}`)); err != nil {
		t.Fatal(err)
	}
	if n := c.arenaSize(); n == 0 || !poolcap.Keep(n) {
		t.Errorf("after a small input: arena %d bytes, want some, within poolcap.Max", n)
	}
	if _, err := c.View(bigDoc()); err != nil {
		t.Fatal(err)
	}
	n := c.arenaSize()
	if poolcap.Keep(n) {
		t.Errorf("after %d bytes of input: arena %d bytes, want more than poolcap.Max", len(bigDoc()), n)
	}
	if got := poolcap.CanonArena(&c); got != n {
		t.Errorf("poolcap.CanonArena = %d, want arenaSize %d", got, n)
	}
	big := getCanonicalizer(Strict)
	if _, err := big.View(bigDoc()); err != nil {
		t.Fatal(err)
	}
	putCanonicalizer(big)
	for range 4 {
		if c := getCanonicalizer(Strict); c == big {
			t.Fatal("the pool kept a Canonicalizer grown past poolcap.Max")
		}
	}
}
