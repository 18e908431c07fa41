package es6

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// IEEE-754 binary64 parameters.
const (
	mantBits = 52                 // explicit significand bits
	expBias  = 1023               // exponent bias
	expMask  = 0x7FF              // biased exponent field mask
	fracMask = 1<<mantBits - 1    // significand field mask
	hiddenC  = 1 << mantBits      // c of the smallest normal significand
	qMin     = -1074              // q of subnormals: |v| = c·2^qMin
	qBias    = expBias + mantBits // q = biasedExp - qBias for normal values
)

// maxFloatLen bounds the length of any AppendFloat output: the longest forms
// are "-0.00000ddddddddddddddddd" (25 bytes, 17 digits) and
// "-d.dddddddddddddddde-308" (24 bytes).
const maxFloatLen = 32

// digitPairs holds "00", "01", ..., "99" back to back.
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// pow10u64[i] = 10^i.
var pow10u64 = [20]uint64{
	1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
}

// AppendFloat appends to dst the ECMAScript Number.prototype.toString
// rendering of f, which is the RFC 8785 §3.2.2.3 serialization of a JSON
// number, and returns the extended slice.
//
// The digits are the shortest decimal that rounds to f (the closest such
// decimal, then the even one, when there is a choice), and the layout follows
// ECMA-262 Number::toString: plain notation for 1e-7 < |f| < 1e21 and
// exponential notation such as "1e+21", "1.5e-7" or "5e-324" otherwise.
// Both zeros give "0". NaN and ±Inf, which JSON cannot represent and callers
// must reject beforehand, give "NaN", "Infinity" and "-Infinity".
//
// AppendFloat does not allocate when dst has room for the result (at most
// 25 bytes), and it writes nothing past the bytes it appends.
func AppendFloat(dst []byte, f float64) []byte {
	b := math.Float64bits(f)
	bq := int(b>>mantBits) & expMask
	if bq == expMask {
		return appendNonFinite(dst, b)
	}
	if b<<1 == 0 {
		return append(dst, '0')
	}
	neg := b>>63 != 0
	var c uint64
	var q int
	if bq != 0 {
		c = b&fracMask | hiddenC
		// Integers below 2^53 (q in [-52, 0]) are printed directly.
		if sh := uint(qBias - bq); sh <= mantBits && c&(1<<sh-1) == 0 {
			return appendInt(dst, neg, c>>sh)
		}
		q = bq - qBias
	} else {
		c = b & fracMask
		q = qMin
	}
	d, e := shortest(c, q)
	return appendDecimal(dst, neg, d, e)
}

// Shortest returns the digits that AppendFloat prints for the finite,
// nonzero f, as |f| ≈ d·10^e with d < 10^17 free of trailing zeros: the
// shortest decimal that rounds to f (the closest such, then the even one).
// Callers that hold a literal's own digits compare them with these to learn
// whether the literal is already in ECMAScript's form, without formatting
// it (canon does, for literals of 16 or 17 significant digits). It panics
// on zero, NaN and infinities, which have no digits.
func Shortest(f float64) (d uint64, e int) {
	b := math.Float64bits(f)
	bq := int(b>>mantBits) & expMask
	if bq == expMask || b<<1 == 0 {
		panic("BUG: es6: Shortest of zero or a non-finite value")
	}
	var c uint64
	var q int
	if bq != 0 {
		c = b&fracMask | hiddenC
		// As in AppendFloat: integers below 2^53 are their own digits. (The
		// decomposition is written out in both: through a shared helper,
		// even inlined, AppendFloat runs more instructions; bench/cgab.sh
		// on Canonicalize/input=doubles-100k measures it.)
		if sh := uint(qBias - bq); sh <= mantBits && c&(1<<sh-1) == 0 {
			return trimZeros(c>>sh, 0)
		}
		q = bq - qBias
	} else {
		c = b & fracMask
		q = qMin
	}
	return shortest(c, q)
}

// appendNonFinite handles the bit patterns with an all-ones exponent.
func appendNonFinite(dst []byte, b uint64) []byte {
	switch {
	case b&fracMask != 0:
		return append(dst, "NaN"...)
	case b>>63 != 0:
		return append(dst, "-Infinity"...)
	default:
		return append(dst, "Infinity"...)
	}
}

