package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gowebpki/jcs"

	bbd "github.com/bbdigest/bbdigest"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// digester is one way to go from JSON bytes to the SHA-256 digest of their
// canonical form.
type digester struct {
	lib string
	new func() func(src []byte) [32]byte
}

var digesters = []digester{
	// bbdigest.Digester: canon (strict) + hashing, canonical input hashed in place.
	{"bbdigest", func() func([]byte) [32]byte {
		d := bbd.NewDigester(canon.Strict)
		return func(src []byte) [32]byte {
			sum, err := d.Digest(src)
			if err != nil {
				panic(err)
			}
			return sum
		}
	}},
	{"jsontext+sha256", func() func([]byte) [32]byte {
		var buf []byte
		return func(src []byte) [32]byte {
			v := jsontext.Value(append(buf[:0], src...))
			if err := v.Canonicalize(); err != nil {
				panic(err)
			}
			buf = v
			return sha256.Sum256(v)
		}
	}},
	{"gowebpki+sha256", func() func([]byte) [32]byte {
		return func(src []byte) [32]byte {
			out, err := jcs.Transform(src)
			if err != nil {
				panic(err)
			}
			return sha256.Sum256(out)
		}
	}},
	// The floor: hashing the input bytes alone (equal to the digest only
	// when the input is already canonical).
	{"sha256-only", func() func([]byte) [32]byte { return sha256.Sum256 }},
}

func digestInputs() []input {
	var ins []input
	for _, in := range corpus() {
		if in.name == inEnvelopePretty || in.name == inEnvelopeCanonical {
			ins = append(ins, in)
		}
	}
	return ins
}

// BenchmarkDigest measures bytes → digest for the envelope draft §6.4
// example, pretty-printed and shuffled, and already canonical.
func BenchmarkDigest(b *testing.B) {
	logCorpusSeed(b)
	for _, in := range digestInputs() {
		b.Run("input="+in.name, func(b *testing.B) {
			for _, d := range digesters {
				if d.lib == "sha256-only" && !in.canonical {
					continue
				}
				b.Run("lib="+d.lib, func(b *testing.B) {
					f := d.new()
					b.SetBytes(int64(len(in.data)))
					b.ReportAllocs()
					for b.Loop() {
						f(in.data)
					}
				})
			}
		})
	}
}

// TestDigestersAgree runs BenchmarkDigest's functions once: every one gives
// the draft's published digest.
func TestDigestersAgree(t *testing.T) {
	want := demo.DraftEnvelopeDigest
	for _, in := range digestInputs() {
		for _, d := range digesters {
			if d.lib == "sha256-only" && !in.canonical {
				continue
			}
			sum := d.new()(in.data)
			if got := "sha256:" + hex.EncodeToString(sum[:]); got != want {
				t.Errorf("input=%s/lib=%s: %s, want %s", in.name, d.lib, got, want)
			}
		}
	}
}
