package bbdigest

import (
	"crypto/sha256"
	"errors"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// TestDigestEnvelopeExample digests the envelope draft's §6.4 example, as
// the CLI demo embeds it, and gets the digests the draft publishes.
func TestDigestEnvelopeExample(t *testing.T) {
	for _, tc := range []struct {
		file string
		src  []byte
		want string
	}{
		{"envelope-draft-6.4.json", demo.DraftEnvelope(), demo.DraftEnvelopeDigest},
		{"action-1-dates.json", demo.DraftAction1(), demo.DraftAction1Digest},
		{"action-2-dates-passport.json", demo.DraftAction2(), demo.DraftAction2Digest},
	} {
		src, file := tc.src, tc.file
		d, err := Digest(src)
		if err != nil || d.String() != tc.want {
			t.Errorf("%s: %v, %v; want %s", file, d, err, tc.want)
		}
		// The same through a reused Digester, and through the canonical form.
		dg := NewDigester(canon.Strict)
		out, _ := canon.Canonicalize(src, canon.Strict)
		for _, in := range [][]byte{src, out} {
			if d2, err := dg.Digest(in); err != nil || d2 != d {
				t.Errorf("%s: Digester gives %v, %v", file, d2, err)
			}
		}
		if sum := sha256.Sum256(out); [32]byte(d) != sum {
			t.Errorf("%s: digest differs from crypto/sha256 of the canonical bytes", file)
		}
	}
}

func TestDigestRejects(t *testing.T) {
	if _, err := Digest([]byte(`{"a":1,"a":2}`)); !errors.Is(err, canon.ErrDuplicateName) {
		t.Errorf("duplicate: %v", err)
	}
	if _, err := Digest([]byte(`1.5`)); !errors.Is(err, canon.ErrNonInteger) {
		t.Errorf("1.5 strict: %v", err)
	}
	d, err := DigestProfile([]byte(`1.5`), canon.RFC8785)
	if err != nil || [32]byte(d) != sha256.Sum256([]byte("1.5")) {
		t.Errorf("1.5 rfc8785: %v, %v", d, err)
	}
}

func TestDigesterAllocs(t *testing.T) {
	src := demo.DraftEnvelope()
	dg := NewDigester(canon.Strict)
	dg.Digest(src)
	if n := testing.AllocsPerRun(50, func() { dg.Digest(src) }); n != 0 {
		t.Errorf("Digester.Digest allocates %v times", n)
	}
}