// shortest returns the ECMAScript digits of the positive value v = c·2^q as
// d·10^e, where d has no trailing zeros.
//
// It is the Schubfach algorithm: with k = floor(log10(width of the rounding
// interval)), the interval holds at most one multiple of 10^(k+1), which, if
// present, is the unique shortest candidate; otherwise the candidates are the
// two multiples of 10^k around v and the closer (then the even) one wins.
// The scaled values v·4·10^-k and the interval ends are computed with 2 extra
// bits and rounded to odd, which keeps every comparison with the even
// integers used below exact.
//
// Unlike Java's Double.toString, which the paper's reference code serves,
// ECMAScript wants the truly shortest digits even when that is a single
// digit, so there is no "at least two digits" rule here: the 10^(k+1) step
// is tried whatever s is, and the two smallest subnormals are not scaled by
// 10 first (ECMAScript's 5e-324 is Java's 4.9E-324).
func shortest(c uint64, q int) (d uint64, e int) {
	out := c & 1 // 1: the interval is open (c odd, ties go to the even neighbour)
	cb := c << 2
	cbr := cb + 2
	var cbl uint64
	var k int
	if c != hiddenC || q == qMin {
		// Regular spacing: the interval is [c-1/2, c+1/2]·2^q.
		cbl = cb - 2
		k = flog10Pow2(q)
	} else {
		// At a power of two the lower neighbour is closer:
		// the interval is [c-1/4, c+1/2]·2^q.
		cbl = cb - 1
		k = flog10ThreeQuartersPow2(q)
	}
	// g = floor(10^-k·2^(125-L)) + 1 with L = floor(log2(10^-k)) is a
	// 126-bit overestimate of 10^-k, split as g1·2^63 + g0 and derived from
	// the 128-bit table entry T as (T >> 2) + 1.
	t := &pow10Tab[-k-pow10Min]
	g1 := t[0] >> 1
	g0 := (t[0]&1)<<62 | t[1]>>2 + 1
	if g0>>63 != 0 {
		g0 &= mask63
		g1++
	}
	h := uint(q + flog2Pow10(-k) + 2)

	vb := rop(g1, g0, cb<<h)
	vbl := rop(g1, g0, cbl<<h)
	vbr := rop(g1, g0, cbr<<h)

	s := vb >> 2 // floor(v·10^-k)
	// Is exactly one multiple of 10^(k+1) in the interval?
	sp := s / 10
	upin := vbl+out <= sp*40
	wpin := sp*40+40+out <= vbr
	if upin != wpin {
		if wpin {
			sp++
		}
		return trimZeros(sp, k+1)
	}
	// Otherwise choose between s·10^k and (s+1)·10^k. Neither has trailing
	// zeros here: a multiple of 10 inside the interval was found above.
	t1 := s + 1
	uin := vbl+out <= s<<2
	win := t1<<2+out <= vbr
	if uin != win {
		if win {
			return t1, k
		}
		return s, k
	}
	// Both are in: take the closer to v, the even one on a tie.
	mid := s<<2 + 2
	if vb < mid || vb == mid && s&1 == 0 {
		return s, k
	}
	return t1, k
}

// mask63 keeps the low 63 bits.
const mask63 = 1<<63 - 1

// rop returns r_o'(g·cp·2^-127), g = g1·2^63 + g0 (g1, g0, cp < 2^63): the
// Schubfach approximation of g·cp/2^127 rounded to odd, computed as in the
// paper (section 9.9): the partial products are truncated at 2^-64 before
// the sticky bit is taken. That truncation is part of what the paper
// proves correct; rounding the exact product to odd would be wrong when
// 10^-k is exact (g = 10^-k·2^-r + 1 would then make it look inexact).
func rop(g1, g0, cp uint64) uint64 {
	x1, _ := bits.Mul64(g0, cp)
	y1, y0 := bits.Mul64(g1, cp)
	z := y0>>1 + x1
	vbp := y1 + z>>63
	return vbp | (z&mask63+mask63)>>63
}

// Multiplicative inverses of 5^k modulo 2^64, for the divisibility tests of
// trimZeros.
const (
	inv5   = 0xcccccccccccccccd // 5·inv5 ≡ 1 (mod 2^64)
	inv25  = inv5 * inv5 % (1 << 64)
	inv625 = inv25 * inv25 % (1 << 64)
	inv5e8 = inv625 * inv625 % (1 << 64)
)

// divPow10 returns d/10^k and true if 10^k divides d. When 5^k divides d,
// d·inv(5^k) mod 2^64 is the exact quotient d/5^k, and rotating it right
// by k bits divides by 2^k; otherwise (or when 2^k does not divide d/5^k)
// the product or the rotated-in low bits make the result larger than any
// possible quotient (Granlund and Montgomery, "Division by invariant
// integers using multiplication", section 9).
func divPow10(d, inv uint64, k int, maxQ uint64) (uint64, bool) {
	r := bits.RotateLeft64(d*inv, -k)
	return r, r <= maxQ
}

