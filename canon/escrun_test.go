package canon

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/escbits/escbitstest"

	"github.com/bbdigest/bbdigest/internal/impl/impltest"
)

// naiveEscapeRun is escapeRun one byte at a time: it passes \" and \\ whose
// two bytes lie in the same 64-byte step from i, and the printable ASCII
// bytes other than '"' and '\\'.
func naiveEscapeRun(src []byte, i int) int {
	p := i
	for p < len(src) {
		switch b := src[p]; {
		case b == '\\':
			if p+1 < len(src) && (src[p+1] == '"' || src[p+1] == '\\') && (p-i)%64 != 63 {
				p += 2
				continue
			}
			return p
		case b == '"' || b < 0x20 || b >= 0x80:
			return p
		}
		p++
	}
	return p
}

// escapeDenseString returns the body of a JSON string of about n bytes,
// mostly \" and \\ escapes between ASCII (JSON text held in a string),
// with, by mix (out of 100), the rest mixed in: other escapes, raw
// controls, UTF-8 (well- and ill-formed), a stray quote.
func escapeDenseString(r *rand.Rand, n, mix int) []byte {
	parts := []string{`\"`, `\\`, `\"`, `\\\\`, `a`, `bc`, `{`, `:`, `,`, `12`, ` `, "\x7f"}
	rare := []string{`\/`, `\n`, `\u00e9`, `\u0041`, `\ud83d\ude4f`, `\ud800`, `\x`, "\x01", "\t", "é", "東", "\xff", "\xe3\x81", `"`, `\`}
	return escbitstest.Dense(r, n, mix, parts, rare)
}

// TestEscapeRun holds escapeRun to a byte loop, from every \" and \\ of
// escape-dense strings of every length to 300, cut anywhere.
func TestEscapeRun(t *testing.T) {
	impltest.Need(t, escRunKernel, "avx512")
	r := rand.New(rand.NewPCG(11, 12))
	var c Canonicalizer
	for range 5000 {
		src := escapeDenseString(r, r.IntN(300), []int{0, 1, 5, 30}[r.IntN(4)])
		src = src[:r.IntN(len(src)+1)]
		c.src = src
		for i := 0; i+1 < len(src); i++ {
			if src[i] != '\\' || src[i+1] != '"' && src[i+1] != '\\' {
				continue
			}
			if got, want := c.escapeRun(i), naiveEscapeRun(src, i); got != want {
				t.Fatalf("escapeRun(%q, %d) = %d, want %d", src, i, got, want)
			}
			i++ // the escaped byte: the next escape starts after it
		}
	}
}

// TestEscRunPaths canonicalizes documents of escape-dense strings (names
// and values, long and short, well-formed and not) with each
// implementation of the escrun kernel, under both profiles: the same
// output, and the same error (class, offset, pointer), from Append and
// View alike.
func TestEscRunPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for k := range 4000 {
		var doc bytes.Buffer
		doc.WriteString(`{"a":[`)
		for j := range 1 + r.IntN(4) {
			if j > 0 {
				doc.WriteString(", ")
			}
			doc.WriteByte('"')
			doc.Write(escapeDenseString(r, r.IntN(200), []int{0, 0, 2, 10}[r.IntN(4)]))
			doc.WriteByte('"')
		}
		doc.WriteString(`],"`)
		doc.Write(escapeDenseString(r, r.IntN(80), []int{0, 5}[r.IntN(2)]))
		doc.WriteString(`":"x\"y"}`)
		in := doc.Bytes()
		if r.IntN(8) == 0 {
			in = in[:r.IntN(len(in)+1)]
		}
		checkEscRunPaths(t, k, in)
	}
}

// checkEscRunPaths compares the escrun implementations on in.
func checkEscRunPaths(t *testing.T, k int, in []byte) {
	t.Helper()
	for _, p := range []Profile{Strict, RFC8785} {
		var want, wantView []byte
		var wantErr error
		for i, name := range escRunKernel.Available() {
			restore, err := escRunKernel.Select(name)
			if err != nil {
				t.Fatal(err)
			}
			var c Canonicalizer
			c.Reset(p)
			out, err := c.Append(nil, in)
			view, viewErr := c.View(in)
			view = bytes.Clone(view)
			restore()
			if !sameError(err, viewErr) || err == nil && !bytes.Equal(out, view) {
				t.Fatalf("case %d %q, escrun %s: Append %q, %v; View %q, %v", k, in, name, out, err, view, viewErr)
			}
			if i == 0 {
				want, wantView, wantErr = out, view, err
			} else if !bytes.Equal(out, want) || !bytes.Equal(view, wantView) || !sameError(err, wantErr) {
				t.Fatalf("case %d %q: escrun %s gives %q, %v; %s gives %q, %v", k, in, name, out, err, escRunKernel.Names()[0], want, wantErr)
			}
		}
	}
}

// FuzzEscRunPaths is TestEscRunPaths on arbitrary documents.
func FuzzEscRunPaths(f *testing.F) {
	seedCorpus(f)
	f.Add([]byte(`{"arguments":"{\"city\":\"Z\\u00fcrich\",\"notes\":\"a \\/ b \\ud83d\\ude4f\",\"n\":[1,2]}"}`))
	f.Add([]byte(`["` + strings.Repeat(`\"\\`, 40) + `\n` + strings.Repeat(`x\\`, 30) + "\x01\"]"))
	f.Fuzz(func(t *testing.T, in []byte) {
		checkEscRunPaths(t, 0, in)
	})
}
