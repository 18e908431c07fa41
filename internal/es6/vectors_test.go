package es6

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"math"
	"strconv"
	"testing"

	"github.com/bbdigest/bbdigest/internal/es6/es6seq"
)

var es6Lines = flag.Int("es6lines", 1_000_000,
	"lines of the ES6 number test sequence to regenerate and check against checksums.txt (up to 100000000)")

// checkVectors runs AppendFloat, AppendFloatSlow and ParseFloat over a
// vector file.
func checkVectors(t *testing.T, name string, wantLines int) {
	vs := readVectors(t, name)
	if wantLines > 0 && len(vs) != wantLines {
		t.Fatalf("%s: %d vectors, want %d", name, len(vs), wantLines)
	}
	for _, v := range vs {
		x := math.Float64frombits(v.bits)
		if v.expected == "error" {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				t.Errorf("%s:%d: %#x is marked error but is finite", name, v.line, v.bits)
			}
			continue
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Errorf("%s:%d: %#x is not finite but expects %q", name, v.line, v.bits, v.expected)
			continue
		}
		if got := string(AppendFloat(nil, x)); got != v.expected {
			t.Errorf("%s:%d: AppendFloat(%#x) = %q, want %q", name, v.line, v.bits, got, v.expected)
		}
		if got := string(AppendFloatSlow(nil, x)); got != v.expected {
			t.Errorf("%s:%d: AppendFloatSlow(%#x) = %q, want %q", name, v.line, v.bits, got, v.expected)
		}
		// The expected text parses back to the same value (-0 gives "0").
		p, ok := ParseFloat([]byte(v.expected))
		if !ok || p != x || (x != 0 && math.Float64bits(p) != v.bits) {
			t.Errorf("%s:%d: ParseFloat(%q) = %v, %v; want %v", name, v.line, v.expected, p, ok, x)
		}
	}
}

func TestVectorsFirst1000(t *testing.T) {
	checkVectors(t, "es6testfile-first1000.txt", 1000)
}

func TestVectorsAppendixB(t *testing.T) {
	checkVectors(t, "appendix-b.txt", 0)
}

// TestES6Sequence regenerates the ES6 number test sequence described in the
// conformance README and compares the SHA-256 of its first lines with
// checksums.txt: 10^6 lines by default, more with -es6lines=N (every
// published checkpoint up to N is checked).
func TestES6Sequence(t *testing.T) {
	t.Parallel()
	dir := es6Dir(t)
	static, checkpoints, err := es6seq.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	n, err := es6seq.Lines(checkpoints, *es6Lines, testing.Short())
	if err != nil {
		t.Fatalf("-es6lines=%d: %v", *es6Lines, err)
	}

	h := sha256.New()
	var line []byte
	count := 0
	for bits := range es6seq.Bits(static) {
		line = strconv.AppendUint(line[:0], bits, 16)
		line = append(line, ',')
		line = AppendFloat(line, math.Float64frombits(bits))
		line = append(line, '\n')
		h.Write(line)
		count++
		if want, ok := checkpoints[count]; ok {
			got := hex.EncodeToString(h.Sum(nil))
			if got != want {
				t.Fatalf("SHA-256 of the first %d lines = %s, want %s", count, got, want)
			}
			t.Logf("first %d lines: SHA-256 matches %s", count, want[:16])
		}
		if count == n {
			return
		}
	}
}
