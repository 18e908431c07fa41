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
//
// On an AMD EPYC Zen 5 (2 shared cores, quiet; median of the per-round
// ratios of 8 rounds at each of 3 code layouts, bench/layoutab.sh's
// method, 2026-12-05, at a0e71f7), lib=envelope costs 1.26x
// lib=canon+digest on envelope-6.4-pretty, 1.30x on envelope-6.4-
// canonical, 1.27x on envelope-meta-pretty and 1.38x on jsonrpc-6.4
// (e836172 in the same rounds: 1.30x, 1.35x, 1.33x, 1.39x; the change is
// hexdec's one-step decode of the action digests; c61eead: 1.34x, 1.38x,
// 1.34x, 1.44x), and lib=envelope-oneshot about 1.9-2.4x (on the same
// machine under more load, 2.5-3.3x: its allocation costs more when the
// machine is busy). The goals of the speed issue (28, item 5) are 1.3x
// and 1.5x.
//
// What lib=envelope adds to the floor is decodeFast's walk of the
// envelope (15-25% of a ParseInto in a CPU profile). What lib=envelope-
// oneshot adds is its one allocation (newOwned: the Envelope with its
// text, 1536 B for the 6.4 envelope), which costs about as much as the
// floor itself in this benchmark's process: in a perf profile of it,
// mallocgc 17% (a 1536 B size class has 5 objects per span), copying
// the text 6%, the scavenger's madvise and its TLB shootdowns 8%, page
// faults 6.5%, the GC and the sweeper most of the rest, against 51% for
// the work of ParseInto; ParseInto plus a bare string(b) of the 854
// canonical bytes measured 1.9x ParseInto alone. A Parse that owns its
// text cannot come near 1.5x here. lib=alloc is that allocation alone
// (newOwned of the envelope's canonical bytes, kept in a package variable
// so that it escapes as Parse's result does), so the gap is in every run
// of the benchmark.
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
			b.Run("lib=alloc", func(b *testing.B) {
				// Parse's one allocation alone (newOwned of the
				// envelope's canonical bytes, as Parse makes it): what
				// lib=envelope-oneshot adds to lib=envelope.
				var p Parser
				var e Envelope
				if err := p.ParseInto(&e, in.src); err != nil {
					b.Fatal(err)
				}
				canonical := e.Canonical()
				b.SetBytes(int64(len(in.src)))
				b.ReportAllocs()
				for b.Loop() {
					ownedSink, _ = newOwned(canonical)
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

// ownedSink keeps lib=alloc's Envelope reachable, as Parse's caller would.
var ownedSink *Envelope
