package act

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// checkAct parses src in shape s and checks the act against the canonical
// bytes want (and its digest, computed here with crypto/sha256).
func checkAct(t *testing.T, p *Parser, src string, s Shape, wantShape Shape, want string) {
	t.Helper()
	a, err := p.Parse([]byte(src), s)
	if err != nil {
		t.Fatalf("Parse(%s, %s): %v", src, s, err)
	}
	if string(a.Canonical) != want {
		t.Fatalf("Parse(%s, %s):\n got %s\nwant %s", src, s, a.Canonical, want)
	}
	if got := a.Digest.String(); got != sha([]byte(want)) {
		t.Fatalf("Parse(%s, %s): digest %s, want %s", src, s, got, sha([]byte(want)))
	}
	if a.Shape != wantShape {
		t.Errorf("Parse(%s, %s): shape %s, want %s", src, s, a.Shape, wantShape)
	}
	d, err := p.Digest([]byte(src), s)
	if err != nil || d != a.Digest {
		t.Errorf("Digest(%s, %s) = %s, %v; want %s", src, s, d, err, a.Digest)
	}
}

// TestDemoCall reads the demo's tool call (an MCP request with \u
// escapes, a surrogate pair, \/ and 2.5E4) in every form, with ShapeAuto
// and with its own shape: each gives the act written out by hand.
func TestDemoCall(t *testing.T) {
	var p Parser
	ins := demoInputs(t)
	if len(ins) < 2*len(callForms) {
		t.Fatalf("only %d inputs", len(ins))
	}
	for name, src := range ins {
		shape := shapeOf(t, name)
		t.Run(name, func(t *testing.T) {
			checkAct(t, &p, src, ShapeAuto, shape, demoAct)
			checkAct(t, &p, src, shape, shape, demoAct)
		})
	}
}

// shapeOf returns the shape of the form that starts the input name
// "form/style".
func shapeOf(t *testing.T, name string) Shape {
	form, _, _ := strings.Cut(name, "/")
	for _, f := range callForms {
		if f.name == form {
			return f.shape
		}
	}
	t.Fatalf("no form %q", form)
	return 0
}

// calls are logical calls (tool name, arguments) in ASCII-safe JSON for
// the oracle (see helpers_test.go), from the empty object to nesting,
// arrays of objects, escapes and non-ASCII text.
var calls = []struct{ tool, args string }{
	{"get_weather", `{"location":"Paris, France","unit":"celsius"}`},
	{"noop", `{}`},
	{"book_hotel", `{"city":"Zürich","check_in":"2026-11-02","nights":3,"max_price_cents":25000,` +
		`"guests":[{"name":"Ana","age":34},{"name":"Boël","age":7}],"notes":"Quiet room, please 🙏 / no smoking"}`},
	{"transfer", `{"amount_cents":1999,"to":{"iban":"DE89 3704 0044 0532 0130 00","name":"O'Brien \"Ltd\""},` +
		`"memo":"line1\nline2\ttab\\ back","tags":[],"urgent":false,"limit":-9007199254740991,"meta":null}`},
	{"search", `{"q":"\u0000\u001f\u007f<>&","nested":{"a":{"b":{"c":[1,[2,[3]]]}}},"empty":{"":""}}`},
	{"ünïcode-tool ✓", `{"名前":"値","emoji":"👍🏽","a":1}`},
}

// TestShapes reads every call in every form and style (key order,
// whitespace, \u escapes of every character, \/, OpenAI strings holding
// each of those texts) with ShapeAuto and with its shape: all give the
// act the oracle builds with encoding/json.
func TestShapes(t *testing.T) {
	var p Parser
	for _, c := range calls {
		want, _ := wantAct(t, "", c.tool, c.args)
		ins := inputs(t, c.tool, c.args)
		for _, name := range slices.Sorted(maps.Keys(ins)) {
			src, shape := ins[name], shapeOf(t, name)
			t.Run(c.tool+"/"+name, func(t *testing.T) {
				checkAct(t, &p, src, ShapeAuto, shape, want)
				checkAct(t, &p, src, shape, shape, want)
			})
		}
	}
}

