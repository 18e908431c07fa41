package canon

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/casename"
	"github.com/bbdigest/bbdigest/internal/demo"
)

type acceptCase struct {
	where           casename.CasePos
	in, strict, rfc string // "" in strict/rfc: same as the other; "!class" expects that rejection
}

// Cases accepted (or rejected) by value. Expected output is written by hand
// from RFC 8785 §3.2 and the strict profile's definition.
var acceptCases = []acceptCase{
	// whitespace and structure
	{where: casename.Here(), in: " \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } , \"c\" : [ ] } \n", strict: `{"a":[1,2],"b":{},"c":[]}`},
	{where: casename.Here(), in: `{}`, strict: `{}`},
	{where: casename.Here(), in: `[]`, strict: `[]`},
	{where: casename.Here(), in: `[[[]],{}]`, strict: `[[[]],{}]`},
	{where: casename.Here(), in: `true`, strict: `true`},
	{where: casename.Here(), in: ` null `, strict: `null`},
	{where: casename.Here(), in: `"top"`, strict: `"top"`},
	{where: casename.Here(), in: `0`, strict: `0`},
	// member order: UTF-16 code units, not code points or UTF-8
	{where: casename.Here(), in: `{"b":1,"a":2}`, strict: `{"a":2,"b":1}`},
	{where: casename.Here(), in: `{"\uff61":true,"\ud83d\ude00":1}`, strict: "{\"\U0001F600\":1,\"\uff61\":true}"},
	{where: casename.Here(), in: "{\"\u20ac\":1,\"\\r\":2,\"\ufb33\":3,\"1\":4,\"\\ud83d\\ude00\":5,\"\u0080\":6,\"\u00f6\":7}",
		strict: "{\"\\r\":2,\"1\":4,\"\u0080\":6,\"\u00f6\":7,\"\u20ac\":1,\"\U0001F600\":5,\"\ufb33\":3}"},
	{where: casename.Here(), in: `{"aa":1,"a":2,"":3}`, strict: `{"":3,"a":2,"aa":1}`},
	{where: casename.Here(), in: `{"a":{"d":1,"c":2},"b":[{"y":1,"x":2}]}`, strict: `{"a":{"c":2,"d":1},"b":[{"x":2,"y":1}]}`},
	{where: casename.Here(), in: `{"b":{"z":1,"y":{"q":1,"p":2}},"a":0}`, strict: `{"a":0,"b":{"y":{"p":2,"q":1},"z":1}}`},
	// strings: only " \ and controls are escaped; everything else raw
	{where: casename.Here(), in: `"\u0041\/\u00e9\u20AC"`, strict: "\"A/\u00e9\u20ac\""},
	{where: casename.Here(), in: `"\b\t\n\f\r\"\\"`, strict: `"\b\t\n\f\r\"\\"`},
	{where: casename.Here(), in: `"\u0008\u0009\u000A\u000c\u000D\u0022\u005C"`, strict: `"\b\t\n\f\r\"\\"`},
	{where: casename.Here(), in: `"\u0000\u001F\u001f\u007f"`, strict: "\"\\u0000\\u001f\\u001f\u007f\""},
	{where: casename.Here(), in: `"\u2028\u2029\ufeff"`, strict: "\"\u2028\u2029\ufeff\""},
	{where: casename.Here(), in: "\"\u007f\u2028\"", strict: "\"\u007f\u2028\""},
	{where: casename.Here(), in: `"</script>"`, strict: `"</script>"`},
	{where: casename.Here(), in: `"\ud83d\ude00\uD83D\uDE00"`, strict: "\"\U0001F600\U0001F600\""},
	{where: casename.Here(), in: `{"\u0061":1}`, strict: `{"a":1}`},
	{where: casename.Here(), in: `{"\n":1,"\u000a\u0000":2}`, strict: `{"\n":1,"\n\u0000":2}`},
	{where: casename.Here(), in: "\"caf\u00e9 \u65e5\u672c\"", strict: "\"caf\u00e9 \u65e5\u672c\""},
	// numbers judged by exact value in strict; ES6 in rfc8785
	{where: casename.Here(), in: `1.0`, strict: `1`},
	{where: casename.Here(), in: `1e0`, strict: `1`},
	{where: casename.Here(), in: `1E2`, strict: `100`},
	{where: casename.Here(), in: `-0`, strict: `0`},
	{where: casename.Here(), in: `-0.0`, strict: `0`},
	{where: casename.Here(), in: `0e999999999999999999999`, strict: `0`},
	{where: casename.Here(), in: `-0.000e-5`, strict: `0`},
	{where: casename.Here(), in: `12.30e1`, strict: `123`},
	{where: casename.Here(), in: `123456789e-6`, strict: "!non-integer", rfc: `123.456789`},
	{where: casename.Here(), in: `1.5`, strict: "!non-integer", rfc: `1.5`},
	{where: casename.Here(), in: `1e-400`, strict: "!non-integer", rfc: `0`},
	{where: casename.Here(), in: `-1e-400`, strict: "!non-integer", rfc: `0`},
	{where: casename.Here(), in: `1.00000000000000001`, strict: "!non-integer", rfc: `1`},
	{where: casename.Here(), in: `1e21`, strict: "!unsafe-integer", rfc: `1e+21`},
	{where: casename.Here(), in: `1e20`, strict: "!unsafe-integer", rfc: `100000000000000000000`},
	{where: casename.Here(), in: `9007199254740991`, strict: `9007199254740991`},
	{where: casename.Here(), in: `-9007199254740991`, strict: `-9007199254740991`},
	{where: casename.Here(), in: `9007199254740992`, strict: "!unsafe-integer", rfc: `9007199254740992`},
	{where: casename.Here(), in: `-9007199254740992`, strict: "!unsafe-integer", rfc: `-9007199254740992`},
	{where: casename.Here(), in: `900719925474099.1e1`, strict: `9007199254740991`},
	{where: casename.Here(), in: `90071992547409910e-1`, strict: `9007199254740991`},
	{where: casename.Here(), in: `90071992547409920e-1`, strict: "!unsafe-integer", rfc: `9007199254740992`},
	{where: casename.Here(), in: `0.9007199254740991e16`, strict: `9007199254740991`},
	{where: casename.Here(), in: `123456789012345678901234567890`, strict: "!unsafe-integer", rfc: `1.2345678901234568e+29`},
	{where: casename.Here(), in: `1e400`, strict: "!unsafe-integer", rfc: "!number-range"},
	{where: casename.Here(), in: `-1e400`, strict: "!unsafe-integer", rfc: "!number-range"},
	{where: casename.Here(), in: `1.7976931348623159e308`, strict: "!unsafe-integer", rfc: "!number-range"},
	{where: casename.Here(), in: `1.7976931348623157e308`, strict: "!unsafe-integer", rfc: `1.7976931348623157e+308`},
	{where: casename.Here(), in: `5e-324`, strict: "!non-integer", rfc: `5e-324`},
	{where: casename.Here(), in: `1e-7`, strict: "!non-integer", rfc: `1e-7`},
	{where: casename.Here(), in: `0.000001`, strict: "!non-integer", rfc: `0.000001`},
	{where: casename.Here(), in: `1E-7`, strict: "!non-integer", rfc: `1e-7`},
	{where: casename.Here(), in: `333333333.33333329`, strict: "!non-integer", rfc: `333333333.3333333`},
	{where: casename.Here(), in: `4.50`, strict: "!non-integer", rfc: `4.5`},
	{where: casename.Here(), in: `2e-3`, strict: "!non-integer", rfc: `0.002`},
	{where: casename.Here(), in: `1E30`, strict: "!unsafe-integer", rfc: `1e+30`},
	{where: casename.Here(), in: `[1e1000000000000000000000000000]`, strict: "!unsafe-integer", rfc: "!number-range"},
	{where: casename.Here(), in: `[1e-1000000000000000000000000000]`, strict: "!non-integer", rfc: `[0]`},
	// JSON text held in a string (an OpenAI arguments string): runs of
	// \" and \\ taken in line (scanEscaped), before and after an escape
	// that is rewritten, with runs of high bytes and runs longer than a
	// word between them, in values and in names.
	{where: casename.Here(), in: `"{\"a\":\"b\\\\c\",\"d\":[1,2]}"`, strict: `"{\"a\":\"b\\\\c\",\"d\":[1,2]}"`},
	{where: casename.Here(), in: `"\u00e9\"x\\\"yy\"\/\"z"`, strict: `"é\"x\\\"yy\"/\"z"`},
	{where: casename.Here(), in: `"\"Zürich\"\"a long run of plain ASCII\"\"\u00fc\""`, strict: `"\"Zürich\"\"a long run of plain ASCII\"\"ü\""`},
	{where: casename.Here(), in: `{"\"b\\":1,"\"a\\\u00e9":2}`, strict: `{"\"a\\é":2,"\"b\\":1}`},
	{where: casename.Here(), in: "\"\\\"\\t\\\"\u00e9\\\"\"", strict: "\"\\\"\\t\\\"\u00e9\\\"\""},
}

