package es6

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// conformanceDir is the shared RFC 8785 vector directory, relative to the
// package directory (the tests' working directory), in this checkout and
// in CI alike.
const conformanceDir = "../../../shared/conformance/rfc8785"

// inCI reports whether the tests run in CI, where nothing may be skipped.
func inCI() bool { return os.Getenv("CI") == "true" }

// es6Dir returns the es6numbers vector directory. It skips the test when
// the shared directory is missing outside CI, and fails it in CI.
func es6Dir(tb testing.TB) string {
	tb.Helper()
	if _, err := os.Stat(conformanceDir); err != nil {
		if inCI() {
			tb.Fatalf("conformance vectors missing in CI: %v", err)
		}
		tb.Skipf("conformance vectors missing: %v", err)
	}
	return filepath.Join(conformanceDir, "es6numbers")
}

// vector is one "hex,expected" line of the es6numbers files.
type vector struct {
	line     int
	bits     uint64
	expected string // "error" for NaN and ±Inf in appendix-b.txt
}

// readVectors parses an es6numbers file, skipping '#' comments.
func readVectors(tb testing.TB, name string) []vector {
	tb.Helper()
	path := filepath.Join(es6Dir(tb), name)
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var vs []vector
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		h, exp, ok := strings.Cut(line, ",")
		bits, err := strconv.ParseUint(h, 16, 64)
		if !ok || err != nil || len(h) > 16 || exp == "" {
			tb.Fatalf("%s:%d: malformed line %q", path, n, line)
		}
		vs = append(vs, vector{n, bits, exp})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(vs) == 0 {
		tb.Fatalf("%s: no vectors", path)
	}
	return vs
}

// genDoubles returns a deterministic mix of at least n finite doubles of
// every kind that stresses AppendFloat: random bit patterns, integers of
// all magnitudes up to 2^64 and their neighbours, powers of ten and their
// neighbours (including the 1e21 and 1e-7 layout boundaries), subnormals,
// the extremes, and short decimals.
func genDoubles(seed uint64, n int) []float64 {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]float64, 0, n+100000)
	add := func(x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		if r.IntN(2) == 0 {
			x = -x
		}
		out = append(out, x)
	}
	// neighbours adds x and the doubles up to d ulps on either side.
	neighbours := func(x float64, d int) {
		add(x)
		up, down := x, x
		for i := 0; i < d; i++ {
			up = math.Nextafter(up, math.Inf(1))
			down = math.Nextafter(down, math.Inf(-1))
			add(up)
			add(down)
		}
	}

	// Fixed edge values.
	for _, b := range []uint64{1, 2, 3, 4, 5, 9, 10, 0x000FFFFFFFFFFFFF, 0x0010000000000000,
		0x0010000000000001, 0x7FEFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFE, 0x3FF0000000000000} {
		add(math.Float64frombits(b))
	}
	// Powers of two: the irregular-spacing case of every binade.
	for e := -1074; e <= 1023; e++ {
		neighbours(math.Ldexp(1, e), 2)
	}
	// Integers around 2^e, 10^e and at random magnitudes up to 2^64.
	for e := 0; e <= 64; e++ {
		p := math.Ldexp(1, e)
		neighbours(p, 3)
		for d := -3.0; d <= 3; d++ {
			add(p + d)
		}
	}
	// Powers of ten and their neighbours, from 1e-330 to 1e310.
	for p := -330; p <= 310; p++ {
		x, _ := strconv.ParseFloat("1e"+strconv.Itoa(p), 64)
		neighbours(x, 3)
		for _, m := range []string{"9.99999999999999", "5", "2.5", "1.5"} {
			y, _ := strconv.ParseFloat(m+"e"+strconv.Itoa(p), 64)
			neighbours(y, 1)
		}
	}
	// Layout boundaries: 1e21 and 1e-7 (and 1e-6), plus their plain/
	// exponential neighbours with many digits.
	for _, s := range []string{"1e21", "999999999999999900000", "999999999999999700000",
		"1e-7", "1e-6", "9.999999999999999e-7", "9.999999999999997e-7", "0.000001",
		"123456789012345680000", "1.2345678901234568e-7", "1.2345678901234568e+21"} {
		x, _ := strconv.ParseFloat(s, 64)
		neighbours(x, 50)
	}
	// Subnormals: small significands exhaustively, then random ones.
	for c := uint64(1); c < 5000; c++ {
		add(math.Float64frombits(c))
	}
	for i := 0; i < 20000; i++ {
		add(math.Float64frombits(r.Uint64() & fracMask >> r.UintN(52)))
	}
	for len(out) < n {
		switch k := r.IntN(10); {
		case k < 4: // random bit patterns
			add(math.Float64frombits(r.Uint64()))
		case k < 6: // integers of random magnitude, and neighbours
			u := r.Uint64() >> r.UintN(64)
			x := float64(u)
			add(x)
			add(math.Nextafter(x, math.Inf(1)))
			add(math.Nextafter(x, 0))
		case k < 7: // random doubles near a power of ten
			p := r.IntN(640) - 325
			x, _ := strconv.ParseFloat("1e"+strconv.Itoa(p), 64)
			b := math.Float64bits(x) + uint64(r.IntN(2001)) - 1000
			add(math.Float64frombits(b))
		case k < 9: // short decimals such as 0.1, 12.34, 5e-5
			m := r.Uint64N(pow10u64[1+r.IntN(8)])
			e := r.IntN(30) - 20
			x, _ := strconv.ParseFloat(strconv.FormatUint(m, 10)+"e"+strconv.Itoa(e), 64)
			add(x)
		default: // random binade, random significand: all exponents equally
			b := uint64(r.IntN(2047))<<52 | r.Uint64()&fracMask
			add(math.Float64frombits(b))
		}
	}
	return out
}

// validLiteral reports whether s matches the RFC 8259 number grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func validLiteral(s []byte) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
