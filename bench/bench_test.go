package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gowebpki/jcs"
	"github.com/valyala/fastjson"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// Library names, used in benchmark names (lib=<name>).
const (
	libBBDigest       = "bbdigest"        // canon.RFC8785, warm Canonicalizer, Append into a reused buffer
	libBBDigestStrict = "bbdigest-strict" // the same with canon.Strict, on strict-valid inputs
	libBBDigestView   = "bbdigest-view"   // Canonicalizer.View on canonical input: validation only
	libJSONText       = "jsontext"        // jsontext.Value.Canonicalize on a copy of the input
	libGoWebPKI       = "gowebpki"        // jcs.Transform
	libFastJSON       = "fastjson"        // fastjson.ValidateBytes: the floor of a validating scan
	libEncodingJSON   = "encoding-json"   // json.Unmarshal into any + json.Marshal: naive, not RFC 8785-exact
)

// canonicalizer is one way to compute the canonical form of an input.
type canonicalizer struct {
	lib string
	// new returns a function that canonicalizes src, reusing whatever state
	// the library allows between calls. Its result is valid until the next
	// call.
	new func() func(src []byte) ([]byte, error)
}

func bbdigest(lib string, p canon.Profile) canonicalizer {
	return canonicalizer{lib, func() func([]byte) ([]byte, error) {
		c := canon.New(p)
		var dst []byte
		return func(src []byte) (out []byte, err error) {
			out, err = c.Append(dst[:0], src)
			if err == nil {
				dst = out
			}
			return out, err
		}
	}}
}

var peers = []canonicalizer{
	{libJSONText, func() func([]byte) ([]byte, error) {
		var buf []byte
		return func(src []byte) ([]byte, error) {
			v := jsontext.Value(append(buf[:0], src...)) // Canonicalize works in place
			err := v.Canonicalize()
			buf = v
			return v, err
		}
	}},
	{libGoWebPKI, func() func([]byte) ([]byte, error) { return jcs.Transform }},
}

// naive is a round trip through encoding/json, what a program without a JCS
// library might do: map keys come out sorted, but the output is not RFC 8785
// (it escapes <, > and & as \u003c…, U+2028 and U+2029, and sorts keys by
// UTF-8 bytes, not UTF-16 code units), so BenchmarkCanonicalize measures it
// beside the others and TestBenchmarkOutputsAgree does not hold it to their
// output.
var naive = canonicalizer{libEncodingJSON, func() func([]byte) ([]byte, error) {
	return func(src []byte) ([]byte, error) {
		var v any
		if err := json.Unmarshal(src, &v); err != nil {
			return nil, err
		}
		return json.Marshal(v)
	}
}}

// canonicalizers returns the libraries that canonicalize in, bbdigest first.
func canonicalizers(in input) []canonicalizer {
	cs := []canonicalizer{bbdigest(libBBDigest, canon.RFC8785)}
	if in.strict {
		cs = append(cs, bbdigest(libBBDigestStrict, canon.Strict))
	}
	return append(cs, peers...)
}

var logSeed sync.Once

func logCorpusSeed(tb testing.TB) {
	logSeed.Do(func() { tb.Logf("corpus seed %#x (-corpus.seed)", *corpusSeed) })
}

