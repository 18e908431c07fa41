package canon

import (
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
