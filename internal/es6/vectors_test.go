package es6

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
	checkpoints := readChecksums(t, filepath.Join(dir, "checksums.txt"))
	static := readStatic(t, filepath.Join(dir, "static-u64.txt"))
	n := *es6Lines
	if testing.Short() && n > 100_000 {
		n = 100_000
	}
	if _, ok := checkpoints[n]; !ok {
		t.Fatalf("-es6lines=%d: no published checksum for that many lines", n)
	}

	h := sha256.New()
	var line []byte
	count := 0
	for bits := range es6Sequence(static) {
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

// es6Sequence yields the bit patterns of the ES6 number test sequence:
// the static values, then 0x0010000000000000+i for i < 2000, then the
// SHA-256 chain of a 32-byte zero block read as 4 little-endian doubles
// per block, skipping ±0, NaN and ±Inf.
func es6Sequence(static []uint64) func(yield func(uint64) bool) {
	return func(yield func(uint64) bool) {
		for _, b := range static {
			if !yield(b) {
				return
			}
		}
		for i := uint64(0); i < 2000; i++ {
			if !yield(0x0010000000000000 + i) {
				return
			}
		}
		var block [32]byte
		for {
			block = sha256.Sum256(block[:])
			for j := 0; j < 32; j += 8 {
				b := binary.LittleEndian.Uint64(block[j:])
				x := math.Float64frombits(b)
				if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
					continue
				}
				if !yield(b) {
					return
				}
			}
		}
	}
}

func readChecksums(t *testing.T, path string) map[int]string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[int]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if len(f) != 3 || len(f[0]) != 64 || err != nil {
			t.Fatalf("%s: malformed line %q", path, line)
		}
		m[n] = f[0]
	}
	if len(m) == 0 {
		t.Fatalf("%s: no checksums", path)
	}
	return m
}

func readStatic(t *testing.T, path string) []uint64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		s := string(bytes.TrimSpace(sc.Bytes()))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		b, err := strconv.ParseUint(s, 16, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		vs = append(vs, b)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vs) != 168 {
		t.Fatalf("%s: %d values, want 168", path, len(vs))
	}
	return vs
}
