package main

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/canon"
)

const actHelp = `Usage:
  bbdigest act [--shape NAME] [--server ID] [--canonical] [FILE|-]

act reads one tool call, as a model emits it or a host receives it, and
prints its act digest, sha256:<64 lowercase hex>: the SHA-256 of the
canonical act
  {"act":"tool_call/v1","arguments":{...},"server":"ID","tool":"NAME"}
(JCS, strict profile), which binds the tool's name, its arguments and the
--server identity, and nothing else: ids, call ids, type, status and
_meta never change it. The same call gives the same digest in every
shape. The canonical act is the action an envelope option binds (its
action_digest is the act digest), so resolution verify --action takes the
output of --canonical.

Shapes:
  anthropic  a tool_use content block
               {"type":"tool_use","id":...,"name":...,"input":{...}}
  openai     a Chat Completions tool_calls entry
               {"id":...,"type":"function","function":{"name":...,
                "arguments":"<JSON text>"}}
             its function object {"name":...,"arguments":"<JSON text>"},
             or a Responses function_call item
               {"type":"function_call","call_id":...,"name":...,
                "arguments":"<JSON text>",...}
             The string is decoded and the JSON text it holds is read as
             the arguments; the string itself is never hashed.
  mcp        a tools/call request
               {"jsonrpc":"2.0","id":...,"method":"tools/call",
                "params":{"name":...,"arguments":{...},"_meta":...}}
             its params, or the request as docker/mcp-gateway hands it to
             an interceptor, {"Params":{...},"Session":...,"Extra":...}
             or {"method":"tools/call","params":{...}}

Messages:
  act also reads a message that holds calls, and prints one line per
  call, in order: "sha256:<hex>  TOOL", TOOL escaped as digest --names
  escapes a name (the line then starts with a backslash), or with
  --canonical the canonical act and a newline. Each call is read as it is
  on its own, in the shape of its form:
  openai     a Chat Completions assistant message
               {"role":"assistant","content":null,"tool_calls":[...]}
             or its legacy {"role":"assistant","function_call":{...}},
             or a whole response with one choice (of several, which one
             runs is the host's choice: refused as ambiguous)
               {"id":...,"object":"chat.completion","choices":[{"message":
                {...},...}]}
             a Responses API response
               {"id":...,"object":"response","output":[...]}
             whose function_call items are the calls: message, reasoning
             and the calls OpenAI runs itself (web_search_call, mcp_call,
             ...) are skipped; a call the host runs that no act binds
             (computer_call, custom_tool_call, ...) or an unknown item is
             refused
  anthropic  a message {"role":"assistant","content":[...]} or a whole
             Messages API response {"id":...,"type":"message",...}, whose
             tool_use blocks are the calls; text, thinking and the calls
             Anthropic runs itself (server_tool_use, ...) are skipped
  The bare array of one of those lists (tool_calls, content, output) is
  read the same way. A message with no call, or with two lists of calls,
  is refused, as is a JSON-RPC batch (MCP removed batching in its
  2025-06-18 revision: give each tools/call request on its own).

The arguments must be a JSON object (absent is {} for anthropic and mcp)
in the strict profile: no duplicate names, integers only with |n| <=
2^53-1 (1.0 and 1e2 read as 1 and 100), nesting at most 63 levels of
their own. Pass other numbers as integers in minor units
("amount_cents": 1999) or as strings ("ratio": "0.25"). The rest of the
call may hold any JSON of the rfc8785 profile, but a duplicate name,
invalid UTF-8 or an unpaired surrogate anywhere refuses the call, as do
two calls in one input (function beside params, input beside arguments).

A refused call is reported on stderr in the format of 'bbdigest help'
(Diagnostics), one line, and nothing goes to stdout. REASON is
"CLASS: MESSAGE at offset N", CLASS one of the rejection classes of
'bbdigest help' or shape (not a tool call, or not in the shape asked
for), N the byte offset in the input. Inside an OpenAI arguments string,
POINTER is the string member ("/arguments", "/function/arguments") and
REASON "CLASS: MESSAGE within "INNER" at offset N of the decoded string",
INNER and N the pointer and byte offset in the JSON text the string
holds. In a message, POINTER points into the call: the arguments string
of the third tool_calls entry is "/tool_calls/2/function/arguments".

Options:
  --shape NAME  the shape of the call or message: auto (the default)
                recognises every one; anthropic, openai or mcp refuses
                one in another shape
  --server ID   the identity of the server the call is dispatched to,
                bound as the act's "server" (default: none); it is never
                read from the call
  --canonical   print the canonical act bytes, with no trailing newline,
                instead of the digest; for a message, each call's act
                and a newline (JSON Lines)

  FILE "-" or no FILE reads stdin. An input longer than 256 MiB is refused
  as too-large.

Exit status:
  0  the call, or every call of the message, was read
  1  the call or message was refused
  2  usage or I/O error

Examples:
  bbdigest act tool_call.json
  bbdigest act response.json          # one "sha256:<hex>  TOOL" per call
  bbdigest act --shape openai --server payments.example < tool_call.json
  bbdigest act --canonical tool_call.json > action.json
`

