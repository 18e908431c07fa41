package envelope

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// FuzzParse checks that Parse never panics; that it rejects, with a
// *canon.Error, whatever the rfc8785 gate rejects, and otherwise rejects
// with a *canon.Error only for a bound of the strict profile; that
// acceptance, digest, placement and problems are stable under
// canonicalization of the whole input (rfc8785, which is what the wrapper
// of an envelope is read under, and strict when the input is in the strict
// profile); that an accepted envelope's canonical bytes parse to the
// same digest; and that the decoder's fast path agrees with decode on the
// input's strict canonical form (checkFastAgrees).
func FuzzParse(f *testing.F) {
	draft, meta := demo.DraftEnvelope(), demo.MetaEnvelope()
	f.Add(draft)
	f.Add(meta)
	for _, tc := range placements(f) {
		f.Add([]byte(tc.src))
		f.Add([]byte(strings.Replace(tc.src, `"rooms":3`, `"rooms":3.5`, 1)))
	}
	f.Add([]byte(`{"price":1e-400,"binding_moment":` + string(draft) + `}`))
	f.Add(bigEnvelope(f, int(own8192))) // past the largest of Parse's blocks (newOwned)
	f.Add([]byte(`{"result":{"binding_moment":` + string(bigEnvelope(f, 3000)) + `,"structuredContent":{"binding_moment":` + string(draft) + `}}}`))
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
		checkFastAgrees(t, src)
		var p Parser
		e, err := p.Parse(src)
		rc, rerr := canon.Canonicalize(src, canon.RFC8785)
		if rerr != nil {
			if _, ok := errors.AsType[*canon.Error](err); !ok {
				t.Fatalf("Parse error %v for input the rfc8785 gate rejects (%v)", err, rerr)
			}
			return
		}
		sc, serr := canon.Canonicalize(src, canon.Strict)
		if ce, ok := errors.AsType[*canon.Error](err); ok {
			if serr == nil || !strictOnly(ce) {
				t.Fatalf("Parse rejects with %v input the gates accept as %v / %v", err, rerr, serr)
			}
			return
		}
		forms := [][]byte{rc}
		if serr == nil {
			forms = append(forms, sc)
		}
		for _, c := range forms {
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
				continue
			}
			if e.Digest() != e2.Digest() || p.Placement() != q.Placement() {
				t.Fatalf("digest or placement differs after canonicalization")
			}
		}
		if err != nil {
			return
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
		_ = FallbackText(src)
	})
}
