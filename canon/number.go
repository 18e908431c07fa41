package canon

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"

	"github.com/bbdigest/bbdigest/internal/es6"
)

// maxSafeInteger is 2^53-1, the largest magnitude the strict profile accepts.
const maxSafeInteger = 1<<53 - 1

// expSaturate bounds the exponent accumulated from a literal. Any exponent
// beyond it puts a nonzero value far outside both profiles (and is exact
// enough to classify: see numberStrict), while the sums below cannot
// overflow int64 for inputs up to 2^62 bytes.
const expSaturate = 1 << 40

// numLit is the anatomy of a JSON number literal src[start:end].
type numLit struct {
	start, end         int
	neg                bool
	intStart, intEnd   int // integer digits
	fracStart, fracEnd int // fraction digits (empty without '.')
	hasExp             bool
	exp                int64 // saturated at ±expSaturate
}

// number consumes the number literal at pos and writes its canonical form.
func (c *Canonicalizer) number(pos int, strict bool) (int, error) {
	src := c.src
	n := len(src)
	i := pos
	lit := numLit{start: pos}
	if src[i] == '-' {
		lit.neg = true
		i++
	}
	lit.intStart = i
	switch {
	case i < n && src[i] == '0':
		i++
		if i < n && isDigit(src[i]) {
			return 0, c.errorf(ClassSyntax, int64(lit.intStart), "number with a leading zero")
		}
	case i < n && src[i] >= '1' && src[i] <= '9':
		i = skipDigits(src, i+1)
	default:
		return 0, c.errorf(ClassSyntax, int64(i), "%s in a number, want a digit", badChar(src, i))
	}
	lit.intEnd = i
	lit.fracStart, lit.fracEnd = i, i
	if i < n && src[i] == '.' {
		i++
		lit.fracStart = i
		i = skipDigits(src, i)
		if i == lit.fracStart {
			return 0, c.errorf(ClassSyntax, int64(i), "%s in a number, want a digit after '.'", badChar(src, i))
		}
		lit.fracEnd = i
	}
	if i < n && (src[i] == 'e' || src[i] == 'E') {
		lit.hasExp = true
		i++
		eneg := false
		if i < n && (src[i] == '+' || src[i] == '-') {
			eneg = src[i] == '-'
			i++
		}
		d0 := i
		for i < n && isDigit(src[i]) {
			if lit.exp < expSaturate {
				lit.exp = lit.exp*10 + int64(src[i]-'0')
			}
			i++
		}
		if i == d0 {
			return 0, c.errorf(ClassSyntax, int64(i), "%s in a number, want an exponent digit", badChar(src, i))
		}
		lit.exp = min(lit.exp, expSaturate)
		if eneg {
			lit.exp = -lit.exp
		}
	}
	lit.end = i

	// Fast path: a plain integer literal of at most 15 digits is below 2^53
	// in both profiles and already canonical, except "-0".
	if !lit.hasExp && lit.fracEnd == lit.fracStart {
		digits := lit.intEnd - lit.intStart
		if digits <= 15 {
			if lit.neg && src[lit.intStart] == '0' {
				return c.replaceNumber(lit.start, lit.end, append(c.numBuf[:0], '0'))
			}
			return i, nil
		}
		if strict {
			if digits == 16 && string(src[lit.intStart:lit.intEnd]) <= "9007199254740991" {
				return i, nil
			}
			return 0, c.errorf(ClassUnsafeInteger, int64(pos), "integer %s outside ±(2^53-1)", abbrev(src[pos:i]))
		}
	}
	if strict {
		return c.numberStrict(&lit)
	}
	return c.numberIEEE(&lit)
}

