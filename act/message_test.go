package act

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/race"
)

// msgCall is one call of a message: the tool and its arguments (a JSON
// object text).
type msgCall struct{ tool, args string }

// itemWriter writes call i as an item of a message's list.
type itemWriter func(t testing.TB, i int, c msgCall) string

func chatItem(t testing.TB, i int, c msgCall) string {
	return `{"id":"call_` + strconv.Itoa(i) + `","type":"function","function":{"name":` + marshal(t, c.tool) +
		`,"arguments":` + quoteJSON(t, c.args) + `}}`
}

func anthropicItem(t testing.TB, i int, c msgCall) string {
	return `{"type":"tool_use","id":"toolu_0` + strconv.Itoa(i) + `","name":` + marshal(t, c.tool) + `,"input":` + c.args + `}`
}

func responsesItem(t testing.TB, i int, c msgCall) string {
	return `{"type":"function_call","id":"fc_` + strconv.Itoa(i) + `","call_id":"call_` + strconv.Itoa(i) +
		`","name":` + marshal(t, c.tool) + `,"arguments":` + quoteJSON(t, c.args) + `,"status":"completed"}`
}

// Items that are not calls, as the vendors interleave them with calls.
var (
	anthropicOthers = []string{
		`{"type":"text","text":"I'll look that up."}`,
		`{"type":"thinking","thinking":"The user wants…","signature":"EqQBCgIYAhIM"}`,
		`{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{"query":"weather"}}`,
		`{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[]}`,
		`{"type":"mcp_tool_use","id":"mcptoolu_01","name":"echo","server_name":"s","input":{"x":0.5}}`,
		`{"type":"redacted_thinking","data":"EmwKAhgB"}`,
	}
	responsesOthers = []string{
		`{"type":"reasoning","id":"rs_1","summary":[]}`,
		`{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Checking.","annotations":[]}]}`,
		`{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"weather"}}`,
		`{"type":"mcp_call","id":"mcp_1","server_label":"s","name":"echo","arguments":"{\"x\":0.5}","output":"ok"}`,
		`{"type":"file_search_call","id":"fs_1","status":"completed","queries":[],"results":null}`,
	}
)

// list writes the calls as items with w, with others (in turn) before
// every call and after the last when others is not empty. It returns the
// JSON array and the calls' items.
func list(t testing.TB, calls []msgCall, w itemWriter, others []string) (string, []string) {
	var b strings.Builder
	var items []string
	b.WriteByte('[')
	sep := func() {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
	}
	for i, c := range calls {
		if len(others) > 0 {
			sep()
			b.WriteString(others[i%len(others)])
		}
		item := w(t, i, c)
		items = append(items, item)
		sep()
		b.WriteString(item)
	}
	if len(others) > 0 {
		sep()
		b.WriteString(others[len(calls)%len(others)])
	}
	b.WriteByte(']')
	return b.String(), items
}

// messageForm is one way a vendor writes a message around calls.
type messageForm struct {
	name     string
	shape    Shape
	one      bool // holds exactly one call
	fallback bool // the wrapper is outside the strict profile
	write    func(t testing.TB, calls []msgCall) (src string, items []string)
}

