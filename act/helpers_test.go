package act

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/bbdigest/bbdigest/internal/demo"
)

// This file holds the tests' oracle and input writers, independent of
// package canon: values are read with encoding/json (numbers kept as
// written, json.Number), written back in several ways by writeJSON, and
// the expected canonical act is built with encoding/json (sorted map
// keys, no HTML escaping) and hashed with crypto/sha256. encoding/json's
// output is the JCS form for the values the tests use: integers written as
// integers, strings without U+2028/U+2029, member names that sort the same
// by bytes as by UTF-16 code units.

// decode reads the JSON text s with numbers as json.Number.
func decode(t testing.TB, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return v
}

// marshal writes v as encoding/json does with sorted keys and no HTML
// escaping.
func marshal(t testing.TB, v any) string {
	t.Helper()
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// wantAct returns the canonical act of a call to tool on server ("" for
// none) with the arguments object args (JSON text), built with
// encoding/json, and its digest by crypto/sha256.
func wantAct(t testing.TB, server, tool, args string) (canonical, digest string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"act":"tool_call/v1","arguments":`)
	b.WriteString(marshal(t, decode(t, args)))
	if server != "" {
		b.WriteString(`,"server":`)
		b.WriteString(marshal(t, server))
	}
	b.WriteString(`,"tool":`)
	b.WriteString(marshal(t, tool))
	b.WriteString("}")
	sum := sha256.Sum256([]byte(b.String()))
	return b.String(), "sha256:" + hex.EncodeToString(sum[:])
}

// style is a way of writing a JSON value.
type style struct {
	name    string
	reverse bool   // members in reverse sorted order (else sorted)
	indent  string // pretty-print with this indent (else compact)
	escape  bool   // every character of strings and names as \u escapes
	slash   bool   // '/' as \/
}

var styles = []style{
	{name: "compact"},
	{name: "reversed", reverse: true},
	{name: "pretty", reverse: true, indent: "  "},
	{name: "tabs", indent: "\t"},
	{name: "escaped", reverse: true, escape: true},
	{name: "escaped-pretty", escape: true, indent: " ", slash: true},
}

// writeJSON writes v (from decode) in style st.
func writeJSON(v any, st style) string {
	var b strings.Builder
	writeValue(&b, v, st, 0)
	return b.String()
}

func writeValue(b *strings.Builder, v any, st style, depth int) {
	nl := func(d int) {
		if st.indent != "" {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(st.indent, d))
		}
	}
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if st.reverse {
			for i, j := 0, len(keys)-1; i < j; i, j = i+1, j-1 {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(depth + 1)
			writeString(b, k, st)
			b.WriteByte(':')
			if st.indent != "" {
				b.WriteByte(' ')
			}
			writeValue(b, v[k], st, depth+1)
		}
		if len(keys) > 0 {
			nl(depth)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(depth + 1)
			writeValue(b, e, st, depth+1)
		}
		if len(v) > 0 {
			nl(depth)
		}
		b.WriteByte(']')
	case string:
		writeString(b, v, st)
	case json.Number:
		b.WriteString(string(v))
	case bool:
		fmt.Fprint(b, v)
	case nil:
		b.WriteString("null")
	default:
		panic(fmt.Sprintf("writeValue: %T", v))
	}
}

// writeString writes s as a JSON string: with st.escape every character as
// \uXXXX (a surrogate pair above U+FFFF), else as encoding/json does.
func writeString(b *strings.Builder, s string, st style) {
	if !st.escape {
		q, _ := json.Marshal(s)
		if st.slash {
			q = bytes.ReplaceAll(q, []byte("/"), []byte(`\/`))
		}
		b.Write(q)
		return
	}
	b.WriteByte('"')
	for _, r := range s {
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(b, `\u%04X`, u)
		}
	}
	b.WriteByte('"')
}

// quoteJSON returns the JSON text text as a JSON string, as OpenAI writes
// an arguments string.
func quoteJSON(t testing.TB, text string) string {
	t.Helper()
	q, err := json.Marshal(text)
	if err != nil {
		t.Fatal(err)
	}
	return string(q)
}

// form is one way of writing a call, as the vendors do, around the name
// (a JSON string) and the arguments (a JSON object text).
type callForm struct {
	name  string
	shape Shape
	// write returns the input, given the quoted name, the arguments text
	// and the arguments as an OpenAI string.
	write func(name, args, argsString string) string
}

var callForms = []callForm{
	{"anthropic", ShapeAnthropic, func(n, a, _ string) string {
		return `{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":` + n + `,"input":` + a + `}`
	}},
	{"anthropic-untyped", ShapeAnthropic, func(n, a, _ string) string {
		return `{"input":` + a + `,"name":` + n + `}`
	}},
	{"openai-chat", ShapeOpenAI, func(n, _, s string) string {
		return `{"id":"call_abc123","type":"function","function":{"name":` + n + `,"arguments":` + s + `}}`
	}},
	{"openai-chat-untyped", ShapeOpenAI, func(n, _, s string) string {
		return `{"function":{"arguments":` + s + `,"name":` + n + `},"id":"call_9"}`
	}},
	{"openai-function", ShapeOpenAI, func(n, _, s string) string {
		return `{"name":` + n + `,"arguments":` + s + `}`
	}},
	{"openai-responses", ShapeOpenAI, func(n, _, s string) string {
		return `{"type":"function_call","id":"fc_12345xyz","call_id":"call_12345xyz","name":` + n + `,"arguments":` + s + `,"status":"completed"}`
	}},
	{"mcp-request", ShapeMCP, func(n, a, _ string) string {
		return `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":` + n + `,"arguments":` + a + `,"_meta":{"progressToken":"p-1"}}}`
	}},
	{"mcp-request-string-id", ShapeMCP, func(n, a, _ string) string {
		return `{"params":{"_meta":{},"arguments":` + a + `,"name":` + n + `},"method":"tools/call","jsonrpc":"2.0","id":"req-7"}`
	}},
	{"mcp-params", ShapeMCP, func(n, a, _ string) string {
		return `{"name":` + n + `,"arguments":` + a + `,"_meta":{"progressToken":7}}`
	}},
	{"mcp-gateway", ShapeMCP, func(n, a, _ string) string {
		return `{"Params":{"_meta":{"progressToken":"p"},"name":` + n + `,"arguments":` + a + `},"Session":{},"Extra":{"TokenInfo":null,"Header":{"Authorization":["Bearer x"]}}}`
	}},
	{"mcp-gateway-new", ShapeMCP, func(n, a, _ string) string {
		return `{"method":"tools/call","params":{"name":` + n + `,"arguments":` + a + `}}`
	}},
}