// numberStrict handles a literal with a fraction or an exponent (or a long
// integer) under the strict profile: it is accepted only if its exact decimal
// value is an integer of magnitude at most 2^53-1, decided from its digits.
func (c *Canonicalizer) numberStrict(lit *numLit) (int, error) {
	src := c.src
	// The literal's value is D × 10^(exp - fracLen), D the concatenation of
	// the integer and fraction digits. Find D's first and last nonzero digit.
	digit := func(k int) byte { // k-th digit of D
		if il := lit.intEnd - lit.intStart; k < il {
			return src[lit.intStart+k]
		} else {
			return src[lit.fracStart+k-il]
		}
	}
	nd := (lit.intEnd - lit.intStart) + (lit.fracEnd - lit.fracStart)
	first := 0
	for first < nd && digit(first) == '0' {
		first++
	}
	if first == nd { // zero, however spelled
		return c.replaceNumber(lit.start, lit.end, append(c.numBuf[:0], '0'))
	}
	last := nd - 1
	for digit(last) == '0' {
		last--
	}
	sig := int64(last - first + 1)
	// value = S × 10^e with S the significant digits.
	e := lit.exp - int64(lit.fracEnd-lit.fracStart) + int64(nd-1-last)
	if e < 0 {
		return 0, c.errorf(ClassNonInteger, int64(lit.start), "number %s is not an integer", abbrev(src[lit.start:lit.end]))
	}
	if sig+e > 16 {
		return 0, c.errorf(ClassUnsafeInteger, int64(lit.start), "integer %s outside ±(2^53-1)", abbrev(src[lit.start:lit.end]))
	}
	var v uint64
	for k := first; k <= last; k++ {
		v = v*10 + uint64(digit(k)-'0')
	}
	for ; e > 0; e-- {
		v *= 10
	}
	if v > maxSafeInteger {
		return 0, c.errorf(ClassUnsafeInteger, int64(lit.start), "integer %s outside ±(2^53-1)", abbrev(src[lit.start:lit.end]))
	}
	out := c.numBuf[:0]
	if lit.neg {
		out = append(out, '-')
	}
	out = strconv.AppendUint(out, v, 10)
	return c.replaceNumber(lit.start, lit.end, out)
}

// numberIEEE handles a literal under the rfc8785 profile: the correctly
// rounded double, written as ECMAScript's Number.prototype.toString.
//
// A literal of at most 19 digits (nearly all of them) is read once, into
// its value w·10^e, and everything else works on that: with at most 15
// significant digits well inside the normal range, w and e are already the
// digits ES6 prints (see shortDecimal for why); otherwise the double comes
// from w and e (es6.FromDecimal) and its shortest digits from es6.Shortest.
// The literal is canonical iff it is spelled in ES6's layout (es6Layout)
// with exactly those digits; if not, they are written out.
func (c *Canonicalizer) numberIEEE(lit *numLit) (int, error) {
	k, sure := c.es6Layout(lit)
	if k != 0 && k <= 15 && sure {
		return lit.end, nil
	}
	src := c.src
	fracLen := lit.fracEnd - lit.fracStart
	if lit.intEnd-lit.intStart+fracLen > 19 || lit.exp < -400 || lit.exp > 400 {
		// Two of ES6's layouts can have more than 19 digits but at most 19
		// significant ones (es6Layout's k), which are all that need reading.
		// lit no longer describes the literal's spelling after this: only
		// its start, end and sign, and fracLen, are used below.
		switch {
		case k == 0 || k > 19 || lit.hasExp:
			return c.numberIEEELong(lit, k)
		case fracLen == 0:
			// "ddd000" of 20 or 21 digits (ES6 writes every double below
			// 10^21 as an integer): the trailing zeros become the exponent.
			lit.exp = int64(lit.intEnd - lit.intStart - k)
			lit.intEnd = lit.intStart + k
		case src[lit.intStart] == '0':
			// "0.000ddd": the zeros before the k digits add nothing to w
			// (the integer digit "0" neither).
			lit.fracStart = lit.fracEnd - k
		default: // "ddd.ddd": all its digits are significant
			return c.numberIEEELong(lit, k)
		}
	}
	w := es6.AppendDigits(es6.AppendDigits(0, src[lit.intStart:lit.intEnd]), src[lit.fracStart:lit.fracEnd])
	if w == 0 { // zero, however spelled; ES6 prints -0 as 0
		return c.replaceNumber(lit.start, lit.end, append(c.numBuf[:0], '0'))
	}
	e := int(lit.exp) - fracLen
	for w >= 1e17 && w%10 == 0 { // (es6.TrimZeros takes w < 10^17)
		w, e = w/10, e+1
	}
	w, e = es6.TrimZeros(w, e)
	d, de := w, e
	if kd := es6.DecimalLen(w); kd > 15 || kd+e < -290 || kd+e > 300 {
		f, ok := es6.FromDecimal(src[lit.start:lit.end], w, e)
		if !ok {
			return 0, c.errorf(ClassNumberRange, int64(lit.start), "number %s overflows an IEEE-754 double", abbrev(src[lit.start:lit.end]))
		}
		if f == 0 { // underflow
			return c.replaceNumber(lit.start, lit.end, append(c.numBuf[:0], '0'))
		}
		d, de = es6.Shortest(f)
	}
	if k != 0 && d == w && de == e {
		return lit.end, nil
	}
	// Not canonical: the literal is not in ES6's layout, or its digits are
	// not the double's, so the output differs from it.
	c.flush(lit.start)
	if cap(c.dst)-len(c.dst) < es6.DecimalRoom {
		c.grow(es6.DecimalRoom, lit.end)
	}
	c.dst = es6.AppendDecimal(c.dst, lit.neg, d, de)
	c.pend = lit.end
	return lit.end, nil
}

