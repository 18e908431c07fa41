package jsonread_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/demo"
	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// readSeeds are inputs of FuzzReadVsCanon besides the unit tables: JSON
// as written, with whitespace, every kind of escape, nesting, and what
// canon rejects.
var readSeeds = []string{
	`{}`, `[]`, `""`, `0`, `-1.5e3`, `true`, `null`,
	` { "b" : [ 1 , { "c" : "\u00e9\n" } ] , "a" : "x" } `,
	`{"a\/b":"\ud83d\ude00","\u0041":[[],{},""],"z":{"y":{"x":[1,2,3]}}}`,
	`["\"\\\/\b\f\n\r\t", "\u001f\u007F\uFFFF", "tail\\"]`,
	`{"name":"get_weather","arguments":"{\"city\":\"Z\\u00fcrich\"}"}`,
	`{"a":1,"a":2}`, `{"a":"\ud800"}`, `{"a":[1,}`, `{"a"}`, `["unterminated`, `{"a":1}x`, "\"\xff\"",
}

// seedFiles are documents of the packages that read JSON with jsonread:
// the demo's calls and envelopes (internal/demo), and archive verify's
// records.
func seedFiles(f *testing.F) [][]byte {
	var out [][]byte
	for _, d := range demo.Docs() {
		out = append(out, d.Src)
	}
	claims, err := os.ReadFile("../../testdata/archive/claims.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for i, line := range bytes.Split(claims, []byte("\n")) {
		if i == 8 {
			break
		}
		out = append(out, line)
	}
	return out
}

// FuzzReadVsCanon holds the reader to canon and encoding/json. On any
// input, no function panics, reads outside its slice or loops, and every
// index returned is -1 or within bounds (checkBounded). On an input canon
// accepts (under the rfc8785 profile, whose output the strict profile
// shares wherever it accepts):
//
//   - in canon's output, Iter walks every object and array to the bytes,
//     SkipValue ends every value where the walk does, and every string
//     decodes as encoding/json decodes it (checkCanonical);
//   - in the input as written, SkipValue ends the top-level value where
//     only whitespace follows; every string literal decodes as
//     encoding/json decodes it; Find finds each member and element of the
//     canonical document, two levels deep, at a value whose canonical form
//     is the canonical document's, and TextArray walks each array to the
//     same elements (checkWritten).
func FuzzReadVsCanon(f *testing.F) {
	for _, s := range readSeeds {
		f.Add([]byte(s))
	}
	for _, tc := range iterCases {
		f.Add([]byte(tc.in))
	}
	for _, b := range seedFiles(f) {
		f.Add(b)
	}
	var c canon.Canonicalizer
	c.Reset(canon.RFC8785)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkBounded(t, b)
		out, err := c.Append(nil, b)
		if err != nil {
			return
		}
		checkBounded(t, out)
		checkCanonical(t, out)
		checkWritten(t, &c, b, out)
	})
}

// checkBounded calls every function at every offset of b (and just
// outside it) and checks the bounds of what they return.
func checkBounded(t *testing.T, b []byte) {
	t.Helper()
	for i := -1; i <= len(b)+1; i++ {
		if j := jsonread.SkipSpace(b, i); i >= 0 && (j < i || j > max(len(b), i)) {
			t.Fatalf("SkipSpace(%q, %d) = %d", b, i, j)
		}
		s := jsonread.SkipString(b, i)
		if s != -1 && (s <= i+1 || s > len(b)) {
			t.Fatalf("SkipString(%q, %d) = %d", b, i, s)
		}
		if e, plain := jsonread.StringEnd(b, i); e != s || plain && bytes.IndexByte(b[i+1:e-1], '\\') >= 0 ||
			!plain && e >= 0 && bytes.IndexByte(b[i+1:e-1], '\\') < 0 {
			t.Fatalf("StringEnd(%q, %d) = %d, %v; SkipString %d", b, i, e, plain, s)
		}
		if v := jsonread.SkipValue(b, i); v != -1 && (v < i || v > len(b)) {
			t.Fatalf("SkipValue(%q, %d) = %d", b, i, v)
		}
		text, end := jsonread.AppendUnquote([]byte("x"), b, i)
		switch {
		case end == -1 && string(text) != "x":
			t.Fatalf("AppendUnquote(%q, %d) failed but appended %q", b, i, text)
		case end != -1 && (end != s || len(text)-1 > end-i):
			t.Fatalf("AppendUnquote(%q, %d) = %q, %d; SkipString %d", b, i, text, end, s)
		}
		walk(b, jsonread.Object(b, i), true)
		walk(b, jsonread.Array(b, i), false)
		if i >= 0 && i < len(b) && b[i] == '[' {
			for a := jsonread.OpenTextArray(b, i); a.Next(); {
				if s, e := a.Value(); s < i || e <= s || e > len(b) {
					t.Fatalf("TextArray of %q at %d: element [%d, %d)", b, i, s, e)
				}
			}
		}
		for _, path := range [][]string{nil, {"a"}, {"0"}, {"a", "0"}, {"0", "a"}} {
			if s, e, ok := jsonread.Find(b, i, path); ok && (s < 0 || e < s || e > len(b)) {
				t.Fatalf("Find(%q, %d, %q) = [%d, %d)", b, i, path, s, e)
			}
		}
	}
	jsonread.Unquote(b)
}

