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

// TestPoolDropsLarge checks Poolable, the measure of a Canonicalizer's
// scratch memory that every pool applies, and that the package's pool does
// not keep a Canonicalizer that one large input has grown past poolcap.Max.
func TestPoolDropsLarge(t *testing.T) {
	var c Canonicalizer
	if _, err := c.View([]byte(`{"b":1,"a":2}`)); err != nil {
		t.Fatal(err)
	}
	if n := c.arenaSize(); n == 0 || !poolcap.Keep(n) || !c.Poolable() {
		t.Errorf("after a small input: arena %d bytes, Poolable %v; want some, within poolcap.Max", n, c.Poolable())
	}
	if _, err := c.View(bigDoc()); err != nil {
		t.Fatal(err)
	}
	if n := c.arenaSize(); poolcap.Keep(n) || c.Poolable() {
		t.Errorf("after %d bytes of input: arena %d bytes, Poolable %v; want more than poolcap.Max", len(bigDoc()), n, c.Poolable())
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
