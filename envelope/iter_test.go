package envelope

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestUnescapeMatchesJSON: unescape decodes the body of a JSON string as
// encoding/json does, for canonical escapes and for those only non-canonical
// input holds (\/, \uXXXX in either case, surrogate pairs, and the unpaired
// surrogates the canon gate rejects before unescape could see them).
func TestUnescapeMatchesJSON(t *testing.T) {
	pieces := []string{
		"a", "Z", " ", "é", "€", "😀", `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`,
		`\u0000`, `\u001f`, `\u0041`, `\u00e9`, `\u00E9`, `\u20ac`, `\uFFFF`,
		`\ud83d\ude00`, `\uD83D\uDE00`, `\ud800`, `\udc00`, `\ud800\u0041`, `\ud800\ud800`, `\udc00\ud800`,
	}
	check := func(body string) {
		t.Helper()
		var want string
		if err := json.Unmarshal([]byte(`"`+body+`"`), &want); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if got := unescape([]byte(body)); got != want {
			t.Errorf("unescape(%s) = %+q, encoding/json %+q", body, got, want)
		}
	}
	for _, p := range pieces {
		check(p)
		check(p + "x")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		check(b.String())
	}
}