// walk walks it (an object walk with Next, an array walk with Elem),
// calling each accessor on each value, and returns the walk's Close. It
// fails by panicking or by not ending; the fuzzer reports both.
func walk(b []byte, it jsonread.Iter, object bool) int {
	for steps := 0; ; steps++ {
		if steps > len(b) {
			panic("the walk does not end")
		}
		var more bool
		if object {
			more = it.Next()
		} else {
			more = it.Elem()
		}
		if !more {
			break
		}
		if object {
			_, _, _ = it.Name(), it.QuotedName(), it.MemberStart()
		}
		c := it
		if body, plain, ok := c.StringBody(); ok {
			end := c.ValueEnd()
			if vs := it.ValueStart(); end != jsonread.SkipString(b, vs) || !bytes.Equal(body, b[vs+1:end-1]) ||
				plain != (bytes.IndexByte(body, '\\') < 0) {
				panic(fmt.Sprintf("StringBody at %d of %q = %q, %v; ends at %d", vs, b, body, plain, end))
			}
		}
		_, _ = it.Scalar(), it.Value()
	}
	return it.Close()
}

// checkCanonical walks c, canon's output, to the bytes.
func checkCanonical(t *testing.T, c []byte) {
	t.Helper()
	if end := jsonread.SkipValue(c, 0); end != len(c) {
		t.Fatalf("SkipValue(%q, 0) = %d, want %d", c, end, len(c))
	}
	if end := canonicalValue(t, c, 0); end != len(c) {
		t.Fatalf("the walk of %q ends at %d, want %d", c, end, len(c))
	}
}

// canonicalValue checks the canonical value at c[i] and returns its end.
// It reads containers as act and envelope do: each value's end is the one
// the nested walk found, recorded with SetValueEnd, and must be the end
// SkipValue finds.
func canonicalValue(t *testing.T, c []byte, i int) int {
	t.Helper()
	switch c[i] {
	case '"':
		return checkString(t, c, i)
	case '{', '[':
	default:
		return jsonread.SkipValue(c, i)
	}
	object := c[i] == '{'
	it := jsonread.Array(c, i)
	if object {
		it = jsonread.Object(c, i)
	}
	var rebuilt []byte // the container again, from the pieces of the walk
	for n := 0; ; n++ {
		more := false
		if object {
			more = it.Next()
		} else {
			more = it.Elem()
		}
		if !more {
			if it.Index() != n {
				t.Fatalf("%q: Index %d after %d values", c[i:], it.Index(), n)
			}
			break
		}
		if it.Index() != n {
			t.Fatalf("%q: Index %d at value %d", c[i:], it.Index(), n)
		}
		if n > 0 {
			rebuilt = append(rebuilt, ',')
		}
		if object {
			q := it.QuotedName()
			if it.MemberStart() != it.ValueStart()-len(q)-1 || !bytes.Equal(it.Name(), q[1:len(q)-1]) {
				t.Fatalf("%q: member at %d, name %q, quoted %q, value at %d", c[i:], it.MemberStart(), it.Name(), q, it.ValueStart())
			}
			checkString(t, c, it.MemberStart())
			rebuilt = append(append(rebuilt, q...), ':')
		}
		vs := it.ValueStart()
		end := canonicalValue(t, c, vs)
		if want := jsonread.SkipValue(c, vs); end != want {
			t.Fatalf("%q: the value at %d ends at %d, SkipValue says %d", c, vs, end, want)
		}
		if c[vs] == '"' {
			sb := it
			body, plain, ok := sb.StringBody()
			if !ok || sb.ValueEnd() != end || !bytes.Equal(body, c[vs+1:end-1]) || plain != (bytes.IndexByte(body, '\\') < 0) {
				t.Fatalf("%q: StringBody at %d = %q, %v, %v; ends at %d, want %d", c, vs, body, plain, ok, sb.ValueEnd(), end)
			}
		}
		if sc := it.Scalar(); c[vs] != '{' && c[vs] != '[' && !bytes.Equal(sc, c[vs:end]) || len(sc) == 0 {
			t.Fatalf("%q: Scalar at %d = %q", c, vs, sc)
		}
		it.SetValueEnd(end)
		rebuilt = append(rebuilt, it.Value()...)
	}
	end := it.Close()
	if end < 0 {
		t.Fatalf("the walk of %q at %d stopped", c, i)
	}
	if want := string(c[i]) + string(rebuilt) + string(c[end-1]); want != string(c[i:end]) {
		t.Fatalf("the walk of %q at %d rebuilds %q", c, i, want)
	}
	return end
}