// trimZeros removes the trailing decimal zeros of d (0 < d < 10^17),
// adjusting e.
func trimZeros(d uint64, e int) (uint64, int) {
	const maxU = 1<<64 - 1
	r, ok := divPow10(d, inv5, 1, maxU/10)
	if !ok {
		return d, e // the common case: no trailing zero
	}
	d, e = r, e+1
	if r, ok := divPow10(d, inv5e8, 8, maxU/100000000); ok {
		d, e = r, e+8
	}
	if r, ok := divPow10(d, inv625, 4, maxU/10000); ok {
		d, e = r, e+4
	}
	if r, ok := divPow10(d, inv25, 2, maxU/100); ok {
		d, e = r, e+2
	}
	if r, ok := divPow10(d, inv5, 1, maxU/10); ok {
		d, e = r, e+1
	}
	return d, e
}

// flog10Pow2 returns floor(log10(2^q)) for |q| <= 2500.
func flog10Pow2(q int) int {
	// 661971961083 / 2^41 is log10(2) rounded up to 41 fractional bits.
	return int((int64(q) * 661971961083) >> 41) // int64: 32-bit int would overflow
}

// flog10ThreeQuartersPow2 returns floor(log10(3/4·2^q)) for |q| <= 2500.
func flog10ThreeQuartersPow2(q int) int {
	// -274743187321 / 2^41 is log10(3/4), rounded.
	return int((int64(q)*661971961083 - 274743187321) >> 41)
}

// flog2Pow10 returns floor(log2(10^e)) for |e| <= 1000.
func flog2Pow10(e int) int {
	// 217706 / 2^16 is log2(10) rounded up to 16 fractional bits.
	return (e * 217706) >> 16
}

// decimalLen returns the number of decimal digits of d >= 1.
func decimalLen(d uint64) int {
	n := (bits.Len64(d) * 1233) >> 12 // floor or floor+1 of log10(d)
	if d >= pow10u64[n] {
		n++
	}
	return n
}

// appendInt appends the integer u (0 < u < 2^53) in plain decimal.
func appendInt(dst []byte, neg bool, u uint64) []byte {
	var buf [maxFloatLen]byte
	i := 0
	if neg {
		buf[0] = '-'
		i = 1
	}
	k := decimalLen(u)
	putDigits(buf[i:], u, k)
	return append(dst, buf[:i+k]...)
}

// digits8 returns the 8 decimal digits of x < 10^8 as ASCII bytes in a
// uint64, the most significant digit in the lowest byte (little-endian
// memory order). It splits x into two 4-digit halves, each into two 2-digit
// quarters and those into digits, all lanes at once: the constants are
// 10486/2^20 ≈ 1/100 (exact for x < 10^4) and 103/2^10 ≈ 1/10 (exact for
// x < 100), and no lane overflows into the next.
func digits8(x uint32) uint64 {
	v := uint64(x/10000) | uint64(x%10000)<<32
	h := (v * 10486 >> 20) & 0x0000007F0000007F
	v = h | (v-100*h)<<16
	t := (v * 103 >> 10) & 0x000F000F000F000F
	v = t | (v-10*t)<<8
	return v + 0x3030303030303030
}

// putDigits writes the k = decimalLen(d) digits of d < 10^17 to b[:k]. It
// may overwrite b[k:k+8] with junk; len(b) must be at least max(k, 8) and
// k+8 when k > 8.
func putDigits(b []byte, d uint64, k int) {
	switch {
	case k <= 8:
		binary.LittleEndian.PutUint64(b, digits8(uint32(d))>>(64-8*k))
	case k <= 16:
		hi, lo := d/1e8, d%1e8
		binary.LittleEndian.PutUint64(b, digits8(uint32(hi))>>(128-8*k))
		binary.LittleEndian.PutUint64(b[k-8:], digits8(uint32(lo)))
	default:
		top, rest := d/1e16, d%1e16
		hi, lo := rest/1e8, rest%1e8
		b[0] = byte('0' + top)
		binary.LittleEndian.PutUint64(b[1:], digits8(uint32(hi)))
		binary.LittleEndian.PutUint64(b[9:], digits8(uint32(lo)))
	}
}

