package bbdigest

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// The envelope draft §6.4 example, as the CLI demo embeds it.
func readDemo(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("cmd", "bbdigest", "testdata", "demo", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDigestEnvelopeExample(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"envelope-draft-6.4.json", "sha256:0db384ab1b682c115d79babfefa91f014ad80c007d00c79119d748f32be232d1"},
		{"action-1-dates.json", "sha256:ff91e3166e64b892004d4b43b05ad6ed7ff0819463da80c72f27f47039c033fa"},
		{"action-2-dates-passport.json", "sha256:49be14ae6e74b950c0c7b790fa22538d45fb4853bb0f3b242b28204bee232945"},
	} {
		src := readDemo(t, tc.file)
		d, err := Digest(src)
		if err != nil || d.String() != tc.want {
			t.Errorf("%s: %v, %v; want %s", tc.file, d, err, tc.want)
		}
		// The same through a reused Digester, and through the canonical form.
		dg := NewDigester(canon.Strict)
		out, _ := canon.Canonicalize(src, canon.Strict)
		for _, in := range [][]byte{src, out} {
			if d2, err := dg.Digest(in); err != nil || d2 != d {
				t.Errorf("%s: Digester gives %v, %v", tc.file, d2, err)
			}
		}
		if sum := sha256.Sum256(out); [32]byte(d) != sum {
			t.Errorf("%s: digest differs from crypto/sha256 of the canonical bytes", tc.file)
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
	src := readDemo(t, "envelope-draft-6.4.json")
	dg := NewDigester(canon.Strict)
	dg.Digest(src)
	if n := testing.AllocsPerRun(50, func() { dg.Digest(src) }); n != 0 {
		t.Errorf("Digester.Digest allocates %v times", n)
	}
}
