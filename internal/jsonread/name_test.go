package jsonread_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/internal/jsonread"
	"github.com/bbdigest/bbdigest/internal/jsonread/jsonnametest"
)

// TestFoldVsEncodingJSON asks encoding/json, for every name of
// jsonnametest.Names and each of its Variants, written raw and with every
// rune as a \u escape, whether it takes the variant for a field of that
// name, and checks that EqualFold says so whenever it does: the fold is
// never laxer than encoding/json v1. It is stricter exactly where v2's
// case-insensitive matching is (the names equal once '_' and '-' are
// dropped): EqualFold is strings.EqualFold of the names without their
// delimiters, and encoding/json v1 is strings.EqualFold of the names as
// they are.
func TestFoldVsEncodingJSON(t *testing.T) {
	n, v1n, extra := 0, 0, 0
	for _, name := range jsonnametest.Names {
		for _, v := range jsonnametest.Variants(name) {
			ours := jsonread.EqualFold(v, name)
			if want := strings.EqualFold(jsonnametest.StripDelimiters(v), jsonnametest.StripDelimiters(name)); ours != want {
				t.Errorf("EqualFold(%q, %q) = %v, want %v", v, name, ours, want)
			}
			if ours != (jsonread.Fold(v) == jsonread.Fold(name)) || ours != jsonread.EqualFold(name, v) {
				t.Errorf("EqualFold(%q, %q) = %v, but Fold gives %q and %q", v, name, ours, jsonread.Fold(v), jsonread.Fold(name))
			}
			for _, esc := range []bool{false, true} {
				n++
				v1 := jsonnametest.MatchV1(name, jsonnametest.Quote(v, esc))
				if v1 != strings.EqualFold(v, name) {
					t.Errorf("encoding/json matches %s to %q: %v; strings.EqualFold says %v", jsonnametest.Quote(v, esc), name, v1, !v1)
				}
				if v1 && !ours {
					t.Errorf("encoding/json takes %s for %q, EqualFold does not", jsonnametest.Quote(v, esc), name)
				}
				if v1 {
					v1n++
				} else if ours {
					extra++
				}
			}
		}
	}
	// The variants must reach both sides of each rule.
	if v1n < 1000 || extra < 1000 || n < 10000 {
		t.Fatalf("%d spellings, %d that encoding/json matches, %d that only the delimiter rule does: too few", n, v1n, extra)
	}
	t.Logf("%d spellings: %d matched by encoding/json, %d more by the v2 rule", n, v1n, extra)
}

// TestFoldSpecialRunes pins the two runes outside ASCII that fold into it,
// and look-alikes that do not.
func TestFoldSpecialRunes(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"paramſ", "params", true},
		{"PARAMſ", "Params", true},
		{"argumentſ", "arguments", true},
		{"\u212Aind", "kind", true},
		{"tool_calls", "toolCalls", true},
		{"Tool-Calls", "tool_calls", true},
		{"_name_", "name", true},
		{"n-a-m-e", "NAME", true},
		{"", "", true},
		{"_-_", "", true},
		{"paramś", "params", false},
		{"ınput", "input", false},
		{"İnput", "input", false},
		{"κind", "kind", false},
		{"раrams", "params", false}, // Cyrillic р and а
		{"name", "names", false},
		{"nam", "name", false},
		{"n\\u0061me", "name", false}, // an escape left in a name is not a letter
		{"na\xffme", "na\uFFFDme", true},
		{"\xff", "\xfe", true}, // invalid bytes are U+FFFD, as the decoders read them
	} {
		if got := jsonread.EqualFold(tc.a, tc.b); got != tc.want {
			t.Errorf("EqualFold(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := jsonread.Fold(tc.a) == jsonread.Fold(tc.b); got != tc.want {
			t.Errorf("Fold(%q) = %q, Fold(%q) = %q", tc.a, jsonread.Fold(tc.a), tc.b, jsonread.Fold(tc.b))
		}
	}
	if f := jsonread.Fold("Paramſ_\u212A-x"); f != "PARAMSKX" {
		t.Errorf("Fold = %q", f)
	}
}