func TestAcceptCases(t *testing.T) {
	t.Run("sort=default", testAcceptCases)
	t.Run("sort=deferred", func(t *testing.T) {
		testDeferAllSorts = true
		defer func() { testDeferAllSorts = false }()
		testAcceptCases(t)
	})
}

func testAcceptCases(t *testing.T) {
	var c Canonicalizer
	for _, tc := range acceptCases {
		for _, p := range []Profile{Strict, RFC8785} {
			want := tc.strict
			if p == RFC8785 && tc.rfc != "" {
				want = tc.rfc
			}
			c.Reset(p)
			got, err := c.Append(nil, []byte(tc.in))
			if class, ok := strings.CutPrefix(want, "!"); ok {
				e, isErr := errors.AsType[*Error](err)
				if !isErr || e.Class.String() != class {
					t.Errorf("%s: %s %q: got %q, %v; want class %s", tc.where, p.Name(), tc.in, got, err, class)
				}
				continue
			}
			if err != nil || string(got) != want {
				t.Errorf("%s: %s %q:\n got %q, %v\nwant %q", tc.where, p.Name(), tc.in, got, err, want)
				continue
			}
			// Canonical output is a fixed point that View passes through.
			v, err := c.View(got)
			if err != nil || !bytes.Equal(v, got) || &v[0] != &got[0] {
				t.Errorf("%s: %s %q: View of canonical %q = %q, %v; want it unchanged", tc.where, p.Name(), tc.in, got, v, err)
			}
		}
	}
}

