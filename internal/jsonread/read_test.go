package jsonread_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// here returns the file and line of its caller's caller: a table case's
// name.
func here() string {
	_, file, line, _ := runtime.Caller(1)
	return fmt.Sprintf("%s:%d", file[strings.LastIndexByte(file, '/')+1:], line)
}

type iterCase struct {
	where  string
	in     string
	at     int
	object bool
	want   string // the walk: "name=value;" per member, "value;" per element
	close  int    // Close after the walk
}

// iterCases are walks of canonical JSON, and of text that is not, which
// stop with Close -1.
var iterCases = []iterCase{
	{here(), `{}`, 0, true, ``, 2},
	{here(), `[]`, 0, false, ``, 2},
	{here(), `{"a":1,"b":"x","c":{"d":[1,2]},"e":[],"f":null}`, 0, true, `a=1;b="x";c={"d":[1,2]};e=[];f=null;`, 47},
	{here(), `[1,"a",{},[[]],null,true,-0.5]`, 0, false, `1;"a";{};[[]];null;true;-0.5;`, 30},
	{here(), `[{"a":1},2]`, 1, true, `a=1;`, 8},
	{here(), `{"a\"b":"\\","\u001f":"}"}`, 0, true, `a\"b="\\";\u001f="}";`, 26},
	{here(), `{"a":1}xyz`, 0, true, `a=1;`, 7}, // what follows is the caller's to check
	// Not canonical JSON: the walk stops.
	{here(), `{"a":1`, 0, true, `a=1;`, -1},
	{here(), `{"a":1,}`, 0, true, `a=1;`, -1},
	{here(), `{"a":1,`, 0, true, `a=1;`, -1},
	{here(), `{"a":1 }`, 0, true, `a=1;`, -1},
	{here(), `{"a" :1}`, 0, true, ``, -1},
	{here(), `{"a":}`, 0, true, `a=;`, 6},
	{here(), `{"a"`, 0, true, ``, -1},
	{here(), `{"a":`, 0, true, ``, -1},
	{here(), `{"a":"x}`, 0, true, `a=;`, -1},
	{here(), `{1:2}`, 0, true, ``, -1},
	{here(), `{`, 0, true, ``, -1},
	{here(), `{"a":1]`, 0, true, `a=1;`, -1},
	{here(), `[1}`, 0, false, `1;`, -1},
	{here(), `[}`, 0, false, `;`, -1},
	{here(), `[1,]`, 0, false, `1;`, -1},
	{here(), `[1 2]`, 0, false, `1;`, -1},
	{here(), `[`, 0, false, ``, -1},
	{here(), `["a`, 0, false, `;`, -1},
	{here(), `x`, 0, true, ``, -1},
	{here(), `[]`, 0, true, ``, -1},
	{here(), `{}`, 0, false, ``, -1},
	{here(), `{}`, 2, true, ``, -1},
	{here(), `{}`, -1, true, ``, -1},
}

// TestIter walks each of iterCases, reading every value, and checks the
// members or elements and the Close it reports.
func TestIter(t *testing.T) {
	for _, tc := range iterCases {
		b := []byte(tc.in)
		it := jsonread.Array(b, tc.at)
		if tc.object {
			it = jsonread.Object(b, tc.at)
		}
		var got strings.Builder
		for n := 0; ; n++ {
			if tc.object && !it.Next() || !tc.object && !it.Elem() {
				break
			}
			if it.Index() != n {
				t.Errorf("%s: Index %d at value %d", tc.where, it.Index(), n)
			}
			if tc.object {
				fmt.Fprintf(&got, "%s=", it.Name())
			}
			fmt.Fprintf(&got, "%s;", it.Value())
		}
		if got.String() != tc.want || it.Close() != tc.close {
			t.Errorf("%s: the walk of %s at %d gives %s, Close %d; want %s, Close %d", tc.where, tc.in, tc.at, got.String(), it.Close(), tc.want, tc.close)
		}
		if it.Next() || it.Elem() {
			t.Errorf("%s: the walk goes on after its end", tc.where)
		}
	}
}

// TestIterSetValueEnd reads a container value as act and envelope do: its
// first byte by Scalar, its members by a nested walk whose Close is
// recorded with SetValueEnd, so that the outer walk moves on from there.
// A negative end (a nested reader that did not read the value) records
// nothing.
func TestIterSetValueEnd(t *testing.T) {
	b := []byte(`{"a":{"b":[1,2]},"c":"d","e":[3]}`)
	it := jsonread.Object(b, 0)
	var got []string
	for it.Next() {
		switch string(it.Name()) {
		case "a":
			if string(it.Scalar()) != "{" {
				t.Fatalf("Scalar of a = %q", it.Scalar())
			}
			in := jsonread.Object(b, it.ValueStart())
			for in.Next() {
				got = append(got, string(in.Name())+"="+string(in.Value()))
			}
			it.SetValueEnd(in.Close())
		case "c":
			got = append(got, "c="+string(it.Scalar()))
		case "e":
			it.SetValueEnd(-1)
			got = append(got, "e="+string(it.Value()))
		}
	}
	if strings.Join(got, " ") != `b=[1,2] c="d" e=[3]` || it.Close() != len(b) {
		t.Fatalf("got %q, Close %d", got, it.Close())
	}
	// A wrong end recorded is believed: SetValueEnd is how a reader that
	// read the value says where it ends.
	it = jsonread.Object(b, 0)
	it.Next()
	it.SetValueEnd(len(`{"a":{`)) // at "b", where no value ends
	if it.Next() || it.Close() != -1 {
		t.Fatalf("after a wrong end, Next goes on (Close %d)", it.Close())
	}
}