// checkString checks that the string literal at b[i] decodes as
// encoding/json decodes it, and returns its end.
func checkString(t *testing.T, b []byte, i int) int {
	t.Helper()
	end := jsonread.SkipString(b, i)
	if end < 0 {
		t.Fatalf("SkipString(%q, %d) = %d", b, i, end)
	}
	var want string
	if err := json.Unmarshal(b[i:end], &want); err != nil {
		t.Fatalf("encoding/json refuses the string %q that canon accepted: %v", b[i:end], err)
	}
	text, e := jsonread.AppendUnquote(nil, b, i)
	if string(text) != want || e != end {
		t.Fatalf("AppendUnquote(%q) = %+q, %d; encoding/json %+q, SkipString %d", b[i:end], text, e, want, end)
	}
	if s, ok := jsonread.Unquote(b[i:end]); !ok || s != want {
		t.Fatalf("Unquote(%q) = %+q, %v; encoding/json %+q", b[i:end], s, ok, want)
	}
	return end
}

// checkWritten checks the reading of b, JSON text as written that canon
// accepted as c.
func checkWritten(t *testing.T, cz *canon.Canonicalizer, b, c []byte) {
	t.Helper()
	start := jsonread.SkipSpace(b, 0)
	end := jsonread.SkipValue(b, start)
	if end < 0 || jsonread.SkipSpace(b, end) != len(b) {
		t.Fatalf("SkipValue(%q, %d) = %d: not the top-level value", b, start, end)
	}
	if s, e, ok := jsonread.Find(b, start, nil); !ok || s != start || e != end {
		t.Fatalf("Find(%q, %d, nil) = [%d, %d), %v; want [%d, %d)", b, start, s, e, ok, start, end)
	}
	// Every string literal as written (with any escape) decodes as
	// encoding/json decodes it.
	for i := 0; i < len(b); i++ {
		if b[i] == '"' {
			i = checkString(t, b, i) - 1
		}
	}
	findAll(t, cz, b, start, c, 0, nil, 2)
}

// findAll checks that Find, from the value at b[at], finds every member
// and element of the canonical value at c[ci] at a value that
// canonicalizes to it, down depth levels; and that TextArray walks each
// array to the same elements.
func findAll(t *testing.T, cz *canon.Canonicalizer, b []byte, at int, c []byte, ci int, path []string, depth int) {
	t.Helper()
	if depth == 0 || (c[ci] != '{' && c[ci] != '[') {
		return
	}
	object := c[ci] == '{'
	it := jsonread.Array(c, ci)
	var ta jsonread.TextArray
	if object {
		it = jsonread.Object(c, ci)
	} else {
		ta = jsonread.OpenTextArray(b, at)
	}
	for {
		step := ""
		if object {
			if !it.Next() {
				break
			}
			name, ok := jsonread.Unquote(it.QuotedName())
			if !ok {
				t.Fatalf("Unquote(%q) failed", it.QuotedName())
			}
			step = name
		} else {
			if !it.Elem() {
				if ta.Next() {
					s, e := ta.Value()
					t.Fatalf("TextArray of %q at %d finds %q after the last element", b, at, b[s:e])
				}
				break
			}
			step = strconv.Itoa(it.Index())
		}
		p := append(path[:len(path):len(path)], step)
		s, e, ok := jsonread.Find(b, at, []string{step})
		if !ok {
			t.Fatalf("Find(%q, %d, %q) failed: %q is at %q in its canonical form %q", b, at, step, it.Value(), p, c)
		}
		if got, err := cz.Append(nil, b[s:e]); err != nil || !bytes.Equal(got, it.Value()) {
			t.Fatalf("Find(%q, %q) = %q, whose canonical form is %q (%v), not %q", b, p, b[s:e], got, err, it.Value())
		}
		if !object {
			if !ta.Next() {
				t.Fatalf("TextArray of %q at %d ends before element %s", b, at, step)
			}
			if ts, te := ta.Value(); ts != s || te != e {
				t.Fatalf("TextArray of %q at %d: element %s at [%d, %d), Find says [%d, %d)", b, at, step, ts, te, s, e)
			}
		}
		findAll(t, cz, b, s, c, it.ValueStart(), p, depth-1)
	}
}