var messageForms = []messageForm{
	{name: "chat-message", shape: ShapeOpenAI, write: func(t testing.TB, calls []msgCall) (string, []string) {
		l, items := list(t, calls, chatItem, nil)
		return `{"role":"assistant","content":null,"refusal":null,"annotations":[],"tool_calls":` + l + `}`, items
	}},
	{name: "chat-message-text", shape: ShapeOpenAI, write: func(t testing.TB, calls []msgCall) (string, []string) {
		l, items := list(t, calls, chatItem, nil)
		return `{"tool_calls":` + l + `,"content":[{"type":"text","text":"Checking both."}],"role":"assistant"}`, items
	}},
	{name: "chat-response", shape: ShapeOpenAI, write: func(t testing.TB, calls []msgCall) (string, []string) {
		l, items := list(t, calls, chatItem, nil)
		return `{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion","created":1741570283,` +
			`"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"message":{"role":"assistant","content":null,` +
			`"tool_calls":` + l + `,"refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"tool_calls"}],` +
			`"usage":{"prompt_tokens":82,"completion_tokens":17,"total_tokens":99},"service_tier":"default","system_fingerprint":"fp_1"}`, items
	}},
	{name: "chat-response-logprobs", shape: ShapeOpenAI, fallback: true, write: func(t testing.TB, calls []msgCall) (string, []string) {
		l, items := list(t, calls, chatItem, nil)
		return `{"object":"chat.completion","choices":[{"message":{"role":"assistant","tool_calls":` + l + `},` +
			`"logprobs":{"content":[{"token":"x","logprob":-0.25,"bytes":[120]}]},"index":0}]}`, items
	}},
	{name: "chat-list", shape: ShapeOpenAI, write: func(t testing.TB, calls []msgCall) (string, []string) {
		return list(t, calls, chatItem, nil)
	}},
	{name: "chat-function-call", shape: ShapeOpenAI, one: true, write: func(t testing.TB, calls []msgCall) (string, []string) {
		item := `{"name":` + marshal(t, calls[0].tool) + `,"arguments":` + quoteJSON(t, calls[0].args) + `}`
		return `{"role":"assistant","content":null,"function_call":` + item + `,"tool_calls":null}`, []string{item}
	}},
	{name: "anthropic-message", shape: ShapeAnthropic, write: func(t testing.TB, calls []msgCall) (string, []string) {
		l, items := list(t, calls, anthropicItem, anthropicOthers[:1])
		return `{"role":"assistant","content":` + l + `}`, items
	}},
	{name: "anthropic-response", shape: ShapeAnthropic, write: func(t testing.TB, calls []msgCall) (string, []string) {
		l, items := list(t, calls, anthropicItem, anthropicOthers[:4])
		return `{"id":"msg_01Aq9w938a90dw8q","type":"message","role":"assistant","model":"claude-sonnet-4-5",` +
			`"content":` + l + `,"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":95}}`, items
	}},
	{name: "anthropic-response-mcp", shape: ShapeAnthropic, fallback: true, write: func(t testing.TB, calls []msgCall) (string, []string) {
		l, items := list(t, calls, anthropicItem, anthropicOthers[4:])
		return `{"type":"message","content":` + l + `,"role":"assistant"}`, items
	}},
	{name: "anthropic-list", shape: ShapeAnthropic, write: func(t testing.TB, calls []msgCall) (string, []string) {
		return list(t, calls, anthropicItem, anthropicOthers[:2])
	}},
	{name: "responses", shape: ShapeOpenAI, write: func(t testing.TB, calls []msgCall) (string, []string) {
		l, items := list(t, calls, responsesItem, responsesOthers[:3])
		return `{"id":"resp_67ccd2bed1ec8190","object":"response","created_at":1741476542,"status":"completed",` +
			`"model":"gpt-4.1-2025-04-14","output":` + l + `,"parallel_tool_calls":true,"temperature":1.0,"top_p":1.0,` +
			`"tools":[{"type":"function","name":"x","parameters":{}}],"usage":{"input_tokens":36,"output_tokens":87}}`, items
	}},
	{name: "responses-temperature", shape: ShapeOpenAI, fallback: true, write: func(t testing.TB, calls []msgCall) (string, []string) {
		l, items := list(t, calls, responsesItem, responsesOthers[3:])
		return `{"object":"response","temperature":0.7,"output":` + l + `}`, items
	}},
	{name: "responses-list", shape: ShapeOpenAI, write: func(t testing.TB, calls []msgCall) (string, []string) {
		return list(t, calls, responsesItem, responsesOthers[1:2])
	}},
}

// messageCallSets are the lists of calls the forms are tried with: all of
// calls in order and reversed, one, and one call twice.
func messageCallSets() [][]msgCall {
	var all []msgCall
	for _, c := range calls {
		all = append(all, msgCall{c.tool, c.args})
	}
	rev := make([]msgCall, len(all))
	for i, c := range all {
		rev[len(all)-1-i] = c
	}
	return [][]msgCall{all, rev, all[2:3], {all[0], all[0]}}
}

// checkMessage reads the message src and checks its acts: one per call,
// in order, each the act the oracle builds (encoding/json and
// crypto/sha256) and the act of its item read on its own.
func checkMessage(t *testing.T, p *Parser, src string, s, shape Shape, cs []msgCall, items []string) {
	t.Helper()
	acts, err := p.AppendMessage(nil, []byte(src), s)
	if err != nil {
		t.Fatalf("AppendMessage(%s, %s): %v", src, s, err)
	}
	if len(acts) != len(cs) {
		t.Fatalf("AppendMessage(%s): %d acts, want %d", src, len(acts), len(cs))
	}
	for i, c := range cs {
		a := &acts[i]
		want, wantDigest := wantAct(t, p.Server, c.tool, c.args)
		if string(a.Canonical) != want || a.Digest.String() != wantDigest {
			t.Errorf("act %d:\n got %s %s\nwant %s %s", i, a.Canonical, a.Digest, want, wantDigest)
		}
		if a.Tool != c.tool || a.Server != p.Server || a.Shape != shape || a.ArgumentsDigest().String() != sha(a.Arguments()) {
			t.Errorf("act %d: tool %q server %q shape %s", i, a.Tool, a.Server, a.Shape)
		}
		single, err := p.Parse([]byte(items[i]), ShapeAuto)
		if err != nil || single.Digest != a.Digest || string(single.Canonical) != string(a.Canonical) || single.Shape != a.Shape {
			t.Errorf("act %d differs from its item read on its own (%v):\n%s", i, err, items[i])
		}
	}
}

