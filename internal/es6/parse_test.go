package es6

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// refParse is the reference conversion of a valid literal: strconv.ParseFloat
// for short literals, and exact rational arithmetic (big.Rat, whose Float64
// rounds half to even, subnormals included) for long ones. strconv cannot be
// the reference there: its slow path caps the decimal point position at its
// 800-digit buffer, so "1" followed by 800 zeros and "e-800" gives 0.1, and
// it clamps exponents near 10000, so "0." followed by 100000 zeros and
// "9e100000" gives 0 (golang/go#42436).
func refParse(lit []byte) float64 {
	if len(lit) <= 100 {
		f, _ := strconv.ParseFloat(string(lit), 64)
		return f
	}
	if !refAvailable(lit) {
		panic("refParse: exponent too large for big.Rat: " + abbrev(lit))
	}
	r, ok := new(big.Rat).SetString(string(lit))
	if !ok {
		panic("refParse: big.Rat cannot parse " + abbrev(lit))
	}
	f, _ := r.Float64()
	if f == 0 && lit[0] == '-' {
		f = math.Copysign(0, -1)
	}
	return f
}

// refAvailable reports whether refParse can convert lit in reasonable time:
// big.Rat computes 10^|exponent| exactly.
func refAvailable(lit []byte) bool {
	if len(lit) <= 100 {
		return true
	}
	_, exp, _ := strings.Cut(strings.ToLower(string(lit)), "e")
	x, err := strconv.Atoi(exp)
	return exp == "" || err == nil && abs(x) <= 20_000
}

// checkParse compares ParseFloat with refParse bit for bit (so the sign of
// zero counts), and ok with "not infinite".
func checkParse(t *testing.T, lit []byte) bool {
	t.Helper()
	got, ok := ParseFloat(lit)
	want := refParse(lit)
	wantOK := !math.IsInf(want, 0)
	if math.Float64bits(got) != math.Float64bits(want) || ok != wantOK {
		t.Errorf("ParseFloat(%s) = %v (%#016x), %v; want %v (%#016x), %v",
			abbrev(lit), got, math.Float64bits(got), ok, want, math.Float64bits(want), wantOK)
		return false
	}
	return true
}

func abbrev(lit []byte) string {
	if len(lit) > 80 {
		return strconv.Quote(string(lit[:40])) + "..." + strconv.Quote(string(lit[len(lit)-30:])) +
			" (" + strconv.Itoa(len(lit)) + " bytes)"
	}
	return strconv.Quote(string(lit))
}

