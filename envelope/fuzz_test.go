package envelope

import (
	"bytes"
	"errors"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// FuzzParse checks that Parse never panics, that an accepted input's
// canonical bytes parse to the same digest, and that acceptance is stable
// under canonicalization: Parse(canon.Canonicalize(src)) accepts iff
// Parse(src) does, with the same problems.
func FuzzParse(f *testing.F) {
	draft, meta := readTestdata(f, draftFile), readTestdata(f, metaFile)
	f.Add(draft)
	f.Add(meta)
	for _, tc := range placements(f) {
		f.Add([]byte(tc.src))
	}
	for _, tc := range malformedCases() {
		if tc.f == nil {
			continue
		}
		base := draft
		if tc.meta {
			base = meta
		}
		f.Add(mutate(f, base, tc.f))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var p Parser
		e, err := p.Parse(src)
		c, cerr := canon.Canonicalize(src, canon.Strict)
		if (err == nil) != (cerr == nil) && cerr != nil {
			t.Fatalf("Parse accepted input the canon gate rejects: %v", cerr)
		}
		if cerr != nil {
			if _, ok := canon.AsError(err); !ok {
				t.Fatalf("gate rejection not returned as *canon.Error: %v", err)
			}
			return
		}
		var q Parser
		e2, err2 := q.Parse(c)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("Parse(src) error %v, Parse(canonical) error %v", err, err2)
		}
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNoEnvelope) && !errors.Is(err, ErrAmbiguous) {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			if err.Error() != err2.Error() {
				t.Fatalf("problems differ:\n%v\n%v", err, err2)
			}
			return
		}
		if e.Digest() != e2.Digest() || p.Placement() != q.Placement() {
			t.Fatalf("digest or placement differs after canonicalization")
		}
		// The envelope's canonical bytes are canonical and parse to the same
		// digest as a bare envelope.
		if !canon.IsCanonical(e.Canonical(), canon.Strict) {
			t.Fatalf("Canonical() is not canonical: %s", e.Canonical())
		}
		e3, err := Parse(e.Canonical())
		if err != nil || e3.Digest() != e.Digest() {
			t.Fatalf("Parse(Canonical()) = %v", err)
		}
		if !bytes.Equal(e3.Canonical(), e.Canonical()) {
			t.Fatalf("canonical bytes differ")
		}
		_ = RenderText(e)
	})
}
