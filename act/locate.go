package act

// This file recognises the form of a call in its canonical document and
// finds the tool name and the arguments in it. The rules are in the
// package documentation (# Shapes); in short, the call object (the one
// holding name and arguments) is the top level, or the value of exactly
// one of function, params and Params; a top-level type member decides
// between the forms without a wrapper, and must be "function" beside
// function; and nothing may offer a second name or arguments beside the
// ones read (an ambiguous wrapper could hide a second call).
//
// Member names are compared as the canonical document writes them: decoded
// but for the escapes of '"', '\' and the controls, which no name read
// holds and which fold to no letter (internal/jsonread's fold).

import (
	"slices"
	"strconv"

	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// members holds the spans of the members that matter in one object.
type members struct {
	name, arguments, input, args, typ span
}

// record notes the current member of o, a walk of an object in doc, in
// m, if it is one that matters, and reports whether it was. An arguments
// string (OpenAI) is decoded into t.text as it is read.
func (m *members) record(o *jsonread.Iter, doc []byte, t *topLevel) bool {
	var s *span
	switch string(o.Name()) {
	case "name":
		s = &m.name
	case "arguments":
		s = &m.arguments
		if vs := o.ValueStart(); doc[vs] == '"' {
			var end int
			t.text, end = jsonread.AppendUnquote(t.text[:0], doc, vs)
			o.SetValueEnd(end)
			t.textAt = vs
		}
	case "input":
		s = &m.input
	case "args":
		s = &m.args
	case "type":
		s = &m.typ
	default:
		return false
	}
	*s = valueSpan(o)
	return true
}

// wrappers, the members whose object value holds the call.
const (
	wrapFunction = iota + 1
	wrapParams
	wrapGateway
)

var wrapperNames = [...]string{wrapFunction: "function", wrapParams: "params", wrapGateway: "Params"}

// topLevel is what the walk of a call's top-level object found.
type topLevel struct {
	flat            members // at the top level
	inner           members // in the wrapper, when it is an object
	wrapper         int     // wrapFunction, wrapParams, wrapGateway, or 0
	wrapperValue    span
	wrappers        int // how many of function, params and Params there are
	method, jsonrpc span

	text   []byte // the decoded text of the last arguments string read
	textAt int    // where that string starts in the document

	// variant is the first member whose name is a spelling of one the
	// walk reads (Name beside name, PARAMS, paramſ, tool-calls), with the
	// wrapper it is in ("" at the top level) and the name it spells.
	variant, variantIn, variantOf string

	// msg holds the top-level members a message is read from
	// (message.go): tool_calls, content, output, choices and the like.
	msg msgMembers
}

// readNames are the member names the walk reads (args, Gemini's and
// LangChain's arguments, only to refuse it). A member whose name is none
// of them but folds equal to one (jsonread.EqualFold: case, ſ for s, the
// Kelvin sign for k, and '_' and '-', ignored) is refused: a reader that
// matches names case-insensitively, as encoding/json does for struct
// fields, would take it for that member and execute another call than the
// one bound. "Params" (docker/mcp-gateway's marshalled request) is a name
// of its own: two of params and Params are ambiguous wrappers.
var readNames = [...]string{"name", "arguments", "input", "args", "type", "function", "params", "Params", "method", "jsonrpc"}

// nameSet holds the names a call is read from (readNames, first) and
// those a message is read from (msgNames), so that each member name is
// folded once.
var nameSet = jsonread.NewNameSet(slices.Concat(readNames[:], msgNames[:])...)

// noteVariant records in t the member called name, of the object the walk
// reads at its top level (in == "") or in the wrapper in, if it folds
// equal to a name read there without being one: a name of a call in
// t.variant, a name of a message (read at the top level only) in
// t.msg.variant. Only the first of each is kept.
func (t *topLevel) noteVariant(name []byte, in string) {
	k := nameSet.Match(name)
	switch {
	case k < 0:
	case k < len(readNames):
		if t.variant == "" && !nameSet.Has(name) {
			t.variant, t.variantIn, t.variantOf = string(name), in, readNames[k]
		}
	case in == "":
		if t.msg.variant == "" && !nameSet.Has(name) {
			t.msg.variant, t.msg.variantOf = string(name), msgNames[k-len(readNames)]
		}
	}
}

// located is where a call's tool name and arguments are in its canonical
// document.
type located struct {
	form form
	name span // the name string, quotes included
	args span // the arguments value; zero when absent (an empty object)

	// message is set when locate's problem is that the input is a
	// message, a model response or an array (ErrMessage), not one call.
	message bool
}

// problem is a shape problem found in the canonical document: the path of
// the value it is about (for its offset in the input), its JSON Pointer,
// and the message.
type problem struct {
	path []string
	ptr  string
	msg  string
}

// walkTop reads the top-level object of doc (doc[0] == '{') into t,
// keeping the memory of t.text.
func walkTop(doc []byte, t *topLevel) {
	*t = topLevel{text: t.text[:0]}
	for o := jsonread.Object(doc, 0); o.Next(); {
		if t.flat.record(&o, doc, t) {
			continue
		}
		w := 0
		switch string(o.Name()) {
		case "function":
			w = wrapFunction
		case "params":
			w = wrapParams
		case "Params":
			w = wrapGateway
		case "method":
			t.method = valueSpan(&o)
			continue
		case "jsonrpc":
			t.jsonrpc = valueSpan(&o)
			continue
		default:
			if !t.msg.record(&o) {
				t.noteVariant(o.Name(), "")
			}
			continue
		}
		t.wrappers++
		if t.wrappers > 1 {
			continue
		}
		t.wrapper = w
		if vs := o.ValueStart(); doc[vs] == '{' {
			in := jsonread.Object(doc, vs)
			for in.Next() {
				if !t.inner.record(&in, doc, t) {
					t.noteVariant(in.Name(), wrapperNames[w])
				}
			}
			o.SetValueEnd(in.Close())
		}
		t.wrapperValue = valueSpan(&o)
	}
}

// locate finds the call in the canonical document doc, for shape s. t is
// scratch memory; for an OpenAI call, t.text holds the decoded arguments
// string after it.
func locate(doc []byte, s Shape, loc *located, t *topLevel) *problem {
	if len(doc) == 0 || doc[0] != '{' {
		k := "nothing"
		if len(doc) > 0 {
			k = jsonread.KindWithArticle(doc[0])
		}
		if k == "an array" {
			loc.message = true
			return &problem{pathTop, "", "the input is a JSON array, not one tool call"}
		}
		return &problem{pathTop, "", "a tool call is a JSON object, not " + k}
	}
	walkTop(doc, t)
	return locateTop(doc, s, loc, t, false)
}

// locateTop is locate after walkTop(doc, t) has read the object doc: the
// input's top level, or (nested) an item of a message (message.go).
func locateTop(doc []byte, s Shape, loc *located, t *topLevel, nested bool) *problem {
	if t.variant != "" {
		return variantProblem(t)
	}
	if p, isMessage := messageInCall(t, nested); p != nil {
		loc.message = isMessage
		return p
	}
	f, p := decide(doc, t, s)
	if p != nil {
		return p
	}
	fi := &forms[f]
	if s != ShapeAuto && s != fi.shape {
		return &problem{pathTop, "", "not " + shapeWhat[s] + ": the input reads as " + fi.what}
	}
	m := &t.flat
	if fi.ptr != "" {
		m = &t.inner
		if doc[t.wrapperValue.start] != '{' {
			return &problem{fi.container, fi.ptr, fi.ptr[1:] + " is " + jsonread.KindWithArticle(doc[t.wrapperValue.start]) + ", not an object"}
		}
	}
	loc.form = f
	if p := otherArguments(fi, m); p != nil {
		return p
	}
	// The tool name: a non-empty string.
	switch {
	case !m.name.found():
		return &problem{fi.container, fi.ptr, "no name member (the tool name) in " + fi.what}
	case doc[m.name.start] != '"':
		return &problem{append(fi.container[:len(fi.container):len(fi.container)], "name"), fi.namePtr, "the tool name is " + jsonread.KindWithArticle(doc[m.name.start]) + ", not a string"}
	case m.name.end-m.name.start <= 2:
		return &problem{append(fi.container[:len(fi.container):len(fi.container)], "name"), fi.namePtr, "the tool name is empty"}
	case m.name.end-m.name.start-2 > MaxToolName:
		return &problem{append(fi.container[:len(fi.container):len(fi.container)], "name"), fi.namePtr, "the tool name is longer than " + strconv.Itoa(MaxToolName) + " bytes"}
	}
	loc.name = m.name
	// The arguments.
	a := m.arguments
	if f == formAnthropic {
		a = m.input
	}
	loc.args = a
	switch {
	case fi.text && !a.found():
		return &problem{fi.container, fi.ptr, "no arguments member (a string holding a JSON object) in " + fi.what}
	case fi.text && doc[a.start] != '"':
		return &problem{fi.argsPath, fi.argsPtr, "arguments is " + jsonread.KindWithArticle(doc[a.start]) + ", not a string holding a JSON object"}
	case !fi.text && a.found() && doc[a.start] != '{':
		return &problem{fi.argsPath, fi.argsPtr, fi.argsName + " is " + jsonread.KindWithArticle(doc[a.start]) + ", not an object"}
	}
	return nil
}

// decide returns the form of the call whose top level is t.
func decide(doc []byte, t *topLevel, s Shape) (form, *problem) {
	if t.wrappers > 1 {
		return 0, &problem{pathTop, "", "ambiguous: more than one of function, params and Params"}
	}
	if t.wrapper != 0 {
		var beside span
		var besideName string
		switch {
		case t.flat.name.found():
			beside, besideName = t.flat.name, "name"
		case t.flat.arguments.found():
			beside, besideName = t.flat.arguments, "arguments"
		case t.flat.input.found():
			beside, besideName = t.flat.input, "input"
		case t.flat.args.found():
			beside, besideName = t.flat.args, "args"
		}
		wrapper := wrapperNames[t.wrapper]
		if beside.found() {
			return 0, &problem{[]string{besideName}, "/" + besideName, "ambiguous: a top-level " + besideName + " member beside " + wrapper}
		}
		switch t.wrapper {
		case wrapFunction:
			if p := jsonRPCMembers(t, "an OpenAI tool call"); p != nil {
				return 0, p
			}
			if t.flat.typ.found() && string(doc[t.flat.typ.start:t.flat.typ.end]) != `"function"` {
				return 0, typeProblem(doc, t.flat.typ, `"function"`)
			}
			return formChat, nil
		case wrapParams:
			if t.method.found() && string(doc[t.method.start:t.method.end]) != `"tools/call"` {
				return 0, &problem{[]string{"method"}, "/method", "method is " + quoted(doc, t.method) + ", not \"tools/call\""}
			}
			return formRequest, nil
		}
		if p := jsonRPCMembers(t, "a request as docker/mcp-gateway marshals it"); p != nil {
			return 0, p
		}
		return formGateway, nil
	}
	if p := jsonRPCMembers(t, "a call without params"); p != nil {
		return 0, p
	}
	m := &t.flat
	if m.typ.found() {
		switch string(doc[m.typ.start:m.typ.end]) {
		case `"tool_use"`:
			if m.arguments.found() {
				return 0, &problem{[]string{"arguments"}, "/arguments", "ambiguous: an Anthropic tool_use block has input, not arguments"}
			}
			return formAnthropic, nil
		case `"function_call"`:
			if m.input.found() {
				return 0, &problem{[]string{"input"}, "/input", "ambiguous: an OpenAI function_call item has arguments, not input"}
			}
			return formResponses, nil
		}
		return 0, typeProblem(doc, m.typ, `"tool_use" (Anthropic) or "function_call" (OpenAI Responses)`)
	}
	switch {
	case m.input.found() && m.arguments.found():
		return 0, &problem{pathTop, "", "ambiguous: both input (Anthropic) and arguments (OpenAI, MCP)"}
	case m.input.found():
		return formAnthropic, nil
	case m.arguments.found() && doc[m.arguments.start] == '"':
		return formFunction, nil
	case m.arguments.found() && doc[m.arguments.start] != '{' && s == ShapeOpenAI:
		return formFunction, nil // reported as arguments that are not a string
	case !m.name.found() && !m.arguments.found():
		return 0, &problem{pathTop, "", "neither a tool call nor an assistant message: " + memberList(doc)}
	}
	return formParams, nil
}

// otherArguments reports a member of the call object m of form fi that
// carries arguments other than the ones the form reads: input (Anthropic's
// arguments) beside an OpenAI or MCP call, arguments (OpenAI's and MCP's)
// beside an Anthropic one, and args (Gemini's functionCall, LangChain's
// tool_calls) beside any, at the top level or in function, params or
// Params. No vendor's decoder of the form reads them, but a host that
// reads several vendors' calls through one struct (Name, Input, Arguments)
// may, and would run other arguments than the ones bound. (The top level's
// own cases are reported by decide first, in its words.)
func otherArguments(fi *formInfo, m *members) *problem {
	var name string
	switch {
	case fi.argsName != "input" && m.input.found():
		name = "input"
	case fi.argsName != "arguments" && m.arguments.found():
		name = "arguments"
	case m.args.found():
		name = "args"
	default:
		return nil
	}
	return &problem{append(fi.container[:len(fi.container):len(fi.container)], name), fi.ptr + "/" + name,
		"ambiguous: a member " + name + " in " + fi.what + ", which carries its arguments in " + fi.argsName}
}

// jsonRPCMembers reports a method or jsonrpc member in a call that is not
// a JSON-RPC request: what names what the call is.
func jsonRPCMembers(t *topLevel, what string) *problem {
	switch {
	case t.method.found():
		return &problem{[]string{"method"}, "/method", "a method member in " + what + ": a tools/call request carries its call in params"}
	case t.jsonrpc.found():
		return &problem{[]string{"jsonrpc"}, "/jsonrpc", "a jsonrpc member in " + what + ": a tools/call request carries its call in params"}
	}
	return nil
}

// typeProblem reports a top-level type member that is not want.
func typeProblem(doc []byte, typ span, want string) *problem {
	return &problem{[]string{"type"}, "/type", "type is " + quoted(doc, typ) + ", not " + want}
}

// quoted returns the value at s for a message: a short string as it is
// (canonical, so quoted and escaped), else its kind.
func quoted(doc []byte, s span) string {
	if doc[s.start] == '"' && s.end-s.start <= 66 {
		return string(doc[s.start:s.end])
	}
	return jsonread.KindWithArticle(doc[s.start])
}
