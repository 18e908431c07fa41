package canon

import (
	"fmt"
	"strings"
	"testing"
)

// Micro-benchmarks of the engine alone; the comparisons with other
// libraries live in ../bench.
func BenchmarkAppend(b *testing.B) {
	canonicalEnvelope, err := Canonicalize([]byte(example64Envelope), Strict)
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range []struct {
		name string
		src  []byte
	}{
		{"envelope-pretty", []byte(example64Envelope)},
		{"envelope-canonical", canonicalEnvelope},
	} {
		b.Run("input="+in.name, func(b *testing.B) {
			var c Canonicalizer
			buf := make([]byte, 0, 2*len(in.src))
			b.SetBytes(int64(len(in.src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Append(buf, in.src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDeepUnsorted measures crafted input that nests unsorted objects
// as deep as the profile allows, each holding the rest of a ~1 MiB document:
// the cost must stay linear in the size, not size × depth.
func BenchmarkDeepUnsorted(b *testing.B) {
	for _, depth := range []int{10, 1000} {
		pad := `"` + strings.Repeat("x", (1<<20)/depth) + `"`
		var in strings.Builder
		for i := 0; i < depth-1; i++ {
			in.WriteString(`{"z":` + pad + `,"a":`)
		}
		in.WriteString("{}")
		in.WriteString(strings.Repeat("}", depth-1))
		src := []byte(in.String())
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			var c Canonicalizer
			c.Reset(RFC8785)
			buf := make([]byte, 0, len(src))
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Append(buf, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
