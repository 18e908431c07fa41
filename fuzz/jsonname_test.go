package fuzz

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/internal/jsonread"
	"github.com/bbdigest/bbdigest/internal/jsonread/jsonnametest"
	jsonv2 "github.com/go-json-experiment/json"
)

// matchExperiment reports whether go-json-experiment/json, matching names
// without case (MatchCaseInsensitiveNames), stores the member whose name
// is the JSON string literal quoted into a struct field called field.
func matchExperiment(t testing.TB, field, quoted string) bool {
	v := reflect.New(jsonnametest.Struct(field))
	if err := jsonv2.Unmarshal([]byte(`{`+quoted+`:1}`), v.Interface(), jsonv2.MatchCaseInsensitiveNames(true)); err != nil {
		t.Fatalf("go-json-experiment/json: %s: %v", quoted, err)
	}
	return v.Elem().Field(0).Int() == 1
}

// TestFoldVsJSONExperiment holds internal/jsonread's fold, the one rule by which
// package act refuses a member that spells a name it reads, to
// github.com/go-json-experiment/json (the v2 that encoding/json/v2
// follows) ignoring case: for every name of jsonnametest.Names (every
// name act reads among them) and every spelling jsonnametest.Variants
// makes of it (case, ſ, the Kelvin sign, '_' and '-' anywhere, near
// misses), written raw and with \u escapes, the decoder takes the member
// for the field exactly when jsonread.EqualFold says it does. (The root
// module holds the rule to encoding/json v1, which it must cover: see
// internal/jsonread's TestFoldVsEncodingJSON.)
func TestFoldVsJSONExperiment(t *testing.T) {
	n, matched := 0, 0
	for _, name := range jsonnametest.Names {
		for _, v := range jsonnametest.Variants(name) {
			for _, esc := range []bool{false, true} {
				q := jsonnametest.Quote(v, esc)
				got := matchExperiment(t, name, q)
				if want := jsonread.EqualFold(v, name); got != want {
					t.Errorf("go-json-experiment/json takes %s for %q: %v; jsonread.EqualFold says %v", q, name, got, want)
				}
				n++
				if got {
					matched++
				}
			}
		}
	}
	if matched < 5000 || n-matched < 500 {
		t.Fatalf("%d spellings, %d matched: too few on one side", n, matched)
	}
}

// FuzzFoldVsJSONExperiment checks the same for any member name (valid
// UTF-8, which the canon gate requires of act's input), against each of
// jsonnametest.Names as the field.
func FuzzFoldVsJSONExperiment(f *testing.F) {
	for _, n := range jsonnametest.Names {
		f.Add(n)
		f.Add(strings.ToUpper(n) + "_")
	}
	f.Add("paramſ")
	f.Add("\u212Aind")
	f.Fuzz(func(t *testing.T, member string) {
		if !utf8.ValidString(member) {
			return
		}
		q := jsonnametest.Quote(member, false)
		for _, name := range jsonnametest.Names {
			if got, want := matchExperiment(t, name, q), jsonread.EqualFold(member, name); got != want {
				t.Fatalf("go-json-experiment/json takes %s for %q: %v; jsonread.EqualFold says %v", q, name, got, want)
			}
		}
	})
}
