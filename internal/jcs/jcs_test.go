package jcs_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/jcs"
)

// TestAppendString holds AppendString to canon: encoding/json writes the
// string (escaping more than JCS does), canon rewrites that as RFC 8785
// says, and AppendString must write the same bytes directly.
func TestAppendString(t *testing.T) {
	cases := []string{"", "a", `"`, `\`, "\x00\x01\x1f\x7f", "\b\t\n\f\r", "<>&\u2028\u2029", "Zürich 🙏", `a"b\c`, strings.Repeat("x", 100) + "\n"}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune{'a', '"', '\\', 0, 0x1f, 0x20, 0x7f, 'é', 0x2028, 0xfeff, 0x1f64f, '\n'}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(20) {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		if !utf8.ValidString(s) {
			t.Fatalf("bad case %q", s)
		}
		enc, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		want, err := canon.Canonicalize(enc, canon.Strict)
		if err != nil {
			t.Fatal(err)
		}
		if got := jcs.AppendString([]byte("prefix"), s); string(got) != "prefix"+string(want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got[6:], want)
		}
	}
}
