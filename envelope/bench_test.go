package envelope

import (
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// BenchmarkParse compares parse+validate+digest of an envelope
// (lib=envelope, a warm Parser into a reused Envelope) with what it must
// cost at least: canonicalize and digest the same input (lib=canon+digest).
//
//	go test -run '^$' -bench BenchmarkParse -count 10 ./envelope | tee parse.txt
//	benchstat -col /lib parse.txt
func BenchmarkParse(b *testing.B) {
	draft := demo.DraftEnvelope()
	canonical, err := canon.Canonicalize(draft, canon.Strict)
	if err != nil {
		b.Fatal(err)
	}
	inputs := []struct {
		name string
		src  []byte
	}{
		{"envelope-6.4-pretty", draft},
		{"envelope-6.4-canonical", canonical},
		{"envelope-meta-pretty", demo.MetaEnvelope()},
		{"jsonrpc-6.4", []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"3 rooms available."}],` +
			`"structuredContent":{"rooms":3,"binding_moment":` + string(draft) + `}}}`)},
	}
	for _, in := range inputs {
		b.Run("input="+in.name, func(b *testing.B) {
			b.Run("lib=envelope", func(b *testing.B) {
				var p Parser
				var e Envelope
				b.SetBytes(int64(len(in.src)))
				b.ReportAllocs()
				for b.Loop() {
					if err := p.ParseInto(&e, in.src); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("lib=envelope-oneshot", func(b *testing.B) {
				b.SetBytes(int64(len(in.src)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Parse(in.src); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("lib=canon+digest", func(b *testing.B) {
				var c canon.Canonicalizer
				b.SetBytes(int64(len(in.src)))
				b.ReportAllocs()
				for b.Loop() {
					out, err := c.View(in.src)
					if err != nil {
						b.Fatal(err)
					}
					_ = hashing.Sum(out)
				}
			})
		})
	}
}
