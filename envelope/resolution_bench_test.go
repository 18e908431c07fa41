package envelope

import (
	"context"
	"encoding/binary"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/bbdigest/bbdigest/hashing"
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
	src := resJSON(resExampleDigest, "option", `"option_idx":1`)
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
// before the timer starts.
//
// ledger=bolt sets bbolt's NoSync for the benchmark only, so that it
// measures the ledger's code rather than the disk's fsync latency (which
// OpenBoltLedger never turns off: with it, each Resolve costs one fsync).
func BenchmarkResolve(b *testing.B) {
	for _, lt := range []struct {
		name string
		open func(b *testing.B) Ledger
	}{
		{"mem", func(b *testing.B) Ledger { return NewMemLedger() }},
		{"bolt", func(b *testing.B) Ledger {
			l, err := OpenBoltLedger(filepath.Join(b.TempDir(), "ledger.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { l.Close() })
			l.db.NoSync = true // benchmark only; see above
			return l
		}},
	} {
		b.Run("ledger="+lt.name, func(b *testing.B) {
			base := resTestEnvelope(b, resExampleSynopsis, true, true)
			l := lt.open(b)
			r := NewResolver(l)
			digestOf := func(i int) hashing.Digest {
				var k [8]byte
				binary.BigEndian.PutUint64(k[:], uint64(i))
				return hashing.Sum(k[:])
			}
			// Emit b.N envelopes up front: in one transaction for bbolt.
			if bl, ok := l.(*BoltLedger); ok {
				err := bl.db.Update(func(tx *bolt.Tx) error {
					bk := tx.Bucket(boltBucket)
					for i := range b.N {
						d := digestOf(i)
						if err := bk.Put(d[:], appendEntry(nil, d, Entry{State: StateEmitted})); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			} else {
				for i := range b.N {
					l.Emit(digestOf(i))
				}
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
}
