package jsonread

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/bbdigest/bbdigest/internal/escbits/escbitstest"
)

// appendUnquoteScalar is AppendUnquote without its vector path.
func appendUnquoteScalar(dst, b []byte, i int) ([]byte, int) {
	old := useUnquoteAVX512
	useUnquoteAVX512 = false
	defer func() { useUnquoteAVX512 = old }()
	return AppendUnquote(dst, b, i)
}

// escapeDense returns a JSON string body of about n bytes, as the input
// of AppendUnquote sees it: mostly \" and \\ (JSON text held in a string),
// with \/ and other escapes (\n, \u00e9, a surrogate pair, a lone
// surrogate, a bad escape) mixed in by mix (out of 100), plain ASCII and
// UTF-8 between them.
func escapeDense(r *rand.Rand, n, mix int) []byte {
	parts := []string{`\"`, `\\`, `\"`, `\\\\`, `\/`, `a`, `bc`, `{`, `:`, `é`, `東`, ` `, `xyz12`}
	rare := []string{`\n`, `\t`, `\u00e9`, `\u00E9`, `\ud83d\ude4f`, `\ud800`, `\u12`, `\x`, `\b\f\r`}
	return escbitstest.Dense(r, n, mix, parts, rare)
}

// TestUnquoteVectorAgrees holds AppendUnquote with its vector path to the
// scalar decoder alone: the same text and end, or the same refusal, on
// escape-dense strings of every length to 300 bytes, ended by a quote, cut
// short, or followed by more of the document, and decoded into a dst
// with bytes already in it.
func TestUnquoteVectorAgrees(t *testing.T) {
	if !useUnquoteAVX512 {
		t.Skip("no AVX-512 VBMI2 path on this CPU")
	}
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 30000 {
		body := escapeDense(r, r.IntN(300), []int{0, 0, 2, 10, 40}[r.IntN(5)])
		in := append([]byte{'"'}, body...)
		switch r.IntN(4) {
		case 0: // cut short
		case 1:
			in = append(in, '"')
		default:
			in = append(in, `","k":"v\"w"}`...)
		}
		in = in[:r.IntN(len(in)+1)]
		if len(in) == 0 {
			in = []byte{'"'}
		}
		prefix := []byte("pre")[:r.IntN(4)]
		got, gotEnd := AppendUnquote(bytes.Clone(prefix), in, 0)
		want, wantEnd := appendUnquoteScalar(bytes.Clone(prefix), in, 0)
		if gotEnd != wantEnd || !bytes.Equal(got, want) {
			t.Fatalf("case %d: AppendUnquote(%q) = %q, %d; scalar %q, %d", i, in, got, gotEnd, want, wantEnd)
		}
	}
}

// TestUnquoteVectorSteps runs the vector path on strings whose escapes
// fall at every position of a 64-byte step, a run of backslashes across
// the step's end included.
func TestUnquoteVectorSteps(t *testing.T) {
	if !useUnquoteAVX512 {
		t.Skip("no AVX-512 VBMI2 path on this CPU")
	}
	for at := 0; at < 140; at++ {
		for _, esc := range []string{`\"`, `\\`, `\\\\`, `\\\"`, `\/`, `\n`, `\u0041`} {
			// \" first, to enter the vector path at once; esc at
			// offset at+2 from there.
			in := append([]byte(`"\"`), bytes.Repeat([]byte{'a'}, at)...)
			in = append(append(in, esc...), `tail"`...)
			got, gotEnd := AppendUnquote(nil, in, 0)
			want, wantEnd := appendUnquoteScalar(nil, in, 0)
			if gotEnd != wantEnd || !bytes.Equal(got, want) || gotEnd != len(in) {
				t.Fatalf("at %d, %s: AppendUnquote(%q) = %q, %d; scalar %q, %d", at, esc, in, got, gotEnd, want, wantEnd)
			}
		}
	}
}
