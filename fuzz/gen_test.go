package fuzz

import (
	"flag"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"
)

var (
	genSeed  = flag.Uint64("gen.seed", 0x4a435338373835, "seed of the generated differential documents")
	genScale = flag.Int("gen.scale", 1, "multiplies the number of generated differential documents, for longer campaigns")
)

// docGen generates random JSON texts that are valid under canon.RFC8785:
// no duplicate names (after escape decoding), no lone surrogates, every
// number a finite double, nesting well within the bound. Within that it
// varies everything the canonical form depends on: member order (including
// names that sort differently by UTF-16 code unit and by code point), string
// spellings (raw UTF-8, \u escapes in either case, surrogate-pair escapes,
// \/), number spellings of the same value, and insignificant whitespace.
type docGen struct {
	r *rand.Rand
	b []byte
}

func newDocGen(stream uint64) *docGen {
	return &docGen{r: rand.New(rand.NewPCG(*genSeed, stream))}
}

// doc returns a new random JSON text.
func (g *docGen) doc() []byte {
	g.b = g.b[:0]
	g.ws()
	g.value(0, 1+g.r.IntN(7))
	g.ws()
	return []byte(string(g.b))
}

func (g *docGen) ws() {
	for g.r.IntN(4) == 0 {
		g.b = append(g.b, " \t\n\r"[g.r.IntN(4)])
	}
}

func (g *docGen) value(depth, maxDepth int) {
	k := g.r.IntN(10)
	if depth >= maxDepth {
		k = 2 + g.r.IntN(8) // scalars only
	}
	switch k {
	case 0:
		g.object(depth, maxDepth)
	case 1:
		g.array(depth, maxDepth)
	case 2, 3, 4:
		g.string(g.text(g.r.IntN(12)))
	case 5, 6, 7:
		g.b = append(g.b, g.number()...)
	default:
		g.b = append(g.b, []string{"true", "false", "null"}[g.r.IntN(3)]...)
	}
}

func (g *docGen) object(depth, maxDepth int) {
	n := g.r.IntN(6)
	if g.r.IntN(8) == 0 {
		n = 17 + g.r.IntN(40) // large enough for the hashed duplicate check
	}
	seen := map[string]bool{}
	g.b = append(g.b, '{')
	g.ws()
	for i := range n {
		name := g.name()
		for seen[name] {
			name += g.text(1)
		}
		seen[name] = true
		if i > 0 {
			g.b = append(g.b, ',')
			g.ws()
		}
		g.string(name)
		g.ws()
		g.b = append(g.b, ':')
		g.ws()
		g.value(depth+1, maxDepth)
		g.ws()
	}
	g.b = append(g.b, '}')
}

func (g *docGen) array(depth, maxDepth int) {
	g.b = append(g.b, '[')
	g.ws()
	for i := range g.r.IntN(6) {
		if i > 0 {
			g.b = append(g.b, ',')
			g.ws()
		}
		g.value(depth+1, maxDepth)
		g.ws()
	}
	g.b = append(g.b, ']')
}

// runePools are the characters strings are drawn from. The names pool
// concentrates on characters whose UTF-16 order differs from their code
// point order (U+E000–U+FFFF against supplementary characters), so that
// member sorting is exercised.
var (
	namePool = []rune{'a', 'b', 'A', 'é', 'ö', '\u0080', '€', '\r', '1', '\ue000', '\ufb33', '\uffff', 0x1f600, 0x10000, 0x10ffff, 'ß', '日'}
	textPool = []rune{
		'a', 'z', ' ', '0', '~', '"', '\\', '/', '\b', '\f', '\n', '\r', '\t', 0, 0x1f, 0x7f,
		'é', 'ñ', '\u00a0', 'Ω', 'ж', '€', '\u2028', '\u2029', '東', '京', '\ufeff', '\ufffd', '\uffff', '\ue000',
		0x1f600, 0x1f3fd, 0x1d11e, 0x10000, 0x10ffff, 0x20000,
	}
)

func (g *docGen) name() string {
	var b strings.Builder
	for range g.r.IntN(4) {
		b.WriteRune(namePool[g.r.IntN(len(namePool))])
	}
	return b.String()
}

func (g *docGen) text(n int) string {
	var b strings.Builder
	for range n {
		switch g.r.IntN(4) {
		case 0: // any scalar value outside the surrogates
			r := rune(g.r.IntN(0x110000 - 0x800))
			if r >= 0xD800 {
				r += 0x800
			}
			b.WriteRune(r)
		default:
			b.WriteRune(textPool[g.r.IntN(len(textPool))])
		}
	}
	return b.String()
}