// numberIEEELong is numberIEEE for literals of more than 19 digits (other
// than those in ES6's layouts "ddd000" and "0.000ddd" with at most 19
// significant digits) or with an exponent beyond ±400, given es6Layout's k
// for the literal.
func (c *Canonicalizer) numberIEEELong(lit *numLit, k int) (int, error) {
	text := c.src[lit.start:lit.end]
	if k != 0 && k <= 17 {
		// Canonical iff its digits are the double's: parse, and compare
		// with the shortest digits (w without its trailing zeros).
		f, w, exp, exact, ok := es6.ParseFloatDigits(text)
		if ok && f != 0 && exact {
			for w%10 == 0 {
				w, exp = w/10, exp+1
			}
			sd, se := es6.Shortest(f)
			if sd == w && se == exp {
				return lit.end, nil
			}
			return c.replaceNumber(lit.start, lit.end, es6.AppendDecimal(c.numBuf[:0], lit.neg, sd, se))
		}
		// Overflow or underflow: the general path reports or writes it.
	}
	if out, ok := c.shortDecimal(lit); ok {
		return c.replaceNumber(lit.start, lit.end, out)
	}
	f, ok := es6.ParseFloat(text)
	if !ok || math.IsInf(f, 0) {
		return 0, c.errorf(ClassNumberRange, int64(lit.start), "number %s overflows an IEEE-754 double", abbrev(text))
	}
	return c.replaceNumber(lit.start, lit.end, es6.AppendFloat(c.numBuf[:0], f))
}

// es6Layout reports whether the literal is spelled exactly as ECMAScript
// lays out a nonzero number with its own significant digits S and decimal
// point: it returns the number of digits in S, or 0 if the spelling is not
// such a layout. The layouts (Number::toString, n the point's position):
//   - "ddd000" (k <= n <= 21): an integer, as the literals of more than 15
//     digits that reach numberIEEE are (shorter ones never do);
//   - "ddd.ddd" (0 < n < k, n <= 21) and "0.000ddd" (-6 < n <= 0, so at
//     most five zeros after the point): no exponent, no trailing zero;
//   - "d.ddde±x" or "de±x" (n > 21 or n <= -6): one nonzero integer digit,
//     no trailing zero in the fraction, a lowercase 'e', the exponent's
//     sign always, its digits without leading zeros.
//
// Such a literal is canonical iff S are the digits ES6 prints for the double
// nearest to it (numberIEEE checks): with at most 15 digits they are when
// sure is true, that is when the value is well inside the normal range (see
// shortDecimal); with 16 or 17, iff es6.Shortest of the double is S; with
// more, never (ES6 prints at most 17). Canonical input's numbers are in
// these layouts, and those of at most 15 digits cost no floating point.
func (c *Canonicalizer) es6Layout(lit *numLit) (k int, sure bool) {
	src := c.src
	intLen, fracLen := lit.intEnd-lit.intStart, lit.fracEnd-lit.fracStart
	if fracLen > 0 && src[lit.fracEnd-1] == '0' {
		return 0, false // a trailing zero in the fraction
	}
	lead := src[lit.intStart]
	if lit.hasExp {
		// "d[.ddd]e±x", x = n-1 >= 21 or <= -7.
		e := lit.fracEnd // the 'e'; an exponent digit follows it, or a sign and a digit
		if intLen != 1 || lead == '0' || src[e] != 'e' {
			return 0, false
		}
		// (The sign, when there is one, is the exponent's: lit.exp has it.)
		if sign := src[e+1]; sign != '+' && sign != '-' || src[e+2] == '0' || lit.exp > -7 && lit.exp < 21 {
			return 0, false
		}
		return 1 + fracLen, lit.exp >= -290 && lit.exp < 300
	}
	if fracLen == 0 {
		// "ddd000": more than 15 digits here, at most 21.
		if intLen > 21 || lead == '0' {
			return 0, false
		}
		t := lit.intEnd
		for src[t-1] == '0' {
			t--
		}
		return t - lit.intStart, true
	}
	if lead != '0' {
		if intLen > 21 {
			return 0, false // 1e21 and above: exponential form
		}
		return intLen + fracLen, true // "ddd.ddd": JSON has no leading zeros
	}
	// "0.ddd" (JSON allows a lone integer zero only): skip the zeros after
	// the point; the last digit is nonzero, so some digit is.
	z := 0
	for src[lit.fracStart+z] == '0' {
		z++
	}
	if z > 5 {
		return 0, false // below 1e-6: exponential form
	}
	return fracLen - z, true
}

