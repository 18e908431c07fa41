package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// The act benchmarks measure the act digest of the demo's tool call
// (demo.ToolCall, an MCP tools/call request) and of the same call in the
// other shapes, written as the vendors write them: an Anthropic tool_use
// block and an MCP request pretty-printed as the demo file is, and the
// OpenAI Chat Completions tool_calls entry and
// Responses function_call item with the arguments compact in a JSON string
// (so with \" and, from the demo's \u escapes, \\u escapes).
//
// lib=bbdigest is act.Parser.Digest, warm. lib=jsontext is the bar the
// issue sets: jsontext.Value.Canonicalize of a copy of the same input, then
// crypto/sha256 of the result (less work than an act: it neither finds the
// members nor parses an OpenAI string). lib=jsontext-act is the same act
// digest computed with the go-json-experiment/json module: the call
// unmarshalled into jsontext.Values, the arguments (for OpenAI, the
// string's text) canonicalized with Canonicalize, the act written and
// hashed with crypto/sha256; it is also the independent implementation
// that TestActAgrees checks bbdigest against. lib=canon-floor is the part
// of lib=bbdigest that package act does not control: the strict
// canon.Canonicalizer.View of the input (and, for OpenAI, of the text its
// arguments string holds, decoded beforehand) and hashing.Sum of the act
// bytes (written beforehand); lib=bbdigest less lib=canon-floor is what
// package act adds (finding the members, decoding the string, writing the
// act).

// Shape names, used in benchmark names (shape=<name>). Never rename one
// casually: benchstat compares runs by name.
const (
	shapeMCP       = "mcp"
	shapeAnthropic = "anthropic"
	shapeChat      = "openai-chat"
	shapeResponses = "openai-responses"
)

// actInput is the demo call in one shape.
type actInput struct {
	shape string
	data  []byte
}

