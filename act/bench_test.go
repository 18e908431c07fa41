package act

import (
	"testing"
)

// benchInput is the demo's tool call in one shape.
type benchInput struct {
	name  string
	shape Shape
	data  []byte
}

// benchInputs returns the demo's call (demo.ToolCall) as the file writes
// it (an MCP request), and as an Anthropic tool_use block with the same
// arguments text, and as OpenAI Chat Completions and Responses calls with
// the arguments compact in a string: the inputs of bench/act_test.go's
// BenchmarkAct.
func benchInputs(tb testing.TB) []benchInput {
	ins := demoInputs(tb)
	return []benchInput{
		{"mcp", ShapeMCP, []byte(ins["mcp-request/file"])},
		{"anthropic", ShapeAnthropic, []byte(ins["anthropic/demo"])},
		{"openai-chat", ShapeOpenAI, []byte(ins["openai-chat/demo"])},
		{"openai-responses", ShapeOpenAI, []byte(ins["openai-responses/demo"])},
	}
}

// BenchmarkParser measures call -> act digest (Parser.Digest, warm) and
// call -> Act (Parser.ParseInto, warm) for the demo call in each shape.
//
// bench/'s BenchmarkAct compares the same digests with jsontext +
// crypto/sha256 of the whole call. On an AMD EPYC Zen 5 (2 shared cores;
// min of 14 rounds interleaved with main at e5f1872, 2026-12-04) the act
// digest takes 0.44x jsontext's time for mcp, 0.47x for anthropic, 1.35x
// for openai-chat and 1.23x for openai-responses (main: 1.43x, 1.32x).
// For the OpenAI shapes, canon's two passes (the call, then the text its
// arguments string holds) and the digest alone (bench's lib=canon-floor)
// take 0.88x and 0.81x jsontext's time; a CPU profile of openai-chat puts
// 31% of the digest in the first pass, 39% in the second, 8% in
// jsonread.AppendUnquote and 8% in SHA-256 (the walk that finds the
// members, 9%).
func BenchmarkParser(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run("shape="+in.name+"/op=digest", func(b *testing.B) {
			var p Parser
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Digest(in.data, ShapeAuto); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("shape="+in.name+"/op=parseinto", func(b *testing.B) {
			var p Parser
			var a Act
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := p.ParseInto(&a, in.data, ShapeAuto); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBenchmarkParser runs BenchmarkParser's inputs once: each gives the
// demo's act, written out by hand.
func TestBenchmarkParser(t *testing.T) {
	var p Parser
	var a Act
	for _, in := range benchInputs(t) {
		if err := p.ParseInto(&a, in.data, ShapeAuto); err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
		if string(a.Canonical) != demoAct || a.Shape != in.shape {
			t.Errorf("%s: %s %s", in.name, a.Shape, a.Canonical)
		}
		if d, err := p.Digest(in.data, ShapeAuto); err != nil || d.String() != sha([]byte(demoAct)) {
			t.Errorf("%s: Digest %s, %v", in.name, d, err)
		}
	}
}