func TestParseFloatExamples(t *testing.T) {
	for _, c := range []struct {
		lit  string
		want float64
		ok   bool
	}{
		{"0", 0, true},
		{"-0", math.Copysign(0, -1), true},
		{"-0.0e-5", math.Copysign(0, -1), true},
		{"1", 1, true},
		{"-12.5", -12.5, true},
		{"0.1", 0.1, true},
		{"1E2", 100, true},
		{"1e+2", 100, true},
		{"1e-0000000000000000000000002", 0.01, true},
		{"1e0000000000000000000000000000300", 1e300, true},
		{"9007199254740993", 9007199254740992, true},
		{"9007199254740995", 9007199254740996, true},
		{"4503599627370496.5", 4503599627370496, true},
		{"4503599627370497.5", 4503599627370498, true},
		{"1.7976931348623157e308", math.MaxFloat64, true},
		{"1.7976931348623158e308", math.MaxFloat64, true},
		{"1.7976931348623159e308", math.Inf(1), false},
		{"-1.7976931348623159e308", math.Inf(-1), false},
		{"179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999999999999999999999999999999999999999999999999999999999999999999999", math.MaxFloat64, true},
		{"179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792", math.Inf(1), false},
		{"1e308", 1e308, true},
		{"1e309", math.Inf(1), false},
		{"1e400", math.Inf(1), false},
		{"-1e400", math.Inf(-1), false},
		{"0e400", 0, true},
		{"0.0000e99999999999999999999", 0, true},
		{"1e99999999999999999999", math.Inf(1), false},
		{"1e-400", 0, true},
		{"-1e-400", math.Copysign(0, -1), true},
		{"1e-99999999999999999999", 0, true},
		{"5e-324", 5e-324, true},
		{"4.9406564584124654e-324", 5e-324, true},
		{"2.4703282292062328e-324", 5e-324, true},
		{"2.4703282292062327e-324", 0, true},
		{"2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328124e-324", 0, true},
		{"2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324", 0, true},
		{"2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125000000000000000000000000000000001e-324", 5e-324, true},
		{"2.2250738585072011e-308", 2.225073858507201e-308, true},
		{"2.2250738585072012e-308", 2.2250738585072014e-308, true},
		{"123456789012345678901234567890", 1.2345678901234568e+29, true},
		{"0.000000000000000000000000000000000000000000001234567890123456789012345", 1.2345678901234568e-45, true},
	} {
		got, ok := ParseFloat([]byte(c.lit))
		if math.Float64bits(got) != math.Float64bits(c.want) || ok != c.ok {
			t.Errorf("ParseFloat(%s) = %v, %v; want %v, %v", abbrev([]byte(c.lit)), got, ok, c.want, c.ok)
		}
		if len(c.lit) <= 100 || !strings.Contains(c.lit, "e9999") {
			checkParse(t, []byte(c.lit))
		}
	}
	// Long literals where strconv.ParseFloat is wrong (see refParse).
	for _, c := range []struct {
		lit  string
		want float64
	}{
		{"1" + strings.Repeat("0", 800) + "e-800", 1},
		{"1" + strings.Repeat("0", 1000) + ".5e-1000", 1},
		{"0." + strings.Repeat("0", 100000) + "9e100000", 0.9},
		{"0." + strings.Repeat("0", 100000) + "17976931348623159e100309", math.Inf(1)},
		{"1" + strings.Repeat("0", 100000) + "e-100300", 1e-300},
	} {
		got, _ := ParseFloat([]byte(c.lit))
		if got != c.want {
			t.Errorf("ParseFloat(%s) = %v, want %v", abbrev([]byte(c.lit)), got, c.want)
		}
	}
}

// TestParseFloatSlowPathReached makes sure that the tests exercise each
// way through ParseFloat: ties with q < 0 fail Eisel–Lemire, ties with
// 0 <= q <= 27 are decided by it.
func TestParseFloatSlowPathReached(t *testing.T) {
	if _, st := eiselLemire(45035996273704965, -1); st != elFail {
		t.Errorf("eiselLemire(4503599627370496.5) = %d, want elFail", st)
	}
	if b, st := eiselLemire(9007199254740993, 0); st != elOK || b != math.Float64bits(9007199254740992) {
		t.Errorf("eiselLemire(9007199254740993) = %#x, %d", b, st)
	}
	if _, st := eiselLemire(17976931348623159, 292); st != elOverflow {
		t.Errorf("eiselLemire(1.7976931348623159e308) = %d, want elOverflow", st)
	}
}