var actInputs = sync.OnceValues(func() ([]actInput, error) {
	mcp := demo.ToolCall()
	// The arguments as the demo file writes them (pretty, with escapes).
	var req struct {
		Params struct {
			Name      string         `json:"name"`
			Arguments jsontext.Value `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(mcp, &req); err != nil {
		return nil, err
	}
	name, args := req.Params.Name, bytes.Clone(req.Params.Arguments)
	if name != "book_hotel" {
		return nil, fmt.Errorf("demo call names %q", name)
	}
	// Anthropic: the arguments as they are, in a block laid out as the
	// demo file.
	anthropic := []byte(`{
  "type": "tool_use",
  "id": "toolu_01A09q90qw90lq917835lq9",
  "name": "book_hotel",
  "input": ` + string(args) + `
}`)
	// OpenAI: the arguments compact, as models emit them, in a string.
	compact := bytes.Clone(args)
	if err := (*jsontext.Value)(&compact).Compact(); err != nil {
		return nil, err
	}
	str, err := jsontext.AppendQuote(nil, compact)
	if err != nil {
		return nil, err
	}
	chat := []byte(`{
  "id": "call_abc123",
  "type": "function",
  "function": {
    "name": "book_hotel",
    "arguments": ` + string(str) + `
  }
}`)
	responses := []byte(`{
  "type": "function_call",
  "id": "fc_12345xyz",
  "call_id": "call_12345xyz",
  "name": "book_hotel",
  "arguments": ` + string(str) + `,
  "status": "completed"
}`)
	return []actInput{
		{shapeMCP, mcp},
		{shapeAnthropic, anthropic},
		{shapeChat, chat},
		{shapeResponses, responses},
	}, nil
})

// actDigester computes the act digest of a call (or, for lib=jsontext,
// the bar).
type actDigester struct {
	lib string
	new func() func(src []byte) ([32]byte, error)
}

var actDigesters = []actDigester{
	{"bbdigest", func() func([]byte) ([32]byte, error) {
		var p act.Parser
		return func(src []byte) ([32]byte, error) {
			d, err := p.Digest(src, act.ShapeAuto)
			return d, err
		}
	}},
	{"jsontext", func() func([]byte) ([32]byte, error) {
		var buf []byte
		return func(src []byte) ([32]byte, error) {
			v := jsontext.Value(append(buf[:0], src...)) // Canonicalize works in place
			err := v.Canonicalize()
			buf = v
			return sha256.Sum256(v), err
		}
	}},
	{"canon-floor", func() func([]byte) ([32]byte, error) {
		var c, inner canon.Canonicalizer
		var text, actBytes []byte // of the last input seen
		var last []byte
		return func(src []byte) ([32]byte, error) {
			// Set up once per input (the benchmark passes one slice).
			if len(src) == 0 || len(last) != len(src) || &last[0] != &src[0] {
				last = src
				text = nil
				var call struct {
					Arguments string `json:"arguments"`
					Function  struct {
						Arguments string `json:"arguments"`
					} `json:"function"`
				}
				if err := json.Unmarshal(src, &call); err == nil && call.Arguments+call.Function.Arguments != "" {
					text = []byte(call.Arguments + call.Function.Arguments)
				}
				a, err := act.Parse(src, act.ShapeAuto, "")
				if err != nil {
					return [32]byte{}, err
				}
				actBytes = a.Canonical
			}
			if _, err := c.View(src); err != nil {
				return [32]byte{}, err
			}
			if text != nil {
				if _, err := inner.View(text); err != nil {
					return [32]byte{}, err
				}
			}
			return hashing.Sum(actBytes), nil
		}
	}},
	{"jsontext-act", func() func([]byte) ([32]byte, error) {
		var buf []byte
		return func(src []byte) ([32]byte, error) {
			out, err := jsontextAct(buf[:0], src)
			buf = out
			return sha256.Sum256(out), err
		}
	}},
}

// jsontextAct appends the canonical act of the call src to dst, computed
// with the go-json-experiment/json module alone: an implementation of the
// act independent of package act (and of canon), for the shapes of the
// benchmark.
func jsontextAct(dst, src []byte) ([]byte, error) {
	var top map[string]jsontext.Value
	if err := json.Unmarshal(src, &top); err != nil {
		return dst, err
	}
	call := top
	for _, wrapper := range []string{"params", "function"} {
		if v, ok := top[wrapper]; ok {
			call = nil
			if err := json.Unmarshal(v, &call); err != nil {
				return dst, err
			}
		}
	}
	var name string
	if err := json.Unmarshal(call["name"], &name); err != nil {
		return dst, err
	}
	args, ok := call["input"]
	if !ok {
		args = call["arguments"]
	}
	if len(args) > 0 && args[0] == '"' {
		var text string
		if err := json.Unmarshal(args, &text); err != nil {
			return dst, err
		}
		args = jsontext.Value(text)
	} else {
		args = bytes.Clone(args)
	}
	if err := args.Canonicalize(); err != nil {
		return dst, err
	}
	quoted, err := jsontext.AppendQuote(nil, name)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `{"act":"tool_call/v1","arguments":`...)
	dst = append(dst, args...)
	dst = append(dst, `,"tool":`...)
	dst = append(dst, quoted...)
	return append(dst, '}'), nil
}

// BenchmarkAct measures call bytes -> act digest for the demo's call in
// each shape, against jsontext (see the top of this file).
func BenchmarkAct(b *testing.B) {
	ins, err := actInputs()
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range ins {
		b.Run("shape="+in.shape, func(b *testing.B) {
			for _, d := range actDigesters {
				b.Run("lib="+d.lib, func(b *testing.B) {
					f := d.new()
					b.SetBytes(int64(len(in.data)))
					b.ReportAllocs()
					for b.Loop() {
						if _, err := f(in.data); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// TestActAgrees runs BenchmarkAct's inputs once: every shape gives one act
// digest, the same from package act and from the jsontext implementation,
// and it is SHA-256 of the act written out by hand here.
func TestActAgrees(t *testing.T) {
	ins, err := actInputs()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"act":"tool_call/v1","arguments":{"check_in":"2026-11-02","city":"Zürich",` +
		`"guests":[{"age":34,"name":"Ana"},{"age":7,"name":"Boël"}],"max_price_cents":25000,"nights":3,` +
		`"notes":"Quiet room, please 🙏 / no smoking"},"tool":"book_hotel"}`
	sum := sha256.Sum256([]byte(want))
	wantDigest := hex.EncodeToString(sum[:])
	shapes := map[string]bool{}
	for _, in := range ins {
		shapes[in.shape] = true
		for _, d := range actDigesters {
			if d.lib == "jsontext" {
				continue // not an act digest
			}
			// (canon-floor hashes the act that act.Parse wrote: it is
			// checked too, for what it is worth.)
			got, err := d.new()(in.data)
			if err != nil {
				t.Fatalf("shape=%s/lib=%s: %v", in.shape, d.lib, err)
			}
			if hex.EncodeToString(got[:]) != wantDigest {
				t.Errorf("shape=%s/lib=%s: digest %x, want %s", in.shape, d.lib, got, wantDigest)
			}
		}
		out, err := jsontextAct(nil, in.data)
		if err != nil || string(out) != want {
			t.Errorf("shape=%s: jsontext act %s (%v), want %s", in.shape, out, err, want)
		}
		if a, err := act.Parse(in.data, act.ShapeAuto, ""); err != nil {
			t.Errorf("shape=%s: act.Parse: %v", in.shape, err)
		} else if string(a.Canonical) != want {
			t.Errorf("shape=%s: act.Parse %s, want %s", in.shape, a.Canonical, want)
		}
	}
	names := make([]string, 0, len(shapes))
	for s := range shapes {
		names = append(names, s)
	}
	sort.Strings(names)
	if fmt.Sprint(names) != "[anthropic mcp openai-chat openai-responses]" {
		t.Errorf("shapes %v", names)
	}
}
