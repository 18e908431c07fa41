package act

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// This file holds act to the hosts it guards: the vendors' SDKs decode a
// call with encoding/json into structs (tagged with the members' names,
// which encoding/json matches without case, ſ and the Kelvin sign
// included), and the host runs what they decoded. For every input act
// accepts, those structs must decode the same calls: the same tool names
// and arguments, in the same order.

// The vendors' structs, as their SDKs decode a call. The members a host
// does not run by are json.RawMessage, so that their values do not make
// encoding/json fail.
type (
	// mcpCallParams is MCP's CallToolParams (modelcontextprotocol/go-sdk).
	mcpCallParams struct {
		Meta      json.RawMessage `json:"_meta"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	// mcpRequest is a JSON-RPC request carrying them.
	mcpRequest struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  *mcpCallParams  `json:"params"`
	}
	// gatewayRequest is docker/mcp-gateway's interceptor request,
	// marshalled without tags.
	gatewayRequest struct {
		Params  *mcpCallParams
		Session json.RawMessage
		Extra   json.RawMessage
	}
	// anthropicBlock is an Anthropic content block, read as a tool_use
	// block (anthropic-sdk-go's ToolUseBlock) when its type says so.
	anthropicBlock struct {
		Type  string          `json:"type"`
		ID    json.RawMessage `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	// anthropicMessage is a Messages API message or response.
	anthropicMessage struct {
		ID      json.RawMessage  `json:"id"`
		Type    json.RawMessage  `json:"type"`
		Role    json.RawMessage  `json:"role"`
		Content []anthropicBlock `json:"content"`
	}
	// openAIFunction is a Chat Completions call's function, and the legacy
	// function_call of a message.
	openAIFunction struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	// openAIToolCall is a Chat Completions tool_calls entry.
	openAIToolCall struct {
		ID       json.RawMessage `json:"id"`
		Type     string          `json:"type"`
		Function *openAIFunction `json:"function"`
	}
	// chatMessage is a Chat Completions assistant message.
	chatMessage struct {
		Role         json.RawMessage  `json:"role"`
		Content      json.RawMessage  `json:"content"`
		ToolCalls    []openAIToolCall `json:"tool_calls"`
		FunctionCall *openAIFunction  `json:"function_call"`
	}
	// chatCompletion is a Chat Completions response.
	chatCompletion struct {
		ID      json.RawMessage `json:"id"`
		Object  json.RawMessage `json:"object"`
		Choices []struct {
			Message *chatMessage `json:"message"`
		} `json:"choices"`
	}
	// responsesOutputItem is a Responses API output item, read as a
	// function_call when its type says so.
	responsesOutputItem struct {
		Type      string          `json:"type"`
		ID        json.RawMessage `json:"id"`
		CallID    json.RawMessage `json:"call_id"`
		Name      string          `json:"name"`
		Arguments string          `json:"arguments"`
		Status    json.RawMessage `json:"status"`
	}
	// responsesResponse is a Responses API response.
	responsesResponse struct {
		ID     json.RawMessage       `json:"id"`
		Object json.RawMessage       `json:"object"`
		Output []responsesOutputItem `json:"output"`
	}
)

// vendorCall is a call as a vendor's struct decoded it: the tool name and
// the canonical arguments (rfc8785), or, when they are not JSON, bad.
type vendorCall struct {
	name string
	args string
}

func rawCall(name string, args json.RawMessage) vendorCall {
	if args == nil {
		return vendorCall{name, "{}"}
	}
	c, err := canon.Canonicalize(args, canon.RFC8785)
	if err != nil {
		return vendorCall{name, "bad: " + err.Error()}
	}
	return vendorCall{name, string(c)}
}

func textCall(name, text string) vendorCall { return rawCall(name, json.RawMessage(text)) }

func (f *openAIFunction) call() vendorCall { return textCall(f.Name, f.Arguments) }

// vendorDecoder decodes src with encoding/json into a vendor's struct and
// returns the calls it holds, or ok false when encoding/json fails or
// finds none (the host runs nothing).
type vendorDecoder struct {
	name   string
	shape  Shape // of the calls; for a message decoder, the family's
	decode func(src []byte) (calls []vendorCall, err error)
}

func decodeInto[T any](src []byte) (*T, error) {
	v := new(T)
	return v, json.Unmarshal(src, v)
}

// callDecoders decode one call.
var callDecoders = []vendorDecoder{
	{"mcp-request", ShapeMCP, func(src []byte) ([]vendorCall, error) {
		r, err := decodeInto[mcpRequest](src)
		if err != nil || r.Params == nil || r.Method != "" && r.Method != "tools/call" {
			return nil, err
		}
		return []vendorCall{rawCall(r.Params.Name, r.Params.Arguments)}, nil
	}},
	{"mcp-params", ShapeMCP, func(src []byte) ([]vendorCall, error) {
		p, err := decodeInto[mcpCallParams](src)
		if err != nil || p.Name == "" {
			return nil, err
		}
		return []vendorCall{rawCall(p.Name, p.Arguments)}, nil
	}},
	{"mcp-gateway", ShapeMCP, func(src []byte) ([]vendorCall, error) {
		r, err := decodeInto[gatewayRequest](src)
		if err != nil || r.Params == nil {
			return nil, err
		}
		return []vendorCall{rawCall(r.Params.Name, r.Params.Arguments)}, nil
	}},
	{"anthropic-tool-use", ShapeAnthropic, func(src []byte) ([]vendorCall, error) {
		b, err := decodeInto[anthropicBlock](src)
		if err != nil || b.Name == "" || b.Type != "tool_use" && (b.Type != "" || b.Input == nil) {
			return nil, err
		}
		return []vendorCall{rawCall(b.Name, b.Input)}, nil
	}},
	{"openai-chat-tool-call", ShapeOpenAI, func(src []byte) ([]vendorCall, error) {
		c, err := decodeInto[openAIToolCall](src)
		if err != nil || c.Function == nil || c.Type != "" && c.Type != "function" {
			return nil, err
		}
		return []vendorCall{c.Function.call()}, nil
	}},
	{"openai-function", ShapeOpenAI, func(src []byte) ([]vendorCall, error) {
		f, err := decodeInto[openAIFunction](src)
		if err != nil || f.Name == "" {
			return nil, err
		}
		return []vendorCall{f.call()}, nil
	}},
	{"openai-responses-function-call", ShapeOpenAI, func(src []byte) ([]vendorCall, error) {
		it, err := decodeInto[responsesOutputItem](src)
		if err != nil || it.Type != "function_call" || it.Name == "" {
			return nil, err
		}
		return []vendorCall{textCall(it.Name, it.Arguments)}, nil
	}},
}

// In a message, an item of a call's type without a tool name is not a call
// a host can run: the decoders below leave it out.

func chatCalls(m *chatMessage) []vendorCall {
	var calls []vendorCall
	for _, c := range m.ToolCalls {
		if (c.Type == "" || c.Type == "function") && c.Function != nil && c.Function.Name != "" {
			calls = append(calls, c.Function.call())
		}
	}
	if m.FunctionCall != nil && m.FunctionCall.Name != "" {
		calls = append(calls, m.FunctionCall.call())
	}
	return calls
}

func anthropicCalls(blocks []anthropicBlock) []vendorCall {
	var calls []vendorCall
	for _, b := range blocks {
		if b.Type == "tool_use" && b.Name != "" {
			calls = append(calls, rawCall(b.Name, b.Input))
		}
	}
	return calls
}

func responsesCalls(items []responsesOutputItem) []vendorCall {
	var calls []vendorCall
	for _, it := range items {
		if it.Type == "function_call" && it.Name != "" {
			calls = append(calls, textCall(it.Name, it.Arguments))
		}
	}
	return calls
}

// messageDecoders decode a message, a response or a bare list.
var messageDecoders = []vendorDecoder{
	{"chat-message", ShapeOpenAI, func(src []byte) ([]vendorCall, error) {
		m, err := decodeInto[chatMessage](src)
		if err != nil {
			return nil, err
		}
		return chatCalls(m), nil
	}},
	{"chat-completion", ShapeOpenAI, func(src []byte) ([]vendorCall, error) {
		r, err := decodeInto[chatCompletion](src)
		if err != nil || len(r.Choices) == 0 || r.Choices[0].Message == nil {
			return nil, err
		}
		return chatCalls(r.Choices[0].Message), nil
	}},
	{"chat-tool-calls", ShapeOpenAI, func(src []byte) ([]vendorCall, error) {
		l, err := decodeInto[[]openAIToolCall](src)
		if err != nil {
			return nil, err
		}
		return chatCalls(&chatMessage{ToolCalls: *l}), nil
	}},
	{"anthropic-message", ShapeAnthropic, func(src []byte) ([]vendorCall, error) {
		m, err := decodeInto[anthropicMessage](src)
		if err != nil {
			return nil, err
		}
		return anthropicCalls(m.Content), nil
	}},
	{"anthropic-content", ShapeAnthropic, func(src []byte) ([]vendorCall, error) {
		l, err := decodeInto[[]anthropicBlock](src)
		if err != nil {
			return nil, err
		}
		return anthropicCalls(*l), nil
	}},
	{"responses-response", ShapeOpenAI, func(src []byte) ([]vendorCall, error) {
		r, err := decodeInto[responsesResponse](src)
		if err != nil {
			return nil, err
		}
		return responsesCalls(r.Output), nil
	}},
	{"responses-output", ShapeOpenAI, func(src []byte) ([]vendorCall, error) {
		l, err := decodeInto[[]responsesOutputItem](src)
		if err != nil {
			return nil, err
		}
		return responsesCalls(*l), nil
	}},
}

// actCalls returns the calls of acts as vendorCalls.
func actCalls(acts ...Act) []vendorCall {
	calls := make([]vendorCall, len(acts))
	for i := range acts {
		calls[i] = vendorCall{acts[i].Tool, string(acts[i].Arguments())}
	}
	return calls
}

func sameCalls(a, b []vendorCall) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkVendors is FuzzActVsEncodingJSON's check of one input (see there).
// It returns an error that names the decoder that disagrees, or nil.
func checkVendors(p *Parser, src []byte) error {
	// One call, in each shape explicitly: what a host that speaks that
	// vendor's protocol asks for.
	one := false
	for s := ShapeAnthropic; s <= ShapeMCP; s++ {
		var a Act
		if p.ParseInto(&a, src, s) != nil {
			continue
		}
		one = true
		want := actCalls(a)
		for _, d := range callDecoders {
			if d.shape != s {
				continue // another vendor's struct: the host does not use it for this call
			}
			if got, err := d.decode(src); err == nil && got != nil && !sameCalls(got, want) {
				return fmt.Errorf("act reads %s as %v; encoding/json into %s reads %v", s, want, d.name, got)
			}
		}
	}
	acts, merr := p.AppendMessage(nil, src, ShapeAuto)
	if merr == nil && one {
		return fmt.Errorf("act reads the input both as one call and as a message of %d calls", len(acts))
	}
	var want []vendorCall
	if merr == nil {
		want = actCalls(acts...)
	}
	switch {
	case one:
		// A message's struct that finds calls in what act read as one
		// call would run them unbound.
		for _, d := range messageDecoders {
			if got, err := d.decode(src); err == nil && len(got) > 0 {
				return fmt.Errorf("act reads one call; encoding/json into %s reads the message's calls %v", d.name, got)
			}
		}
	case merr == nil:
		for _, d := range messageDecoders {
			if got, err := d.decode(src); err == nil && len(got) > 0 && !sameCalls(got, want) {
				return fmt.Errorf("act reads the message as %v; encoding/json into %s reads %v", want, d.name, got)
			}
		}
		for _, d := range callDecoders {
			if got, err := d.decode(src); err == nil && got != nil {
				return fmt.Errorf("act reads a message of %v; encoding/json into %s reads one call %v", want, d.name, got)
			}
		}
	}
	return nil
}

// FuzzActVsEncodingJSON decodes the input as the vendors' SDKs do (their
// structs, above, with encoding/json) and holds act to them:
//
//   - where Parse accepts the input in a Shape, each struct of that
//     vendor's calls that finds a call in it finds the act's: the same
//     tool name and the same arguments (canonicalized); and no message
//     struct finds calls in it;
//   - where AppendMessage accepts it, each message struct that finds
//     calls finds the acts' calls, in order; and no struct of one call
//     finds one.
//
// Where act refuses the input there is nothing to check: the host runs
// nothing. A host that decodes a call of one vendor with another's struct
// is not modelled (an MCP params struct takes an Anthropic block's name
// with no arguments), since it is told the vendor it speaks.
func FuzzActVsEncodingJSON(f *testing.F) {
	const pay = `{"name":"pay","arguments":{"amount_cents":99999999,"to":"attacker"}}`
	for _, s := range []string{
		`{"method":"tools/call","params":{"name":"search","arguments":{"q":"x"}},"paramſ":` + pay + `}`,
		`{"method":"tools/call","params":{"name":"search","arguments":{"q":"x"}},"param\u017f":` + pay + `}`,
		`{"method":"tools/call","params":{"name":"search","arguments":{"q":"x"},"argumentſ":{"to":"attacker"}}}`,
		`{"type":"function","function":{"name":"search","arguments":"{}","argument\u017f":"{\"to\":\"attacker\"}"}}`,
		`{"type":"tool_use","name":"search","input":{},"\u212Aind":1}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"q":"x"},"input":{"to":"attacker"}}}`,
	} {
		f.Add([]byte(s))
	}
	for _, c := range calls {
		for _, fm := range callForms {
			f.Add([]byte(fm.write(marshal(f, c.tool), c.args, quoteJSON(f, c.args))))
		}
	}
	for _, mf := range messageForms {
		src, _ := mf.write(f, messageCallSets()[2])
		f.Add([]byte(src))
	}
	for _, tc := range append(errCases(), messageErrCases()...) {
		if len(tc.src) < 4096 {
			f.Add([]byte(tc.src))
		}
	}
	var p Parser
	f.Fuzz(func(t *testing.T, src []byte) {
		if err := checkVendors(&p, src); err != nil {
			t.Fatalf("%v\ninput: %s", err, src)
		}
	})
}

// TestVendorsSeeAct runs checkVendors over the accepted calls and messages
// of the other tests, and checks that it is not vacuous: a vendor's struct
// finds the act's calls in each, and encoding/json runs pay in the
// finding's input, which act refuses.
func TestVendorsSeeAct(t *testing.T) {
	var p Parser
	n := 0
	for _, c := range calls {
		for _, fm := range callForms {
			src := []byte(fm.write(marshal(t, c.tool), c.args, quoteJSON(t, c.args)))
			if err := checkVendors(&p, src); err != nil {
				t.Fatalf("%s: %v", fm.name, err)
			}
			a, err := p.Parse(src, fm.shape)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, d := range callDecoders {
				got, err := d.decode(src)
				found = found || d.shape == fm.shape && err == nil && sameCalls(got, actCalls(*a))
			}
			if !found {
				t.Errorf("%s: no vendor struct reads %s", fm.name, src)
			}
			n++
		}
	}
	for _, mf := range messageForms {
		for _, cs := range messageCallSets() {
			src, _ := mf.write(t, cs)
			if err := checkVendors(&p, []byte(src)); err != nil {
				t.Fatalf("%s: %v", mf.name, err)
			}
			acts, err := p.AppendMessage(nil, []byte(src), ShapeAuto)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, d := range messageDecoders {
				got, err := d.decode([]byte(src))
				found = found || err == nil && sameCalls(got, actCalls(acts...))
			}
			if !found {
				t.Errorf("%s: no vendor struct reads %s", mf.name, src)
			}
			n++
		}
	}
	// encoding/json runs pay where the params member act reads says search.
	src := []byte(`{"method":"tools/call","params":{"name":"search","arguments":{"q":"x"}},"paramſ":{"name":"pay","arguments":{}}}`)
	got, err := callDecoders[0].decode(src)
	if err != nil || len(got) != 1 || got[0].name != "pay" {
		t.Errorf("encoding/json reads %v, %v from %s", got, err, src)
	}
	if _, err := p.Parse(src, ShapeMCP); err == nil {
		t.Errorf("act accepts %s", src)
	}
	if n < 50 {
		t.Fatalf("%d inputs", n)
	}
}