// act is "bbdigest act": the act digest of one tool call, or with
// --canonical the canonical act.
func (c *cli) act(args []string) int {
	const cmd = "act"
	fs := c.flagSet(cmd)
	shapeName := fs.String("shape", "auto", "")
	server := fs.String("server", "", "")
	canonical := fs.Bool("canonical", false, "")
	operands, code := c.parse(fs, args, 1)
	if code >= 0 {
		return code
	}
	shape, err := act.ParseShape(*shapeName)
	if err != nil {
		return c.usageError(cmd, "unknown shape "+quote(*shapeName)+": want auto, anthropic, openai or mcp")
	}
	if !utf8.ValidString(*server) {
		return c.usageError(cmd, "--server "+quote(*server)+" is not valid UTF-8")
	}
	name := "-"
	if len(operands) == 1 {
		name = operands[0]
	}
	src, err := c.readFile(c.in, name, c.limit())
	c.in = src[:0]
	if err != nil {
		if _, ok := errors.AsType[*canon.Error](err); ok {
			c.reject(name, err)
			return exitRejected
		}
		c.ioFailure(name, err)
		return exitUsage
	}
	p := act.Parser{Server: *server}
	var a act.Act
	err = p.ParseInto(&a, src, shape)
	if errors.Is(err, act.ErrMessage) {
		return c.actMessage(&p, name, src, shape, *canonical)
	}
	if err != nil {
		return c.actRefused(name, err)
	}
	if *canonical {
		return c.write(a.Canonical)
	}
	return c.write(append(a.Digest.AppendTo(nil), '\n'))
}

// actMessage is "bbdigest act" for an assistant message or model response
// (act.ParseInto refused src with act.ErrMessage): one line per call, in
// order, "sha256:<hex>  TOOL" with TOOL escaped as digest --names escapes
// a name, or with canonical the canonical act and a newline.
func (c *cli) actMessage(p *act.Parser, name string, src []byte, shape act.Shape, canonical bool) int {
	acts, err := p.AppendMessage(nil, src, shape)
	if err != nil {
		return c.actRefused(name, err)
	}
	var line []byte
	for i := range acts {
		a := &acts[i]
		if canonical {
			line = append(line[:0], a.Canonical...)
		} else {
			line = appendName(append(a.Digest.AppendTo(line[:0]), "  "...), a.Tool)
		}
		if code := c.write(append(line, '\n')); code != exitOK {
			return code
		}
	}
	return exitOK
}

// actRefused reports the refusal err of the input called name.
func (c *cli) actRefused(name string, err error) int {
	e, ok := errors.AsType[*act.Error](err)
	if !ok {
		c.errorf("%v", err) // the server, checked before reading: not reached; act's errors start "act: "
		return exitUsage
	}
	c.rejection(name, e.Pointer, actReason(e))
	return exitRejected
}

// actReason is the REASON of a refused call: "CLASS: MESSAGE at offset N",
// or, inside an OpenAI arguments string, "CLASS: MESSAGE within "INNER" at
// offset N of the decoded string".
func actReason(e *act.Error) string {
	ce, isCanon := errors.AsType[*canon.Error](e.Err)
	if isCanon && !e.InString {
		return canonReason(ce)
	}
	var b strings.Builder
	if isCanon {
		b.WriteString(ce.Class.String())
		b.WriteString(": ")
		b.WriteString(ce.Msg)
		b.WriteString(" within ")
		b.WriteString(quote(ce.Pointer))
	} else {
		b.WriteString(act.ClassShape)
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	b.WriteString(" at offset ")
	b.WriteString(strconv.FormatInt(e.Offset, 10))
	if e.InString {
		b.WriteString(" of the decoded string")
	}
	return b.String()
}
