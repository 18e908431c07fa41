package act_test

import (
	"errors"
	"fmt"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// The demo's MCP request (demo.ToolCall) read into its act. The digest is SHA-256 of the act printed, as coreutils
// sha256sum computes it.
func ExampleParse() {
	src := demo.ToolCall()
	a, err := act.Parse(src, act.ShapeAuto, "")
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Shape, a.Tool)
	fmt.Println(string(a.Canonical))
	fmt.Println(a.Digest)
	// Output:
	// mcp book_hotel
	// {"act":"tool_call/v1","arguments":{"check_in":"2026-11-02","city":"Zürich","guests":[{"age":34,"name":"Ana"},{"age":7,"name":"Boël"}],"max_price_cents":25000,"nights":3,"notes":"Quiet room, please 🙏 / no smoking"},"tool":"book_hotel"}
	// sha256:5252a98c5c99d4ba1a76746a3d39a430227c6e0f3b8d1e44c981cfb2ef5e7dae
}

// One call in three vendors' shapes gives one digest; ids never count. The
// digest is SHA-256 of {"act":"tool_call/v1","arguments":{"location":
// "Paris","unit":"celsius"},"tool":"get_weather"} (no spaces), as coreutils
// sha256sum computes it.
func ExampleParser_Digest() {
	var p act.Parser
	for _, call := range []string{
		`{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"unit":"celsius","location":"Paris"}}`,
		`{"id":"call_7","type":"function","function":{"name":"get_weather","arguments":"{\"location\": \"Paris\", \"unit\": \"celsius\"}"}}`,
		`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"Paris","unit":"celsius"}}}`,
	} {
		d, err := p.Digest([]byte(call), act.ShapeAuto)
		if err != nil {
			panic(err)
		}
		fmt.Println(d)
	}
	// Output:
	// sha256:8e5e487f2d6b79552aaedf576dabddaa0e773e34deda9763e704e1b0465f14bf
	// sha256:8e5e487f2d6b79552aaedf576dabddaa0e773e34deda9763e704e1b0465f14bf
	// sha256:8e5e487f2d6b79552aaedf576dabddaa0e773e34deda9763e704e1b0465f14bf
}

// A host builds the act of the call it means to make, for an envelope
// option's action.
func ExampleNew() {
	a, err := act.New("payments.example", "transfer", []byte(`{"to":"DE89 3704","amount_cents":1999}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(a.Canonical))
	fmt.Println(string(a.Arguments()))
	// Output:
	// {"act":"tool_call/v1","arguments":{"amount_cents":1999,"to":"DE89 3704"},"server":"payments.example","tool":"transfer"}
	// {"amount_cents":1999,"to":"DE89 3704"}
}

// A call that fails the strict gate is refused with its class and place,
// never repaired.
func ExampleError() {
	_, err := act.Parse([]byte(`{"name":"transfer","arguments":"{\"amount\": 19.99}"}`), act.ShapeAuto, "")
	var e *act.Error
	if errors.As(err, &e) {
		fmt.Println(e.Class(), e.Pointer, e.Offset, e.InString)
	}
	fmt.Println(err)
	// Output:
	// non-integer /arguments 11 true
	// act: non-integer: number "19.99" is not an integer within "/amount" in the arguments string at "/arguments", offset 11 of its decoded text
}

// A tool whose arguments hold fractions, read under the rfc8785 profile:
// the act records its profile, so it never has the digest of an act read
// under strict. ProfileOf picks the profile per tool, as a gate's policy
// does; under strict (the default) the same call is refused.
func ExampleParser_profile() {
	p := act.Parser{ProfileOf: func(tool string) canon.Profile {
		if tool == "geocode" {
			return canon.RFC8785
		}
		return canon.Strict
	}}
	a, err := p.Parse([]byte(`{"name":"geocode","arguments":{"lon":8.540,"lat":47.37}}`), act.ShapeAuto)
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Profile, string(a.Canonical))
	_, err = p.Parse([]byte(`{"name":"transfer","arguments":{"amount":19.99}}`), act.ShapeAuto)
	fmt.Println(err)
	// Output:
	// rfc8785 {"act":"tool_call/v1","arguments":{"lat":47.37,"lon":8.54},"profile":"rfc8785","tool":"geocode"}
	// act: non-integer: number "19.99" is not an integer within "/arguments/amount" at offset 41
}

// An assistant message with two tool calls, here an OpenAI Chat
// Completions message, gives one act per call, in order; an Anthropic
// message or a Responses response with the same calls gives the same
// acts. The digests are SHA-256 of the acts written out, as coreutils
// sha256sum computes them.
func ExampleParser_AppendMessage() {
	msg := []byte(`{"role":"assistant","content":null,"tool_calls":[
	  {"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\",\"unit\":\"celsius\"}"}},
	  {"id":"call_2","type":"function","function":{"name":"book_hotel","arguments":"{\"nights\":2,\"city\":\"Paris\"}"}}]}`)
	var p act.Parser
	var acts []act.Act // reused from call to call: no allocation once warm
	acts, err := p.AppendMessage(acts[:0], msg, act.ShapeAuto)
	if err != nil {
		panic(err)
	}
	for _, a := range acts {
		fmt.Println(a.Digest, a.Tool)
	}
	_, err = p.AppendMessage(acts[:0], []byte(`{"role":"assistant","content":"Done.","tool_calls":[]}`), act.ShapeAuto)
	fmt.Println(err)
	// Output:
	// sha256:8e5e487f2d6b79552aaedf576dabddaa0e773e34deda9763e704e1b0465f14bf get_weather
	// sha256:8178527c0c6eff74aa5d6b0e4fd742f3434a68cf52dfdff02bb834fa901796d3 book_hotel
	// act: shape: an OpenAI Chat Completions assistant message with no tool calls within "/tool_calls" at offset 51
}
