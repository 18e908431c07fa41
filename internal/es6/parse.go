package es6

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// pow10f[i] = 10^i, exact in float64.
var pow10f = [23]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// maxExp caps the exponent value that ParseFloat accumulates (the cap keeps
// it within a 32-bit int). A larger exponent over- or underflows whatever
// the digits are, unless the literal has on the order of 10^8 digits.
const maxExp = 1e8

// ParseFloat returns the float64 nearest to the value of lit, a JSON number
// literal (RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?) that the
// caller has already validated. Ties round to even, as IEEE-754 requires,
// whatever the length of the literal.
//
// ok is false only when the value is too large for a float64: f is then ±Inf.
// Values too small underflow to the correctly rounded subnormal or to ±0 with
// ok true. The result for a literal that is not valid JSON is unspecified, but
// ParseFloat does not panic on it.
//
// ParseFloat does not allocate.
func ParseFloat(lit []byte) (f float64, ok bool) {
	f, _, _, _, ok = ParseFloatDigits(lit)
	return f, ok
}

// ParseFloatDigits is ParseFloat, and also returns the literal's value as
// it read it: w is its first 19 significant digits (all of them if it has
// fewer: leading zeros do not count, trailing zeros do), and the value is
// exactly w·10^exp when exact, that is unless a nonzero digit came after
// those 19. A caller that compares w and exp with Shortest(f) learns
// whether the literal's digits are the ones ECMAScript prints for f.
func ParseFloatDigits(lit []byte) (f float64, w uint64, exp int, exact, ok bool) {
	i := 0
	neg := false
	if len(lit) > 0 && lit[0] == '-' {
		neg = true
		i = 1
	}

	// The value is w·10^exp, exactly unless trunc (digits were dropped after
	// the first 19 significant ones; the value is then in (w, w+1)·10^exp).
	// w < 10^18 means that w has fewer than 19 significant digits and can
	// take one more; leading zeros leave w at 0 and so do not count. Runs
	// of eight digits are taken at once while w < 10^11.
	trunc := false
	for w < 1e11 && i+8 <= len(lit) {
		x, ok := eightDigits(lit[i:])
		if !ok {
			break
		}
		w = w*1e8 + x
		i += 8
	}
	for ; i < len(lit); i++ {
		c := lit[i] - '0'
		if c > 9 {
			break
		}
		if w < 1e18 {
			w = w*10 + uint64(c)
		} else {
			exp++
			trunc = trunc || c != 0
		}
	}
	if i < len(lit) && lit[i] == '.' {
		i++
		for w < 1e11 && i+8 <= len(lit) {
			x, ok := eightDigits(lit[i:])
			if !ok {
				break
			}
			w = w*1e8 + x
			exp -= 8
			i += 8
		}
		for ; i < len(lit); i++ {
			c := lit[i] - '0'
			if c > 9 {
				break
			}
			if w < 1e18 {
				w = w*10 + uint64(c)
				exp--
			} else {
				trunc = trunc || c != 0
			}
		}
	}
	if i < len(lit) && lit[i]|0x20 == 'e' {
		exp += parseExp(lit[i+1:])
	}

	f = fromDecimal(lit, w, exp, trunc)
	if neg {
		f = -f
	}
	return f, w, exp, !trunc, !math.IsInf(f, 0)
}

// fromDecimal returns the non-negative double nearest to w·10^exp, or to
// the value in (w, w+1)·10^exp of lit when trunc; +Inf when that overflows.
// Only when Clinger's fast path and Eisel–Lemire cannot decide does it read
// lit (the exact conversion); with trunc false, lit may then be any literal
// of the same absolute value.
func fromDecimal(lit []byte, w uint64, exp int, trunc bool) float64 {
	switch {
	case w == 0:
		// trunc implies w != 0.
		return 0
	case !trunc && w <= 1<<53 && exp >= -22 && exp <= 22+15:
		// Clinger's fast path: w and 10^|exp| are exact doubles, so one
		// correctly rounded IEEE operation gives the correctly rounded
		// result.
		f := float64(w)
		switch {
		case exp < 0:
			return f / pow10f[-exp]
		case exp <= 22:
			return f * pow10f[exp]
		case w <= (1<<53)/pow10u64[exp-22]:
			// w·10^(exp-22) is still an exact integer below 2^53.
			return float64(w*pow10u64[exp-22]) * 1e22
		}
	case exp < pow10Min:
		// Below 10^19·10^-343 < 2^-1075: rounds to zero.
		return 0
	case exp > 308:
		// At least 10^309.
		return math.Inf(1)
	}
	return eiselLemireOrSlow(lit, w, exp, trunc)
}