// string writes s as a JSON string, spelling each character in one of its
// valid forms.
func (g *docGen) string(s string) {
	hex := func(v rune) {
		digits := "0123456789abcdef"
		if g.r.IntN(2) == 0 {
			digits = "0123456789ABCDEF"
		}
		g.b = append(g.b, '\\', 'u', digits[v>>12&0xF], digits[v>>8&0xF], digits[v>>4&0xF], digits[v&0xF])
	}
	short := map[rune]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't', '/': '/'}
	g.b = append(g.b, '"')
	for _, c := range s {
		esc := g.r.IntN(6) == 0
		switch {
		case c == '"' || c == '\\' || c < 0x20 || esc:
			if e, ok := short[c]; ok && g.r.IntN(3) > 0 {
				g.b = append(g.b, '\\', e)
			} else if c >= 0x10000 {
				hex(0xD800 + (c-0x10000)>>10)
				hex(0xDC00 + (c-0x10000)&0x3FF)
			} else {
				hex(c)
			}
		default:
			g.b = utf8.AppendRune(g.b, c)
		}
	}
	g.b = append(g.b, '"')
}

// number returns a finite number literal in one of its many spellings.
func (g *docGen) number() string {
	switch g.r.IntN(10) {
	case 0, 1: // random bit pattern
		var f float64
		for f = math.NaN(); math.IsNaN(f) || math.IsInf(f, 0); {
			f = math.Float64frombits(g.r.Uint64())
		}
		return g.spell(f)
	case 2: // small integer
		return strconv.Itoa(g.r.IntN(2001) - 1000)
	case 3: // integer beyond 2^53
		return strconv.FormatUint(g.r.Uint64(), 10) + strings.Repeat("0", g.r.IntN(8))
	case 4: // long decimal: exercises correct rounding
		var b []byte
		if g.r.IntN(2) == 0 {
			b = append(b, '-')
		}
		b = append(b, byte('1'+g.r.IntN(9)))
		for range g.r.IntN(30) {
			b = append(b, byte('0'+g.r.IntN(10)))
		}
		b = append(b, '.')
		for range 1 + g.r.IntN(30) {
			b = append(b, byte('0'+g.r.IntN(10)))
		}
		return string(b) + "e" + strconv.Itoa(g.r.IntN(600)-330)
	case 5: // a value near a formatting or range boundary
		return boundaryNumbers[g.r.IntN(len(boundaryNumbers))]
	case 6: // a decimal fraction of moderate size
		return g.spell(float64(g.r.IntN(2_000_000)-1_000_000) / math.Pow(10, float64(g.r.IntN(12))))
	}
	return g.spell(g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(60)-30)))
}

var boundaryNumbers = []string{
	"0", "-0", "0.0", "-0.0", "0e0", "0E+99", "-0e-5", "1e21", "1e+21", "999999999999999999999", "1e20",
	"100000000000000000000", "123456789012345678901", "1e-6", "1e-7", "0.000001", "0.0000001",
	"9007199254740991", "9007199254740992", "9007199254740993", "-9007199254740993",
	"1.7976931348623157e308", "1.7976931348623158e308", "-1.7976931348623157E+308",
	"5e-324", "4.9406564584124654e-324", "2.4703282292062328e-324", "2.4703282292062327e-324", "1e-400",
	"2.2250738585072014e-308", "2.2250738585072011e-308", "1.0", "1.50", "4.5", "0.1", "0.3",
	"333333333.33333329", "1E30", "4.50", "2e-3", "0.000000000000000000000000001",
	"295147905179352830000", "2.9514790517935283e+20", "1e23", "8.41e21", "5e-7", "1.2e-6",
}

// spell writes f in one of its exact spellings: shortest 'g', 'e' or 'f'
// forms, an uppercase exponent, an explicit '+', padded exponent digits,
// or trailing fraction zeros.
func (g *docGen) spell(f float64) string {
	s := strconv.FormatFloat(f, "gef"[g.r.IntN(3)], -1, 64)
	if len(s) > 400 {
		s = strconv.FormatFloat(f, 'g', -1, 64)
	}
	mant, exp, hasExp := strings.Cut(s, "e")
	if g.r.IntN(3) == 0 {
		if !strings.Contains(mant, ".") {
			mant += "."
		}
		mant += strings.Repeat("0", 1+g.r.IntN(3))
	}
	if !hasExp {
		return mant
	}
	sign, digits := exp[:1], exp[1:]
	if sign == "+" && g.r.IntN(2) == 0 {
		sign = ""
	}
	e := "e"
	if g.r.IntN(2) == 0 {
		e = "E"
	}
	return mant + e + sign + strings.Repeat("0", g.r.IntN(3)) + digits
}
