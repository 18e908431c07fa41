package es6

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// checkFormat compares AppendFloat with the oracle and checks that the
// output parses back to x, with ParseFloat and with strconv.
func checkFormat(t *testing.T, x float64) bool {
	t.Helper()
	got := AppendFloat(nil, x)
	want := AppendFloatSlow(nil, x)
	if string(got) != string(want) {
		t.Errorf("AppendFloat(%#016x) = %q, want %q", math.Float64bits(x), got, want)
		return false
	}
	p, ok := ParseFloat(got)
	s, err := strconv.ParseFloat(string(got), 64)
	if !ok || err != nil || p != x || s != x {
		t.Errorf("%q (from %#016x) parses to %v (ParseFloat, ok=%v) and %v (strconv, %v)",
			got, math.Float64bits(x), p, ok, s, err)
		return false
	}
	return true
}

func TestAppendFloatExamples(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1, "1"},
		{-1, "-1"},
		{0.1, "0.1"},
		{-0.5, "-0.5"},
		{123.456, "123.456"},
		{1e21, "1e+21"},
		{1e20, "100000000000000000000"},
		{123456789012345680000, "123456789012345680000"},
		{1e-7, "1e-7"},
		{1.5e-7, "1.5e-7"},
		{1e-6, "0.000001"},
		{1.5e300, "1.5e+300"},
		{5e-324, "5e-324"},
		{1e-323, "1e-323"},
		{1.5e-323, "1.5e-323"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{-math.MaxFloat64, "-1.7976931348623157e+308"},
		{math.SmallestNonzeroFloat64, "5e-324"},
		{2.2250738585072014e-308, "2.2250738585072014e-308"},
		{9007199254740991, "9007199254740991"},
		{9007199254740992, "9007199254740992"},
		{9007199254740994, "9007199254740994"},
		{1 << 60, "1152921504606847000"},
		{18446744073709551615, "18446744073709552000"},
		{4.35, "4.35"},
		{0.000001234, "0.000001234"},
		{1e23, "1e+23"},
		{333333333.33333329, "333333333.3333333"},
		{1e-5, "0.00001"},
		{-1.25e-10, "-1.25e-10"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{math.NaN(), "NaN"},
	} {
		if got := string(AppendFloat(nil, c.x)); got != c.want {
			t.Errorf("AppendFloat(%v) = %q, want %q", c.x, got, c.want)
		}
		if got := string(AppendFloatSlow(nil, c.x)); got != c.want {
			t.Errorf("AppendFloatSlow(%v) = %q, want %q", c.x, got, c.want)
		}
	}
	// It appends.
	if got := string(AppendFloat([]byte("x="), 2.5)); got != "x=2.5" {
		t.Errorf("AppendFloat appended %q", got)
	}
	if got := string(AppendFloat([]byte("x="), 7)); got != "x=7" {
		t.Errorf("AppendFloat appended %q", got)
	}
}

// TestAppendFloatVsSlow compares AppendFloat with the oracle over the
// mixed generator (a different seed than the Node test).
func TestAppendFloatVsSlow(t *testing.T) {
	t.Parallel()
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	bad := 0
	for _, x := range genDoubles(7, n) {
		if !checkFormat(t, x) {
			if bad++; bad == 20 {
				t.Fatal("too many failures")
			}
		}
	}
}

// TestAppendFloatSubnormals checks the 2^20 smallest subnormals
// exhaustively: there the rounding interval holds the fewest digits
// (genDoubles covers the other subnormals at random).
func TestAppendFloatSubnormals(t *testing.T) {
	t.Parallel()
	var got, want []byte
	for b := uint64(1); b < 1<<20; b++ {
		x := math.Float64frombits(b)
		got = AppendFloat(got[:0], x)
		want = AppendFloatSlow(want[:0], x)
		if string(got) != string(want) {
			t.Fatalf("AppendFloat(%#x) = %q, want %q", b, got, want)
		}
	}
}

