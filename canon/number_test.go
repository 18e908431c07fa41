package canon

import (
	"math/rand/v2"
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
			if e, ok := AsError(gerr); !ok || e.Class != ClassNumberRange {
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
