package canon

import (
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/es6"
)

// randomLiteral writes a JSON number literal with up to maxSig significant
// digits in a random spelling: leading and trailing zeros, a fraction, an
// exponent in either case with or without a sign.
func randomLiteral(r *rand.Rand, maxSig, maxExp int) string {
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteByte('-')
	}
	sig := make([]byte, 1+r.IntN(maxSig))
	for i := range sig {
		sig[i] = byte('0' + r.IntN(10))
	}
	digits := strings.Repeat("0", r.IntN(4)) + string(sig) + strings.Repeat("0", r.IntN(4))
	point := r.IntN(len(digits) + 1)
	intPart := strings.TrimLeft(digits[:point], "0")
	if intPart == "" {
		intPart = "0"
	}
	b.WriteString(intPart)
	if frac := digits[point:]; frac != "" && r.IntN(4) != 0 {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	if r.IntN(2) == 0 {
		b.WriteByte("eE"[r.IntN(2)])
		e := r.IntN(2*maxExp+1) - maxExp
		switch {
		case e < 0:
			b.WriteByte('-')
			e = -e
		case r.IntN(2) == 0:
			b.WriteByte('+')
		}
		if r.IntN(8) == 0 {
			b.WriteString("00")
		}
		b.WriteString(strconv.Itoa(e))
	}
	return b.String()
}

// TestNumbersVsReference canonicalizes random literals under rfc8785 and
// compares with the reference path: strconv.ParseFloat (correctly rounded)
// then the slow ES6 formatter of internal/es6 (strconv digits, spelled-out layout). It covers the no-float shortcut for short
// decimals (shortDecimal) and the full path alike.
func TestNumbersVsReference(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 4))
	var c Canonicalizer
	c.Reset(RFC8785)
	for i := 0; i < 300000; i++ {
		maxSig, maxExp := 15, 330
		switch i % 4 {
		case 1:
			maxSig = 20
		case 2:
			maxExp = 25
		}
		lit := randomLiteral(r, maxSig, maxExp)
		f, err := strconv.ParseFloat(lit, 64)
		got, gerr := c.Append(nil, []byte(lit))
		if err != nil { // overflow
			if e, ok := errors.AsType[*Error](gerr); !ok || e.Class != ClassNumberRange {
				t.Fatalf("%s: got %q, %v; want number-range", lit, got, gerr)
			}
			continue
		}
		want := es6.AppendFloatSlow(nil, f)
		if gerr != nil || string(got) != string(want) {
			t.Fatalf("%s: got %q, %v; want %q", lit, got, gerr, want)
		}
	}
}

