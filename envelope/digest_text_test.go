package envelope

import (
	"testing"

	"github.com/bbdigest/bbdigest/hashing"
)

// TestDigestTextAgrees: digestText, the decoder of an option's
// action_digest, decodes the texts hashing.ParseDigest decodes, to the
// same digest, and no others: a valid digest text with each of its bytes
// replaced by each byte value, and texts of other lengths.
func TestDigestTextAgrees(t *testing.T) {
	base := []byte(hashing.Sum([]byte("x")).String())
	check := func(text []byte) {
		t.Helper()
		var d hashing.Digest
		ok := digestText(&d, text)
		want, err := hashing.ParseDigest(string(text))
		if ok != (err == nil) || ok && d != want {
			t.Fatalf("digestText(%q) = %v, %v; hashing.ParseDigest %v, %v", text, d, ok, want, err)
		}
	}
	check(base)
	for i := range base {
		for c := range 256 {
			text := append([]byte(nil), base...)
			text[i] = byte(c)
			check(text)
		}
	}
	check(base[:len(base)-1])
	check(append(append([]byte(nil), base...), '0'))
	check(nil)
}
