package envelope

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/demo"
	"github.com/bbdigest/bbdigest/ledger"
)

// BenchmarkVerify checks one authority: an option selection against the
// §6.4 envelope and its action, with the action not yet canonical.
func BenchmarkVerify(b *testing.B) {
	env := resTestEnvelope(b, resExampleSynopsis, true, true)
	res, err := ParseResolution(resJSON(env.Digest().String(), "option", `"option_idx":0`))
	if err != nil {
		b.Fatal(err)
	}
	action := []byte(`{ "recipient": "booking.example", "disclose": ["travel_dates"] }`)
	b.SetBytes(int64(len(action)))
	b.ReportAllocs()
	for b.Loop() {
		if r := Verify(env, res, action); r.Outcome != OutcomeAuthority {
			b.Fatal(r)
		}
	}
}

// BenchmarkParseResolution parses a wrapped option resolution.
func BenchmarkParseResolution(b *testing.B) {
	src := resJSON(demo.DraftEnvelopeDigest, "option", `"option_idx":1`)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseResolution(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolve runs Resolver.Resolve end to end, parse and ledger
// included, each iteration on a different emitted envelope: one authority
// per iteration. The envelopes share the §6.4 content and differ in digest
// only (set directly, as only a test in this package can), and are emitted
// before the timer starts. The ledger is the memory ledger; package
// ledger/bolt's BenchmarkResolve measures what the same authority costs in
// the bolt ledger (its Lookup and Resolve).
func BenchmarkResolve(b *testing.B) {
	b.Run("ledger=mem", func(b *testing.B) {
		base := resTestEnvelope(b, resExampleSynopsis, true, true)
		l := ledger.NewMemory()
		r := NewResolver(l)
		digestOf := func(i int) hashing.Digest {
			var k [8]byte
			binary.BigEndian.PutUint64(k[:], uint64(i))
			return hashing.Sum(k[:])
		}
		for i := range b.N { // emitted up front
			l.Emit(digestOf(i))
		}
		env := *base
		action := []byte(resAction0)
		src := make([]byte, 0, 256)
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			env.digest = digestOf(i)
			src = append(src[:0], `{"binding_moment_resolution":{"envelope_digest":"`...)
			src = env.digest.AppendTo(src)
			src = append(src, `","option_idx":0,"resolution":"option"}}`...)
			res, err := r.Resolve(ctx, &env, src, action)
			if err != nil || res.Outcome != OutcomeAuthority {
				b.Fatal(res, err)
			}
		}
	})
}