// TestServer binds a configured server: it is in the act, it changes the
// digest, and the call cannot set it.
func TestServer(t *testing.T) {
	src := `{"name":"get_weather","arguments":{"location":"Paris"},"server":"evil"}`
	for _, server := range []string{"", "weather.example", "quote\" back\\slash \n ctl\u0001 ünï"} {
		want, wantDigest := wantAct(t, server, "get_weather", `{"location":"Paris"}`)
		p := Parser{Server: server}
		checkAct(t, &p, src, ShapeAuto, ShapeMCP, want)
		a, err := Parse([]byte(src), ShapeAuto, server)
		if err != nil || a.Digest.String() != wantDigest || a.Server != server {
			t.Errorf("Parse with server %q: %v, %v, %q", server, a, err, wantDigest)
		}
	}
	// A Parser's server can change between calls.
	var p Parser
	for _, server := range []string{"a", "", "b", "b", ""} {
		p.Server = server
		want, _ := wantAct(t, server, "get_weather", `{"location":"Paris"}`)
		checkAct(t, &p, src, ShapeAuto, ShapeMCP, want)
	}
	p.Server = "bad\xff"
	if _, err := p.Parse([]byte(src), ShapeAuto); err == nil || errors.As(err, new(*Error)) {
		t.Errorf("server not UTF-8: %v, want a configuration error", err)
	}
}