// TestMessages reads every message form, holding several calls, written
// in every style (members reordered, indented, every string character as
// a \u escape): the acts are the oracle's, in order, and those of the
// calls read one at a time; with ShapeAuto and the form's shape, with and
// without a server.
func TestMessages(t *testing.T) {
	for _, server := range []string{"", "srv.example"} {
		p := Parser{Server: server}
		for _, f := range messageForms {
			for si, cs := range messageCallSets() {
				if f.one {
					cs = cs[:1]
				}
				src, items := f.write(t, cs)
				v := decode(t, src)
				for _, st := range styles {
					styled := writeJSON(v, st)
					t.Run(fmt.Sprintf("%s/server=%q/set%d/%s", f.name, server, si, st.name), func(t *testing.T) {
						checkMessage(t, &p, src, ShapeAuto, f.shape, cs, items)
						checkMessage(t, &p, styled, ShapeAuto, f.shape, cs, items)
						checkMessage(t, &p, styled, f.shape, f.shape, cs, items)
					})
				}
				// The fallback forms take the rfc8785 reading; the others
				// one strict pass.
				var c canon.Canonicalizer
				if _, err := c.View([]byte(src)); (err != nil) != f.fallback {
					t.Errorf("%s: strict gate %v, fallback %v", f.name, err, f.fallback)
				}
			}
		}
	}
}

// TestMessageParseMessage checks the one-shot form, and that its acts own
// their memory.
func TestMessageParseMessage(t *testing.T) {
	cs := messageCallSets()[0]
	src, _ := messageForms[0].write(t, cs)
	acts, err := ParseMessage([]byte(src), ShapeAuto, "srv")
	if err != nil || len(acts) != len(cs) {
		t.Fatalf("ParseMessage: %d acts, %v", len(acts), err)
	}
	first := string(acts[0].Canonical)
	if _, err := ParseMessage([]byte(src), ShapeAuto, "other"); err != nil {
		t.Fatal(err)
	}
	if want, _ := wantAct(t, "srv", cs[0].tool, cs[0].args); string(acts[0].Canonical) != first || first != want {
		t.Errorf("the first act changed: %s", acts[0].Canonical)
	}
	if _, err := ParseMessage([]byte(`{"name":"t"}`), ShapeAuto, ""); !errors.Is(err, ErrShape) {
		t.Errorf("one call: %v, want ErrShape", err)
	}
}

// TestMessageAppend checks the append contract: acts go after dst's, the
// Acts in dst's spare capacity are reused, and an error leaves dst's
// length as it was.
func TestMessageAppend(t *testing.T) {
	var p Parser
	cs := messageCallSets()[0]
	src, _ := messageForms[0].write(t, cs)
	keep := Act{Tool: "kept"}
	dst := make([]Act, 1, 16)
	dst[0] = keep
	acts, err := p.AppendMessage(dst, []byte(src), ShapeAuto)
	if err != nil || len(acts) != 1+len(cs) || acts[0].Tool != "kept" || &acts[0] != &dst[0] {
		t.Fatalf("append after one Act: %d acts, %v", len(acts), err)
	}
	for i, c := range cs {
		if acts[1+i].Tool != c.tool {
			t.Errorf("act %d is %q, want %q", i, acts[1+i].Tool, c.tool)
		}
	}
	// Reused: the same backing array, the same Canonical memory.
	mem := &acts[1].Canonical[:1][0]
	again, err := p.AppendMessage(acts[:1], []byte(src), ShapeAuto)
	if err != nil || &again[1].Canonical[:1][0] != mem {
		t.Errorf("the Acts in the spare capacity were not reused (%v)", err)
	}
	bad := strings.Replace(src, `\"unit\":\"celsius\"`, `\"unit\":1.5`, 1)
	if bad == src {
		t.Fatal("bad case")
	}
	got, err := p.AppendMessage(acts[:1], []byte(bad), ShapeAuto)
	if err == nil || len(got) != 1 || got[0].Tool != "kept" {
		t.Errorf("after an error: %d acts, %v", len(got), err)
	}
}

// TestMessageAllocations: warm, with room in dst, AppendMessage reads a
// message of every form the strict profile accepts without allocating.
func TestMessageAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	cs := messageCallSets()[0]
	for _, server := range []string{"", "srv"} {
		p := Parser{Server: server}
		for _, f := range messageForms {
			if f.fallback {
				continue
			}
			n := len(cs)
			if f.one {
				n = 1
			}
			src, _ := f.write(t, cs[:n])
			b := []byte(src)
			acts, err := p.AppendMessage(nil, b, ShapeAuto)
			if err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			if a := testing.AllocsPerRun(20, func() { acts, _ = p.AppendMessage(acts[:0], b, ShapeAuto) }); a != 0 {
				t.Errorf("%s, server %q: AppendMessage allocates %v times", f.name, server, a)
			}
		}
	}
}