// shortDecimal writes the ES6 form of a literal with at most 15 significant
// digits whose value lies well inside the normal range of doubles, without
// any floating-point work, and of any literal whose value is zero.
//
// Why this is exact: every decimal of at most 15 significant digits (DBL_DIG)
// in the normal range survives the round trip decimal → nearest double →
// nearest 15-digit decimal. So if the literal's significant digits S round to
// the double x, no other decimal of at most 15 digits rounds to x, and the
// shortest round-trip digits of x, which ES6 prints, are exactly S. The
// decimal exponent is the literal's own, so ES6's layout rules apply to
// (S, n) directly.
func (c *Canonicalizer) shortDecimal(lit *numLit) ([]byte, bool) {
	src := c.src
	// D is the integer digits followed by the fraction digits; find its
	// first and last nonzero digit (indexes into D).
	intLen, fracLen := lit.intEnd-lit.intStart, lit.fracEnd-lit.fracStart
	if intLen+fracLen > 15 && src[lit.intStart] != '0' {
		// D starts with a nonzero digit: if it also ends with one, all its
		// digits are significant, and there are too many.
		last := lit.intEnd - 1
		if fracLen > 0 {
			last = lit.fracEnd - 1
		}
		if src[last] != '0' {
			return nil, false
		}
	}
	first := 0
	for first < intLen && src[lit.intStart+first] == '0' {
		first++
	}
	if first == intLen {
		for first < intLen+fracLen && src[lit.fracStart+first-intLen] == '0' {
			first++
		}
		if first == intLen+fracLen { // zero, however spelled; ES6 prints -0 as 0
			return append(c.numBuf[:0], '0'), true
		}
	}
	last := intLen + fracLen - 1
	for last >= intLen && src[lit.fracStart+last-intLen] == '0' {
		last--
	}
	if last < intLen {
		for src[lit.intStart+last] == '0' {
			last--
		}
	}
	k := last - first + 1
	if k > 15 {
		return nil, false
	}
	// n: the decimal exponent with value = 0.S × 10^n.
	n := int64(intLen-first) + lit.exp
	if n < -290 || n > 300 {
		return nil, false
	}
	var d uint64
	for p := first; p <= last; p++ {
		if p < intLen {
			d = d*10 + uint64(src[lit.intStart+p]-'0')
		} else {
			d = d*10 + uint64(src[lit.fracStart+p-intLen]-'0')
		}
	}
	return es6.AppendDecimal(c.numBuf[:0], lit.neg, d, int(n)-k), true
}

// replaceNumber makes out the output of lit, unless the literal already is.
func (c *Canonicalizer) replaceNumber(start, end int, out []byte) (int, error) {
	if string(out) != string(c.src[start:end]) {
		c.flush(start)
		if cap(c.dst)-len(c.dst) < len(out) {
			c.grow(len(out), end)
		}
		c.dst = append(c.dst, out...)
		c.pend = end
	}
	return end, nil
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// skipDigits returns the end of the run of ASCII digits at src[i:]. Eight
// bytes are tested at a time: a byte is a digit iff its high nibble is 3 and
// adding 6 leaves it so; no digit carries into the next byte, so the first
// byte flagged is the first that is not a digit.
func skipDigits(src []byte, i int) int {
	const nib, three, six = 0xF0F0F0F0F0F0F0F0, 0x3030303030303030, 0x0606060606060606
	for i+8 <= len(src) {
		x := binary.LittleEndian.Uint64(src[i:])
		if nd := (x&nib ^ three) | ((x+six)&nib ^ three); nd != 0 {
			return i + bits.TrailingZeros64(nd)/8
		}
		i += 8
	}
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	return i
}

// abbrev quotes a literal for an error message, shortening long ones.
func abbrev(b []byte) string {
	const max = 40
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "..."
	}
	return strconv.Quote(string(b))
}