// TestES6LayoutNumbers canonicalizes literals in and around the layouts
// that numberIEEE recognises as canonical without formatting (es6Layout):
// the ES6 forms of doubles from 1e-7 to 1e22 and of every magnitude, and
// the same values spelled with 16 to 18 digits, one digit changed, one
// dropped or added, trailing or leading zeros, respelled exponents, each
// positive and negative. The output must be the reference's
// (strconv.ParseFloat, then the slow ES6 formatter), and View must return
// the input itself exactly when it is that.
func TestES6LayoutNumbers(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	var c Canonicalizer
	c.Reset(RFC8785)
	check := func(lit string) {
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			t.Fatalf("%s: bad test literal: %v", lit, err)
		}
		want := es6.AppendFloatSlow(nil, f)
		got, gerr := c.Append(nil, []byte(lit))
		if gerr != nil || string(got) != string(want) {
			t.Fatalf("%s: got %q, %v; want %q", lit, got, gerr, want)
		}
		src := []byte(lit)
		view, err := c.View(src)
		if err != nil || string(view) != string(want) {
			t.Fatalf("%s: View = %q, %v; want %q", lit, view, err, want)
		}
		if verbatim := &view[0] == &src[0]; verbatim != (lit == string(want)) {
			t.Fatalf("%s: View returned the input itself: %v; the input is canonical: %v", lit, verbatim, lit == string(want))
		}
	}
	canonical := 0
	n := 200_000
	if testing.Short() {
		n = 20_000 // CI's 32-bit step runs -short under emulation
	}
	for i := 0; i < n; i++ {
		x := math.Float64frombits(r.Uint64()>>12|0x3FF0000000000000) - 1 // [0, 1): 52 random bits
		x *= math.Pow(10, float64(r.IntN(30)-8))
		if x == 0 {
			continue
		}
		if r.IntN(2) == 0 {
			x = -x
		}
		es := string(es6.AppendFloatSlow(nil, x))
		if !strings.ContainsAny(es, "e") && strings.Contains(es, ".") {
			canonical++
		}
		lits := []string{
			es,
			strconv.FormatFloat(x, 'f', -1, 64),
			strconv.FormatFloat(x, 'f', 16+r.IntN(3), 64),
			strconv.FormatFloat(x, 'g', 16+r.IntN(3), 64),
			es + "0",
		}
		if strings.Contains(es, ".") && !strings.Contains(es, "e") {
			b := []byte(es)
			k := len(b) - 1 - r.IntN(3)
			if b[k] >= '0' && b[k] <= '9' {
				b[k] = '0' + (b[k]-'0'+byte(1+r.IntN(9)))%10
				lits = append(lits, string(b))
			}
			lits = append(lits, es[:len(es)-1]+strconv.Itoa(1+r.IntN(9)), es+strconv.Itoa(1+r.IntN(9)))
			if len(es) > 3 && es[len(es)-2] != '.' {
				lits = append(lits, es[:len(es)-1])
			}
		}
		for _, lit := range lits {
			check(lit)
		}
	}
	// The "0.000ddd" boundary: five zeros after the point stay plain, six
	// do not; 15, 16, 17 and 18 significant digits.
	for z := 4; z <= 7; z++ {
		for _, d := range []string{"1", "123456789012345", "1234567890123456", "12345678901234567", "123456789012345678", "30000000000000004", "9007199254740993"} {
			for _, sign := range []string{"", "-"} {
				check(sign + "0." + strings.Repeat("0", z) + d)
			}
		}
	}
	if canonical < n/4 {
		t.Fatalf("only %d canonical plain literals generated of %d", canonical, n)
	}

	// The exponential and long-integer layouts: ES6 forms of doubles of
	// every magnitude (random bit patterns, integers beyond 2^53 up to and
	// past 1e21, the layout boundaries), and respellings of each: the
	// exponent without its sign, with 'E', with a leading zero, one digit
	// changed, dropped or added.
	expForms := 0
	for i := 0; i < 200_000; i++ {
		var x float64
		switch i % 4 {
		case 0, 1:
			x = math.Float64frombits(r.Uint64())
		case 2:
			x = float64(r.Uint64()>>r.UintN(12)) * math.Pow(10, float64(r.IntN(8)))
		default:
			x = math.Pow(10, float64(r.IntN(60)-30)) * (1 + float64(r.IntN(1000))/1000)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
			continue
		}
		es := string(es6.AppendFloatSlow(nil, x))
		lits := []string{es}
		if k := strings.IndexByte(es, 'e'); k >= 0 {
			expForms++
			m, sign, digits := es[:k], es[k+1], es[k+2:]
			lits = append(lits,
				m+"E"+es[k+1:],
				m+"e"+string(sign)+"0"+digits,
			)
			if sign == '+' {
				lits = append(lits, m+"e"+digits)
			}
			if !strings.Contains(m, ".") {
				lits = append(lits, m+".0"+es[k:], m+"."+strconv.Itoa(1+r.IntN(9))+es[k:])
			} else {
				short := strings.TrimSuffix(m[:len(m)-1], ".")
				lits = append(lits, short+es[k:], m+strconv.Itoa(r.IntN(10))+es[k:])
				if d := m[len(m)-1]; d > '1' {
					lits = append(lits, m[:len(m)-1]+string(d-1)+es[k:])
				}
			}
		} else if !strings.Contains(es, ".") && len(es) > 15 {
			b := []byte(es)
			k := len(b) - 1 - r.IntN(6)
			if b[k] >= '0' && b[k] <= '9' {
				b[k] = '0' + (b[k]-'0'+byte(1+r.IntN(9)))%10
				lits = append(lits, string(b))
			}
			lits = append(lits, es+"0", es+".0", es[:len(es)-1])
		}
		for _, lit := range lits {
			check(lit)
		}
	}
	if expForms < 50_000 {
		t.Fatalf("only %d exponential forms generated", expForms)
	}
	// Overflow and underflow in canonical-looking spellings.
	for _, lit := range []string{"1e+400", "-1.5e+309", "1e-400", "2.4703282292062328e-324", "2.4703282292062327e-324"} {
		f, err := strconv.ParseFloat(lit, 64)
		got, gerr := c.Append(nil, []byte(lit))
		if err != nil {
			if e, ok := errors.AsType[*Error](gerr); !ok || e.Class != ClassNumberRange {
				t.Fatalf("%s: got %q, %v; want number-range", lit, got, gerr)
			}
			continue
		}
		if want := es6.AppendFloatSlow(nil, f); gerr != nil || string(got) != string(want) {
			t.Fatalf("%s: got %q, %v; want %q", lit, got, gerr, want)
		}
	}
}

// jsonNumber is RFC 8259's number grammar.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// FuzzNumber canonicalizes a number literal under rfc8785 and compares the
// result with the reference (strconv.ParseFloat, then the slow ES6
// formatter); a literal that is its own canonical form must come back from
// View as the input itself, and one that overflows must be rejected as
// number-range.
func FuzzNumber(f *testing.F) {
	for _, lit := range []string{
		"0", "-0", "-0.0", "0e5", "1", "1.0", "1e0", "1E+0", "1e21", "1e+21", "1e-7", "1e-6", "0.000001",
		"123456789012345678", "1234567890123456789", "12345678901234567890", "100000000000000000000",
		"9007199254740993", "1.7976931348623157e+308", "1.7976931348623159e308", "5e-324", "2.4703282292062327e-324",
		"1.0000000000000000000e1", "0.1000000000000000000", "4.35", "-1.2712202281602899e-05", "1e400", "1e-400",
	} {
		f.Add(lit)
	}
	var c Canonicalizer
	c.Reset(RFC8785)
	f.Fuzz(func(t *testing.T, lit string) {
		if !jsonNumber.MatchString(lit) {
			return
		}
		in := []byte(lit)
		got, gerr := c.Append(nil, in)
		v, err := strconv.ParseFloat(lit, 64)
		if err != nil { // overflow
			if e, ok := errors.AsType[*Error](gerr); !ok || e.Class != ClassNumberRange || e.Offset != 0 {
				t.Fatalf("%s: got %q, %v; want number-range at 0", lit, got, gerr)
			}
			return
		}
		want := es6.AppendFloatSlow(nil, v)
		if gerr != nil || string(got) != string(want) {
			t.Fatalf("%s: got %q, %v; want %q", lit, got, gerr, want)
		}
		view, err := c.View(in)
		if err != nil || string(view) != string(want) {
			t.Fatalf("%s: View gives %q, %v; want %q", lit, view, err, want)
		}
		if same := &view[0] == &in[0]; same != (lit == string(want)) {
			t.Fatalf("%s: View returns the input itself: %v; canonical: %v", lit, same, lit == string(want))
		}
	})
}
