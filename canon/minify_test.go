package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

// minifyRef is the obviously correct form of the compression pass, one
// byte at a time: a byte is escaped when an odd run of backslashes
// precedes it (anywhere, as the block algorithm sees it); an unescaped
// quote opens or closes a string; whitespace outside strings is dropped;
// merged reports a dropped run between two scalar bytes (outside strings,
// neither whitespace, structural nor a quote).
func minifyRef(src []byte) (out []byte, inString, merged bool) {
	escNext := false
	lastScalar := false // the last kept byte was a scalar byte
	gap := false        // whitespace was dropped since the last kept byte
	for _, b := range src {
		escaped := escNext
		escNext = b == '\\' && !escaped
		if inString {
			out = append(out, b)
			if b == '"' && !escaped {
				inString = false
			}
			lastScalar, gap = false, false
			continue
		}
		switch b {
		case ' ', '\t', '\n', '\r':
			gap = true
			continue
		}
		scalar := true
		switch b {
		case '"', '{', '}', '[', ']', ':', ',':
			scalar = false
		}
		if scalar && lastScalar && gap {
			merged = true
		}
		if b == '"' && !escaped {
			inString = true
		}
		out = append(out, b)
		lastScalar, gap = scalar, false
	}
	return out, inString, merged
}

// minifyRun runs the block algorithm impl over src as minify does and
// returns what it wrote and its final state.
func minifyRun(impl int32, src []byte) ([]byte, minState) {
	dst := make([]byte, len(src)+64)
	var st minState
	w := compress(impl, dst, src, &st)
	return dst[:w], st
}

// minifyAlphabets are byte sets the random inputs are drawn from: dense in
// the bytes the pass classifies, so that escape runs, quotes and
// whitespace runs cross block boundaries often.
var minifyAlphabets = []string{
	` "\\` + "\n\t\r" + `{}[]:,a1-`,
	`\\\\\\"  `,
	`"""  a1`,
	"  \n\n\t\r\r \"a\\b\"1e5-,:[]{}\x00\x1f\x7f\x80\xff\xc3\xa9",
	`{"a": [1, 2, "x\"y\\"], "b" : null }`,
}

func randomMinifyInput(r *rand.Rand) []byte {
	alpha := minifyAlphabets[r.IntN(len(minifyAlphabets))]
	n := r.IntN(400)
	if r.IntN(8) == 0 {
		n = r.IntN(5000)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = alpha[r.IntN(len(alpha))]
	}
	return b
}

func TestMinifyModelAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(src []byte) {
		t.Helper()
		want, wantIn, wantMerged := minifyRef(src)
		got, st := minifyRun(minifyGo, src)
		// The padding spaces stay inside an unterminated string.
		if wantIn {
			got = got[:min(len(got), len(want))]
		}
		if !bytes.Equal(got, want) || (st.inString != 0) != wantIn || (st.merged != 0) != wantMerged {
			t.Fatalf("minifyGeneric(%q) = %q in=%v merged=%v, want %q in=%v merged=%v",
				src, got, st.inString != 0, st.merged != 0, want, wantIn, wantMerged)
		}
	}
	for _, s := range []string{
		"", " ", "1 2", "[1, 2]", `"a b"`, `"a\" b"`, `"a\\" , "b"`, `\" 1 "`, "tru e", "- 1", "1 e5",
		`{"a" : 1 }`, "\"\\\\\\\" x\"", "[true ,false ]",
	} {
		check([]byte(s))
	}
	// Escape runs and whitespace runs across every block boundary position.
	for k := 1; k < 140; k++ {
		for _, fill := range []string{`\`, " ", "1 "} {
			for _, end := range []string{`"x" 1`, `" 1 "`, ` 1`} {
				src := []byte(`"` + string(bytes.Repeat([]byte(fill), k)) + end)
				check(src)
				check(append([]byte("1"), src...))
			}
		}
	}
	for range 20000 {
		check(randomMinifyInput(r))
	}
}

