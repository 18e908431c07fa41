package envelope

import (
	"errors"
	"reflect"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// FuzzParseResolution checks that ParseResolution never panics, that it
// fails only with a *canon.Error or a *MalformedResolutionError, and that an
// accepted input's canonical form is accepted with an equal Resolution (the
// result does not depend on notation). Verify and a Resolver must not panic
// on whatever it accepts either. Seeded from the unit tables.
func FuzzParseResolution(f *testing.F) {
	for _, tt := range parseResolutionTests {
		f.Add([]byte(tt.in))
	}
	env := resTestEnvelope(f, resExampleSynopsis, true, false)
	f.Add(resJSON(env.Digest().String(), "option", `"option_idx":1`))
	f.Add(resJSON(env.Digest().String(), "question", ""))
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := ParseResolution(src)
		if err != nil {
			if res != nil {
				t.Fatalf("ParseResolution returned both %+v and %v", res, err)
			}
			_, isCanon := errors.AsType[*canon.Error](err)
			_, isMalformed := errors.AsType[*MalformedResolutionError](err)
			if !isCanon && !isMalformed {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if isMalformed && len(err.(*MalformedResolutionError).Problems) == 0 {
				t.Fatal("MalformedResolutionError with no problems")
			}
			return
		}
		if res.Kind == 0 || res.OptionIdx < 0 || res.Kind != KindOption && res.OptionIdx != 0 || res.Kind != KindAnswer && res.Answer != "" {
			t.Fatalf("inconsistent Resolution %+v", res)
		}
		c, err := canon.Canonicalize(src, canon.Strict)
		if err != nil {
			t.Fatalf("accepted input fails canonicalization: %v", err)
		}
		res2, err := ParseResolution(c)
		if err != nil {
			t.Fatalf("canonical form %s rejected: %v", c, err)
		}
		if !reflect.DeepEqual(res, res2) {
			t.Fatalf("canonical form parses to %+v, input to %+v", res2, res)
		}
		v := Verify(env, res, []byte(resAction1))
		if v.Authorizes() != (res.EnvelopeDigest == env.Digest() && res.Kind == KindOption && res.OptionIdx == 1) {
			t.Fatalf("Verify(%+v) = %+v", res, v)
		}
	})
}
