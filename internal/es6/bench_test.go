package es6

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// benchKinds returns the benchmark inputs, 4096 finite doubles per kind.
func benchKinds() []struct {
	name string
	xs   []float64
} {
	const n = 4096
	r := rand.New(rand.NewPCG(21, 22))
	var bitsXs, ints, decs []float64
	for len(bitsXs) < n {
		x := math.Float64frombits(r.Uint64())
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			bitsXs = append(bitsXs, x)
		}
	}
	for len(ints) < n {
		// Integers below 2^53 of every length: ids, counts, timestamps.
		ints = append(ints, float64(r.Int64N(1<<53)>>r.UintN(53)))
	}
	for len(decs) < n {
		// 1 to 8 significant digits, 0 to 6 decimals: prices, coordinates,
		// measurements.
		m := r.Int64N(int64(pow10u64[1+r.IntN(8)]))
		x, _ := strconv.ParseFloat(strconv.FormatInt(m, 10)+"e-"+strconv.Itoa(r.IntN(7)), 64)
		decs = append(decs, x)
	}
	return []struct {
		name string
		xs   []float64
	}{{"random-bits", bitsXs}, {"integers", ints}, {"short-decimals", decs}}
}

// strconvES6 is the strconv-based baseline: strconv.AppendFloat(f, 'e', -1)
// into a stack buffer, then the ECMA-262 re-layout, without allocating.
func strconvES6(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	if e[0] == '-' {
		dst = append(dst, '-')
		e = e[1:]
	}
	// e is "d[.ddd]e±xx": move the digits together.
	var digits [17]byte
	k, i := 0, 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[k] = e[i]
			k++
		}
	}
	x := 0
	for _, c := range e[i+2:] {
		x = x*10 + int(c-'0')
	}
	if e[i+1] == '-' {
		x = -x
	}
	n := x + 1
	d := digits[:k]
	switch {
	case k <= n && n <= 21:
		dst = append(dst, d...)
		dst = append(dst, "00000000000000000000"[:n-k]...)
	case 0 < n && n <= 21:
		dst = append(dst, d[:n]...)
		dst = append(dst, '.')
		dst = append(dst, d[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, "0.00000"[:2-n]...)
		dst = append(dst, d...)
	default:
		dst = append(dst, d[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

func TestStrconvBaseline(t *testing.T) {
	// The baseline must be right for the comparison to mean anything.
	for _, k := range benchKinds() {
		for _, x := range k.xs {
			if got, want := strconvES6(nil, x), AppendFloatSlow(nil, x); string(got) != string(want) {
				t.Fatalf("strconvES6(%v) = %q, want %q", x, got, want)
			}
		}
	}
}

func BenchmarkAppendFloat(b *testing.B) {
	for _, k := range benchKinds() {
		for _, impl := range []struct {
			name string
			fn   func([]byte, float64) []byte
		}{{"es6", AppendFloat}, {"strconv", strconvES6}} {
			b.Run("kind="+k.name+"/impl="+impl.name, func(b *testing.B) {
				buf := make([]byte, 0, 64)
				xs := k.xs
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					buf = impl.fn(buf[:0], xs[i&(len(xs)-1)])
				}
			})
		}
	}
}

func BenchmarkParseFloat(b *testing.B) {
	for _, k := range benchKinds() {
		lits := make([][]byte, len(k.xs))
		strs := make([]string, len(k.xs))
		for i, x := range k.xs {
			lits[i] = AppendFloat(nil, x)
			strs[i] = string(lits[i])
		}
		b.Run("kind="+k.name+"/impl=es6", func(b *testing.B) {
			b.ReportAllocs()
			var sink float64
			for i := 0; b.Loop(); i++ {
				f, _ := ParseFloat(lits[i&(len(lits)-1)])
				sink += f
			}
			_ = sink
		})
		// strconv gets its input as ready-made strings: no conversion cost.
		b.Run("kind="+k.name+"/impl=strconv", func(b *testing.B) {
			b.ReportAllocs()
			var sink float64
			for i := 0; b.Loop(); i++ {
				f, _ := strconv.ParseFloat(strs[i&(len(strs)-1)], 64)
				sink += f
			}
			_ = sink
		})
	}
}
