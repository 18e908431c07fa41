package escbitstest

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDense: at least n bytes, every one from a part of common or rare,
// and rare parts only as often as mix allows (none at 0, all at 100).
func TestDense(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	common, rare := []string{`\"`, `ab`}, []string{`\n`}
	for _, mix := range []int{0, 30, 100} {
		b := Dense(r, 500, mix, common, rare)
		if len(b) < 500 || len(b) > 501 {
			t.Fatalf("mix %d: %d bytes, want 500 or 501", mix, len(b))
		}
		rest := strings.NewReplacer(`\"`, "", `ab`, "", `\n`, "").Replace(string(b))
		if rest != "" {
			t.Fatalf("mix %d: bytes from no part: %q", mix, rest)
		}
		n := strings.Count(string(b), `\n`)
		if (mix == 0) != (n == 0) || mix == 100 && 2*n != len(b) {
			t.Fatalf("mix %d: %d rare parts in %q", mix, n, b)
		}
	}
}

// TestArguments: Arguments is one JSON string whose text is the demo
// call's arguments, compact, and it is dense with \" escapes.
func TestArguments(t *testing.T) {
	a := Arguments()
	var text string
	if err := json.Unmarshal([]byte(a), &text); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(text)); err != nil || compact.String() != text {
		t.Fatalf("the text %q is not compact JSON (%v)", text, err)
	}
	if !strings.Contains(text, `"city":"Z\u00fcrich"`) || strings.Count(a, `\"`) < 20 {
		t.Fatalf("not the demo's arguments: %s", a)
	}
}