// TestUnbound changes what is not bound (ids, call ids, type where it may
// vary, status, _meta, Session, Extra, other members, jsonrpc version)
// and what is (the name, each argument): only the latter changes the
// digest.
func TestUnbound(t *testing.T) {
	const args = `{"a":1,"b":"x","c":[true,null],"d":{"e":-2}}`
	base, _ := wantAct(t, "", "tool", args)
	same := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tool","arguments":` + args + `}}`,
		`{"jsonrpc":"2.0","id":"retry-2","method":"tools/call","params":{"name":"tool","arguments":` + args + `,"_meta":{"progressToken":1.5}}}`,
		`{"jsonrpc":"2.0","id":1e300,"method":"tools/call","params":{"name":"tool","arguments":` + args + `}}`,
		`{"jsonrpc":"1.0","id":null,"params":{"name":"tool","arguments":` + args + `,"extra":[1.25]}}`,
		`{"type":"tool_use","id":"toolu_1","name":"tool","input":` + args + `,"cache_control":{"type":"ephemeral"}}`,
		`{"type":"tool_use","id":"toolu_2","name":"tool","input":` + args + `}`,
		`{"type":"function","id":"call_1","function":{"name":"tool","arguments":` + quoteJSON(t, args) + `}}`,
		`{"type":"function","id":"call_2","function":{"name":"tool","arguments":` + quoteJSON(t, args) + `,"x":0.5},"index":3}`,
		`{"type":"function_call","id":"fc_1","call_id":"c1","name":"tool","arguments":` + quoteJSON(t, args) + `,"status":"in_progress"}`,
		`{"Params":{"name":"tool","arguments":` + args + `,"_meta":{"x":[0.1]}},"Session":{"id":3.5},"Extra":null}`,
		`{"Params":{"name":"tool","arguments":` + args + `},"Session":{},"Extra":{"Header":{"X":["y"]}},"Deep":` +
			strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`,
	}
	var p Parser
	for _, src := range same {
		a, err := p.Parse([]byte(src), ShapeAuto)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if string(a.Canonical) != base {
			t.Errorf("%s:\n got %s\nwant %s", src, a.Canonical, base)
		}
	}
	// Each change of the name or of one argument gives another digest.
	changed := []struct{ tool, args string }{
		{"tool2", args},
		{"Tool", args},
		{"tool", `{"a":2,"b":"x","c":[true,null],"d":{"e":-2}}`},
		{"tool", `{"a":1,"b":"y","c":[true,null],"d":{"e":-2}}`},
		{"tool", `{"a":1,"b":"x","c":[null,true],"d":{"e":-2}}`},
		{"tool", `{"a":1,"b":"x","c":[true,null],"d":{"e":2}}`},
		{"tool", `{"a":1,"b":"x","c":[true,null],"d":{"e":-2},"f":0}`},
		{"tool", `{"a":1,"b":"x","c":[true,null]}`},
		{"tool", `{"a":"1","b":"x","c":[true,null],"d":{"e":-2}}`},
		{"tool", `{"A":1,"b":"x","c":[true,null],"d":{"e":-2}}`},
	}
	seen := map[string]string{base: "base"}
	for _, c := range changed {
		for name, src := range inputs(t, c.tool, c.args) {
			a, err := p.Parse([]byte(src), ShapeAuto)
			if err != nil {
				t.Fatalf("%s %s: %v", name, src, err)
			}
			want, _ := wantAct(t, "", c.tool, c.args)
			if string(a.Canonical) != want {
				t.Fatalf("%s: got %s, want %s", name, a.Canonical, want)
			}
			if prev, ok := seen[want]; ok && prev != c.tool+c.args {
				t.Errorf("%s %s gives the act of %s", c.tool, c.args, prev)
			}
			seen[want] = c.tool + c.args
		}
	}
	if len(seen) != len(changed)+1 {
		t.Errorf("%d distinct acts for %d calls", len(seen), len(changed)+1)
	}
}

// TestNumbers checks the strict profile's integers in arguments: written
// in any form of an integer value they are read as that integer, in
// every shape (OpenAI strings included).
func TestNumbers(t *testing.T) {
	var p Parser
	for _, tc := range []struct{ in, want string }{
		{`1.0`, `1`},
		{`1e2`, `100`},
		{`2.5E4`, `25000`},
		{`-0`, `0`},
		{`-0.0`, `0`},
		{`9007199254740991`, `9007199254740991`},
		{`-9007199254740991`, `-9007199254740991`},
		{`100e-2`, `1`},
	} {
		want := `{"act":"tool_call/v1","arguments":{"n":` + tc.want + `},"tool":"t"}`
		for _, f := range callForms {
			args := `{"n":` + tc.in + `}`
			src := f.write(`"t"`, args, quoteJSON(t, args))
			checkAct(t, &p, src, ShapeAuto, f.shape, want)
		}
	}
}

// TestOpenAIStrings reads arguments strings written with every kind of
// escape, of the string and of the text it holds: each gives the same act.
func TestOpenAIStrings(t *testing.T) {
	want, _ := wantAct(t, "", "f", `{"a":"é/😀\"","b":[1]}`)
	var p Parser
	for _, s := range []string{
		`"{\"a\":\"é/😀\\\"\",\"b\":[1]}"`,                                                   // the text as it is
		`"{\"b\":[1],\"a\":\"é/😀\\\"\"}"`,                                                   // members reordered
		`"{ \"a\" : \"é/😀\\\"\" ,\n\t\"b\" : [ 1.0 ] }"`,                                    // whitespace, 1.0
		`"{\"a\":\"\\u00e9\\/\\ud83d\\ude00\\u0022\",\"b\":[1]}"`,                           // \u escapes in the text
		`"\u007b\u0022a\u0022:\u0022\u00e9\/\ud83d\ude00\\\u0022\u0022,\u0022b\u0022:[1]}"`, // in the string
		`"{\"a\":\"\u00e9\\/\uD83D\uDE00\\\"\",\"b\":[1e0]}"`,                               // upper-case hex, mixed
		`"{\"\\u0061\":\"é/😀\\\"\",\"b\":[1]}"`,                                             // an escaped name
		`"\n{\"a\":\"é/😀\\\"\",\"b\":[1]}\r\n"`,                                             // whitespace around the text
	} {
		for _, src := range []string{
			`{"name":"f","arguments":` + s + `}`,
			`{"type":"function","id":"c","function":{"arguments":` + s + `,"name":"f"}}`,
			`{"type":"function_call","call_id":"c","name":"f","arguments":` + s + `}`,
		} {
			checkAct(t, &p, src, ShapeAuto, ShapeOpenAI, want)
			checkAct(t, &p, src, ShapeOpenAI, ShapeOpenAI, want)
		}
	}
}

// TestDepth checks the arguments' depth bound: 63 levels of their own are
// accepted in every shape (whatever the wrapper adds), 64 are refused with
// class depth, at the offset of the 64th level's bracket.
func TestDepth(t *testing.T) {
	var p Parser
	nest := func(n int) string { // an object nesting n levels: {"a":[[...]]}
		return `{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`
	}
	for _, f := range callForms {
		ok := nest(MaxArgumentsDepth)
		src := f.write(`"t"`, ok, quoteJSON(t, ok))
		want, _ := wantAct(t, "", "t", ok)
		checkAct(t, &p, src, ShapeAuto, f.shape, want)

		deep := nest(MaxArgumentsDepth + 1)
		src = f.write(`"t"`, deep, quoteJSON(t, deep))
		_, err := p.Parse([]byte(src), ShapeAuto)
		e, isErr := errors.AsType[*Error](err)
		if !isErr || e.Class() != canon.ClassDepth {
			t.Errorf("%s: %v, want a depth error", f.name, err)
			continue
		}
		// The 64th level is the 63rd '[' of the arguments.
		at := strings.Index(deep, "[") + MaxArgumentsDepth - 1
		if e.InString {
			if e.Offset != int64(at) {
				t.Errorf("%s: offset %d in the text, want %d (%v)", f.name, e.Offset, at, err)
			}
		} else if e.Offset != int64(strings.Index(src, deep)+at) {
			t.Errorf("%s: offset %d, want %d (%v)", f.name, e.Offset, strings.Index(src, deep)+at, err)
		}
	}
	// The wrapper may nest deeper than the strict profile allows.
	src := `{"name":"t","arguments":{},"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`
	checkAct(t, &p, src, ShapeAuto, ShapeMCP, `{"act":"tool_call/v1","arguments":{},"tool":"t"}`)
}

// TestArgumentsAccessors checks Arguments and ArgumentsDigest against the
// canonical arguments, and the zero Act.
func TestArgumentsAccessors(t *testing.T) {
	a, err := Parse([]byte(`{"name":"t","arguments":{"b":2,"a":1}}`), ShapeAuto, "srv")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(a.Arguments()); got != `{"a":1,"b":2}` {
		t.Errorf("Arguments %s", got)
	}
	if got := a.ArgumentsDigest().String(); got != sha([]byte(`{"a":1,"b":2}`)) {
		t.Errorf("ArgumentsDigest %s", got)
	}
	if cap(a.Arguments()) != len(a.Arguments()) {
		t.Errorf("Arguments has spare capacity into the act")
	}
	if a.Tool != "t" || a.Server != "srv" || a.Shape != ShapeMCP {
		t.Errorf("act %+v", a)
	}
	var z Act
	if z.Arguments() != nil || z.ArgumentsDigest() != (hashing.Digest{}) {
		t.Errorf("zero Act: %q %s", z.Arguments(), z.ArgumentsDigest())
	}
}

// TestParseIntoReuse checks that ParseInto rewrites the whole Act, keeps
// no reference to the input, and accepts the Act's own Canonical as input
// (the act is not a call, but its bytes may be reused as a buffer).
func TestParseIntoReuse(t *testing.T) {
	var p Parser
	var a Act
	src := []byte(`{"name":"first","arguments":{"x":1}}`)
	if err := p.ParseInto(&a, src, ShapeAuto); err != nil {
		t.Fatal(err)
	}
	first := bytes.Clone(a.Canonical)
	copy(src, bytes.Repeat([]byte(" "), len(src)))
	if !bytes.Equal(a.Canonical, first) {
		t.Errorf("the act changed with its input")
	}
	// An error leaves no act behind.
	if err := p.ParseInto(&a, []byte(`{"name":"x","arguments":[]}`), ShapeAuto); err == nil {
		t.Fatal("no error")
	}
	if len(a.Canonical) != 0 || a.Digest != (hashing.Digest{}) || a.Tool != "" || a.Arguments() != nil {
		t.Errorf("after an error: %+v", a)
	}
	// src overlapping a.Canonical.
	a.Canonical = append(a.Canonical[:0], `{"input":{"k":"v"},"name":"second"}`...)
	if err := p.ParseInto(&a, a.Canonical, ShapeAuto); err != nil {
		t.Fatal(err)
	}
	if want := `{"act":"tool_call/v1","arguments":{"k":"v"},"tool":"second"}`; string(a.Canonical) != want || a.Tool != "second" {
		t.Errorf("in place: %s %q", a.Canonical, a.Tool)
	}
}

// TestNew builds acts from Go values: the act of a call read in any shape.
func TestNew(t *testing.T) {
	var p Parser
	p.Server = "s1"
	for _, c := range calls {
		a, err := New("s1", c.tool, []byte(c.args))
		if err != nil {
			t.Fatalf("New(%q, %s): %v", c.tool, c.args, err)
		}
		want, _ := wantAct(t, "s1", c.tool, c.args)
		if string(a.Canonical) != want || a.Digest.String() != sha([]byte(want)) || a.Shape != ShapeAuto {
			t.Errorf("New(%q, %s) = %s, want %s", c.tool, c.args, a.Canonical, want)
		}
		for _, f := range callForms {
			b, err := p.Parse([]byte(f.write(marshal(t, c.tool), c.args, quoteJSON(t, c.args))), ShapeAuto)
			if err != nil || b.Digest != a.Digest {
				t.Errorf("%s: %v, digest differs from New's", f.name, err)
			}
		}
	}
	a, err := New("", "t", nil)
	if err != nil || string(a.Canonical) != `{"act":"tool_call/v1","arguments":{},"tool":"t"}` {
		t.Errorf("New without arguments: %s, %v", a.Canonical, err)
	}
	for _, tc := range []struct {
		tool, args, class string
		offset            int64
	}{
		{"", `{}`, "shape", 0},
		{"t", `[1]`, "shape", 0},
		{"t", ` "x"`, "shape", 1},
		{"t", `{"a":1.5}`, "non-integer", 5},
		{"t", `{"a":1,"a":2}`, "duplicate-name", 7},
		{"t", `{`, "syntax", 1},
		{"t", `{"a":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`, "depth", 67},
	} {
		_, err := New("", tc.tool, []byte(tc.args))
		e, ok := errors.AsType[*Error](err)
		if !ok || e.className() != tc.class || e.Offset != tc.offset {
			t.Errorf("New(%q, %s): %v, want class %s at %d", tc.tool, tc.args, err, tc.class, tc.offset)
		}
	}
	if _, err := New("", "t\xff", nil); err == nil {
		t.Error("New with a tool name that is not UTF-8: no error")
	}
	if _, err := New("s\xff", "t", nil); err == nil {
		t.Error("New with a server that is not UTF-8: no error")
	}
}

// TestParseShape checks the names of the shapes.
func TestParseShape(t *testing.T) {
	for s := ShapeAuto; s <= ShapeMCP; s++ {
		got, err := ParseShape(s.String())
		if err != nil || got != s {
			t.Errorf("ParseShape(%q) = %v, %v", s, got, err)
		}
		got, err = ParseShape(strings.ToUpper(s.String()))
		if err != nil || got != s {
			t.Errorf("ParseShape(%q) = %v, %v", strings.ToUpper(s.String()), got, err)
		}
	}
	for _, name := range []string{"", "openai-chat", "MCP ", "anthropıc"} {
		if _, err := ParseShape(name); err == nil {
			t.Errorf("ParseShape(%q): no error", name)
		}
	}
	if Shape(9).String() != "shape(9)" {
		t.Errorf("Shape(9) = %q", Shape(9))
	}
	var p Parser
	if _, err := p.Digest([]byte(`{"name":"t"}`), Shape(9)); err == nil {
		t.Error("unknown Shape: no error")
	}
}

// TestAbsentArguments reads calls without arguments where the shape allows
// it (Anthropic input, MCP arguments): the act has {}.
func TestAbsentArguments(t *testing.T) {
	const want = `{"act":"tool_call/v1","arguments":{},"tool":"t"}`
	var p Parser
	for _, tc := range []struct {
		src   string
		shape Shape
	}{
		{`{"type":"tool_use","id":"toolu_1","name":"t"}`, ShapeAnthropic},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{}}}`, ShapeMCP},
		{`{"Params":{"name":"t"},"Session":{}}`, ShapeMCP},
		{`{"name":"t"}`, ShapeMCP},
		{`{"name":"t","input":{}}`, ShapeAnthropic},
		{`{"name":"t","arguments":"{}"}`, ShapeOpenAI},
	} {
		checkAct(t, &p, tc.src, ShapeAuto, tc.shape, want)
		checkAct(t, &p, tc.src, tc.shape, tc.shape, want)
	}
}
