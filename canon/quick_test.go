package canon

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/es6"
	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

// checkQuick requires that the fast path accepts in only if the engine
// returns in verbatim, under c's profile. It reports whether the fast path
// accepted.
func checkQuick(t testing.TB, c *Canonicalizer, in []byte) bool {
	t.Helper()
	q := c.quickCanonical(in)
	c.end()
	out, verbatim, err := c.viewEngine(in)
	if q && (err != nil || !verbatim) {
		t.Fatalf("%s: fast path accepts %q; the engine gives %q, verbatim %v, %v", c.profile.Name(), in, out, verbatim, err)
	}
	return q
}

// quickInputs returns documents for the fast path: the hand-written cases,
// random documents, their canonical forms, and those forms damaged one
// byte at a time (so that most are canonical up to a point and then not).
func quickInputs(t testing.TB, r *rand.Rand, p Profile) (all, canonical [][]byte) {
	for _, tc := range acceptCases {
		all = append(all, []byte(tc.in))
	}
	for _, tc := range rejectCases {
		all = append(all, []byte(tc.prefix+tc.rest))
	}
	all = append(all, []byte(example64Envelope))
	var c Canonicalizer
	c.Reset(p)
	damage := []string{" ", ",", "}", "]", `"`, `\`, "0", "-", ".5", "e1", "\x00", "\xff", "\u00e9", `\u0041`, `\n`, `\/`, "[", "{"}
	for range 1000 { // numbers in every spelling, canonical or not
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		if r.IntN(2) == 0 {
			f = math.Round(f) / math.Pow10(r.IntN(8))
		}
		all = append(all,
			[]byte("["+strconv.FormatFloat(f, 'g', -1, 64)+"]"),
			[]byte("["+strconv.FormatFloat(f, 'e', -1, 64)+"]"),
			append(append([]byte("["), es6.AppendFloat(nil, f)...), ']'))
	}
	for range 3000 {
		in := randomDoc(r, 1+r.IntN(6))
		all = append(all, in)
		out, err := c.appendEngine(nil, in)
		if err != nil {
			continue
		}
		canonical = append(canonical, out)
		all = append(all, out)
		for range 3 {
			k := r.IntN(len(out) + 1)
			d := damage[r.IntN(len(damage))]
			var b []byte
			switch r.IntN(3) {
			case 0: // insert
				b = append(append(append(b, out[:k]...), d...), out[k:]...)
			case 1: // replace
				b = append(append(append(b, out[:k]...), d...), out[min(k+len(d), len(out)):]...)
			default: // truncate
				b = append(b, out[:k]...)
			}
			all = append(all, b)
		}
	}
	return all, canonical
}

// TestQuickCanonicalAgrees checks the canonical fast path against the
// engine: it may accept only what the engine returns unchanged, in both
// profiles and under a tight depth bound, and it must accept the engine's
// own output.
func TestQuickCanonicalAgrees(t *testing.T) {
	must := func(p Profile, err error) Profile {
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, p := range []Profile{Strict, RFC8785, must(RFC8785.WithMaxDepth(3)), must(RFC8785.WithMaxDepth(2))} {
		t.Run(fmt.Sprintf("%s/depth=%d", p.Name(), p.MaxDepth()), func(t *testing.T) {
			impltest.ForEach(t, quickKernel, func(t *testing.T) { quickAgrees(t, p) })
		})
	}
}

// quickAgrees is TestQuickCanonicalAgrees under profile p and the quick
// kernel in force.
func quickAgrees(t *testing.T, p Profile) {
	t.Helper()
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	all, canonical := quickInputs(t, r, p)
	var c Canonicalizer
	c.Reset(p)
	accepted := 0
	for _, in := range all {
		if checkQuick(t, &c, in) {
			accepted++
		}
	}
	for _, out := range canonical {
		if !checkQuick(t, &c, out) {
			t.Fatalf("%s: fast path gives up on canonical %q", p.Name(), out)
		}
	}
	if accepted == 0 || accepted == len(all) {
		t.Fatalf("fast path accepted %d of %d inputs", accepted, len(all))
	}
}

// TestQuickCanonicalBounds checks that the fast path leaves the profile's
// bounds to the engine: the deepest accepted nesting, one level more
// (empty containers included), and the size bound.
func TestQuickCanonicalBounds(t *testing.T) {
	var c Canonicalizer
	for _, open := range []string{"[", "{\"a\":"} {
		close := map[string]string{"[": "]", "{\"a\":": "}"}[open]
		for _, inner := range []string{"[]", "{}", "1"} {
			for depth := 62; depth <= 66; depth++ {
				// depth containers in all, the innermost being inner's
				// (or none for a scalar).
				n := depth - 1
				if inner == "1" {
					n = depth
				}
				in := []byte(strings.Repeat(open, n) + inner + strings.Repeat(close, n))
				q := checkQuick(t, &c, in)
				if want := depth <= 64; q != want {
					t.Errorf("depth %d (%s): fast path %v, want %v", depth, in[:10], q, want)
				}
			}
		}
	}
	small, err := Strict.WithMaxSize(8)
	if err != nil {
		t.Fatal(err)
	}
	c.Reset(small)
	if checkQuick(t, &c, []byte(`"123456"`)) != true || checkQuick(t, &c, []byte(`"1234567"`)) != false {
		t.Errorf("fast path ignores the size bound")
	}
}

// TestEngineAfterQuickAgrees checks the engine run that follows a fast
// path which gave up on the same src, and so reuses the classification
// window the fast path filled (begin keeps it), against the engine run
// with a fresh window: the same output and the same error (class, offset,
// pointer, message), in both profiles. The inputs are quickInputs's (most
// canonical up to a point), their compact forms, and long ones whose first
// non-canonical byte lies past the first 4 KiB window, with non-ASCII text
// and ill-formed UTF-8 after it.
func TestEngineAfterQuickAgrees(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 11))
	for _, p := range []Profile{Strict, RFC8785} {
		all, canonical := quickInputs(t, r, p)
		long := []byte(`{"a":[`)
		for i := 0; len(long) < 9000; i++ {
			long = fmt.Appendf(long, `"z\u00e9\u00e9 %d é",`, i)
		}
		long = append(long[:len(long)-1], `],"b":1}`...)
		for _, k := range []int{20, 4090, 4096, 4100, 8190, len(long) - 3} {
			for _, d := range []string{"\\u0041", "\xff", "\xe9", "1.5", " ", "\x01", "é"} {
				all = append(all, append(append(append([]byte(nil), long[:k]...), d...), long[k:]...))
			}
		}
		all = append(all, long)
		for _, in := range canonical {
			all = append(all, append(append([]byte(nil), in...), in...)) // canonical, then a syntax error
		}
		var c, fresh Canonicalizer
		c.Reset(p)
		fresh.Reset(p)
		kept := 0
		for _, in := range all {
			if c.quickCanonical(in) {
				c.end()
				continue
			}
			kept++ // the engine runs on the window the fast path filled (amd64)
			got, _, gotErr := c.viewEngine(in)
			got = append([]byte(nil), got...)
			want, _, wantErr := fresh.viewEngine(in)
			if !bytes.Equal(got, want) || !sameError(gotErr, wantErr) {
				t.Fatalf("%s, %q:\nafter the fast path %q, %v\nfresh window       %q, %v", p.Name(), in, got, gotErr, want, wantErr)
			}
		}
		if kept < 1000 {
			t.Fatalf("%s: only %d inputs ran the engine after the fast path gave up", p.Name(), kept)
		}
	}
}