// rejectCase expects one class at one offset (len of the prefix before the
// offending byte) with one pointer, under both profiles unless rfcOnly.
type rejectCase struct {
	where        casename.CasePos
	prefix, rest string // input = prefix + rest; the error is at len(prefix)
	class        Class
	pointer      string
}

var rejectCases = []rejectCase{
	// syntax
	{casename.Here(), "", "", ClassSyntax, ""},
	{casename.Here(), "  ", "", ClassSyntax, ""},
	{casename.Here(), "", "\xef\xbb\xbf{}", ClassSyntax, ""},
	{casename.Here(), "", "01", ClassSyntax, ""},
	{casename.Here(), "", "+1", ClassSyntax, ""},
	{casename.Here(), "", ".5", ClassSyntax, ""},
	{casename.Here(), "1.", "", ClassSyntax, ""},
	{casename.Here(), "1.", "e5", ClassSyntax, ""},
	{casename.Here(), "1e", "", ClassSyntax, ""},
	{casename.Here(), "-", "", ClassSyntax, ""},
	{casename.Here(), "-", "a", ClassSyntax, ""},
	{casename.Here(), "[1", "x]", ClassSyntax, "/0"},
	{casename.Here(), "[1,", "]", ClassSyntax, "/1"},
	{casename.Here(), `{"a":1,`, "}", ClassSyntax, "/a"},
	{casename.Here(), `{"a":1 `, `"b":2}`, ClassSyntax, "/a"},
	{casename.Here(), `{`, `a:1}`, ClassSyntax, ""},
	{casename.Here(), `{"a"`, `}`, ClassSyntax, "/a"},
	{casename.Here(), `{"a":`, `}`, ClassSyntax, "/a"},
	{casename.Here(), "", "NaN", ClassSyntax, ""},
	{casename.Here(), "", "Infinity", ClassSyntax, ""},
	{casename.Here(), "-", "Infinity", ClassSyntax, ""},
	{casename.Here(), "tru", "x", ClassSyntax, ""},
	{casename.Here(), "tru", "", ClassSyntax, ""},
	{casename.Here(), "true", "x", ClassSyntax, ""},
	{casename.Here(), "true ", "false", ClassSyntax, ""},
	{casename.Here(), "{} ", "{}", ClassSyntax, ""},
	{casename.Here(), `["a`, "\x01\"]", ClassSyntax, "/0"},
	{casename.Here(), `["a`, "\t\"]", ClassSyntax, "/0"},
	{casename.Here(), `["`, `\x"]`, ClassSyntax, "/0"},
	{casename.Here(), `["`, `\u12"]`, ClassSyntax, "/0"},
	{casename.Here(), `["`, `\u12G4"]`, ClassSyntax, "/0"},
	{casename.Here(), `["`, `\uG234"]`, ClassSyntax, "/0"}, // a bad hex digit in each place
	{casename.Here(), `["`, `\u1g34"]`, ClassSyntax, "/0"},
	{casename.Here(), `["`, `\u123G"]`, ClassSyntax, "/0"},
	{casename.Here(), `["`, `\u00e:"]`, ClassSyntax, "/0"},
	{casename.Here(), `["\ud83d`, `\ude0G"]`, ClassSyntax, "/0"}, // in the low half of a pair
	{casename.Here(), `["\ud83d`, `\u/e00"]`, ClassSyntax, "/0"},
	{casename.Here(), `{"`, `\u006Z":1}`, ClassSyntax, ""},
	{casename.Here(), `["abc`, ``, ClassSyntax, "/0"},
	{casename.Here(), `"\`, ``, ClassSyntax, ""},
	{casename.Here(), "[", "", ClassSyntax, "/0"},
	{casename.Here(), "", "]", ClassSyntax, ""},
	{casename.Here(), "[1]", "]", ClassSyntax, ""},
	{casename.Here(), "[1,2", "", ClassSyntax, "/1"},
	// invalid UTF-8: overlong, CESU-8 surrogate, > U+10FFFF, truncated, stray continuation
	{casename.Here(), `"`, "\xc0\xaf\"", ClassInvalidUTF8, ""},
	{casename.Here(), `"`, "\xe0\x80\xaf\"", ClassInvalidUTF8, ""},
	{casename.Here(), `"`, "\xed\xa0\x80\"", ClassInvalidUTF8, ""},
	{casename.Here(), `"`, "\xf4\x90\x80\x80\"", ClassInvalidUTF8, ""},
	{casename.Here(), `"ab`, "\xe2\x82\"", ClassInvalidUTF8, ""},
	{casename.Here(), `"`, "\x80\"", ClassInvalidUTF8, ""},
	{casename.Here(), `{"`, "\xff\":1}", ClassInvalidUTF8, ""},
	{casename.Here(), `"\n`, "\xfe\"", ClassInvalidUTF8, ""},
	{casename.Here(), `"\"a\"`, "\xc0\xaf\\\"\"", ClassInvalidUTF8, ""}, // after escapes taken in line
	{casename.Here(), `"\"abc\\`, "\x01\\\"xxxxxxxx\"", ClassSyntax, ""},
	{casename.Here(), `"\"abcdefghijkl\\`, "\x1f\"", ClassSyntax, ""},
	{casename.Here(), `["\"\\`, `\x"]`, ClassSyntax, "/0"},
	{casename.Here(), `["\"\\\`, ``, ClassSyntax, "/0"},
	// duplicate names after escape decoding, at any level
	{casename.Here(), `{"a":1,`, `"a":2}`, ClassDuplicateName, "/a"},
	{casename.Here(), `{"a":1,`, `"\u0061":2}`, ClassDuplicateName, "/a"},
	{casename.Here(), `{"b":1,"a":2,`, `"b":3}`, ClassDuplicateName, "/b"},
	{casename.Here(), `{"x":{"k":1,`, `"k":2}}`, ClassDuplicateName, "/x/k"},
	{casename.Here(), "{\"\U0001F600\":1,", `"\ud83d\ude00":2}`, ClassDuplicateName, "/\U0001F600"},
	{casename.Here(), `[{"a/b~":1,`, `"a/b~":1}]`, ClassDuplicateName, "/0/a~1b~0"},
	// unpaired surrogates, in values and names
	{casename.Here(), `["`, `\ud800"]`, ClassUnpairedSurrogate, "/0"},
	{casename.Here(), `["`, `\udc00"]`, ClassUnpairedSurrogate, "/0"},
	{casename.Here(), `["`, `\udc00\ud800"]`, ClassUnpairedSurrogate, "/0"},
	{casename.Here(), `["`, `\ud800\u0041"]`, ClassUnpairedSurrogate, "/0"},
	{casename.Here(), `["`, `\ud800A"]`, ClassUnpairedSurrogate, "/0"},
	{casename.Here(), `["x`, `\uDBFF\uDBFF"]`, ClassUnpairedSurrogate, "/0"},
	{casename.Here(), `{`, `"\ud800":1}`, ClassSyntax, ""}, // replaced below: the name case
}

func init() {
	// A lone surrogate in a member name: the error is at the escape.
	rejectCases[len(rejectCases)-1] = rejectCase{casename.Here(), `{"`, `\ud800":1}`, ClassUnpairedSurrogate, ""}
}

func TestRejectCases(t *testing.T) {
	var c Canonicalizer
	for _, tc := range rejectCases {
		in := tc.prefix + tc.rest
		for _, p := range []Profile{Strict, RFC8785} {
			c.Reset(p)
			dst := []byte("keep")
			got, err := c.Append(dst, []byte(in))
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Errorf("%s: %s %q: got %q, %v; want *Error", tc.where, p.Name(), in, got, err)
				continue
			}
			if e.Class != tc.class || e.Offset != int64(len(tc.prefix)) || e.Pointer != tc.pointer {
				t.Errorf("%s: %s %q: got %v (class %v, offset %d, pointer %q); want class %v, offset %d, pointer %q", tc.where,
					p.Name(), in, err, e.Class, e.Offset, e.Pointer, tc.class, len(tc.prefix), tc.pointer)
			}
			if !errors.Is(err, tc.class.Sentinel()) {
				t.Errorf("%s: %s %q: errors.Is(err, %v) = false", tc.where, p.Name(), in, tc.class)
			}
			if string(got) != "keep" {
				t.Errorf("%s: %s %q: dst changed to %q on error", tc.where, p.Name(), in, got)
			}
		}
	}
}

func TestNumberErrorOffsets(t *testing.T) {
	for _, tc := range []struct {
		prefix, num string
		p           Profile
		class       Class
	}{
		{`{"a":[0,`, `1.5`, Strict, ClassNonInteger},
		{`{"a":[0,`, `9007199254740992`, Strict, ClassUnsafeInteger},
		{`{"a":[0,`, `-1e400`, RFC8785, ClassNumberRange},
	} {
		_, err := Canonicalize([]byte(tc.prefix+tc.num+"]}"), tc.p)
		e, ok := errors.AsType[*Error](err)
		if !ok || e.Class != tc.class || e.Offset != int64(len(tc.prefix)) || e.Pointer != "/a/1" {
			t.Errorf("%s: %v", tc.num, err)
		}
	}
}

func nest(open, close string, n int) string {
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

func TestDepth(t *testing.T) {
	objects := func(n int) string {
		return strings.Repeat(`{"d":`, n-1) + "{}" + strings.Repeat("}", n-1)
	}
	for _, tc := range []struct {
		where casename.CasePos
		in    string
		p     Profile
		depth int // 0: accepted
	}{
		{casename.Here(), nest("[", "]", 64), Strict, 0},
		{casename.Here(), nest("[", "]", 65), Strict, 65},
		{casename.Here(), objects(64), Strict, 0},
		{casename.Here(), objects(65), Strict, 65},
		{casename.Here(), nest("[", "]", 1000), RFC8785, 0},
		{casename.Here(), nest("[", "]", 1001), RFC8785, 1001},
		{casename.Here(), nest("[", "]", 1_000_000), Strict, 65},
		{casename.Here(), nest("[", "]", 1_000_000), RFC8785, 1001},
		{casename.Here(), strings.Repeat("[", 1_000_000), RFC8785, 1001},
	} {
		_, err := Canonicalize([]byte(tc.in), tc.p)
		if tc.depth == 0 {
			if err != nil {
				t.Errorf("%s: %s depth %d: %v", tc.where, tc.p.Name(), len(tc.in)/2, err)
			}
			continue
		}
		e, ok := errors.AsType[*Error](err)
		if !ok || e.Class != ClassDepth || e.Offset != int64(tc.depth-1)*int64(len(tc.in[:1+strings.IndexAny(tc.in[1:], "[{")])) {
			t.Errorf("%s: %s: err %v, want depth at container %d", tc.where, tc.p.Name(), err, tc.depth)
		}
	}
	p, err := RFC8785.WithMaxDepth(3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Canonicalize([]byte(`[[[]]]`), p); err != nil {
		t.Errorf("depth 3 at bound 3: %v", err)
	}
	if _, err := Canonicalize([]byte(`[[[[]]]]`), p); !errors.Is(err, ErrDepth) {
		t.Errorf("depth 4 at bound 3: %v", err)
	}
	if _, err := Strict.WithMaxDepth(100); err == nil {
		t.Errorf("strict depth bound changed")
	}
}

// TestTooLarge feeds a 1 GiB string through Transcode: it is rejected at
// the size bound without being read, let alone buffered, whole.
func TestTooLarge(t *testing.T) {
	r := &countingReader{r: io.MultiReader(strings.NewReader(`"`), repeatReader('a'))}
	var c Canonicalizer
	err := c.Transcode(io.Discard, io.LimitReader(r, 1<<30))
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want too-large", err)
	}
	if r.n > DefaultMaxSize+1<<20 {
		t.Fatalf("read %d bytes for a %d-byte bound", r.n, DefaultMaxSize)
	}
	small, _ := Strict.WithMaxSize(10)
	c.Reset(small)
	var out bytes.Buffer
	if err := c.Transcode(&out, strings.NewReader(`[1, 2, 3]`)); err != nil || out.String() != `[1,2,3]` {
		t.Fatalf("9 bytes at bound 10: %q, %v", out.String(), err)
	}
	if err := c.Transcode(&out, strings.NewReader(`[1, 2, 3 ]`)); err != nil {
		t.Fatalf("10 bytes at bound 10: %v", err)
	}
	if err := c.Transcode(&out, strings.NewReader(`[1, 2, 3  ]`)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("11 bytes at bound 10: %v", err)
	}
	if _, err := c.Append(nil, []byte(`[1, 2, 3  ]`)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Append 11 bytes at bound 10: %v", err)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

type repeatReader byte

func (b repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// TestLargeObjects exercises the duplicate check of both sorts: objects far
// above the insertion-sort size, in and out of order, with and without a
// late duplicate, nested at several depths.
func TestLargeObjects(t *testing.T) {
	t.Run("sort=default", testLargeObjects)
	t.Run("sort=deferred", func(t *testing.T) {
		testDeferAllSorts = true
		defer func() { testDeferAllSorts = false }()
		testLargeObjects(t)
	})
}

func testLargeObjects(t *testing.T) {
	for _, n := range []int{insertionSortMax - 1, insertionSortMax, insertionSortMax + 1, 100, 5000} {
		for _, reverse := range []bool{false, true} {
			var in, want bytes.Buffer
			keys := make([]string, n)
			for i := range keys {
				keys[i] = fmt.Sprintf("k%06d", i)
			}
			in.WriteString("{")
			for i := range keys {
				k := keys[i]
				if reverse {
					k = keys[n-1-i]
				}
				if i > 0 {
					in.WriteString(", ")
				}
				fmt.Fprintf(&in, "%q: {\"z\":%d,\"y\":[%d]}", k, i, i)
			}
			in.WriteString("}")
			want.WriteString("{")
			for i, k := range keys {
				if i > 0 {
					want.WriteString(",")
				}
				j := i
				if reverse {
					j = n - 1 - i
				}
				fmt.Fprintf(&want, "%q:{\"y\":[%d],\"z\":%d}", k, j, j)
			}
			want.WriteString("}")
			got, err := Canonicalize(in.Bytes(), Strict)
			if err != nil || !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("n=%d reverse=%v: %v\n got %.200q\nwant %.200q", n, reverse, err, got, want.Bytes())
			}
			// A duplicate of an early key appended at the end.
			dup := append(bytes.TrimSuffix(in.Bytes(), []byte("}")), []byte(`,"k000000":0}`)...)
			_, err = Canonicalize(dup, Strict)
			if e, ok := errors.AsType[*Error](err); !ok || e.Class != ClassDuplicateName || e.Offset != int64(len(dup)-len(`"k000000":0}`)) {
				t.Fatalf("n=%d reverse=%v dup: %v", n, reverse, err)
			}
		}
	}
}

// TestAllocs checks that a warm Canonicalizer makes no allocations, for
// canonical and non-canonical input, including the sort and hash paths.
func TestAllocs(t *testing.T) {
	if runtime.GOARCH == "wasm" || testing.CoverMode() != "" {
		t.Skip("allocation counts differ")
	}
	var big bytes.Buffer
	big.WriteString("{")
	for i := 200; i > 0; i-- {
		fmt.Fprintf(&big, "\"k%d\\u0041\": [%d, 1.0, \"\\u00e9\"],", i, i)
	}
	big.WriteString("\"z\": 0}")
	inputs := map[string][]byte{
		"envelope":  []byte(example64Envelope),
		"canonical": []byte(`{"a":[1,2,"x"],"b":{"c":null}}`),
		"big":       big.Bytes(),
	}
	for name, in := range inputs {
		for _, p := range []Profile{Strict, RFC8785} {
			c := New(p)
			buf := make([]byte, 0, 4*len(in))
			if _, err := c.Append(buf, in); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if n := testing.AllocsPerRun(50, func() { c.Append(buf, in) }); n != 0 {
				t.Errorf("%s/%s: Append allocates %v times", name, p.Name(), n)
			}
			if n := testing.AllocsPerRun(50, func() { c.View(in) }); n != 0 {
				t.Errorf("%s/%s: View allocates %v times", name, p.Name(), n)
			}
		}
	}
}

func TestTransformCompat(t *testing.T) {
	var f func([]byte) ([]byte, error) = Transform // gowebpki/jcs signature
	got, err := f([]byte(`{"b":2e-3,"a":1E30}`))
	if err != nil || string(got) != `{"a":1e+30,"b":0.002}` {
		t.Fatalf("Transform = %q, %v", got, err)
	}
}

func TestIsCanonicalAndValidate(t *testing.T) {
	for _, tc := range []struct {
		in        string
		canonical bool
		valid     bool
	}{
		{`{"a":1}`, true, true},
		{`{"a": 1}`, false, true},
		{`{"b":1,"a":2}`, false, true},
		{`"\u0041"`, false, true},
		{`"\u001f"`, true, true},
		{`1.0`, false, true},
		{`{"a":1,"a":1}`, false, false},
		{``, false, false},
	} {
		if got := IsCanonical([]byte(tc.in), Strict); got != tc.canonical {
			t.Errorf("IsCanonical(%q) = %v", tc.in, got)
		}
		if err := Validate([]byte(tc.in), Strict); (err == nil) != tc.valid {
			t.Errorf("Validate(%q) = %v", tc.in, err)
		}
	}
}

func TestEncode(t *testing.T) {
	var c Canonicalizer
	var out bytes.Buffer
	if err := c.Encode(&out, []byte(example64Envelope)); err != nil || out.Len() != demo.DraftCanonicalLen {
		t.Fatalf("Encode: %d bytes, %v", out.Len(), err)
	}
	if err := c.Encode(&out, []byte(`[1,`)); !errors.Is(err, ErrSyntax) {
		t.Fatalf("Encode bad: %v", err)
	}
}

func TestClassNames(t *testing.T) {
	want := []string{"", "syntax", "invalid-utf8", "duplicate-name", "unpaired-surrogate", "non-integer", "unsafe-integer", "number-range", "depth", "too-large"}
	for i := 1; i < len(want); i++ {
		c := Class(i)
		if c.String() != want[i] {
			t.Errorf("Class(%d) = %q, want %q", i, c, want[i])
		}
		if back, ok := ParseClass(want[i]); !ok || back != c {
			t.Errorf("ParseClass(%q) = %v, %v", want[i], back, ok)
		}
		if !strings.Contains(c.Sentinel().Error(), want[i]) {
			t.Errorf("sentinel of %v: %v", c, c.Sentinel())
		}
	}
}

// TestDeepUnsortedNesting checks member ordering through many levels of
// unsorted objects, arrays between them, and escapes that force rewriting,
// against output built by hand.
func TestDeepUnsortedNesting(t *testing.T) {
	t.Run("sort=default", testDeepUnsortedNesting)
	t.Run("sort=deferred", func(t *testing.T) {
		testDeferAllSorts = true
		defer func() { testDeferAllSorts = false }()
		testDeepUnsortedNesting(t)
	})
}

func testDeepUnsortedNesting(t *testing.T) {
	const depth = 999
	var in, want strings.Builder
	for i := 0; i < depth; i++ {
		if i%3 == 2 {
			in.WriteString(`[ "\u0041", `)
			want.WriteString(`["A",`)
			continue
		}
		fmt.Fprintf(&in, `{"z%d": %d, "b": `, i, i)
		fmt.Fprintf(&want, `{"a":[%d],"b":`, i)
	}
	in.WriteString(`{"y":1,"x":2}`)
	want.WriteString(`{"x":2,"y":1}`)
	for i := depth - 1; i >= 0; i-- {
		if i%3 == 2 {
			in.WriteString(` ]`)
			want.WriteString(`]`)
			continue
		}
		fmt.Fprintf(&in, `, "a": [%d]}`, i)
		fmt.Fprintf(&want, `,"z%d":%d}`, i, i)
	}
	got, err := Canonicalize([]byte(in.String()), RFC8785)
	if err != nil || string(got) != want.String() {
		t.Fatalf("err %v\n got %.300q\nwant %.300q", err, got, want.String())
	}
	// Compact input: nothing is rewritten, only reordered (staged from src).
	var c Canonicalizer
	c.Reset(RFC8785)
	compact := strings.NewReplacer(", ", ",", ": ", ":", " ]", "]", `[ "\u0041"`, `["A"`).Replace(in.String())
	v, err := c.View([]byte(compact))
	if err != nil || string(v) != want.String() {
		t.Fatalf("compact: err %v\n got %.300q", err, v)
	}
}

// TestErrorTextBounded: error messages stay short however long the names
// and paths in the input are.
func TestErrorTextBounded(t *testing.T) {
	long := strings.Repeat("n", 1<<20)
	for _, in := range []string{
		`{"` + long + `":1,"` + long + `":2}`,
		strings.Repeat(`{"`+long[:1000]+`":`, 60) + `1.5` + strings.Repeat("}", 60),
	} {
		_, err := Canonicalize([]byte(in), Strict)
		e, ok := errors.AsType[*Error](err)
		if !ok {
			t.Fatalf("no error")
		}
		if n := len(err.Error()); n > 400 {
			t.Errorf("%v: message is %d bytes", e.Class, n)
		}
		if len(e.Pointer) < 1000 {
			t.Errorf("%v: pointer field cut to %d bytes", e.Class, len(e.Pointer))
		}
	}
}