// TestAppendFloatIntegers covers the integer fast path and its edges.
func TestAppendFloatIntegers(t *testing.T) {
	t.Parallel()
	var got []byte
	for i := int64(-100000); i <= 100000; i++ {
		got = AppendFloat(got[:0], float64(i))
		if string(got) != strconv.FormatInt(i, 10) {
			t.Fatalf("AppendFloat(%d) = %q", i, got)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 300000; i++ {
		u := r.Uint64N(1<<53) >> r.UintN(53)
		got = AppendFloat(got[:0], float64(u))
		if string(got) != strconv.FormatUint(u, 10) {
			t.Fatalf("AppendFloat(%d) = %q", u, got)
		}
		// Near-integers go the general way.
		checkFormat(t, math.Nextafter(float64(u), math.Inf(1)))
		checkFormat(t, math.Nextafter(float64(u), 0))
	}
	// Integers at and above 2^53 use the general path with zero padding.
	for e := 53; e <= 75; e++ {
		p := math.Ldexp(1, e)
		for d := -4; d <= 4; d++ {
			checkFormat(t, p+float64(d)*math.Ldexp(1, e-52))
		}
	}
}

// TestAppendFloatDecimals checks short decimals, which end in long runs of
// trailing zeros inside the algorithm.
func TestAppendFloatDecimals(t *testing.T) {
	t.Parallel()
	for m := 1; m < 20000; m++ {
		for _, e := range []int{-30, -22, -9, -7, -6, -5, -3, -2, -1, 0, 1, 5, 16, 17, 21, 22, 30, 300} {
			x, _ := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(e), 64)
			if !checkFormat(t, x) {
				t.FailNow()
			}
		}
	}
}

// TestTrimZerosExhaustive checks the divisibility-by-inverse trick of
// trimZeros against plain division.
func TestTrimZerosExhaustive(t *testing.T) {
	t.Parallel()
	for d := uint64(1); d < 3_000_000; d++ {
		for _, m := range []uint64{1, 1e3, 1e8, 1e10, 1e14} {
			x := d * m
			if x >= 1e17 {
				continue
			}
			g, ge := trimZeros(x, 0)
			w, we := x, 0
			for w%10 == 0 {
				w /= 10
				we++
			}
			if g != w || ge != we {
				t.Fatalf("trimZeros(%d) = %d, %d", x, g, ge)
			}
		}
	}
}

// TestAppendFloatNonFinite checks that NaN and ±Inf do not panic.
func TestAppendFloatNonFinite(t *testing.T) {
	for _, c := range []struct {
		bits uint64
		want string
	}{
		{0x7FF0000000000000, "Infinity"},
		{0xFFF0000000000000, "-Infinity"},
		{0x7FF8000000000000, "NaN"},
		{0xFFF8000000000001, "NaN"},
		{0x7FF0000000000001, "NaN"},
	} {
		x := math.Float64frombits(c.bits)
		if got := string(AppendFloat(nil, x)); got != c.want {
			t.Errorf("AppendFloat(%#x) = %q, want %q", c.bits, got, c.want)
		}
		if got := string(AppendFloatSlow(nil, x)); got != c.want {
			t.Errorf("AppendFloatSlow(%#x) = %q, want %q", c.bits, got, c.want)
		}
	}
}

// TestAllocs checks that AppendFloat and AppendDecimal (given capacity) and ParseFloat,
// including its slow path, do not allocate.
func TestAllocs(t *testing.T) {
	xs := []float64{0, 1, -7, 0.1, 1e21, 1e-7, 5e-324, math.MaxFloat64, 123456.789, 1 << 60, math.Pi}
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() {
		for _, x := range xs {
			buf = AppendFloat(buf[:0], x)
		}
	}); n != 0 {
		t.Errorf("AppendFloat: %v allocs per run", n)
	}
	dbuf := make([]byte, 0, 8+DecimalRoom) // AppendDecimal needs DecimalRoom spare bytes
	if n := testing.AllocsPerRun(100, func() {
		for _, x := range xs[1:] {
			d, e := Shortest(x)
			dbuf = AppendDecimal(dbuf[:8], x < 0, d, e)
		}
	}); n != 0 {
		t.Errorf("AppendDecimal: %v allocs per run", n)
	}
	lits := [][]byte{
		[]byte("0"), []byte("-0"), []byte("12345"), []byte("0.1"), []byte("-1.5e-7"),
		[]byte("1e400"), []byte("1e-400"), []byte("9007199254740993"),
		[]byte("1.7976931348623157e308"), []byte("123456789012345678901234567890"),
		[]byte("4503599627370496.5"), // a tie that Eisel–Lemire leaves to slowParse
		[]byte("2.2250738585072011e-308"),
		longLiteral(3000),
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, l := range lits {
			ParseFloat(l)
		}
	}); n != 0 {
		t.Errorf("ParseFloat: %v allocs per run", n)
	}
}

// longLiteral returns "0.1" followed by n-3 digits: 0.1000...0001.
func longLiteral(n int) []byte {
	b := []byte("0.1")
	for len(b) < n-1 {
		b = append(b, '0')
	}
	return append(b, '1')
}

// TestShortest checks that Shortest gives the digits AppendFloat prints:
// written out by AppendDecimal they must be the slow oracle's bytes, on
// the same doubles of every kind as TestAppendFloatVsSlow (zeros, which
// have no digits, excepted).
func TestShortest(t *testing.T) {
	t.Parallel()
	n := 300_000
	if testing.Short() {
		n = 50_000
	}
	bad := 0
	prefix := []byte("x")
	for _, x := range genDoubles(8, n) {
		if x == 0 {
			continue
		}
		d, e := Shortest(x)
		if d == 0 || d >= 1e17 || d%10 == 0 {
			t.Fatalf("Shortest(%v) = %d, %d: not 0 < d < 10^17 without trailing zeros", x, d, e)
		}
		got := AppendDecimal(prefix[:1:1], x < 0, d, e) // appended after a byte, growing
		if got[0] != prefix[0] {
			t.Fatalf("AppendDecimal overwrote the byte before its output: %q", got)
		}
		got = got[1:]
		if want := AppendFloatSlow(nil, x); string(got) != string(want) {
			t.Errorf("Shortest(%v) = %d·10^%d, written %q; want %q", x, d, e, got, want)
			if bad++; bad == 20 {
				t.Fatal("too many failures")
			}
		}
	}
	for _, x := range []float64{0, math.Copysign(0, -1), math.Inf(1), math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Shortest(%v) did not panic", x)
				}
			}()
			Shortest(x)
		}()
	}
}