// AppendDecimal appends the number -d·10^e (if neg) or d·10^e, laid out by
// the ECMA-262 Number::toString rules, for 0 < d < 10^17 without trailing
// zeros. It is AppendFloat's layout step for callers that already hold the
// shortest digits of a double (the canon package does, for literals of at
// most 15 significant digits).
//
// Unlike AppendFloat, it formats in place: it makes sure dst has
// DecimalRoom bytes of spare capacity (growing it if not) and may leave
// junk in the spare capacity past the bytes it appends.
func AppendDecimal(dst []byte, neg bool, d uint64, e int) []byte {
	if d-1 >= 1e17-1 || d%10 == 0 { // (d-1 wraps for d == 0)
		panic("BUG: es6: AppendDecimal needs 0 < d < 10^17 without trailing zeros")
	}
	n := len(dst)
	if cap(dst)-n < DecimalRoom {
		dst = slices.Grow(dst, DecimalRoom)
	}
	return dst[:n+formatDecimal(dst[n:n+DecimalRoom], neg, d, e)]
}

// DecimalRoom is the spare capacity that AppendDecimal needs in dst: the
// longest result and room for its eight-byte stores.
const DecimalRoom = maxFloatLen + 16

// appendDecimal appends d·10^e (0 < d < 10^17, no trailing zeros) laid out
// by the ECMA-262 Number::toString rules, writing nothing past the bytes it
// appends.
func appendDecimal(dst []byte, neg bool, d uint64, e int) []byte {
	var buf [DecimalRoom]byte
	return append(dst, buf[:formatDecimal(buf[:], neg, d, e)]...)
}

// formatDecimal writes d·10^e (0 < d < 10^17, no trailing zeros) laid out
// by the ECMA-262 Number::toString rules to b, which must have DecimalRoom
// bytes (room for putDigits' junk and eight-byte moves), and returns the
// length of the result.
func formatDecimal(b []byte, neg bool, d uint64, e int) int {
	b = b[:DecimalRoom]
	i := 0
	if neg {
		b[0] = '-'
		i = 1
	}
	k := decimalLen(d)
	n := k + e // the decimal point sits after n digits
	switch {
	case k <= n && n <= 21:
		// Integer: the digits, then n-k zeros.
		putDigits(b[i:], d, k)
		i += k
		i += copy(b[i:i+n-k], "00000000000000000000")
	case 0 < n && n <= 21:
		// The point falls inside the digits: write them, then move the
		// k-n < 17 fraction digits one place right, 16 bytes at once.
		putDigits(b[i:], d, k)
		f0 := binary.LittleEndian.Uint64(b[i+n:])
		f1 := binary.LittleEndian.Uint64(b[i+n+8:])
		binary.LittleEndian.PutUint64(b[i+n+1:], f0)
		binary.LittleEndian.PutUint64(b[i+n+9:], f1)
		b[i+n] = '.'
		i += k + 1
	case -6 < n && n <= 0:
		// "0." then -n zeros then the digits.
		b[i], b[i+1] = '0', '.'
		i += 2
		i += copy(b[i:i-n], "000000")
		putDigits(b[i:], d, k)
		i += k
	default:
		// Exponential: d[.ddd]e±(n-1).
		putDigits(b[i+1:], d, k)
		b[i] = b[i+1]
		if k > 1 {
			b[i+1] = '.'
			i += k + 1
		} else {
			i++
		}
		x := n - 1
		b[i], b[i+1] = 'e', '+'
		if x < 0 {
			b[i+1] = '-'
			x = -x
		}
		i += 2
		switch {
		case x >= 100:
			b[i] = byte('0' + x/100)
			p := x % 100 * 2
			b[i+1], b[i+2] = digitPairs[p], digitPairs[p+1]
			i += 3
		case x >= 10:
			p := x * 2
			b[i], b[i+1] = digitPairs[p], digitPairs[p+1]
			i += 2
		default:
			b[i] = byte('0' + x)
			i++
		}
	}
	return i
}

// AppendFloatSlow appends the same bytes as AppendFloat, computed the slow
// and obviously correct way: strconv.FormatFloat(f, 'e', -1, 64) yields the
// shortest round-trip digits and the exponent, and the ECMA-262
// Number::toString layout rules are then applied to them literally. It
// allocates and exists as an oracle for tests.
func AppendFloatSlow(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0: // +0 and -0
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// "d.ddde±xx": the digits are the shortest that round-trip, the closest
	// to f among those (strconv's shortest mode is correctly rounded).
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	x, err := strconv.Atoi(exp)
	if err != nil || digits == "" {
		panic("es6: unexpected strconv output " + s)
	}
	// ECMA-262 Number::toString(x), step by step: k digits, value =
	// digits·10^(n-k).
	k := len(digits)
	n := x + 1
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		dst = append(dst, strings.Repeat("0", n-k)...)
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, "0."...)
		dst = append(dst, strings.Repeat("0", -n)...)
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}