// randomLiteral returns a random valid JSON number literal with 1 to 40
// significant digits and exponents from small to extreme.
func randomLiteral(r *rand.Rand, b []byte) []byte {
	b = b[:0]
	if r.IntN(2) == 0 {
		b = append(b, '-')
	}
	nd := 1 + r.IntN(40)
	if r.IntN(3) == 0 {
		nd = 1 + r.IntN(20)
	}
	digit := func() byte { return byte('0' + r.IntN(10)) }
	switch r.IntN(8) {
	case 0: // 9s and 0s push values to the edges of binades
		digit = func() byte { return "09"[r.IntN(2)] }
	case 1: // runs of 0s after a 5 look like halfway points
		digit = func() byte { return "0000000005"[r.IntN(10)] }
	}
	intDigits := r.IntN(nd + 1)
	if intDigits == 0 {
		b = append(b, '0')
	} else {
		b = append(b, byte('1'+r.IntN(9)))
		for i := 1; i < intDigits; i++ {
			b = append(b, digit())
		}
	}
	if frac := nd - intDigits; frac > 0 {
		b = append(b, '.')
		if intDigits == 0 {
			for z := r.IntN(4) * r.IntN(10); z > 0; z-- {
				b = append(b, '0')
			}
		}
		for i := 0; i < frac; i++ {
			b = append(b, digit())
		}
	}
	if r.IntN(4) == 0 {
		return b
	}
	b = append(b, "eE"[r.IntN(2)])
	var e int
	switch k := r.IntN(10); {
	case k < 4:
		e = r.IntN(61) - 30
	case k < 8:
		e = r.IntN(700) - 360
	case k < 9: // the edges of the double range
		e = []int{-345, -344, -343, -342, -341, -330, -325, -324, -323, -309, -308, -307,
			-22, 22, 23, 37, 38, 290, 300, 306, 307, 308, 309, 310}[r.IntN(24)]
	default:
		e = r.IntN(2_000_001) - 1_000_000
	}
	switch {
	case e < 0:
		b = append(b, '-')
		e = -e
	case r.IntN(2) == 0:
		b = append(b, '+')
	}
	if r.IntN(20) == 0 {
		b = append(b, "0000"[:1+r.IntN(4)]...)
	}
	return strconv.AppendInt(b, int64(e), 10)
}

// TestParseFloatRandom compares ParseFloat with strconv over millions of
// random literals.
func TestParseFloatRandom(t *testing.T) {
	t.Parallel()
	n := 2_000_000
	if testing.Short() {
		n = 200_000
	}
	r := rand.New(rand.NewPCG(11, 12))
	var b []byte
	bad := 0
	for i := 0; i < n; i++ {
		b = randomLiteral(r, b)
		if !validLiteral(b) {
			t.Fatalf("generated invalid literal %q", b)
		}
		if !checkParse(t, b) {
			if bad++; bad == 20 {
				t.Fatal("too many failures")
			}
		}
	}
}

// TestParseFloatShortest round-trips the output of AppendFloat and of
// strconv's shortest formats.
func TestParseFloatShortest(t *testing.T) {
	t.Parallel()
	var b []byte
	for _, x := range genDoubles(5, 300_000) {
		b = AppendFloat(b[:0], x)
		if !checkParse(t, b) {
			t.FailNow()
		}
		b = strconv.AppendFloat(b[:0], x, 'e', -1, 64)
		if !checkParse(t, b) {
			t.FailNow()
		}
		b = strconv.AppendFloat(b[:0], x, 'e', 16, 64) // 17 digits
		if !checkParse(t, b) {
			t.FailNow()
		}
	}
}

// halfwayLiterals returns literals at, just above and just below the exact
// midpoint between x and the next double up, in plain and scientific form,
// and truncations of the midpoint to 17-40 significant digits.
func halfwayLiterals(x float64) []string {
	lo := new(big.Rat).SetFloat64(x)
	var hi *big.Rat
	if x == math.MaxFloat64 {
		hi = new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 1024))
	} else {
		hi = new(big.Rat).SetFloat64(math.Nextafter(x, math.Inf(1)))
	}
	mid := lo.Add(lo, hi)
	mid.Quo(mid, big.NewRat(2, 1))
	// The denominator is a power of two 2^j: j decimal places are exact.
	j := mid.Denom().BitLen() - 1
	exact := mid.FloatString(j)
	if strings.Contains(exact, ".") {
		exact = strings.TrimRight(exact, "0")
	}
	exact = strings.TrimSuffix(exact, ".")
	var out []string
	add := func(s string) { out = append(out, s) }
	add(exact)
	if strings.Contains(exact, ".") {
		add(exact + "000000001") // just above
		if strings.HasSuffix(exact, "5") {
			add(exact[:len(exact)-1] + "4999999") // just below
		}
	} else {
		add(exact + ".000000001")
	}
	// Scientific form: significant digits D, value = 0.D·10^dp.
	ip, fp, _ := strings.Cut(exact, ".")
	digits := strings.TrimLeft(ip+fp, "0")
	dp := len(ip)
	if ip == "0" {
		dp = len(strings.TrimLeft(fp, "0")) - len(fp)
	}
	sci := func(d string) string {
		s := d[:1]
		if len(d) > 1 {
			s += "." + d[1:]
		}
		return s + "e" + strconv.Itoa(dp-1)
	}
	add(sci(digits))
	for _, n := range []int{17, 18, 19, 20, 21, 25, 40} {
		if n < len(digits) {
			add(sci(digits[:n]))
		}
	}
	return out
}