// TestNameSet checks Match and Has against EqualFold over the Variants of
// every name, and that they do not allocate.
func TestNameSet(t *testing.T) {
	s := jsonread.NewNameSet(jsonnametest.Names...)
	for _, name := range jsonnametest.Names {
		for _, v := range append(jsonnametest.Variants(name), strings.Repeat(name, 20), "_"+strings.Repeat("_", 100)+name) {
			first := -1
			exact := false
			for k, n := range jsonnametest.Names {
				if first < 0 && jsonread.EqualFold(v, n) {
					first = k
				}
				exact = exact || v == n
			}
			if got := s.Match([]byte(v)); got != first {
				t.Errorf("Match(%q) = %d, want %d", v, got, first)
			}
			if got := s.Has([]byte(v)); got != exact {
				t.Errorf("Has(%q) = %v", v, got)
			}
		}
	}
	// Names whose folds start outside ASCII: é and ë are not one letter.
	u := jsonread.NewNameSet("éa", "Ωmega", "ſ_x")
	for _, tc := range []struct {
		name string
		want int
	}{{"ÉA", 0}, {"_é-a", 0}, {"ëa", -1}, {"ea", -1}, {"ωMEGA", 1}, {"ΩMEGAX", -1}, {"sx", 2}, {"S\u212A", -1}, {"é", -1}} {
		if got := u.Match([]byte(tc.name)); got != tc.want {
			t.Errorf("Match(%q) = %d, want %d", tc.name, got, tc.want)
		}
	}
	long := []byte("_" + strings.Repeat("-", 300) + "tool_calls" + strings.Repeat("ſ", 40))
	for _, b := range [][]byte{[]byte("paramſ"), []byte("Tool_Calls"), []byte("unrelated_member"), long} {
		if n := testing.AllocsPerRun(100, func() { s.Match(b); s.Has(b) }); n != 0 {
			t.Errorf("Match(%q): %v allocations", b, n)
		}
	}
	if n := testing.AllocsPerRun(100, func() { jsonread.EqualFold("paramſ", "params") }); n != 0 {
		t.Errorf("EqualFold: %v allocations", n)
	}
}

// TestNewSetBounds: a name that folds to nothing, or more than 127 names,
// is a bug of the caller, reported by a panic.
func TestNewSetBounds(t *testing.T) {
	many := make([]string, 128)
	for i := range many {
		many[i] = "n" + strings.Repeat("x", i)
	}
	for _, names := range [][]string{{""}, {"name", "_-"}, many} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), "BUG: ") {
					t.Errorf("NewNameSet(%q): recovered %v", names, r)
				}
			}()
			jsonread.NewNameSet(names...)
		}()
	}
	s := jsonread.NewNameSet(many[:127]...)
	if k := s.Match([]byte("N-" + strings.Repeat("X", 126))); k != 126 {
		t.Errorf("Match of the 127th name: %d", k)
	}
}

// FuzzEqualFold holds EqualFold, Fold and NameSet.Match to strings.EqualFold
// without delimiters for any two strings (Match over Names, and over b
// and names whose folds start outside ASCII), and to encoding/json:
// whenever encoding/json takes the member a for a field named n (n among
// Names, whose names are valid tags), EqualFold(a, n).
func FuzzEqualFold(f *testing.F) {
	for _, n := range jsonnametest.Names {
		f.Add(n, n)
		f.Add("paramſ", n)
		f.Add(strings.ToUpper(n), n)
	}
	set := jsonread.NewNameSet(jsonnametest.Names...)
	f.Fuzz(func(t *testing.T, a, b string) {
		eq := jsonread.EqualFold(a, b)
		if eq != strings.EqualFold(jsonnametest.StripDelimiters(a), jsonnametest.StripDelimiters(b)) {
			t.Fatalf("EqualFold(%q, %q) = %v", a, b, eq)
		}
		if eq != (jsonread.Fold(a) == jsonread.Fold(b)) || eq != jsonread.EqualFold(b, a) {
			t.Fatalf("EqualFold(%q, %q) = %v; Fold %q, %q", a, b, eq, jsonread.Fold(a), jsonread.Fold(b))
		}
		first := -1
		for i, n := range jsonnametest.Names {
			if first < 0 && jsonread.EqualFold(a, n) {
				first = i
			}
			if utf8.ValidString(a) && jsonnametest.MatchV1(n, jsonnametest.Quote(a, false)) && !jsonread.EqualFold(a, n) {
				t.Fatalf("encoding/json takes %q for %q, EqualFold does not", a, n)
			}
		}
		if k := set.Match([]byte(a)); k != first {
			t.Fatalf("Match(%q) = %d, want %d", a, k, first)
		}
		// A NameSet of names whose folds start outside ASCII, and b.
		others := []string{"éa", "Ωmega", "ſ_x", b}
		if jsonread.Fold(b) == "" {
			others = others[:3]
		}
		oset := jsonread.NewNameSet(others...)
		first = -1
		for i, n := range others {
			if jsonread.EqualFold(a, n) {
				first = i
				break
			}
		}
		if k := oset.Match([]byte(a)); k != first {
			t.Fatalf("Match(%q) over %q = %d, want %d", a, others, k, first)
		}
	})
}