func BenchmarkCanonicalize(b *testing.B) {
	logCorpusSeed(b)
	for _, in := range corpus() {
		if in.name == inEnvelopeCanonical {
			continue // measured by BenchmarkValidate
		}
		b.Run("input="+in.name, func(b *testing.B) {
			for _, c := range append(canonicalizers(in), naive) {
				b.Run("lib="+c.lib, func(b *testing.B) {
					f := c.new()
					if _, err := f(in.data); err != nil { // warm up, and check
						b.Fatal(err)
					}
					b.SetBytes(int64(len(in.data)))
					b.ReportAllocs()
					for b.Loop() {
						if _, err := f(in.data); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

func BenchmarkValidate(b *testing.B) {
	logCorpusSeed(b)
	for _, in := range corpus() {
		b.Run("input="+in.name, func(b *testing.B) {
			b.Run("lib="+libFastJSON, func(b *testing.B) {
				b.SetBytes(int64(len(in.data)))
				b.ReportAllocs()
				for b.Loop() {
					if err := fastjson.ValidateBytes(in.data); err != nil {
						b.Fatal(err)
					}
				}
			})
			if !in.canonical {
				return
			}
			b.Run("lib="+libBBDigestView, func(b *testing.B) {
				c := canon.New(canon.RFC8785)
				if _, err := c.View(in.data); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(in.data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.View(in.data); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// TestBenchmarkOutputsAgree runs every benchmark input once through every
// library and requires byte-identical canonical forms, so that the
// benchmarks compare libraries doing the same work.
func TestBenchmarkOutputsAgree(t *testing.T) {
	logCorpusSeed(t)
	for _, in := range corpus() {
		t.Run("input="+in.name, func(t *testing.T) {
			t.Logf("%d bytes", len(in.data))
			want, err := canon.New(canon.RFC8785).Append(nil, in.data)
			if err != nil {
				t.Fatalf("bbdigest rejects the input: %v", err)
			}
			for _, c := range canonicalizers(in)[1:] {
				got, err := c.new()(in.data)
				switch {
				case err != nil:
					t.Errorf("lib=%s rejects what bbdigest accepts: %v", c.lib, err)
				case !bytes.Equal(got, want):
					t.Errorf("lib=%s disagrees with bbdigest: %s", c.lib, firstDifference(got, want))
				}
			}
			if !in.strict {
				// Every other input carries non-integers or integers beyond
				// 2^53-1, which the strict profile must reject.
				_, err := canon.New(canon.Strict).Append(nil, in.data)
				if !errors.Is(err, canon.ErrNonInteger) && !errors.Is(err, canon.ErrUnsafeInteger) {
					t.Errorf("strict profile: got error %v, want non-integer or unsafe-integer", err)
				}
			}
			if _, err := naive.new()(in.data); err != nil {
				t.Errorf("lib=%s rejects the input: %v", naive.lib, err)
			}
			if err := fastjson.ValidateBytes(in.data); err != nil {
				t.Errorf("lib=fastjson rejects the input: %v", err)
			}
			if in.canonical {
				if !bytes.Equal(want, in.data) {
					t.Errorf("bbdigest rewrites input that jsontext produced as canonical: %s", firstDifference(want, in.data))
				}
				view, err := canon.New(canon.RFC8785).View(in.data)
				if err != nil || len(view) != len(in.data) || &view[0] != &in.data[0] {
					t.Errorf("View of canonical input did not return the input itself (err %v)", err)
				}
			}
		})
	}
}

// TestEnvelopeExample checks the §6.4 inputs against the envelope draft: the
// two action digests it prints, and the length and digest of the
// canonical binding_moment value.
func TestEnvelopeExample(t *testing.T) {
	for i, a := range envelopeActions() {
		src := writeDoc(a, newRand(100+uint64(i)), writeOptions{indent: "  ", shuffle: true})
		out, err := canon.Canonicalize(src, canon.Strict)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := digest(out), []string{demo.DraftAction1Digest, demo.DraftAction2Digest}[i]; got != want {
			t.Errorf("action %d: digest %s, want %s (canonical form %s)", i, got, want, out)
		}
	}
	for _, in := range corpus()[:2] {
		out, err := canon.Canonicalize(in.data, canon.Strict)
		if err != nil {
			t.Fatalf("input=%s: %v", in.name, err)
		}
		if len(out) != demo.DraftCanonicalLen || digest(out) != demo.DraftEnvelopeDigest {
			t.Errorf("input=%s: canonical form is %d bytes with digest %s, want %d bytes with digest %s",
				in.name, len(out), digest(out), demo.DraftCanonicalLen, demo.DraftEnvelopeDigest)
		}
	}
}

// TestAllocations requires the envelope inputs to canonicalize without
// allocating once the Canonicalizer is warm, and reports the other inputs.
func TestAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, in := range corpus() {
		for _, c := range canonicalizers(in) {
			if c.lib != libBBDigest && c.lib != libBBDigestStrict {
				continue
			}
			f := c.new()
			allocs := testing.AllocsPerRun(5, func() {
				if _, err := f(in.data); err != nil {
					t.Fatal(err)
				}
			})
			switch {
			case allocs == 0:
			case in.name == inEnvelopePretty || in.name == inEnvelopeCanonical:
				t.Errorf("input=%s/lib=%s: %v allocations per call, want 0", in.name, c.lib, allocs)
			default:
				t.Logf("input=%s/lib=%s: %v allocations per call", in.name, c.lib, allocs)
			}
		}
	}
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// firstDifference describes where got and want first differ.
func firstDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	ctx := func(b []byte) string {
		lo, hi := max(i-24, 0), min(i+24, len(b))
		return fmt.Sprintf("%q", b[lo:hi])
	}
	return fmt.Sprintf("lengths %d and %d, first difference at byte %d: got …%s…, want …%s…",
		len(got), len(want), i, ctx(got), ctx(want))
}
