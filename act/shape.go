package act

import (
	"fmt"

	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// Shape is the family of wire formats a call is read from. Its String
// names ("auto", "anthropic", "openai", "mcp") are API: the CLI takes them
// in --shape.
type Shape uint8

const (
	// ShapeAuto recognises every shape below. An Act never has it.
	ShapeAuto Shape = iota
	// ShapeAnthropic is an Anthropic Messages API tool_use content block.
	ShapeAnthropic
	// ShapeOpenAI is an OpenAI Chat Completions tool_calls entry, its
	// function object, or a Responses API function_call item.
	ShapeOpenAI
	// ShapeMCP is an MCP tools/call request, its params, or the request
	// as docker/mcp-gateway marshals it.
	ShapeMCP
)

var shapeNames = [...]string{
	ShapeAuto:      "auto",
	ShapeAnthropic: "anthropic",
	ShapeOpenAI:    "openai",
	ShapeMCP:       "mcp",
}

// String returns the stable name of s: "auto", "anthropic", "openai" or
// "mcp".
func (s Shape) String() string {
	if int(s) < len(shapeNames) {
		return shapeNames[s]
	}
	return fmt.Sprintf("shape(%d)", uint8(s))
}

// ParseShape returns the Shape called name ("auto", "anthropic", "openai"
// or "mcp", ASCII letters in any case).
func ParseShape(name string) (Shape, error) {
	for s, n := range shapeNames {
		if jsonread.EqualFoldASCII(name, n) {
			return Shape(s), nil
		}
	}
	return 0, fmt.Errorf("act: unknown shape %q (want auto, anthropic, openai or mcp)", name)
}

// form is one concrete wire format; a Shape is a family of them.
type form uint8

const (
	formAnthropic form = iota + 1 // {"type":"tool_use","id","name","input"}
	formChat                      // {"id","type":"function","function":{"name","arguments":"…"}}
	formFunction                  // {"name","arguments":"…"}
	formResponses                 // {"type":"function_call","call_id","name","arguments":"…",…}
	formRequest                   // {"jsonrpc","id","method":"tools/call","params":{"name","arguments"}}
	formParams                    // {"name","arguments","_meta"}
	formGateway                   // {"Params":{"name","arguments"},"Session",…,"Extra",…}
)

// formInfo describes where a form keeps the tool name and the arguments.
type formInfo struct {
	shape     Shape
	what      string   // for messages: "an Anthropic tool_use block"
	container []string // path of the object holding name and arguments
	ptr       string   // its JSON Pointer
	namePtr   string   // JSON Pointer of the tool name
	argsName  string   // member name of the arguments
	argsPtr   string   // JSON Pointer of the arguments
	argsPath  []string // path of the arguments
	text      bool     // the arguments are a string holding JSON text (OpenAI)
}

var (
	pathTop      = []string{}
	pathFunction = []string{"function"}
	pathParams   = []string{"params"}
	pathGateway  = []string{"Params"}
)

var forms = [...]formInfo{
	formAnthropic: {ShapeAnthropic, "an Anthropic tool_use block", pathTop, "", "/name", "input", "/input", []string{"input"}, false},
	formChat:      {ShapeOpenAI, "an OpenAI Chat Completions tool_calls entry", pathFunction, "/function", "/function/name", "arguments", "/function/arguments", []string{"function", "arguments"}, true},
	formFunction:  {ShapeOpenAI, "an OpenAI function object", pathTop, "", "/name", "arguments", "/arguments", []string{"arguments"}, true},
	formResponses: {ShapeOpenAI, "an OpenAI Responses function_call item", pathTop, "", "/name", "arguments", "/arguments", []string{"arguments"}, true},
	formRequest:   {ShapeMCP, "an MCP tools/call request", pathParams, "/params", "/params/name", "arguments", "/params/arguments", []string{"params", "arguments"}, false},
	formParams:    {ShapeMCP, "MCP tools/call params", pathTop, "", "/name", "arguments", "/arguments", []string{"arguments"}, false},
	formGateway:   {ShapeMCP, "an MCP tools/call request as docker/mcp-gateway marshals it", pathGateway, "/Params", "/Params/name", "arguments", "/Params/arguments", []string{"Params", "arguments"}, false},
}

// shapeWhat names a Shape for messages.
var shapeWhat = [...]string{
	ShapeAnthropic: "an Anthropic tool_use block",
	ShapeOpenAI:    "an OpenAI tool call",
	ShapeMCP:       "an MCP tools/call request or params",
}