// TestMessageFallbackErrors: a call's arguments that the strict profile
// refuses, in a message whose wrapper only rfc8785 accepts, are refused at
// their place in the input, for each call of the list.
func TestMessageFallbackErrors(t *testing.T) {
	cs := messageCallSets()[0]
	var p Parser
	for _, f := range messageForms {
		if f.one || !strings.HasPrefix(f.name, "anthropic") {
			continue // only Anthropic reads arguments in place
		}
		for k := range cs {
			bad := append([]msgCall(nil), cs...)
			bad[k].args = `{"ok":1,"amount":19.99}`
			src, items := f.write(t, bad)
			_, err := p.AppendMessage(nil, []byte(src), ShapeAuto)
			e, ok := errors.AsType[*Error](err)
			if !ok || e.Class() != canon.ClassNonInteger {
				t.Fatalf("%s, call %d: %v", f.name, k, err)
			}
			at := strings.Index(src, items[k]) + strings.Index(items[k], "19.99")
			if e.Offset != int64(at) || !strings.HasSuffix(e.Pointer, "/input/amount") {
				t.Errorf("%s, call %d: %q offset %d, want offset %d (%v)", f.name, k, e.Pointer, e.Offset, at, err)
			}
		}
	}
}

// messageErrCases are messages that must be refused, in errCase's terms.
func messageErrCases() []errCase {
	tc := func(name, args string) string {
		return `{"id":"c","type":"function","function":{"name":"` + name + `","arguments":"` + args + `"}}`
	}
	ok := tc("ok", `{}`)
	use := `{"type":"tool_use","id":"t","name":"u","input":{}}`
	fc := `{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}`
	return append([]errCase{
		// A call's own problems, at its place in the message.
		ec(errCase{src: `{"role":"assistant","tool_calls":[` + ok + `,` + ok + `,` + tc("t", `{\"a\":1,\"a\":2}`) + `]}`,
			class: "duplicate-name", ptr: "/tool_calls/2/function/arguments", inString: true, off: 7, inner: "/a"}),
		ec(errCase{src: `{"choices":[{"message":{"tool_calls":[` + ok + `,` + tc("t", `{\"x\":19.99}`) + `]}}]}`,
			class: "non-integer", ptr: "/choices/0/message/tool_calls/1/function/arguments", inString: true, off: 5, inner: "/x"}),
		ec(errCase{src: `{"role":"assistant","content":[` + use + `,{"type":"tool_use","name":"t","input":{"a":1.5}}]}`,
			class: "non-integer", ptr: "/content/1/input/a", at: `1.5`}),
		ec(errCase{src: "[\n " + use + " ,\n {\"type\":\"tool_use\",\"name\":\"t\",\"input\":{\"a\":" +
			strings.Repeat("[", 63) + strings.Repeat("]", 63) + "}}]",
			class: "depth", ptr: "/1/input/a" + strings.Repeat("/0", 62), at: strings.Repeat("[", 63), delta: 62}),
		ec(errCase{src: `{"object":"response","temperature":0.7,"output":[` + fc + `,{"type":"function_call","name":"t","arguments":"[]"}]}`,
			class: "shape", ptr: "/output/1/arguments", inString: true, off: 0}),
		ec(errCase{src: `{"content":[{"type":"tool_use","name":"t","input":{"a":1,"a":2}}]}`,
			class: "duplicate-name", ptr: "/content/0/input/a", at: `"a":2`}),
		ec(errCase{src: `{"content":[` + use + `,{"type":"tool_use","id":"x","input":{}}]}`,
			class: "shape", ptr: "/content/1", at: `{"type":"tool_use","id":"x"`}),
		ec(errCase{src: `{"tool_calls":[` + ok + `,` + tc(strings.Repeat("n", MaxToolName+1), `{}`) + `]}`,
			class: "shape", ptr: "/tool_calls/1/function/name", at: `"nnn`}),
		ec(errCase{src: `{"content":[{"type":"tool_use","name":"t","input":{},"arguments":{}}]}`,
			class: "shape", ptr: "/content/0/arguments", at: `{}}]}`}),
		ec(errCase{src: `{"content":[{"type":"tool_use","name":"t","Name":"u","input":{}}]}`,
			class: "shape", ptr: "/content/0/Name", at: `"u"`}),
		ec(errCase{src: `{"role":"assistant","content":null,"function_call":{"name":"t","arguments":{}}}`,
			class: "shape", ptr: "/function_call", at: `{"name"`}),

		// Items.
		ec(errCase{src: `{"tool_calls":[` + ok + `,{"id":"c2","type":"custom","custom":{"name":"t","input":"x"}}]}`,
			class: "shape", ptr: "/tool_calls/1/type", at: `"custom"`}),
		ec(errCase{src: `{"tool_calls":[{"id":"c","name":"t","arguments":"{}"}]}`, class: "shape", ptr: "/tool_calls/0", at: `{"id"`}),
		ec(errCase{src: `{"tool_calls":[` + ok + `,5]}`, class: "shape", ptr: "/tool_calls/1", at: `5]`}),
		ec(errCase{src: `{"tool_calls":[{"function":{"name":"t","arguments":"{}"},"params":{"name":"u"}}]}`, class: "shape", ptr: "/tool_calls/0", at: `{"function"`}),
		ec(errCase{src: `{"content":[{"text":"x"}]}`, class: "shape", ptr: "/content/0", at: `{"text"`}),
		ec(errCase{src: `{"content":[{"type":7}]}`, class: "shape", ptr: "/content/0/type", at: `7`}),
		ec(errCase{src: `{"content":[` + use + `,{"type":"Tool_Use","name":"t","input":{}}]}`, class: "shape", ptr: "/content/1/type", at: `"Tool_Use"`}),
		ec(errCase{src: `{"content":[` + fc + `]}`, class: "shape", ptr: "/content/0/type", at: `"function_call"`}),
		ec(errCase{src: `{"content":[{"type":"text","text":"x","Type":"tool_use"}]}`, class: "shape", ptr: "/content/0/Type", at: `"tool_use"`}),
		ec(errCase{src: `{"output":[` + fc + `,{"type":"computer_call","call_id":"c","action":{}}]}`, class: "shape", ptr: "/output/1/type", at: `"computer_call"`}),
		ec(errCase{src: `{"output":[{"type":"tool_search_call"},` + fc + `]}`, class: "shape", ptr: "/output/0/type", at: `"tool_search_call"`}),
		ec(errCase{src: `{"output":[{"name":"t","arguments":"{}"}]}`, class: "shape", ptr: "/output/0", at: `{"name"`}),
		ec(errCase{src: `{"output":[` + use + `]}`, class: "shape", ptr: "/output/0/type", at: `"tool_use"`}),
		ec(errCase{src: `{"output":[{"type":"function_call","name":"t","arguments":"{}","function":{}}]}`, class: "shape", ptr: "/output/0/name", at: `"t"`}),

		// No calls.
		ec(errCase{src: `{"role":"assistant","content":"Hello","tool_calls":[]}`, class: "shape", ptr: "/tool_calls", at: `[]`}),
		ec(errCase{src: `{"role":"assistant","content":"Hello","tool_calls":null}`, class: "shape", ptr: "/tool_calls", at: `null`}),
		ec(errCase{src: `{"role":"assistant","content":"Hello"}`, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"type":"message","content":[{"type":"text","text":"hi"},{"type":"server_tool_use","name":"web_search","input":{}}]}`,
			class: "shape", ptr: "/content", at: `[`}),
		ec(errCase{src: `{"object":"response","output":[{"type":"reasoning","summary":[]}]}`, class: "shape", ptr: "/output", at: `[`}),
		ec(errCase{src: `{"choices":[{"message":{"role":"assistant","content":"Hi"}}]}`, class: "shape", ptr: "/choices/0/message", at: `{"role"`}),
		ec(errCase{src: `[]`, class: "shape", ptr: "", at: `[`}),
		ec(errCase{src: `[{"type":"text","text":"x"}]`, class: "shape", ptr: "", at: `[`}),

		// The message around the calls.
		ec(errCase{src: `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}`, class: "shape", ptr: "/role", at: `"user"`}),
		ec(errCase{src: `{"type":"tool_use","content":[` + use + `]}`, class: "shape", ptr: "/type", at: `"tool_use"`}),
		ec(errCase{src: `{"role":"assistant","tool_calls":"x"}`, class: "shape", ptr: "/tool_calls", at: `"x"`}),
		ec(errCase{src: `{"role":"assistant","function_call":[]}`, class: "shape", ptr: "/function_call", at: `[]`}),
		ec(errCase{src: `{"output":{"x":1}}`, class: "shape", ptr: "/output", at: `{"x"`}),
		ec(errCase{src: `{"object":"chat.completion.chunk","choices":[{"delta":{}}]}`, class: "shape", ptr: "/object", at: `"chat.completion.chunk"`}),
		ec(errCase{src: `{"object":"chat.completion","choices":[{"index":0,"delta":{"tool_calls":[]}}]}`, class: "shape", ptr: "/choices/0", at: `{"index"`}),
		ec(errCase{src: `{"choices":[]}`, class: "shape", ptr: "/choices", at: `[`}),
		ec(errCase{src: `{"choices":{}}`, class: "shape", ptr: "/choices", at: `{}`}),
		ec(errCase{src: `{"choices":[7]}`, class: "shape", ptr: "/choices/0", at: `7`}),
		ec(errCase{src: `{"choices":[{"message":"x"}]}`, class: "shape", ptr: "/choices/0/message", at: `"x"`}),
		ec(errCase{src: `{"choices":[{"message":{"tool_calls":[` + ok + `]}},{"message":{"tool_calls":[]}}]}`, class: "shape", ptr: "/choices", at: `[`}),
		ec(errCase{src: `{"choices":[{"message":{"role":"tool","tool_calls":[` + ok + `]}}]}`, class: "shape", ptr: "/choices/0/message/role", at: `"tool"`}),
		ec(errCase{src: `{"choices":[{"message":{"output":[` + fc + `]}}]}`, class: "shape", ptr: "/choices/0/message/output", at: `[{"type":"function_call"`}),
		ec(errCase{src: `{"choices":[{"message":{"Tool_Calls":[` + ok + `]}}]}`, class: "shape", ptr: "/choices/0/message/Tool_Calls", at: `[{"id"`}),
		ec(errCase{src: `{"choices":[{"Message":{"tool_calls":[` + ok + `]}}]}`, class: "shape", ptr: "/choices/0/Message", at: `{"tool_calls"`}),
		ec(errCase{src: `{"choices":[{"message":{"tool_calls":[` + ok + `],"name":"t"}}]}`, class: "shape", ptr: "/choices/0/message/name", at: `"t"`}),
		ec(errCase{src: `{"choices":[{"message":{"tool_calls":[` + ok + `]},"name":"t"}]}`, class: "shape", ptr: "/choices/0/name", at: `"t"}`}),
		ec(errCase{src: `{"choices":[{"message":{"tool_calls":[` + ok + `],"choices":[]}}]}`, class: "shape", ptr: "/choices/0/message/choices", at: `[]`}),
		ec(errCase{src: `{"object":"chat.completion","tool_calls":[],"choices":[]}`, class: "shape", ptr: "/tool_calls", at: `[]`}),

		// Ambiguity.
		ec(errCase{src: `{"tool_calls":[` + ok + `],"function_call":{"name":"t","arguments":"{}"}}`, class: "shape", ptr: "/function_call", at: `{"name":"t"`}),
		ec(errCase{src: `{"tool_calls":[` + ok + `],"output":[` + fc + `]}`, class: "shape", ptr: "/output", at: `[{"type"`}),
		ec(errCase{src: `{"content":[` + use + `],"output":[` + fc + `]}`, class: "shape", ptr: "/output", at: `[{"type":"function_call"`}),
		ec(errCase{src: `{"tool_calls":[` + ok + `],"content":[` + use + `]}`, class: "shape", ptr: "/content", at: `[{"type":"tool_use"`}),
		ec(errCase{src: `{"tool_calls":null,"content":[` + use + `]}`, class: "shape", ptr: "/content", at: `[{"type":"tool_use"`}),
		ec(errCase{src: `{"tool_calls":[` + ok + `],"content":[{"type":"text","Name":"x"}]}`, class: "shape", ptr: "/content", at: `[{"type":"text"`}),
		ec(errCase{src: `{"role":"assistant","tool_calls":[` + ok + `],"name":"t"}`, class: "shape", ptr: "/name", at: `"t"}`}),
		ec(errCase{src: `{"role":"assistant","tool_calls":[` + ok + `],"params":{"name":"t"}}`, class: "shape", ptr: "/params", at: `{"name":"t"}`}),
		ec(errCase{src: `{"role":"assistant","Tool_Calls":[` + ok + `]}`, class: "shape", ptr: "/Tool_Calls", at: `[`}),
		ec(errCase{src: `{"Content":[` + use + `],"content":[]}`, class: "shape", ptr: "/Content", at: `[`}),
		ec(errCase{src: `{"content":[` + use + `],"INPUT":{}}`, class: "shape", ptr: "/INPUT", at: `"INPUT":{}`, delta: 8}),
		ec(errCase{src: `[` + use + `,{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"}}]`, class: "shape", ptr: "/1", at: `{"jsonrpc"`}),
		ec(errCase{src: `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}},` + use + `]`, class: "shape", ptr: "/0", at: `{"jsonrpc"`}),
		ec(errCase{src: `[` + use + `,` + fc + `]`, class: "shape", ptr: "/1/type", at: `"function_call"`}),
		ec(errCase{src: `[` + fc + `,` + use + `]`, class: "shape", ptr: "/1/type", at: `"tool_use"`}),
		ec(errCase{src: `[` + ok + `,` + use + `]`, class: "shape", ptr: "/1/type", at: `"tool_use"`}),

		// Not a message.
		ec(errCase{src: `{"type":"tool_use","name":"t","input":{}}`, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"id":"x","model":"m","usage":{}}`, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: ` "text"`, class: "shape", ptr: "", at: `"`}),
		ec(errCase{src: `{"tool_calls":[` + ok + `],"tool_calls":[]}`, class: "duplicate-name", ptr: "/tool_calls", at: `"tool_calls":[]`}),
		ec(errCase{src: `{"content":[` + use + `],"x":"` + "\xff" + `"}`, class: "invalid-utf8", ptr: "/x", at: "\xff"}),

		// A shape the message does not have.
		ec(errCase{src: `{"content":[` + use + `]}`, shape: ShapeOpenAI, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"tool_calls":[` + ok + `]}`, shape: ShapeAnthropic, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `{"choices":[{"message":{"tool_calls":[` + ok + `]}}]}`, shape: ShapeMCP, class: "shape", ptr: "", at: `{`}),
		ec(errCase{src: `[` + fc + `]`, shape: ShapeAnthropic, class: "shape", ptr: "", at: `[`}),
	}, foldMessageErrCases()...)
}

// TestMessageErrors checks every refusal of a message: class, pointer,
// offset, the sentinel, the same error from ParseMessage, and dst kept.
func TestMessageErrors(t *testing.T) {
	var p Parser
	for _, tc := range messageErrCases() {
		t.Run(tc.where.String(), func(t *testing.T) {
			dst := make([]Act, 2, 8)
			got, err := p.AppendMessage(dst, []byte(tc.src), tc.shape)
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("%q: %v, want an *Error", tc.src, err)
			}
			if len(got) != 2 {
				t.Errorf("%d acts after an error", len(got))
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
				if !errors.Is(err, ErrShape) || errors.Is(err, ErrMessage) {
					t.Errorf("not ErrShape alone: %v", err)
				}
			} else if ce, ok := errors.AsType[*canon.Error](err); !ok {
				t.Errorf("no canon error: %v", err)
			} else if tc.inString && ce.Pointer != tc.inner {
				t.Errorf("inner pointer %q, want %q", ce.Pointer, tc.inner)
			}
			if !strings.HasPrefix(err.Error(), "act: "+tc.class+": ") || strings.Contains(err.Error(), "\n") {
				t.Errorf("message %q", err)
			}
			if _, perr := ParseMessage([]byte(tc.src), tc.shape, "srv"); fmt.Sprint(perr) != fmt.Sprint(err) {
				t.Errorf("ParseMessage: %v, AppendMessage: %v", perr, err)
			}
		})
	}
}

// TestMessageErrorMessages pins the text of a few refusals.
func TestMessageErrorMessages(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`{"role":"assistant","content":null,"tool_calls":[]}`,
			`act: shape: an OpenAI Chat Completions assistant message with no tool calls within "/tool_calls" at offset 48`},
		{`{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}]}`,
			`act: shape: an Anthropic message with no tool_use block within "/content" at offset 60`},
		{`{"id":"chatcmpl-1","model":"m","created":1,"usage":{"total_tokens":1}}`,
			`act: shape: neither a tool call nor an assistant message: an object with members "created", "id", "model", "usage" within "" at offset 0`},
		{`{"id":"chatcmpl-1","object":"chat.completion","model":"m"}`,
			`act: shape: an assistant message with no tool calls: an object with members "id", "model", "object" within "" at offset 0`},
		{`{"choices":[{"message":{}},{"message":{}}]}`,
			`act: shape: ambiguous: 2 choices, each with its own message: give the message of the one choice the host acts on within "/choices" at offset 11`},
		{`{"name":"t","arguments":{}}`,
			`act: shape: not an assistant message or a model response: the input is one tool call (it has a top-level name member) within "" at offset 0`},
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}]`,
			`act: shape: a JSON-RPC batch, which MCP removed in its 2025-06-18 revision: give each tools/call request on its own within "/0" at offset 1`},
	} {
		_, err := ParseMessage([]byte(tc.src), ShapeAuto, "")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

// TestParseMessageInput: ParseInto, Parse and Digest refuse a message, a
// response or an array with ErrMessage (beside ErrShape), and an object
// that is neither a call nor a message naming its members; a member a
// message is read from beside a call is ambiguous.
func TestParseMessageInput(t *testing.T) {
	var p Parser
	for _, f := range messageForms {
		src, _ := f.write(t, messageCallSets()[0][:1])
		_, err := p.Parse([]byte(src), ShapeAuto)
		e, ok := errors.AsType[*Error](err)
		if !ok || !errors.Is(err, ErrMessage) || !errors.Is(err, ErrShape) || e.className() != ClassShape || e.Class() != 0 || e.Pointer != "" || e.Offset != 0 {
			t.Errorf("%s: %v, want ErrMessage at the top", f.name, err)
		}
		if _, derr := p.Digest([]byte(src), ShapeMCP); !errors.Is(derr, ErrMessage) {
			t.Errorf("%s: Digest: %v, want ErrMessage", f.name, derr)
		}
	}
	for _, tc := range []struct{ src, ptr, msg string }{
		{`{"id":7}`, "", `neither a tool call nor an assistant message: an object with one member "id"`},
		{`{}`, "", `neither a tool call nor an assistant message: an empty object`},
		{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10}`, "",
			`neither a tool call nor an assistant message: an object with members "a", "b", "c", "d", "e", "f", "g", "h", and 2 more`},
		{`{"name":"t","arguments":{},"tool_calls":[]}`, "/name", "ambiguous: a tool call's name member beside a message's tool_calls"},
		{`{"type":"tool_use","name":"t","input":{},"content":[]}`, "/name", "ambiguous: a tool call's name member beside a message's content"},
		{`{"params":{"name":"t"},"Output":[]}`, "/Output", "ambiguous: a member Output differs only in case from one a message is read from"},
	} {
		_, err := p.Parse([]byte(tc.src), ShapeAuto)
		e, ok := errors.AsType[*Error](err)
		if !ok || errors.Is(err, ErrMessage) || e.Pointer != tc.ptr || !strings.HasPrefix(fmt.Sprint(e.Err), tc.msg) {
			t.Errorf("%s: %v, want %q at %q", tc.src, err, tc.msg, tc.ptr)
		}
	}
}

// TestMessageOfCalls wraps each call of the single-call tests that reads
// as a tool_calls entry, a tool_use block or a function_call item in a
// message of its vendor, between two other calls: an accepted call gives
// its own act in the middle, a refused one its own error, at its place.
func TestMessageOfCalls(t *testing.T) {
	var srcs []string
	for _, c := range calls {
		for _, s := range inputs(t, c.tool, c.args) {
			srcs = append(srcs, s)
		}
	}
	for _, tc := range errCases() {
		srcs = append(srcs, tc.src)
	}
	sort.Strings(srcs)
	var p Parser
	checked := 0
	for _, src := range srcs {
		if n := checkEmbedded(t, &p, []byte(src)); n > 0 {
			checked += n
		}
	}
	if checked < 200 {
		t.Errorf("only %d embeddings checked", checked)
	}
}

// embeddings are the messages a call of each form is put in, between two
// other calls of that form: before and after, the items the message holds.
var embeddings = []struct {
	form         form
	open, close  string // the message around the list
	before, next string
}{
	{formChat, `{"role":"assistant","content":null,"tool_calls":[`, `]}`,
		`{"id":"a","type":"function","function":{"name":"before","arguments":"{}"}},`,
		`,{"id":"b","type":"function","function":{"name":"after","arguments":"{}"}}`},
	{formChat, `{"choices":[{"index":0,"message":{"tool_calls":[`, `]}}],"object":"chat.completion"}`,
		`{"function":{"name":"before","arguments":"{}"}},`, `,{"function":{"name":"after","arguments":"{}"}}`},
	{formAnthropic, `{"type":"message","role":"assistant","content":[`, `],"usage":{"x":0.5}}`,
		`{"type":"tool_use","name":"before","input":{}},{"type":"text","text":"x"},`, `,{"type":"tool_use","name":"after"}`},
	{formAnthropic, `[`, `]`, `{"type":"tool_use","name":"before","input":{}},`, `,{"type":"tool_use","name":"after"}`},
	{formResponses, `{"object":"response","output":[`, `]}`,
		`{"type":"function_call","name":"before","arguments":"{}"},{"type":"reasoning"},`, `,{"type":"function_call","name":"after","arguments":"{}"}`},
}

// checkEmbedded puts the call src in every message of embeddings whose
// form it reads as on its own (or, refused, whose vendor's type it has),
// and checks the message against the call read on its own. It returns the
// number of messages checked, or 0 when src fits none.
func checkEmbedded(t testing.TB, p *Parser, src []byte) int {
	t.Helper()
	single, err := p.Parse(src, ShapeAuto)
	var e *Error
	if err != nil {
		var ok bool
		if e, ok = errors.AsType[*Error](err); !ok {
			t.Fatalf("%q: %v", src, err)
		}
		// Compare refusals of calls whose own place is plain: canon
		// rejections of valid JSON (a syntax error's place depends on
		// what follows it) other than depth (the message's levels count
		// toward the rfc8785 bound), and problems of the arguments text.
		if e.className() == ClassShape && !e.InString || e.Class() == canon.ClassSyntax || e.Class() == canon.ClassDepth || e.Class() == canon.ClassTooLarge {
			return 0
		}
	}
	n := 0
	for _, em := range embeddings {
		if err == nil && !sameForm(p, src, em.form) || err != nil && !looksLike(src, em.form) {
			continue
		}
		msg := em.open + em.before + string(src) + em.next + em.close
		at := len(em.open) + len(em.before)
		acts, merr := p.AppendMessage(nil, []byte(msg), ShapeAuto)
		n++
		if err == nil {
			if me, ok := errors.AsType[*Error](merr); ok && me.Class() == canon.ClassDepth && !bytes.Contains(src, []byte("arguments")) && !bytes.Contains(src, []byte("input")) {
				continue // the wrapper nests near the rfc8785 bound, which the message's own levels then pass
			}
			if merr != nil || len(acts) != 3 || acts[1].Digest != single.Digest || acts[0].Tool != "before" || acts[2].Tool != "after" {
				t.Errorf("%s:\naccepted alone, in a message: %v (%d acts)", msg, merr, len(acts))
			}
			continue
		}
		me, ok := errors.AsType[*Error](merr)
		if !ok || me.className() != e.className() || me.InString != e.InString || !strings.HasSuffix(me.Pointer, e.Pointer) {
			t.Errorf("%s:\nalone: %v\nin a message: %v", msg, err, merr)
			continue
		}
		wantOff := e.Offset
		if !e.InString {
			wantOff += int64(at)
		}
		if me.Offset != wantOff {
			t.Errorf("%s:\nalone: %v\nin a message: %v, offset %d, want %d", msg, err, merr, me.Offset, wantOff)
		}
	}
	return n
}

// sameForm reports whether the call src, accepted on its own, reads as f,
// with the type member an item of f's list needs (an Anthropic block's).
func sameForm(p *Parser, src []byte, f form) bool {
	var loc located
	doc, _, err := p.view(src)
	return err == nil && locate(doc, ShapeAuto, &loc, &p.top) == nil && loc.form == f &&
		(f != formAnthropic || p.top.flat.typ.found())
}

// looksLike reports whether the refused call src has the marks of form f
// that a message's item is sorted by: a function member, or the type.
func looksLike(src []byte, f form) bool {
	s := string(src)
	switch f {
	case formChat:
		return strings.Contains(s, `"function":{`)
	case formAnthropic:
		return strings.HasPrefix(s, `{"type":"tool_use"`)
	case formResponses:
		return strings.HasPrefix(s, `{"type":"function_call"`)
	}
	return false
}
