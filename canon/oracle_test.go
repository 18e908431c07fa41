package canon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// compareUTF16Simple is the obviously correct oracle for CompareUTF16:
// encode both strings to UTF-16 and compare the code units.
func compareUTF16Simple(a, b []byte) int {
	x := utf16.Encode([]rune(string(a)))
	y := utf16.Encode([]rune(string(b)))
	return slices.Compare(x, y)
}

// appendStringSimple is the oracle for string output: RFC 8785 §3.2.2.2
// spelled out rune by rune.
func appendStringSimple(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"':
			dst = append(dst, `\"`...)
		case r == '\\':
			dst = append(dst, `\\`...)
		case r == '\b':
			dst = append(dst, `\b`...)
		case r == '\f':
			dst = append(dst, `\f`...)
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r < 0x20:
			dst = append(dst, `\u00`...)
			dst = append(dst, "0123456789abcdef"[r>>4], "0123456789abcdef"[r&15])
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}

// interestingRunes covers every UTF-8 length, both sides of the surrogate
// gap and the UTF-16 order boundary, controls and the escaped characters.
var interestingRunes = []rune{
	0, 1, '\b', '\t', '\n', '\f', '\r', 0x1f, ' ', '"', '/', '\\', 'A', 'a', 0x7f,
	0x80, 0xe9, 0x7ff, 0x800, 0x20ac, 0x2028, 0xd7ff, 0xe000, 0xfb33, 0xfeff, 0xff61, 0xffff,
	0x10000, 0x1f600, 0x1f602, 0x10ffff,
}

func randomString(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		if r.IntN(4) == 0 {
			b.WriteRune(rune(r.IntN(0x110000-0x800)) + 0x800)
		} else {
			b.WriteRune(interestingRunes[r.IntN(len(interestingRunes))])
		}
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

func TestCompareUTF16VsOracle(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < 200000; i++ {
		a := randomString(r, r.IntN(4))
		b := randomString(r, r.IntN(4))
		if r.IntN(3) == 0 {
			b = a + randomString(r, r.IntN(2)) // shared prefixes
		}
		if got, want := CompareUTF16([]byte(a), []byte(b)), compareUTF16Simple([]byte(a), []byte(b)); got != want {
			t.Fatalf("CompareUTF16(%+q, %+q) = %d, want %d", a, b, got, want)
		}
	}
}

// TestStringsVsOracle canonicalizes random strings written with random
// escapes and compares with the oracle applied to the decoded value.
func TestStringsVsOracle(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	var c Canonicalizer
	for i := 0; i < 50000; i++ {
		s := randomString(r, r.IntN(12))
		in := writeStringRandomly(r, s)
		got, err := c.Append(nil, in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if want := appendStringSimple(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %q\nwant %q", in, got, want)
		}
	}
}

// writeStringRandomly writes s as a JSON string literal, choosing for each
// rune between the raw form (where allowed), short escapes and \u escapes
// in either case.
func writeStringRandomly(r *rand.Rand, s string) []byte {
	b := []byte{'"'}
	hex := "0123456789abcdef"
	if r.IntN(2) == 0 {
		hex = "0123456789ABCDEF"
	}
	u := func(v rune) {
		b = append(b, '\\', 'u', hex[v>>12&15], hex[v>>8&15], hex[v>>4&15], hex[v&15])
	}
	for _, c := range s {
		switch k := r.IntN(3); {
		case k == 0 && c >= 0x20 && c != '"' && c != '\\':
			b = utf8.AppendRune(b, c)
		case k == 1 && c < 0x80 && strings.ContainsRune("\"\\/\b\f\n\r\t", c):
			b = append(b, '\\', map[rune]byte{'"': '"', '\\': '\\', '/': '/', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}[c])
		default:
			if c >= 0x10000 {
				p := utf16.Encode([]rune{c})
				u(rune(p[0]))
				u(rune(p[1]))
			} else {
				u(c)
			}
		}
	}
	return append(b, '"')
}

// canonicalSimple is a slow, obviously correct canonicalizer for the strict
// profile on inputs that encoding/json accepts and that have no duplicate
// names: decode with encoding/json (numbers kept as text), then re-encode
// per RFC 8785 with the oracles above.
func canonicalSimple(t testing.TB, v any) []byte {
	var out []byte
	var enc func(v any)
	enc = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.SortFunc(keys, func(a, b string) int { return compareUTF16Simple([]byte(a), []byte(b)) })
			out = append(out, '{')
			for i, k := range keys {
				if i > 0 {
					out = append(out, ',')
				}
				out = appendStringSimple(out, k)
				out = append(out, ':')
				enc(v[k])
			}
			out = append(out, '}')
		case []any:
			out = append(out, '[')
			for i, e := range v {
				if i > 0 {
					out = append(out, ',')
				}
				enc(e)
			}
			out = append(out, ']')
		case string:
			out = appendStringSimple(out, v)
		case json.Number:
			out = append(out, v...)
		case bool:
			if v {
				out = append(out, "true"...)
			} else {
				out = append(out, "false"...)
			}
		case nil:
			out = append(out, "null"...)
		default:
			t.Fatalf("unexpected %T", v)
		}
	}
	enc(v)
	return out
}

