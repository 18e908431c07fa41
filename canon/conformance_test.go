package canon

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/demo"
	"github.com/bbdigest/bbdigest/internal/es6/es6seq"
	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

// sharedDir returns the directory of the shared conformance material, which
// sits beside the repository (../shared). It is required on CI.
func sharedDir(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", sub)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("conformance data missing: %v", err)
		}
		t.Skipf("conformance data missing: %v", err)
	}
	return dir
}

// TestConformanceUTF8Paths runs the conformance vectors under each
// implementation of the utf8 kernel.
func TestConformanceUTF8Paths(t *testing.T) {
	impltest.ForEach(t, utf8Kernel, func(t *testing.T) {
		TestRFC8785Vectors(t)
		TestEPCanonicalizationVectors(t)
		TestEnvelopeExample64(t)
	})
}

// TestConformanceEscRunPaths runs the conformance vectors under each
// implementation of the escrun kernel.
func TestConformanceEscRunPaths(t *testing.T) {
	impltest.ForEach(t, escRunKernel, func(t *testing.T) {
		TestRFC8785Vectors(t)
		TestEPCanonicalizationVectors(t)
		TestEnvelopeExample64(t)
	})
}

// TestRFC8785Vectors checks every input of the RFC 8785 reference
// implementation's test data byte for byte under the rfc8785 profile, and
// its outhex twin.
func TestRFC8785Vectors(t *testing.T) {
	dir := sharedDir(t, "conformance/rfc8785")
	inputs, err := filepath.Glob(filepath.Join(dir, "input", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := mustRead(t, in)
			want := mustRead(t, filepath.Join(dir, "output", name))
			hexText := mustRead(t, filepath.Join(dir, "outhex", strings.TrimSuffix(name, ".json")+".txt"))
			wantHex, err := hex.DecodeString(strings.Join(strings.Fields(string(hexText)), ""))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, wantHex) {
				t.Fatalf("output and outhex disagree")
			}
			got, err := Canonicalize(src, RFC8785)
			if err != nil {
				t.Fatalf("rfc8785: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("rfc8785:\n got %q\nwant %q", got, want)
			}
			// The canonical form is a fixed point, and View returns it without copying.
			var c Canonicalizer
			c.Reset(RFC8785)
			v, err := c.View(want)
			if err != nil || !bytes.Equal(v, want) || &v[0] != &want[0] {
				t.Fatalf("View(canonical) = %q, %v; want the input itself", v, err)
			}
			// Profile mode (see the vectors' README): values.json has
			// non-integers; the rest are valid strict inputs with the same output.
			got, err = Canonicalize(src, Strict)
			if name == "values.json" {
				if !errors.Is(err, ErrNonInteger) {
					t.Fatalf("strict: err = %v, want non-integer", err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("strict: %q, %v", got, err)
			}
		})
	}
}

type epVector struct {
	ID     string `json:"id"`
	Expect struct {
		Valid bool `json:"valid"`
	} `json:"expect"`
	Canonicalization struct {
		InputJSON      string `json:"input_json"`
		ExpectedDigest string `json:"expected_digest"`
	} `json:"canonicalization"`
}

// epClass is the rejection class each invalid EP vector must produce,
// keyed by a prefix of its id.
var epClass = []struct {
	prefix string
	class  Class
}{
	{"reject_duplicate_key", ClassDuplicateName},
	{"reject_lone_", ClassUnpairedSurrogate},
	{"reject_reversed_surrogate", ClassUnpairedSurrogate},
	{"reject_high_surrogate", ClassUnpairedSurrogate},
	{"reject_unsafe_", ClassUnsafeInteger},
	{"reject_non_integer", ClassNonInteger},
	{"reject_nested_depth", ClassDepth},
}

// TestEPCanonicalizationVectors runs all 35 EP-CANONICALIZATION-v1 vectors
// under the strict profile.
func TestEPCanonicalizationVectors(t *testing.T) {
	dir := sharedDir(t, "conformance/ep")
	var suite struct {
		Count   int        `json:"count"`
		Vectors []epVector `json:"vectors"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "ep-canonicalization.v1.json")), &suite); err != nil {
		t.Fatal(err)
	}
	if len(suite.Vectors) != 35 || suite.Count != 35 {
		t.Fatalf("got %d vectors (count %d), want 35", len(suite.Vectors), suite.Count)
	}
	for _, v := range suite.Vectors {
		t.Run(v.ID, func(t *testing.T) {
			out, err := Canonicalize([]byte(v.Canonicalization.InputJSON), Strict)
			if v.Expect.Valid {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				sum := sha256.Sum256(out)
				if got := hex.EncodeToString(sum[:]); got != v.Canonicalization.ExpectedDigest {
					t.Fatalf("digest %s, want %s (canonical %q)", got, v.Canonicalization.ExpectedDigest, out)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted as %q, want rejection", out)
			}
			var want Class
			for _, c := range epClass {
				if strings.HasPrefix(v.ID, c.prefix) {
					want = c.class
					break
				}
			}
			if want == 0 {
				t.Fatalf("no expected class for %s", v.ID)
			}
			if !errors.Is(err, want.Sentinel()) {
				t.Fatalf("err = %v, want class %v", err, want)
			}
		})
	}
}

// The envelope draft's §6.4 example, with the full action digests in place,
// as the demo embeds it.
var (
	example64Action0  = string(demo.DraftAction1())
	example64Action1  = string(demo.DraftAction2())
	example64Envelope = string(demo.DraftEnvelope())
)

// TestEnvelopeExample64 reproduces the published figures of the envelope
// draft's §6.4: both action digests, the 895-byte canonical form and the
// envelope digest.
func TestEnvelopeExample64(t *testing.T) {
	digest := func(src string) (string, int) {
		out, err := Canonicalize([]byte(src), Strict)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(out)
		return "sha256:" + hex.EncodeToString(sum[:]), len(out)
	}
	for _, tc := range []struct {
		src, want string
		size      int
	}{
		{example64Action0, demo.DraftAction1Digest, -1},
		{example64Action1, demo.DraftAction2Digest, -1},
		{example64Envelope, demo.DraftEnvelopeDigest, demo.DraftCanonicalLen},
	} {
		got, size := digest(tc.src)
		if got != tc.want || (tc.size >= 0 && size != tc.size) {
			t.Errorf("digest %s (%d bytes), want %s (%d bytes)", got, size, tc.want, tc.size)
		}
	}
}

func mustRead(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var es6SeqLines = flag.Int("es6lines", 1_000_000,
	"lines of the ES6 number test sequence that TestES6SequenceThroughCanon builds from canon's output and checks against checksums.txt (a published checkpoint: 10^3 to 10^8)")

// TestES6SequenceThroughCanon regenerates the first 10^6 lines of the ES6
// number test sequence (10^5 with -short, more with -es6lines) from canon's
// own output, not from the number formatter: each double is written by
// strconv in its shortest exponential form ("1.5e-07", "-1e+21"),
// canonicalized under rfc8785, and the lines made of that output must hash
// to the published checksums. The same double spelled with 17 significant
// digits (so often not its shortest digits) and in plain notation (when
// that is short) must give the same output, and the output itself must be
// canonical: View returns it as it is.
func TestES6SequenceThroughCanon(t *testing.T) {
	dir := sharedDir(t, "conformance/rfc8785/es6numbers")
	static, checkpoints, err := es6seq.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	n, err := es6seq.Lines(checkpoints, *es6SeqLines, testing.Short())
	if err != nil {
		t.Fatalf("-es6lines=%d: %v", *es6SeqLines, err)
	}
	c := New(RFC8785)
	h := sha256.New()
	var line, lit, lit17, plain, out, other []byte
	count := 0
	for b := range es6seq.Bits(static) {
		x := math.Float64frombits(b)
		lit = strconv.AppendFloat(lit[:0], x, 'e', -1, 64)
		out, err = c.Append(out[:0], lit)
		if err != nil {
			t.Fatalf("%#x: %s: %v", b, lit, err)
		}
		line = strconv.AppendUint(line[:0], b, 16)
		line = append(append(append(line, ','), out...), '\n')
		h.Write(line)
		lit17 = strconv.AppendFloat(lit17[:0], x, 'e', 16, 64)
		plain = strconv.AppendFloat(plain[:0], x, 'f', -1, 64)
		for _, spelling := range [][]byte{lit17, plain} {
			if len(spelling) > 40 {
				continue // plain notation of a huge or tiny double
			}
			other, err = c.Append(other[:0], spelling)
			if err != nil || !bytes.Equal(other, out) {
				t.Fatalf("%#x: %s gives %q, %v; %s gave %q", b, spelling, other, err, strconv.FormatFloat(x, 'e', -1, 64), out)
			}
		}
		if v, err := c.View(out); err != nil || &v[0] != &out[0] {
			t.Fatalf("%#x: the output %q is not passed through by View: %q, %v", b, out, v, err)
		}
		count++
		if want, ok := checkpoints[count]; ok {
			if got := hex.EncodeToString(h.Sum(nil)); got != want {
				t.Fatalf("SHA-256 of the first %d lines = %s, want %s", count, got, want)
			}
			t.Logf("first %d lines: SHA-256 matches %s", count, want[:16])
		}
		if count == n {
			return
		}
	}
}