func TestMinifyAVX512AgainstModel(t *testing.T) {
	impltest.Need(t, minifyKernel, "avx512")
	r := rand.New(rand.NewPCG(3, 4))
	check := func(src []byte) {
		t.Helper()
		want, wst := minifyRun(minifyGo, src)
		got, gst := minifyRun(minifyAVX512, src)
		if !bytes.Equal(got, want) || gst != wst {
			t.Fatalf("minifyBlocksAVX512(%q) = %q %+v, want %q %+v", src, got, gst, want, wst)
		}
	}
	for n := range 300 {
		check(bytes.Repeat([]byte(` "\`), n)[:n])
	}
	for range 30000 {
		check(randomMinifyInput(r))
	}
	// Every byte value, at every position of a block, outside and inside
	// strings (a quote at the front of some rounds), next to spaces.
	for rot := range 64 {
		for _, lead := range []string{"", `"`, "1 ", `\`} {
			src := []byte(lead)
			for v := range 256 {
				src = append(src, byte(v+rot), ' ')
			}
			check(src)
		}
	}
	for range 3000 {
		b := make([]byte, r.IntN(300))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		check(b)
	}
	// Unaligned source and destination.
	for off := range 64 {
		src := randomMinifyInput(r)
		buf := make([]byte, off+len(src))
		copy(buf[off:], src)
		check(buf[off:])
	}
}

func TestMinifyStateCarry(t *testing.T) {
	// Every carried bit, set by one block and consumed by the next, on
	// every implementation.
	cases := []struct {
		name string
		a    string // block 1 (padded to 64 bytes with the byte pad)
		pad  byte
		b    string
	}{
		{"in-string", `"`, 'x', `" `},
		{"escape", `"`, '\\', `"x" `},
		{"scalar-then-space", ``, '1', ` 2`},
		{"space-run", `1`, ' ', `2`},
		{"no-merge", `1`, ' ', `,2`},
	}
	for _, impl := range availableMinifyImpls() {
		for _, tc := range cases {
			a := []byte(tc.a)
			for len(a) < 64 {
				a = append(a, tc.pad)
			}
			src := append(a, tc.b...)
			want, wantIn, wantMerged := minifyRef(src)
			got, st := minifyRun(impl, src)
			if wantIn {
				got = got[:min(len(got), len(want))]
			}
			if !bytes.Equal(got, want) || (st.inString != 0) != wantIn || (st.merged != 0) != wantMerged {
				t.Errorf("impl %s %s: got %q in=%v merged=%v, want %q in=%v merged=%v", minifyNames[impl], tc.name,
					got, st.inString != 0, st.merged != 0, want, wantIn, wantMerged)
			}
		}
	}
}

func TestPrefixXOR(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 1000 {
		x := r.Uint64()
		var want, acc uint64
		for i := range 64 {
			acc ^= x >> i & 1
			want |= acc << i
		}
		if got := prefixXOR(x); got != want {
			t.Fatalf("prefixXOR(%#x) = %#x, want %#x", x, got, want)
		}
	}
}

// availableMinifyImpls returns the compression implementations this
// machine can run: the registry's minify implementations but off.
func availableMinifyImpls() []int32 {
	var impls []int32
	for _, name := range minifyKernel.Available() {
		if i := int32(slices.Index(minifyNames[:], name)); i != minifyOff {
			impls = append(impls, i)
		}
	}
	return impls
}

// withMinify runs f with the minify implementation impl in force, put
// there through the registry.
func withMinify(tb testing.TB, impl int32, f func()) {
	tb.Helper()
	defer impltest.Select(tb, minifyKernel, minifyNames[impl])()
	f()
}

// minifyEngineInputs returns documents for the compact-text path: the
// fast path's inputs (hand-written cases, random documents with random
// whitespace, canonical forms and their damaged copies), each also
// indented, and with whitespace pushed between tokens and into strings.
func minifyEngineInputs(t testing.TB, r *rand.Rand) [][]byte {
	all, _ := quickInputs(t, r, Strict)
	n := len(all)
	spaces := []string{" ", "\n  ", "\t", "\r\n", "    "}
	for _, in := range all[:n] {
		var b bytes.Buffer
		if json.Indent(&b, in, "", "  ") == nil {
			all = append(all, b.Bytes())
		}
		// Whitespace inserted at random points: between tokens (harmless),
		// between two scalar bytes (a merge), inside strings (kept).
		for range 2 {
			out := append([]byte(nil), in...)
			for range 1 + r.IntN(4) {
				k := r.IntN(len(out) + 1)
				out = append(out[:k], append([]byte(spaces[r.IntN(len(spaces))]), out[k:]...)...)
			}
			all = append(all, out)
		}
	}
	// Larger pretty documents, whole and damaged one byte at a time, so
	// that rejections happen after the compact text has been built.
	damage := []string{" ", ",", "}", "]", `"`, `\`, "0", "-", ".5", "e1", "\x00", "\xff", `\u0041`, `\/`, "[", "{", "1 2", `\ud800`}
	for range 700 {
		doc := []byte{'['}
		for i := range 2 + r.IntN(10) {
			if i > 0 {
				doc = append(doc, ',')
			}
			doc = append(doc, randomDoc(r, 1+r.IntN(5))...)
		}
		doc = append(doc, ']')
		var b bytes.Buffer
		if json.Indent(&b, doc, "", []string{"  ", "\t", " "}[r.IntN(3)]) != nil {
			t.Fatalf("generator wrote invalid JSON %q", doc)
		}
		pretty := b.Bytes()
		all = append(all, doc, pretty)
		for range 4 {
			k := r.IntN(len(pretty) + 1)
			d := damage[r.IntN(len(damage))]
			var out []byte
			if r.IntN(2) == 0 {
				out = append(append(append(out, pretty[:k]...), d...), pretty[k:]...)
			} else {
				out = append(append(out, pretty[:k]...), d...)
				out = append(out, pretty[min(k+len(d), len(pretty)):]...)
			}
			all = append(all, out)
		}
	}
	// Scalars merged by removal, and near misses, at block boundaries.
	for _, s := range []string{"1 2", "- 1", "1 e5", "1. 5", "tru e", "nul l", `"a" "b"`, `1 "b"`, `"a" 1`, "1 ,2", "[1 ]", "[ 1]"} {
		for k := 0; k < 140; k += 7 {
			all = append(all, []byte("["+strings.Repeat(" ", k)+s+strings.Repeat("\n", 140-k)+"]"))
			all = append(all, []byte(strings.Repeat(" ", k)+s+strings.Repeat(" ", 70)))
		}
	}
	return all
}

// TestMinifyEngineAgrees checks that canonicalizing through the compact
// text gives exactly what the engine gives on the input itself: the same
// canonical bytes, and for a rejected input the same error (class, offset,
// pointer and message), in both profiles, for every implementation.
func TestMinifyEngineAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	inputs := minifyEngineInputs(t, r)
	for _, p := range []Profile{Strict, RFC8785} {
		for _, impl := range availableMinifyImpls() {
			t.Run(p.Name()+"/impl="+minifyNames[impl], func(t *testing.T) {
				used := 0
				off, on := New(p), New(p)
				for _, in := range inputs {
					// The compact text is used exactly when the reference
					// flags nothing and removes something from the first
					// block.
					_, inString, merged := minifyRef(in)
					want := len(in) >= minifyMinLen && !inString && !merged
					if want {
						head, _, _ := minifyRef(in[:64])
						want = len(head) < 64
					}
					if got := checkMinifyAgrees(t, off, on, impl, in); got != want {
						t.Fatalf("%q: compact text used %v, want %v", in, got, want)
					}
					if want {
						used++
					}
				}
				t.Logf("compact text used for %d of %d inputs", used, len(inputs))
				if used < 8000 {
					t.Fatalf("compact text used for only %d inputs", used)
				}
			})
		}
	}
}

// checkMinifyAgrees compares Append and View on in with compression off
// and with impl, and reports whether impl's compact text was usable.
func checkMinifyAgrees(t testing.TB, off, on *Canonicalizer, impl int32, in []byte) bool {
	t.Helper()
	p := on.Profile()
	var want, got []byte
	var wantErr, gotErr error
	var wantView, gotView []byte
	var used bool
	withMinify(t, minifyOff, func() {
		want, wantErr = off.Append(nil, in)
		v, _ := off.View(in)
		wantView = append([]byte(nil), v...)
	})
	withMinify(t, impl, func() {
		_, used = on.minify(in)
		got, gotErr = on.Append(nil, in)
		v, _ := on.View(in)
		gotView = append([]byte(nil), v...)
	})
	if !bytes.Equal(got, want) || !sameError(gotErr, wantErr) || !bytes.Equal(gotView, wantView) {
		t.Fatalf("%s, minify %s, %q:\n got %q, %v (view %q)\nwant %q, %v (view %q)",
			p.Name(), minifyNames[impl], in, got, gotErr, gotView, want, wantErr, wantView)
	}
	return used
}

func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ea, oka := errors.AsType[*Error](a)
	eb, okb := errors.AsType[*Error](b)
	return oka && okb && *ea == *eb
}

// FuzzMinifyEngine checks on arbitrary input that the compact-text path
// and the engine on the input agree exactly (output or error), and that
// the assembly compresses as the Go model does.
func FuzzMinifyEngine(f *testing.F) {
	seedCorpus(f)
	f.Add([]byte("[1 2]"))
	f.Add([]byte("{\"a\" : [ 1 , \"x y\" , tru e ] }"))
	offS, onS, offR, onR := New(Strict), New(Strict), New(RFC8785), New(RFC8785)
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, impl := range availableMinifyImpls() {
			checkMinifyAgrees(t, offS, onS, impl, in)
			checkMinifyAgrees(t, offR, onR, impl, in)
		}
		if minifyKernel.Has("avx512") {
			want, wst := minifyRun(minifyGo, in)
			got, gst := minifyRun(minifyAVX512, in)
			if !bytes.Equal(got, want) || gst != wst {
				t.Fatalf("minifyBlocksAVX512(%q) = %q %+v, want %q %+v", in, got, gst, want, wst)
			}
		}
	})
}
