package jsonread_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// unquotePieces are the bits TestUnquoteMatchesJSON builds string bodies
// of: plain text, every escape canonical JSON keeps, and those only
// non-canonical input holds (\/, \uXXXX in either case, surrogate pairs,
// and the unpaired surrogates the canon gate rejects before a reader could
// see them).
var unquotePieces = []string{
	"a", "Z", " ", "é", "€", "😀", "a run longer than a word", `\"`, `\"\\\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`,
	`\u0000`, `\u001f`, `\u0041`, `\u00e9`, `\u00E9`, `\u20ac`, `\uFFFF`,
	`\ud83d\ude00`, `\uD83D\uDE00`, `\ud800`, `\udc00`, `\ud800\u0041`, `\ud800\ud800`, `\udc00\ud800`,
}

// TestUnquoteMatchesJSON: Unquote and AppendUnquote decode a JSON string
// as encoding/json does, for every piece of unquotePieces alone, followed
// by text, and in 5000 random strings of them. (This was envelope's
// TestUnescapeMatchesJSON, when envelope had a string decoder of its own.)
func TestUnquoteMatchesJSON(t *testing.T) {
	check := func(body string) {
		t.Helper()
		q := `"` + body + `"`
		var want string
		if err := json.Unmarshal([]byte(q), &want); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if got, ok := jsonread.Unquote([]byte(q)); !ok || got != want {
			t.Errorf("Unquote(%s) = %+q, %v; encoding/json %+q", q, got, ok, want)
		}
		// In a document, after a prefix, with something after the string.
		doc := []byte(`{"k":` + q + `,"x":1}`)
		got, end := jsonread.AppendUnquote([]byte("pre"), doc, 5)
		if string(got) != "pre"+want || end != 5+len(q) {
			t.Errorf("AppendUnquote(%s) = %+q, %d; want %+q, %d", doc, got, end, "pre"+want, 5+len(q))
		}
	}
	for _, p := range unquotePieces {
		check(p)
		check(p + "x")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(unquotePieces[rng.IntN(len(unquotePieces))])
		}
		check(b.String())
	}
}