// randomDoc writes a random JSON document with unsorted unique names,
// random whitespace and string spellings, and canonical integers.
func randomDoc(r *rand.Rand, depth int) []byte {
	ws := func(b []byte) []byte {
		for range r.IntN(3) {
			b = append(b, " \t\r\n"[r.IntN(4)])
		}
		return b
	}
	var gen func(b []byte, d int) []byte
	gen = func(b []byte, d int) []byte {
		b = ws(b)
		k := r.IntN(8)
		if d >= depth {
			k = 4 + r.IntN(4)
		}
		switch k {
		case 0, 1:
			b = append(b, '{')
			n := r.IntN(6)
			if r.IntN(10) == 0 {
				n = 40
			}
			seen := map[string]bool{}
			for i := 0; i < n; i++ {
				name := randomString(r, r.IntN(4))
				if seen[name] {
					continue
				}
				seen[name] = true
				if len(seen) > 1 {
					b = append(b, ',')
				}
				b = ws(b)
				b = append(b, writeStringRandomly(r, name)...)
				b = ws(b)
				b = append(b, ':')
				b = gen(b, d+1)
			}
			b = ws(b)
			b = append(b, '}')
		case 2, 3:
			b = append(b, '[')
			n := r.IntN(5)
			for i := 0; i < n; i++ {
				if i > 0 {
					b = append(b, ',')
				}
				b = gen(b, d+1)
			}
			b = ws(b)
			b = append(b, ']')
		case 4:
			b = append(b, writeStringRandomly(r, randomString(r, r.IntN(8)))...)
		case 5:
			b = append(b, []string{"true", "false", "null"}[r.IntN(3)]...)
		default:
			n := r.Int64N(1<<53) >> r.IntN(53)
			if r.IntN(2) == 0 {
				n = -n
			}
			b = strconv.AppendInt(b, n, 10)
		}
		return ws(b)
	}
	return gen(nil, 0)
}

// TestDocumentsVsOracle compares whole documents with canonicalSimple,
// with objects reordered in place where cheap (the default) and with every
// reordering deferred.
func TestDocumentsVsOracle(t *testing.T) {
	t.Run("sort=default", testDocumentsVsOracle)
	t.Run("sort=deferred", func(t *testing.T) {
		testDeferAllSorts = true
		defer func() { testDeferAllSorts = false }()
		testDocumentsVsOracle(t)
	})
}

func testDocumentsVsOracle(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	var c Canonicalizer
	for i := 0; i < 5000; i++ {
		in := randomDoc(r, 1+r.IntN(6))
		d := json.NewDecoder(bytes.NewReader(in))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("generator wrote invalid JSON %q: %v", in, err)
		}
		want := canonicalSimple(t, v)
		got, err := c.Append(nil, in)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %q, %v\nwant %q", in, got, err, want)
		}
	}
}

// TestBigMemberObjects compares with canonicalSimple objects that hold one
// member larger than the rest together, at any place in the input and in
// the sorted order, so that sortInPlace moves it once and the others
// through scratch memory: nested two deep, the big member itself an object
// of that kind or an array of random documents, with whitespace (bytes
// dropped before, inside and after it) or without, and documents whose
// inner objects use up the in-place budget before the outermost closes.
func TestBigMemberObjects(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	var c Canonicalizer
	var bigObject func(depth int) []byte
	bigArray := func() []byte {
		b := []byte{'['}
		for i := 0; len(b) < bigMember+r.IntN(3*bigMember); i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, randomDoc(r, 1+r.IntN(4))...)
		}
		return append(b, ']')
	}
	bigObject = func(depth int) []byte {
		names := r.Perm(2 + r.IntN(6))
		bigAt := r.IntN(len(names))
		b := []byte{'{'}
		for i, n := range names {
			if i > 0 {
				b = append(b, ',')
			}
			if r.IntN(3) == 0 {
				b = append(b, " \n\t"[r.IntN(3)])
			}
			b = append(b, fmt.Sprintf("%q:", fmt.Sprintf("k%c", 'a'+n))...)
			switch {
			case i != bigAt:
				b = append(b, randomDoc(r, r.IntN(3))...)
			case depth > 0 && r.IntN(2) == 0:
				b = append(b, bigObject(depth-1)...)
			default:
				b = append(b, bigArray()...)
			}
		}
		return append(b, '}')
	}
	for i := 0; i < 300; i++ {
		in := bigObject(2)
		if r.IntN(4) == 0 {
			// Budget first: many unsorted objects before the big one.
			in = append([]byte(`{"z":[`), in...)
			for range 2000 {
				in = append(in, `,{"b":1,"a":2}`...)
			}
			in = append(in, `],"a":0}`...)
		}
		d := json.NewDecoder(bytes.NewReader(in))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("generator wrote invalid JSON: %v", err)
		}
		want := canonicalSimple(t, v)
		got, err := c.Append(nil, in)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("document %d (%d bytes): %v\n got %.300q\nwant %.300q", i, len(in), err, got, want)
		}
	}
}
