package archivegen

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// generate returns the archive of opts.
func generate(t *testing.T, opts Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCanonicalForm checks the canonical form this package writes against
// canon's, for thousands of generated values of every record type, and
// that canon's strict profile accepts each styled form.
func TestCanonicalForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		var v any
		if i%2 == 0 {
			v = envelope(rng)
		} else {
			v = mixedRecord(rng, int64(i))
		}
		want := appendCanonical(nil, v)
		for _, st := range []style{{canonical: true}, {shuffle: true}, {shuffle: true, escape: true}, {shuffle: true, space: true}} {
			src := appendStyled(nil, v, st, rng)
			got, err := canon.Canonicalize(src, canon.Strict)
			if err != nil {
				t.Fatalf("record %d, style %+v: %v\n%s", i, st, err, src)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("record %d, style %+v: canon gives\n%s\nthis package\n%s", i, st, got, want)
			}
			if bytes.IndexByte(src, '\n') >= 0 {
				t.Fatalf("record %d: a newline in the record", i)
			}
		}
	}
}

// TestCompareUTF16 checks the member order on names whose UTF-8 byte order
// differs from their UTF-16 order (RFC 8785 §3.2.3).
func TestCompareUTF16(t *testing.T) {
	if compareUTF16("\U0001F600", "\uFB01") >= 0 || compareUTF16("a", "b") >= 0 || compareUTF16("ab", "a") <= 0 || compareUTF16("x", "x") != 0 {
		t.Error("compareUTF16 does not order by UTF-16 code units")
	}
	got := string(appendCanonical(nil, object{{"\uFB01", int64(1)}, {"\U0001F600", int64(2)}, {"a", int64(3)}}))
	if want := "{\"a\":3,\"\U0001F600\":2,\"\uFB01\":1}"; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}

// TestClaims checks a claims archive: each line a wrapper whose digest is
// the SHA-256 (crypto/sha256) of canon's canonical form of doc, but for
// exactly the Wrong records, spread evenly.
func TestClaims(t *testing.T) {
	const n, wrong = 1000, 7
	archive := generate(t, Options{Kind: Claims, Records: n, Seed: 3, Wrong: wrong})
	lines := strings.Split(strings.TrimSuffix(string(archive), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	var bad []int
	for i, l := range lines {
		var rec struct {
			Digest string          `json:"digest"`
			Doc    json.RawMessage `json:"doc"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		c, err := canon.Canonicalize(rec.Doc, canon.Strict)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if fmt.Sprintf("sha256:%x", sha256.Sum256(c)) != rec.Digest {
			bad = append(bad, i)
		}
	}
	if want := fmt.Sprint([]int{142, 285, 428, 571, 714, 857, 999}); fmt.Sprint(bad) != want {
		t.Errorf("wrong claims at %v, want %s", bad, want)
	}
}

// TestDeterministic checks that an archive is a function of its options:
// the same bytes twice, other bytes for another seed, a shorter archive a
// prefix of a longer one, and every record canonical with Canonical.
func TestDeterministic(t *testing.T) {
	for _, kind := range []Kind{Envelopes, Mixed, Claims} {
		a := generate(t, Options{Kind: kind, Records: 200, Seed: 9})
		if b := generate(t, Options{Kind: kind, Records: 200, Seed: 9}); !bytes.Equal(a, b) {
			t.Errorf("%s: two archives of the same options differ", kind)
		}
		if b := generate(t, Options{Kind: kind, Records: 200, Seed: 10}); bytes.Equal(a, b) {
			t.Errorf("%s: seeds 9 and 10 give the same archive", kind)
		}
		if b := generate(t, Options{Kind: kind, Records: 50, Seed: 9}); !bytes.HasPrefix(a, b) {
			t.Errorf("%s: 50 records are not a prefix of 200", kind)
		}
		if kind == Claims {
			continue
		}
		c := generate(t, Options{Kind: kind, Records: 200, Seed: 9, Canonical: true})
		noncanonical := 0
		for _, l := range bytes.Split(bytes.TrimSuffix(a, []byte("\n")), []byte("\n")) {
			if !canon.IsCanonical(l, canon.Strict) {
				noncanonical++
			}
		}
		for i, l := range bytes.Split(bytes.TrimSuffix(c, []byte("\n")), []byte("\n")) {
			if !canon.IsCanonical(l, canon.Strict) {
				t.Fatalf("%s, Canonical: line %d is not canonical", kind, i+1)
			}
		}
		if noncanonical < 100 || noncanonical > 180 {
			t.Errorf("%s: %d of 200 records not canonical, want about two thirds", kind, noncanonical)
		}
	}
}

// TestSizes checks that envelopes are of the size the benchmarks assume,
// 1 to 2 KB on average.
func TestSizes(t *testing.T) {
	a := generate(t, Options{Records: 2000, Seed: 1})
	if avg := len(a) / 2000; avg < 1000 || avg > 2000 {
		t.Errorf("envelopes average %d bytes", avg)
	}
}

// TestOptionsErrors checks that options out of range are refused.
func TestOptionsErrors(t *testing.T) {
	for _, opts := range []Options{{Kind: 3}, {Records: -1}, {Kind: Claims, Records: 5, Wrong: 6}, {Kind: Claims, Records: 5, Wrong: -1}, {Kind: Mixed, Records: 5, Wrong: 1}} {
		if _, err := New(opts); err == nil {
			t.Errorf("%+v: no error", opts)
		}
	}
	if k, err := ParseKind("mixed"); k != Mixed || err != nil || Mixed.String() != "mixed" {
		t.Errorf("ParseKind(mixed) = %v, %v", k, err)
	}
	if _, err := ParseKind("x"); err == nil {
		t.Error("ParseKind(x): no error")
	}
}
