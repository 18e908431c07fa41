package jsonread

import (
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/escbits/escbitstest"
)

// BenchmarkAppendUnquote decodes strings as the readers meet them: an
// OpenAI arguments string (JSON text escaped into a string, the act's),
// a longer one, a sentence without escapes, and text with \u escapes.
// path=scalar runs without the AVX-512 path, where the CPU has one.
func BenchmarkAppendUnquote(b *testing.B) {
	args := escbitstest.Arguments()
	inputs := []struct{ name, s string }{
		{"arguments", args},
		{"arguments-1K", `"{\"items\":[` + strings.Repeat(`{\"sku\":\"A-1029\",\"qty\":2,\"note\":\"gift \\\"wrap\\\"\"},`, 16) + `{}]}"`},
		{"sentence", `"Account Привет jalapeño for account certificate Paulo İstanbul."`},
		{"unicode-escapes", `"Z\u00fcrich \u00e9t\u00e9 \ud83d\ude4f caf\u00e9 na\u00efve \u00f8resund"`},
	}
	paths := []string{"default"}
	if useUnquoteAVX512 {
		paths = append(paths, "scalar")
	}
	for _, in := range inputs {
		src := []byte(in.s + `,"k":"v"}`)
		for _, path := range paths {
			b.Run("input="+in.name+"/path="+path, func(b *testing.B) {
				if path == "scalar" {
					old := useUnquoteAVX512
					useUnquoteAVX512 = false
					defer func() { useUnquoteAVX512 = old }()
				}
				dst := make([]byte, 0, 2*len(src))
				b.SetBytes(int64(len(in.s)))
				for b.Loop() {
					var end int
					if dst, end = AppendUnquote(dst[:0], src, 0); end != len(in.s) {
						b.Fatalf("end %d, want %d", end, len(in.s))
					}
				}
			})
		}
	}
}
