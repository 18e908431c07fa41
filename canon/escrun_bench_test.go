package canon

import (
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/escbits/escbitstest"

	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

// BenchmarkEscRun canonicalizes documents whose strings hold \" and \\
// escapes, with each implementation of the escrun kernel: an OpenAI
// arguments string (an escape every few bytes), a sentence with one
// quoted word (an isolated escape, as in the archive's envelopes), and
// short strings with one escape each. The documents are pretty-printed,
// so the engine, not the canonical fast path, reads them.
func BenchmarkEscRun(b *testing.B) {
	args := escbitstest.Arguments()
	inputs := []struct{ name, doc string }{
		{"arguments", `{ "arguments": ` + args + ` }`},
		{"sentence", `{ "note": "The guest asked for a \"quiet\" room on a high floor, away from the lift." }`},
		{"short", `[ ` + strings.Repeat(`"a\"b", "c\\d", `, 8) + `"" ]`},
	}
	for _, in := range inputs {
		src := []byte(in.doc)
		for _, name := range escRunKernel.Names() {
			b.Run("input="+in.name+"/impl="+name, func(b *testing.B) {
				if !escRunKernel.Has(name) {
					b.Skip("not available here")
				}
				defer impltest.Select(b, escRunKernel, name)()
				var c Canonicalizer
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					if _, err := c.View(src); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