// TestParseFloatHalfway checks the exact midpoints between adjacent
// doubles, which must round to even, and their closest neighbours.
func TestParseFloatHalfway(t *testing.T) {
	t.Parallel()
	n := 10_000
	if testing.Short() {
		n = 1000
	}
	r := rand.New(rand.NewPCG(13, 14))
	xs := []float64{math.MaxFloat64, math.Nextafter(math.MaxFloat64, 0), 0, 5e-324, 1e-323,
		math.Float64frombits(0x000FFFFFFFFFFFFF), math.Float64frombits(0x0010000000000000),
		1, 9007199254740992, 4503599627370496, 1e23, 1e22}
	for len(xs) < n {
		switch r.IntN(4) {
		case 0: // integers beyond 2^53: ties with few digits
			xs = append(xs, float64(r.Uint64()>>r.UintN(11)|1<<53))
		case 1: // subnormals
			xs = append(xs, math.Float64frombits(r.Uint64()&fracMask>>r.UintN(52)))
		case 2: // small exponents, where ties have few digits after the point
			xs = append(xs, math.Float64frombits(uint64(1023-10+r.IntN(80))<<52|r.Uint64()&fracMask))
		default:
			xs = append(xs, math.Float64frombits(r.Uint64N(0x7FF0000000000000)))
		}
	}
	bad := 0
	for _, x := range xs {
		for _, s := range halfwayLiterals(x) {
			if !validLiteral([]byte(s)) {
				t.Fatalf("invalid literal %q", s)
			}
			if !checkParse(t, []byte(s)) || !checkParse(t, []byte("-"+s)) {
				if bad++; bad == 20 {
					t.Fatal("too many failures")
				}
			}
		}
	}
}

// TestParseFloatLong checks literals with hundreds to thousands of
// digits, where only digits far beyond the 19th decide the rounding.
func TestParseFloatLong(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(15, 16))
	var b []byte
	for i := 0; i < 3000; i++ {
		b = b[:0]
		// 17 leading digits from a random double, then a long tail.
		x := math.Float64frombits(r.Uint64N(0x7FF0000000000000))
		lead := strconv.FormatFloat(x, 'e', 16, 64)
		mant, exp, _ := strings.Cut(lead, "e")
		b = append(b, mant...)
		tail := 700 + r.IntN(400)
		if i%100 == 0 {
			tail = 5000 + r.IntN(5000)
		}
		switch r.IntN(4) {
		case 0: // zeros and a final 1
			for j := 0; j < tail; j++ {
				b = append(b, '0')
			}
			b = append(b, '1')
		case 1: // nines
			for j := 0; j < tail; j++ {
				b = append(b, '9')
			}
		case 2: // a 5 then zeros (then maybe a 1)
			b = append(b, '5')
			for j := 0; j < tail; j++ {
				b = append(b, '0')
			}
			if r.IntN(2) == 0 {
				b = append(b, '1')
			}
		default:
			for j := 0; j < tail; j++ {
				b = append(b, byte('0'+r.IntN(10)))
			}
		}
		b = append(b, 'e')
		b = append(b, exp...)
		if !checkParse(t, b) {
			t.FailNow()
		}
	}
	// Many digits before the point, or leading zeros after it.
	for _, n := range []int{400, 800, 1000, 5000} {
		lit := "1" + strings.Repeat("0", n) + "e-" + strconv.Itoa(n)
		checkParse(t, []byte(lit))
		lit = "0." + strings.Repeat("0", n) + "17976931348623157e" + strconv.Itoa(n+309)
		checkParse(t, []byte(lit))
		lit = "0." + strings.Repeat("0", n) + "123e" + strconv.Itoa(n-300)
		checkParse(t, []byte(lit))
		lit = strings.Repeat("9", n) + "." + strings.Repeat("9", n)
		checkParse(t, []byte(lit))
	}
	checkParse(t, longLiteral(3000))
}