// inputs returns the call of tool with arguments args (a JSON object text)
// in every form, each written in every style (the OpenAI string holding
// the arguments in that style, compact around it), keyed by
// "form/style".
func inputs(t testing.TB, tool, args string) map[string]string {
	t.Helper()
	v := decode(t, args)
	out := map[string]string{}
	for _, f := range callForms {
		for _, st := range styles {
			text := writeJSON(v, st)
			var name strings.Builder
			writeString(&name, tool, st)
			src := f.write(name.String(), text, quoteJSON(t, text))
			// The wrapper in the style too: read it back and write it
			// again (its members, not its meaning, change).
			src = writeJSON(decode(t, src), st)
			out[f.name+"/"+st.name] = src
		}
	}
	return out
}

// demoAct is the canonical act of demo.ToolCall, the demo's MCP request,
// written out by hand.
const (
	demoAct = `{"act":"tool_call/v1","arguments":{"check_in":"2026-11-02","city":"Zürich",` +
		`"guests":[{"age":34,"name":"Ana"},{"age":7,"name":"Boël"}],"max_price_cents":25000,"nights":3,` +
		`"notes":"Quiet room, please 🙏 / no smoking"},"tool":"book_hotel"}`
)

// demoArgs returns the arguments of the demo call as the file writes them
// (pretty, with \u escapes, \/ and 2.5E4).
func demoArgs(t testing.TB) string {
	t.Helper()
	var req struct {
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(demo.ToolCall(), &req); err != nil {
		t.Fatal(err)
	}
	return string(req.Params.Arguments)
}

// demoInputs returns the demo call in every form, with its arguments as
// the file writes them (for OpenAI, that text compacted by hand of its
// newlines and indentation, in a string).
func demoInputs(t testing.TB) map[string]string {
	t.Helper()
	args := demoArgs(t)
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(args)); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{"mcp-request/file": string(demo.ToolCall())}
	for _, f := range callForms {
		out[f.name+"/demo"] = f.write(`"book_hotel"`, args, quoteJSON(t, compact.String()))
		out[f.name+"/demo-pretty-string"] = f.write(`"book_hotel"`, args, quoteJSON(t, args))
	}
	return out
}

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
