package act

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/casename"
)

// errCase is a call that must be refused: with class, at the JSON Pointer
// ptr and at the offset of the first occurrence of at in src (plus
// delta), or, for an error inside an OpenAI arguments string (inString),
// at offset off of the string's decoded text, inner the pointer within
// that text.
type errCase struct {
	where    casename.CasePos // the case's row
	src      string
	shape    Shape
	class    string
	ptr      string
	at       string
	delta    int
	inString bool
	off      int
	inner    string
}

// ec returns an errCase named by the file and line of its caller, the row.
func ec(c errCase) errCase {
	c.where = casename.Caller(1)
	return c
}

func errCases() []errCase {
	dup := `{"a":1,"a":2}`
	return append([]errCase{
		// The canon gate, anywhere in the input.
		ec(errCase{src: `{"name":"t","arguments":{"a":}}`, class: "syntax", ptr: "/arguments/a", at: `}}`}),
		ec(errCase{src: `{"name":"t","arguments":{}} x`, class: "syntax", ptr: "", at: `x`}),
		ec(errCase{src: ``, class: "syntax", ptr: "", at: ``}),
		ec(errCase{src: "\ufeff{\"name\":\"t\"}", class: "syntax", ptr: "", at: "\ufeff"}),
		ec(errCase{src: `{"name":"t","arguments":{},"x":"` + "\xff" + `"}`, class: "invalid-utf8", ptr: "/x", at: "\xff"}),
		ec(errCase{src: `{"name":"t","arguments":{"k":"` + "\xc0\xaf" + `"}}`, class: "invalid-utf8", ptr: "/arguments/k", at: "\xc0"}),
		ec(errCase{src: `{"name":"t","name":"u","arguments":{}}`, class: "duplicate-name", ptr: "/name", at: `"name":"u"`}),
		ec(errCase{src: `{"name":"t","n\u0061me":"u"}`, class: "duplicate-name", ptr: "/name", at: `"n\u0061me"`}),
		ec(errCase{src: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},"arguments":{"x":1}}}`,
			class: "duplicate-name", ptr: "/params/arguments", at: `"arguments":{"x"`}),
		ec(errCase{src: `{"Params":{"name":"t","arguments":` + dup + `},"Session":{}}`, class: "duplicate-name", ptr: "/Params/arguments/a", at: `"a":2`}),
		ec(errCase{src: `{"type":"tool_use","id":"1","id":"2","name":"t","input":{}}`, class: "duplicate-name", ptr: "/id", at: `"id":"2"`}),
		ec(errCase{src: `{"name":"t","arguments":{},"_meta":{"x":"\ud800"}}`, class: "unpaired-surrogate", ptr: "/_meta/x", at: `\ud800`}),
		ec(errCase{src: `{"name":"t\udc00","arguments":{}}`, class: "unpaired-surrogate", ptr: "/name", at: `\udc00`}),
		ec(errCase{src: `{"name":"t","arguments":{"\ud83d":1}}`, class: "unpaired-surrogate", ptr: "/arguments", at: `\ud83d`}),
		ec(errCase{src: `{"name":"t","arguments":{"a":1.5}}`, class: "non-integer", ptr: "/arguments/a", at: `1.5`}),
		ec(errCase{src: `{"type":"tool_use","name":"t","input":{"a":[1e-400]}}`, class: "non-integer", ptr: "/input/a/0", at: `1e-400`}),
		ec(errCase{src: `{"jsonrpc":"2.0","id":7.5,"method":"tools/call","params":{"name":"t","arguments":{"b":{"a":9007199254740992}}}}`,
			class: "unsafe-integer", ptr: "/params/arguments/b/a", at: `9007199254740992`}),
		ec(errCase{src: "{ \"Params\" : {\n  \"name\": \"t\",\n  \"arguments\": { \"z\": -9007199254740993 }\n} }",
			class: "unsafe-integer", ptr: "/Params/arguments/z", at: `-9007199254740993`}),
		// 1e400 is refused by the rfc8785 reading of the input too, which
		// names it first.
		ec(errCase{src: `{"name":"t","arguments":{"a":1e400}}`, class: "number-range", ptr: "/arguments/a", at: `1e400`}),
		ec(errCase{src: `{"jsonrpc":"2.0","id":1e400,"method":"tools/call","params":{"name":"t"}}`, class: "number-range", ptr: "/id", at: `1e400`}),
		ec(errCase{src: `{"name":"t","arguments":{},"x":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
			class: "depth", ptr: "/x" + strings.Repeat("/0", 999),
			at: strings.Repeat("[", 1001), delta: 999}),
		// The outer string of an OpenAI call is input like any other.
		ec(errCase{src: `{"name":"t","arguments":"{` + "\xff" + `}"}`, class: "invalid-utf8", ptr: "/arguments", at: "\xff"}),
		ec(errCase{src: `{"name":"t","arguments":"{\"a\":\"\ud800\"}"}`, class: "unpaired-surrogate", ptr: "/arguments", at: `\ud800`}),

		// The text of an OpenAI arguments string: offsets in the decoded
		// text.
		ec(errCase{src: `{"name":"t","arguments":"{\"a\":1,\"a\":2}"}`, class: "duplicate-name", ptr: "/arguments", inString: true, off: 7, inner: "/a"}),
		ec(errCase{src: `{"name":"t","arguments":"{\"a\":1,\"\\u0061\":2}"}`, class: "duplicate-name", ptr: "/arguments", inString: true, off: 7, inner: "/a"}),
		ec(errCase{src: `{"type":"function","function":{"name":"t","arguments":"{\"x\":{\"a\":1.5}}"}}`, class: "non-integer", ptr: "/function/arguments", inString: true, off: 10, inner: "/x/a"}),
		ec(errCase{src: `{"type":"function_call","name":"t","arguments":"{\"a\":9007199254740992}"}`, class: "unsafe-integer", ptr: "/arguments", inString: true, off: 5, inner: "/a"}),
		ec(errCase{src: `{"name":"t","arguments":"{\"a\":1e400}"}`, class: "unsafe-integer", ptr: "/arguments", inString: true, off: 5, inner: "/a"}),
		ec(errCase{src: `{"name":"t","arguments":"{\"a\":\"\\ud800\"}"}`, class: "unpaired-surrogate", ptr: "/arguments", inString: true, off: 6, inner: "/a"}),
		ec(errCase{src: `{"name":"t","arguments":"{\"a\":"}`, class: "syntax", ptr: "/arguments", inString: true, off: 5, inner: "/a"}),
		ec(errCase{src: `{"name":"t","arguments":""}`, class: "syntax", ptr: "/arguments", inString: true, off: 0, inner: ""}),
		ec(errCase{src: `{"name":"t","arguments":"{} x"}`, class: "syntax", ptr: "/arguments", inString: true, off: 3, inner: ""}),
		ec(errCase{src: `{"name":"t","arguments":"{\"a\":1}{\"b\":2}"}`, class: "syntax", ptr: "/arguments", inString: true, off: 7, inner: ""}),
		ec(errCase{src: `{"name":"t","arguments":"{\"a\":'x'}"}`, class: "syntax", ptr: "/arguments", inString: true, off: 5, inner: "/a"}),
		ec(errCase{src: `{"name":"t","arguments":"{\"a\":\"\t\"}"}`, class: "syntax", ptr: "/arguments", inString: true, off: 6, inner: "/a"}),
		ec(errCase{src: `{"name":"t","arguments":" [1]"}`, class: "shape", ptr: "/arguments", inString: true, off: 1}),
		ec(errCase{src: `{"name":"t","arguments":"null"}`, class: "shape", ptr: "/arguments", inString: true, off: 0}),
		ec(errCase{src: `{"name":"t","arguments":"\"{}\""}`, class: "shape", ptr: "/arguments", inString: true, off: 0}),
		ec(errCase{src: `{"name":"t","arguments":"{\"a\":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}"}`,
			class: "depth", ptr: "/arguments", inString: true, off: 67, inner: "/a" + strings.Repeat("/0", 62)}),

		// Shapes.
		ec(errCase{src: `[]`, class: "shape", ptr: "", at: `[`}),
		ec(errCase{src: ` "call"`, class: "shape", ptr: "", at: `"`}),
		ec(errCase{src: `{}`, class: "shape", ptr: "", at: `{`}),
		// A member whose name differs only in case from one read.
		ec(errCase{src: `{"name":"search","Name":"pay","arguments":{}}`, class: "shape", ptr: "/Name", at: `"pay"`}),
		ec(errCase{src: `{"type":"tool_use","name":"t","input":{},"INPUT":{"x":1}}`, class: "shape", ptr: "/INPUT", at: `{"x"`}),
		ec(errCase{src: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t","Arguments":{"a":1}}}`, class: "shape", ptr: "/params/Arguments", at: `{"a"`}),
		ec(errCase{src: `{"PARAMS":{"name":"x"},"params":{"name":"t"}}`, class: "shape", ptr: "/PARAMS", at: `{"name":"x"}`}),
		ec(errCase{src: `{"Function":{"name":"x","arguments":"{}"},"function":{"name":"t","arguments":"{}"}}`, class: "shape", ptr: "/Function", at: `{"name":"x"`}),
		ec(errCase{src: `{"Params":{"name":"t","NAME":"u"}}`, class: "shape", ptr: "/Params/NAME", at: `"u"`}),
		ec(errCase{src: `{"name":"t","arguments":{},"Method":"tools/call"}`, class: "shape", ptr: "/Method", at: `"tools/call"`}),
		// A tool name past MaxToolName.
		ec(errCase{src: `{"name":"` + strings.Repeat("t", MaxToolName+1) + `","arguments":{}}`, class: "shape", ptr: "/name", at: `"ttt`}),
		ec(errCase{src: `{"name":"` + strings.Repeat(`\\`, MaxToolName/2) + `t","arguments":{}}`, class: "shape", ptr: "/name", at: `"\\`}),
		ec(errCase{src: `{"arguments":{}}`, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"name":"","arguments":{}}`, class: "shape", ptr: "/name", at: `""`}),
		ec(errCase{src: `{"name":5,"arguments":{}}`, class: "shape", ptr: "/name", at: `5`}),
		ec(errCase{src: `{"name":"t","arguments":[]}`, class: "shape", ptr: "/arguments", at: `[`}),
		ec(errCase{src: `{"name":"t","arguments":null}`, class: "shape", ptr: "/arguments", at: `null`}),
		ec(errCase{src: `{"name":"t","input":"{}"}`, class: "shape", ptr: "/input", at: `"{}"`}),
		ec(errCase{src: `{"type":"tool_use","name":"t","input":null}`, class: "shape", ptr: "/input", at: `null`}),
		ec(errCase{src: `{"type":"tool_use","name":"t","arguments":{}}`, class: "shape", ptr: "/arguments", at: `{}`}),
		ec(errCase{src: `{"type":"function_call","name":"t","input":{}}`, class: "shape", ptr: "/input", at: `{}`}),
		ec(errCase{src: `{"type":"function_call","name":"t"}`, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"type":"function_call","name":"t","arguments":{}}`, class: "shape", ptr: "/arguments", at: `{}`}),
		ec(errCase{src: `{"type":"server_tool_use","name":"web_search","input":{}}`, class: "shape", ptr: "/type", at: `"server_tool_use"`}),
		ec(errCase{src: `{"type":"custom_tool_call","name":"t","input":"text"}`, class: "shape", ptr: "/type", at: `"custom_tool_call"`}),
		ec(errCase{src: `{"type":["tool_use"],"name":"t","input":{}}`, class: "shape", ptr: "/type", at: `[`}),
		ec(errCase{src: `{"name":"t","input":{},"arguments":{}}`, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"function":{"name":"t","arguments":"{}"},"params":{"name":"t"}}`, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"Params":{"name":"t"},"params":{"name":"t"}}`, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"function":{"name":"t","arguments":"{}"},"name":"u"}`, class: "shape", ptr: "/name", at: `"u"`}),
		ec(errCase{src: `{"params":{"name":"t"},"arguments":{"a":1}}`, class: "shape", ptr: "/arguments", at: `{"a"`}),
		ec(errCase{src: `{"type":"custom","custom":{},"function":{"name":"t","arguments":"{}"}}`, class: "shape", ptr: "/type", at: `"custom"`}),
		ec(errCase{src: `{"function":"t"}`, class: "shape", ptr: "/function", at: `"t"`}),
		ec(errCase{src: `{"function":{"name":"t","arguments":{}}}`, class: "shape", ptr: "/function/arguments", at: `{}`}),
		ec(errCase{src: `{"function":{"name":"t"}}`, class: "shape", ptr: "/function", at: `{"name"`}),
		ec(errCase{src: `{"function":{"arguments":"{}"}}`, class: "shape", ptr: "/function", at: `{"arg`}),
		ec(errCase{src: `{"method":"tools/list","params":{"name":"t"}}`, class: "shape", ptr: "/method", at: `"tools/list"`}),
		ec(errCase{src: `{"method":5,"params":{"name":"t"}}`, class: "shape", ptr: "/method", at: `5`}),
		ec(errCase{src: `{"jsonrpc":"2.0","method":"tools/call","name":"t"}`, class: "shape", ptr: "/method", at: `"tools/call"`}),
		ec(errCase{src: `{"jsonrpc":"2.0","name":"t","arguments":{}}`, class: "shape", ptr: "/jsonrpc", at: `"2.0"`}),
		ec(errCase{src: `{"jsonrpc":"2.0","id":1,"params":null}`, class: "shape", ptr: "/params", at: `null`}),
		ec(errCase{src: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":"{}"}}`, class: "shape", ptr: "/params/arguments", at: `"{}"`}),
		ec(errCase{src: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`, class: "shape", ptr: "/params", at: `{"arg`}),
		ec(errCase{src: `{"Params":{"name":"t"},"method":"tools/call"}`, class: "shape", ptr: "/method", at: `"tools/call"`}),
		ec(errCase{src: `{"Params":{"name":"t","arguments":5}}`, class: "shape", ptr: "/Params/arguments", at: `5`}),
		ec(errCase{src: `{"function":{"name":"t"},"method":"tools/call"}`, class: "shape", ptr: "/method", at: `"tools/call"`}),
		// Offsets and pointers from input with whitespace and escaped names.
		ec(errCase{src: "{ \"p\\u0061rams\" : {\n\t\"n\\u0061me\" :  5 } }", class: "shape", ptr: "/params/name", at: `5`}),
		ec(errCase{src: "{\"id\":1.5, \"params\" : { \"name\" : \"t\", \"arguments\" : [ 1.5 ] } }", class: "shape", ptr: "/params/arguments", at: `[`}),
		ec(errCase{src: "{\"x\":1.5, \"name\":\"t\", \"arguments\":{\"a\":1,\n \"b\": 2.5}}", class: "non-integer", ptr: "/arguments/b", at: `2.5`}),
		ec(errCase{src: "{\"x\":1.5, \"name\":\"t\", \"arguments\":\"{\\\"a\\\":2.5}\"}", class: "non-integer", ptr: "/arguments", inString: true, off: 5, inner: "/a"}),

		// An explicit shape the input does not have.
		ec(errCase{src: `{"type":"tool_use","name":"t","input":{}}`, shape: ShapeOpenAI, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"type":"tool_use","name":"t","input":{}}`, shape: ShapeMCP, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"name":"t","arguments":"{}"}`, shape: ShapeMCP, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"name":"t","arguments":"{}"}`, shape: ShapeAnthropic, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"name":"t","arguments":{}}`, shape: ShapeOpenAI, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"name":"t"}`, shape: ShapeAnthropic, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"name":"t"}`, shape: ShapeOpenAI, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"name":"t","arguments":5}`, shape: ShapeOpenAI, class: "shape", ptr: "/arguments", at: `5`}),
		ec(errCase{src: `{"function":{"name":"t","arguments":"{}"}}`, shape: ShapeMCP, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"params":{"name":"t"}}`, shape: ShapeAnthropic, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"Params":{"name":"t"}}`, shape: ShapeOpenAI, class: "shape", ptr: "", at: `{`}),
	}, foldErrCases()...)
}

// TestErrors checks every rejection: its class, the sentinel it wraps, its
// pointer and offset, the same from Parse, Digest and ParseInto, and that
// an explicit shape gives the same error as ShapeAuto where the input has
// that shape.
func TestErrors(t *testing.T) {
	var p Parser
	for _, tc := range errCases() {
		t.Run(tc.where.String(), func(t *testing.T) {
			_, err := p.Parse([]byte(tc.src), tc.shape)
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("%q: %v, want an *Error", tc.src, err)
			}
			off := tc.off
			if !tc.inString {
				if off = strings.Index(tc.src, tc.at); off < 0 {
					t.Fatalf("bad case: %q not in %q", tc.at, tc.src)
				}
				off += tc.delta
			}
			if e.className() != tc.class || e.Pointer != tc.ptr || e.Offset != int64(off) || e.InString != tc.inString {
				t.Errorf("%q:\n got %s %q offset %d inString %v (%v)\nwant %s %q offset %d inString %v",
					tc.src, e.className(), e.Pointer, e.Offset, e.InString, err, tc.class, tc.ptr, off, tc.inString)
			}
			if tc.class == "shape" {
				if !errors.Is(err, ErrShape) || e.Class() != 0 {
					t.Errorf("not ErrShape, or canon class %v: %v", e.Class(), err)
				}
			} else {
				class, _ := canon.ParseClass(tc.class)
				ce, ok := errors.AsType[*canon.Error](err)
				if e.Class() != class {
					t.Errorf("Class() = %v, want %v", e.Class(), class)
				}
				if !errors.Is(err, class.Sentinel()) || !ok {
					t.Errorf("does not wrap the canon error of %s: %v", tc.class, err)
				} else if tc.inString && ce.Pointer != tc.inner {
					t.Errorf("inner pointer %q, want %q", ce.Pointer, tc.inner)
				} else if !tc.inString && (ce.Pointer != e.Pointer || ce.Offset != e.Offset) {
					t.Errorf("canon error at %q %d, act error at %q %d", ce.Pointer, ce.Offset, e.Pointer, e.Offset)
				}
			}
			if !strings.HasPrefix(err.Error(), "act: "+tc.class+": ") || strings.Contains(err.Error(), "\n") {
				t.Errorf("message %q", err)
			}
			if _, derr := p.Digest([]byte(tc.src), tc.shape); fmt.Sprint(derr) != fmt.Sprint(err) {
				t.Errorf("Digest: %v, Parse: %v", derr, err)
			}
			if _, perr := Parse([]byte(tc.src), tc.shape, "srv"); fmt.Sprint(perr) != fmt.Sprint(err) {
				t.Errorf("package Parse: %v, Parser.Parse: %v", perr, err)
			}
			// With the shape the input has, the error is the same.
			if tc.shape == ShapeAuto && tc.class != "shape" {
				for s := ShapeAnthropic; s <= ShapeMCP; s++ {
					if _, serr := p.Parse([]byte(tc.src), s); errors.Is(serr, ErrShape) {
						continue
					} else if fmt.Sprint(serr) != fmt.Sprint(err) {
						t.Errorf("shape %s: %v, auto: %v", s, serr, err)
					}
				}
			}
		})
	}
}

// TestErrorMessages pins the format of a few messages.
func TestErrorMessages(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`{"name":"t","arguments":{"a":1.5}}`,
			`act: non-integer: number "1.5" is not an integer within "/arguments/a" at offset 29`},
		{`{"name":"t","arguments":"{\"a\":1,\"a\":2}"}`,
			`act: duplicate-name: duplicate object member name "a" within "/a" in the arguments string at "/arguments", offset 7 of its decoded text`},
		{`{"name":"t","arguments":"[]"}`,
			`act: shape: the JSON text is an array, not an object in the arguments string at "/arguments", offset 0 of its decoded text`},
		{`{"type":"text","text":"hi"}`,
			`act: shape: type is "text", not "tool_use" (Anthropic) or "function_call" (OpenAI Responses) within "/type" at offset 8`},
		{`{"name":"t","input":{}}`,
			`act: shape: not an MCP tools/call request or params: the input reads as an Anthropic tool_use block within "" at offset 0`},
	} {
		s := ShapeAuto
		if strings.Contains(tc.want, "not an MCP") {
			s = ShapeMCP
		}
		_, err := Parse([]byte(tc.src), s, "")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

// TestToolNameBound: a name of MaxToolName bytes is a name; one byte more
// is refused, by Parse and by New alike.
func TestToolNameBound(t *testing.T) {
	long := strings.Repeat("n", MaxToolName)
	a, err := Parse([]byte(`{"name":"`+long+`","arguments":{}}`), ShapeMCP, "")
	if err != nil || a.Tool != long {
		t.Fatalf("a %d-byte name: %v", MaxToolName, err)
	}
	b, err := New("", long, nil)
	if err != nil || b.Digest != a.Digest {
		t.Fatalf("New with a %d-byte name: %v", MaxToolName, err)
	}
	if _, err := New("", long+"n", nil); !errors.Is(err, ErrShape) {
		t.Fatalf("New with a %d-byte name: %v, want ErrShape", MaxToolName+1, err)
	}
	// The bound counts the name as JSON spells it: a quote is two bytes.
	if _, err := New("", strings.Repeat(`"`, MaxToolName/2+1), nil); !errors.Is(err, ErrShape) {
		t.Fatalf("New with a name of %d quotes: %v, want ErrShape", MaxToolName/2+1, err)
	}
}