// FromDecimal returns the double nearest to w·10^exp (ties to even) for
// the literal lit whose exact value that is: a caller that has already read
// a literal's digits (canon does, while validating it) converts them without
// a second pass. ok is false when the value is too large for a float64.
// lit is read only in the rare cases that need the exact conversion; its sign
// is ignored, so the result is non-negative.
func FromDecimal(lit []byte, w uint64, exp int) (f float64, ok bool) {
	f = fromDecimal(lit, w, exp, false)
	return f, f <= math.MaxFloat64 // the result is not negative
}

// AppendDigits returns w·10^len(b) + the value of the ASCII digits b, which
// the caller has validated; the result must fit in a uint64 (at most 19
// digits in all). Runs of eight digits are converted at once.
func AppendDigits(w uint64, b []byte) uint64 {
	for len(b) >= 8 {
		w = w*1e8 + combine8(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	for _, c := range b {
		w = w*10 + uint64(c-'0')
	}
	return w
}

// TrimZeros returns d and e with the trailing decimal zeros of d moved into
// the exponent, for 0 < d < 10^17: the same value d·10^e, with d no longer
// a multiple of 10.
func TrimZeros(d uint64, e int) (uint64, int) { return trimZeros(d, e) }

// DecimalLen returns the number of decimal digits of d >= 1.
func DecimalLen(d uint64) int { return decimalLen(d) }

// eightDigits returns the value of b[:8] if those are eight ASCII digits.
// It checks and converts all eight bytes at once: a byte is a digit when
// its high nibble is 3 and adding 6 does not carry out of the low nibble,
// and the digits are then combined pairwise (10·a+b), then in pairs of
// pairs (100·ab+cd) and finally halves (10^4·abcd+efgh), each step a
// multiply-add across lanes.
func eightDigits(b []byte) (uint64, bool) {
	v := binary.LittleEndian.Uint64(b)
	if (v&0xF0F0F0F0F0F0F0F0)|((v+0x0606060606060606)&0xF0F0F0F0F0F0F0F0)>>4 != 0x3333333333333333 {
		return 0, false
	}
	return combine8(v), true
}

// combine8 returns the value of the eight ASCII digits in v (the first in
// the lowest byte), which the caller has checked.
func combine8(v uint64) uint64 {
	v = (v & 0x0F0F0F0F0F0F0F0F) * (10<<8 + 1) >> 8
	v = (v & 0x00FF00FF00FF00FF) * (100<<16 + 1) >> 16
	return (v & 0x0000FFFF0000FFFF) * (10000<<32 + 1) >> 32
}

// eiselLemireOrSlow converts w·10^exp, or a value in (w, w+1)·10^exp when
// trunc, with Eisel–Lemire, and falls back to the exact conversion of the
// whole literal when that cannot decide. The result is non-negative.
func eiselLemireOrSlow(lit []byte, w uint64, exp int, trunc bool) float64 {
	b, st := eiselLemire(w, exp)
	if st != elFail && trunc {
		// Both ends of the interval must round to the same double.
		b2, st2 := eiselLemire(w+1, exp)
		if st2 != st || b2 != b {
			st = elFail
		}
	}
	switch st {
	case elOK:
		return math.Float64frombits(b)
	case elOverflow:
		return math.Inf(1)
	}
	return math.Float64frombits(slowParse(lit))
}

// Eisel–Lemire outcomes.
const (
	elOK = iota
	elFail
	elOverflow
)

// eiselLemire returns the bits of the double nearest to w·10^q for w > 0
// and pow10Min <= q <= 308, or elFail when the 128-bit approximation of 10^q
// cannot decide the rounding, or elOverflow.
//
// The table holds 10^q's significand truncated to 128 bits, so the product
// with the normalized w falls short of the exact one by less than w units of
// its lowest 64-bit word. The top 64 bits of the product from t[0] alone are
// therefore exact unless adding that shortfall could carry into them; the
// product with t[1] then narrows the shortfall to one unit of the word below,
// and what is still unsure bails out. With the top bits exact, rounding them
// is exact too, except where the bits below the rounding bit look like an
// exact tie, which only an exact product can confirm.
func eiselLemire(w uint64, q int) (uint64, int) {
	l := bits.LeadingZeros64(w)
	w <<= uint(l)
	t := &pow10Tab[q-pow10Min]
	hi, lo := bits.Mul64(w, t[0])
	if hi&0x1FF == 0x1FF && lo+w < lo {
		// The ignored w·t[1]/2^64 may carry into hi: add it in.
		hi2, lo2 := bits.Mul64(w, t[1])
		var carry uint64
		lo, carry = bits.Add64(lo, hi2, 0)
		hi += carry
		if hi&0x1FF == 0x1FF && lo+1 == 0 && lo2+w < lo2 {
			return 0, elFail
		}
	}
	// hi·2^(L+1-l) approximates the value, L = floor(log2(10^q)); hi has
	// its top bit at 63 or 62. Keep 54 bits: 53 and a rounding bit.
	msb := hi >> 63
	sh := uint(msb + 9)
	mant := hi >> sh
	dropped := hi&(1<<sh-1) | lo // zero when the product looks exact at mant
	// value ≈ mant·2^(L+1-l+sh); after dropping the rounding bit the biased
	// exponent of a 53-bit significand is that exponent + 1 + qBias.
	biased := flog2Pow10(q) + 1 - l + int(sh) + 1 + qBias

	if biased >= 1 {
		if dropped == 0 && mant&3 == 1 {
			// Exactly halfway between two doubles if the product is exact,
			// which it is for 0 <= q <= 27 (5^q fits in t[0]; t[1] == 0).
			if q < 0 || q > 27 {
				return 0, elFail
			}
			mant-- // round half to even: down
		}
		mant += mant & 1
		mant >>= 1
		if mant>>(mantBits+1) != 0 {
			mant >>= 1
			biased++
		}
		if biased >= expMask {
			return 0, elOverflow
		}
		return uint64(biased)<<mantBits | mant&fracMask, elOK
	}

	// Subnormal: keep only 53-(1-biased) bits, plus the rounding bit.
	r := uint(1 - biased + 1) // bits of mant below the result
	if r >= 64 {
		// Below 2^-1075·2^(54-64): rounds to zero.
		return 0, elOK
	}
	half := mant >> (r - 1) & 1
	below := mant&(1<<(r-1)-1) | dropped
	if half == 1 && below == 0 {
		// Looks like a tie; exact ties cannot happen this far down, but the
		// approximation cannot tell a tie from a value just above it.
		return 0, elFail
	}
	// The result may round up to 2^52, which is the smallest normal's bits.
	return mant>>r + half, elOK
}

// slowParse returns the bits of the non-negative double nearest to the
// absolute value of lit, by exact decimal arithmetic. It is kept out of
// line so that its decimal, over 800 bytes, is not in the frame of
// eiselLemireOrSlow, which every literal that Clinger's fast path cannot
// convert goes through.
//
//go:noinline
func slowParse(lit []byte) uint64 {
	var a decimal
	a.load(lit)
	return a.floatBits()
}

// maxDigits is the number of significant decimal digits that decimal keeps.
// The exact midpoint between two adjacent doubles has at most 767
// significant digits, so comparing the first 800 digits of the value with it
// (with nonzero dropped digits counting as "a bit more") decides the rounding.
const maxDigits = 800

// decimal is an arbitrary-precision decimal 0.d[0]d[1]...d[nd-1]·10^dp,
// truncated to maxDigits significant digits (trunc records that nonzero
// digits were dropped). Shifts by up to 60 bits multiply or divide it by
// powers of two exactly, up to that truncation.
type decimal struct {
	d     [maxDigits + 20]byte // digit values 0-9, most significant first
	nd    int                  // number of digits in use; d[0] != 0 when nd > 0
	dp    int                  // decimal exponent
	trunc bool                 // nonzero digits were dropped
}

// load sets a to the absolute value of the JSON number literal lit.
func (a *decimal) load(lit []byte) {
	i := 0
	if i < len(lit) && lit[i] == '-' {
		i++
	}
	sawDot := false
	for ; i < len(lit); i++ {
		c := lit[i]
		if c == '.' && !sawDot {
			sawDot = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		if c == '0' && a.nd == 0 {
			// Leading zero: no digit to store.
			if sawDot {
				a.dp--
			}
			continue
		}
		if !sawDot {
			a.dp++
		}
		if a.nd < maxDigits {
			a.d[a.nd] = c - '0'
			a.nd++
		} else if c != '0' {
			a.trunc = true
		}
	}
	if i < len(lit) && lit[i]|0x20 == 'e' {
		a.dp += parseExp(lit[i+1:])
	}
	a.trim()
}

// trim drops trailing zero digits.
func (a *decimal) trim() {
	for a.nd > 0 && a.d[a.nd-1] == 0 {
		a.nd--
	}
	if a.nd == 0 {
		a.dp = 0
	}
}

// maxShift is the largest shift that the digit loops can do in a uint64:
// they hold up to 10·2^maxShift.
const maxShift = 60

// leftShift multiplies a by 2^k, 0 < k <= maxShift.
func (a *decimal) leftShift(k uint) {
	// Multiply from the last digit up, writing each product digit 19
	// places to the right of where it ends up (2^60 < 10^19, so the
	// carry out of the top adds at most 19 digits), then slide them back.
	const room = 19
	var n uint64
	w := a.nd + room
	for r := a.nd - 1; r >= 0; r-- {
		n += uint64(a.d[r]) << k
		q := n / 10
		w--
		a.d[w] = byte(n - 10*q)
		n = q
	}
	for n > 0 {
		q := n / 10
		w--
		a.d[w] = byte(n - 10*q)
		n = q
	}
	end := a.nd + room
	a.dp += (end - w) - a.nd
	a.nd = copy(a.d[:], a.d[w:end])
	if a.nd > maxDigits {
		for _, c := range a.d[maxDigits:a.nd] {
			if c != 0 {
				a.trunc = true
				break
			}
		}
		a.nd = maxDigits
	}
	a.trim()
}

// rightShift divides a by 2^k, 0 < k <= maxShift.
func (a *decimal) rightShift(k uint) {
	r, w := 0, 0
	var n uint64
	// Read digits until the quotient is nonzero.
	for ; n>>k == 0; r++ {
		if r >= a.nd {
			if n == 0 {
				a.nd = 0
				a.dp = 0
				return
			}
			for n>>k == 0 {
				n *= 10
				r++
			}
			break
		}
		n = n*10 + uint64(a.d[r])
	}
	a.dp -= r - 1
	mask := uint64(1)<<k - 1
	for ; r < a.nd; r++ {
		c := a.d[r]
		a.d[w] = byte(n >> k)
		w++
		n = (n&mask)*10 + uint64(c)
	}
	for n > 0 {
		dig := byte(n >> k)
		n = (n & mask) * 10
		if w < maxDigits {
			a.d[w] = dig
			w++
		} else if dig != 0 {
			a.trunc = true
		}
	}
	a.nd = w
	a.trim()
}

// shift multiplies a by 2^k.
func (a *decimal) shift(k int) {
	for k > 0 {
		n := min(k, maxShift)
		a.leftShift(uint(n))
		k -= n
	}
	for k < 0 {
		n := min(-k, maxShift)
		a.rightShift(uint(n))
		k += n
	}
}

// log2Pow10Tab[i] = floor(log2(10^i)).
var log2Pow10Tab = [19]int{0, 3, 6, 9, 13, 16, 19, 23, 26, 29, 33, 36, 39, 43, 46, 49, 53, 56, 59}

// floatBits returns the bits of the double nearest to a (ties to even),
// which is +Inf on overflow.
func (a *decimal) floatBits() uint64 {
	const infBits = expMask << mantBits
	if a.nd == 0 {
		return 0
	}
	if a.dp > 310 { // a >= 10^309
		return infBits
	}
	if a.dp < -330 { // a < 10^-330
		return 0
	}
	// Scale into [1/2, 1): a = scaled·2^exp.
	exp := 0
	for a.dp > 0 {
		n := maxShift
		if a.dp < len(log2Pow10Tab) {
			n = log2Pow10Tab[a.dp] // a < 10^dp: a/2^n stays >= 1/10
		}
		a.rightShift(uint(n))
		exp += n
	}
	for a.nd > 0 && (a.dp < 0 || a.dp == 0 && a.d[0] < 5) {
		n := 1
		if a.dp < 0 {
			n = maxShift
			if -a.dp < len(log2Pow10Tab) {
				n = log2Pow10Tab[-a.dp] // a < 10^dp: a·2^n stays < 1
			}
		}
		a.leftShift(uint(n))
		exp -= n
	}
	// The significand m has its top bit at 2^52: value = m·2^e2, with e2
	// no lower than the subnormals' exponent.
	e2 := exp - (mantBits + 1)
	if e2 < qMin {
		e2 = qMin
	}
	a.shift(exp - e2)
	m := a.roundedInteger()
	if m == 1<<(mantBits+1) {
		m >>= 1
		e2++
	}
	if m < hiddenC {
		return m // subnormal or zero
	}
	biased := e2 + qBias
	if biased >= expMask {
		return infBits
	}
	return uint64(biased)<<mantBits | m&fracMask
}

// roundedInteger returns a rounded to the nearest integer, ties to even.
// a must be below 2^63.
func (a *decimal) roundedInteger() uint64 {
	var n uint64
	i := 0
	for ; i < a.dp && i < a.nd; i++ {
		n = n*10 + uint64(a.d[i])
	}
	for ; i < a.dp; i++ {
		n *= 10
	}
	if a.dp >= 0 && a.dp < a.nd {
		// There is a fraction; d[dp] is its first digit.
		switch dig := a.d[a.dp]; {
		case dig > 5, dig == 5 && (a.dp+1 < a.nd || a.trunc):
			n++
		case dig == 5: // exactly one half
			n += n & 1
		}
	}
	return n
}

// parseExp returns the value of an exponent's optional sign and digits,
// saturated at ±maxExp (beyond which every literal over- or underflows).
func parseExp(b []byte) int {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	x := 0
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		if x < maxExp {
			x = x*10 + int(c)
		}
	}
	if neg {
		return -x
	}
	return x
}