// TestSkip holds SkipString, SkipValue and SkipSpace to their contract on
// canonical JSON, on JSON as written and on text that is neither.
func TestSkip(t *testing.T) {
	for _, tc := range []struct {
		where       string
		in          string
		i           int
		str, val    int // SkipString's and SkipValue's results
		spaceAfterI int
	}{
		{here(), `"abc"`, 0, 5, 5, 0},
		{here(), `"a\"b\\"x`, 0, 8, 8, 0},
		{here(), `"\\\\\"\\"`, 0, 10, 10, 0},
		{here(), `"0123456789abcdef\"0123456789" `, 0, 30, 30, 0},
		{here(), `"unterminated\"`, 0, -1, -1, 0},
		{here(), `"ends in a backslash\`, 0, -1, -1, 0},
		{here(), `x"a"`, 0, -1, 4, 0}, // a scalar ends only where a value may end
		{here(), `x"a"`, 1, 4, 4, 1},
		{here(), `123,`, 0, -1, 3, 0},
		{here(), `-1.5e3}`, 0, -1, 6, 0},
		{here(), `true `, 0, -1, 4, 0},
		{here(), `null`, 0, -1, 4, 0},
		{here(), `,`, 0, -1, 0, 0},
		{here(), `]`, 0, -1, 0, 0},
		{here(), `{"a":[1,"]}"],"b":{}}x`, 0, -1, 21, 0},
		{here(), `{ "a" : [ 1 , "]" ] }`, 0, -1, 21, 0},
		{here(), `{"a":[1,2}`, 0, -1, -1, 0},
		{here(), `{"a":"}`, 0, -1, -1, 0},
		{here(), `[[[]]`, 0, -1, -1, 0},
		{here(), "  \t\r\n x", 0, -1, 0, 6},
		{here(), `"a"`, 3, -1, -1, 3},
		{here(), `"a"`, -1, -1, -1, -1},
		{here(), ``, 0, -1, -1, 0},
	} {
		b := []byte(tc.in)
		if got := jsonread.SkipString(b, tc.i); got != tc.str {
			t.Errorf("%s: SkipString(%s, %d) = %d, want %d", tc.where, tc.in, tc.i, got, tc.str)
		}
		if got := jsonread.SkipValue(b, tc.i); got != tc.val {
			t.Errorf("%s: SkipValue(%s, %d) = %d, want %d", tc.where, tc.in, tc.i, got, tc.val)
		}
		if got := jsonread.SkipSpace(b, tc.i); got != tc.spaceAfterI {
			t.Errorf("%s: SkipSpace(%s, %d) = %d, want %d", tc.where, tc.in, tc.i, got, tc.spaceAfterI)
		}
	}
}

// TestUnquoteRefuses holds AppendUnquote and Unquote to their failure:
// dst unchanged and -1, or false, for a string that is not one; Unquote
// also refuses a string followed by anything.
func TestUnquoteRefuses(t *testing.T) {
	notStrings := []string{``, `"`, `x`, `a"`, `"abc`, `"a\`, `"\x"`, `"\u12"`, `"\u12g4"`, `"\'"`, `"\"`}
	for _, q := range notStrings {
		if text, end := jsonread.AppendUnquote([]byte("dst"), []byte(q), 0); end != -1 || string(text) != "dst" {
			t.Errorf("AppendUnquote(%s) = %q, %d; want dst, -1", q, text, end)
		}
	}
	for _, q := range append(notStrings, `"a"b"`, `"a" `, `"a""`) {
		if s, ok := jsonread.Unquote([]byte(q)); ok {
			t.Errorf("Unquote(%s) = %q, true", q, s)
		}
	}
}

// TestFind finds values in JSON text as written, by member names (decoded
// before they are compared) and array indexes.
func TestFind(t *testing.T) {
	src := ` { "a" : [ 1 , { "b\u0063" : "x" } , [ ] ] , "d\/e" : {"f":null} , "0" : true } `
	for _, tc := range []struct {
		where string
		path  []string
		want  string // the value found; "" for none
	}{
		{here(), nil, src[1 : len(src)-1]},
		{here(), []string{"a"}, `[ 1 , { "b\u0063" : "x" } , [ ] ]`},
		{here(), []string{"a", "0"}, `1`},
		{here(), []string{"a", "1", "bc"}, `"x"`},
		{here(), []string{"a", "2"}, `[ ]`},
		{here(), []string{"d/e", "f"}, `null`},
		{here(), []string{"0"}, `true`},
		{here(), []string{"a", "3"}, ``},
		{here(), []string{"a", "-1"}, ``},
		{here(), []string{"a", "x"}, ``},
		{here(), []string{"a", "0", "x"}, ``},
		{here(), []string{"b"}, ``},
		{here(), []string{"d\\/e"}, ``},
	} {
		b := []byte(src)
		s, e, ok := jsonread.Find(b, jsonread.SkipSpace(b, 0), tc.path)
		got := ""
		if ok {
			got = src[s:e]
		}
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: Find(%q) = %q, %v; want %q", tc.where, tc.path, got, ok, tc.want)
		}
	}
	for _, src := range []string{`{"a":1`, `{"a"`, `{"a":"x`, `[1,`, `{"\x":1}`} {
		if s, e, ok := jsonread.Find([]byte(src), 0, []string{"a"}); ok && src[s:e] != "1" {
			t.Errorf("Find(%s, a) = [%d, %d)", src, s, e)
		}
	}
}

// TestKind names the type of a value by its first byte.
func TestKind(t *testing.T) {
	for _, tc := range []struct {
		c             byte
		kind, article string
	}{
		{'{', "object", "an object"}, {'[', "array", "an array"}, {'"', "string", "a string"},
		{'t', "boolean", "a boolean"}, {'f', "boolean", "a boolean"}, {'n', "null", "null"},
		{'-', "number", "a number"}, {'0', "number", "a number"}, {'x', "number", "a number"},
	} {
		if k, a := jsonread.Kind(tc.c), jsonread.KindWithArticle(tc.c); k != tc.kind || a != tc.article {
			t.Errorf("Kind(%q) = %q, %q; want %q, %q", tc.c, k, a, tc.kind, tc.article)
		}
	}
}

// TestEqualFoldASCII folds ASCII letters only: the words of an API
// (act's shapes, canon's profiles) are not spelled with ſ or the Kelvin
// sign.
func TestEqualFoldASCII(t *testing.T) {
	for _, tc := range []struct {
		s, name string
		want    bool
	}{
		{"strict", "strict", true}, {"STRICT", "strict", true}, {"RfC8785", "rfc8785", true}, {"", "", true},
		{"ſtrict", "strict", false}, {"\u212Aind", "kind", false}, {"strict ", "strict", false},
		{"stric", "strict", false}, {"openai", "OpenAI", false}, {"mcp\x00", "mcp", false},
	} {
		if got := jsonread.EqualFoldASCII(tc.s, tc.name); got != tc.want {
			t.Errorf("EqualFoldASCII(%q, %q) = %v, want %v", tc.s, tc.name, got, tc.want)
		}
	}
}

// TestStringBody: Iter.StringBody returns each string value's body as
// written and whether it holds a backslash, and ends the value where
// SkipString does: short strings, strings ending in each of the first
// four words and past them, with a backslash before and after the
// 32-byte mark, and unterminated ones; a value that is not a string is
// not ok.
func TestStringBody(t *testing.T) {
	long := strings.Repeat("x", 40)
	bodies := []string{"", "a", "abcdefg", "abcdefgh", strings.Repeat("y", 31), strings.Repeat("y", 32), long,
		`a\"b`, long + `\\`, `\\` + long, strings.Repeat("z", 30) + `\"` + long, long + `\u00e9` + long}
	for _, body := range bodies {
		doc := []byte(`["` + body + `",1]`)
		it := jsonread.Array(doc, 0)
		if !it.Elem() {
			t.Fatalf("%s: no element", doc)
		}
		got, plain, ok := it.StringBody()
		end := jsonread.SkipString(doc, 1)
		if !ok || string(got) != body || plain != !strings.Contains(body, `\`) || it.ValueEnd() != end {
			t.Errorf("%s: StringBody = %q, %v, %v, end %d; want %q, %v, end %d", doc, got, plain, ok, it.ValueEnd(), body, !strings.Contains(body, `\`), end)
		}
		if !it.Elem() || it.Index() != 1 {
			t.Errorf("%s: the walk does not go on past the string", doc)
		}
		if _, _, ok := it.StringBody(); ok {
			t.Errorf("%s: StringBody of a number is ok", doc)
		}
		cut := doc[:len(doc)-4] // inside the string, before its closing quote
		it = jsonread.Array(cut, 0)
		if it.Elem() {
			if got, _, ok := it.StringBody(); ok {
				t.Errorf("%s: StringBody of an unterminated string = %q", cut, got)
			}
		}
	}
}

// TestIterUnterminatedName: a walk of an object whose member name the
// text ends inside stops, Close -1, without reading outside the text
// (the fuzzer's {" panicked: skipString's -1 was taken for an index).
func TestIterUnterminatedName(t *testing.T) {
	for _, in := range []string{`{"`, `{"a`, `{"a\"`, `{"a":1,"`, `{"a":1,"b`} {
		it := jsonread.Object([]byte(in), 0)
		for it.Next() {
		}
		if it.Close() != -1 {
			t.Errorf("%s: Close %d, want -1", in, it.Close())
		}
	}
}