// TestSlowParse checks the exact fallback by itself, on literals that
// would normally take the fast paths.
func TestSlowParse(t *testing.T) {
	t.Parallel()
	n := 300_000
	if testing.Short() {
		n = 30_000
	}
	r := rand.New(rand.NewPCG(17, 18))
	var b []byte
	for i := 0; i < n; i++ {
		b = randomLiteral(r, b)
		if i%2 == 0 {
			b = AppendFloat(b[:0], math.Float64frombits(r.Uint64N(0x7FF0000000000000)))
		}
		want := refParse(b)
		got := slowParse(b)
		if got != math.Float64bits(math.Abs(want)) {
			t.Fatalf("slowParse(%s) = %#016x, want %#016x", abbrev(b), got, math.Float64bits(math.Abs(want)))
		}
	}
}

// TestParseFloatDigits checks the digits ParseFloatDigits reports against
// the literal's text: w is its first 19 significant digits (trailing zeros
// included), exp the literal's exponent less the fraction's length plus the
// digits dropped, and exact whether those dropped were all zeros. f and ok
// must be ParseFloat's.
func TestParseFloatDigits(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	var b []byte
	for range 500_000 {
		b = randomLiteral(r, b)
		lit := string(b)
		f, w, exp, exact, ok := ParseFloatDigits(b)
		if f2, ok2 := ParseFloat(b); math.Float64bits(f) != math.Float64bits(f2) || ok != ok2 {
			t.Fatalf("%s: ParseFloatDigits = %v, %v; ParseFloat = %v, %v", lit, f, ok, f2, ok2)
		}
		mant, e10 := lit, 0
		if k := strings.IndexAny(lit, "eE"); k >= 0 {
			mant = lit[:k]
			x, err := strconv.Atoi(strings.TrimPrefix(lit[k+1:], "+"))
			if err != nil || x > 1e8 || x < -1e8 {
				continue // exponents beyond ParseFloat's cap
			}
			e10 = x
		}
		mant = strings.TrimPrefix(mant, "-")
		if k := strings.IndexByte(mant, '.'); k >= 0 {
			e10 -= len(mant) - k - 1
			mant = mant[:k] + mant[k+1:]
		}
		sig := strings.TrimLeft(mant, "0")
		if len(sig) > 19 {
			wantExact := strings.Trim(sig[19:], "0") == ""
			if exact != wantExact {
				t.Fatalf("%s: exact = %v, want %v", lit, exact, wantExact)
			}
			e10 += len(sig) - 19
			sig = sig[:19]
		} else if !exact {
			t.Fatalf("%s: %d significant digits, not reported exact", lit, len(sig))
		}
		var want uint64
		for _, c := range sig {
			want = want*10 + uint64(c-'0')
		}
		if w != want || exp != e10 {
			t.Fatalf("%s: ParseFloatDigits = %d·10^%d; want %d·10^%d", lit, w, exp, want, e10)
		}
	}
}
