package act

// This file reads a message: an assistant message or a model response that
// holds tool calls, or a bare list of them, into the act of every call, in
// order. The organisation is:
//
//   1. As for one call (parser.go), the whole input goes through the gate
//      once (view), under the strict profile or, for a wrapper only the
//      rfc8785 profile accepts, under that.
//   2. locateMessage recognises the message from its top-level members
//      (msgMembers, recorded by walkTop beside the members of a call) and
//      finds its list of items: Chat Completions tool_calls (at the top,
//      or in choices[0].message), the legacy function_call object (one
//      call), Anthropic content, Responses output, or a bare array of one
//      of those. Its family says what an item of the list is.
//   3. item reads one item, a sub-slice of the canonical document: a call
//      of the family, read by locateTop exactly as the same object given on
//      its own; an item that is no call the host runs, skipped; or an item
//      that may be a call no act binds, refused. actOf then writes the act
//      of a call as it does for one call, with w placing the item in the
//      input for errors.
//
// The message's own members follow the rules of a call's wrapper: a
// member a call is read from (name, arguments, input, args, function,
// params, ...)
// beside the members a message is read from is ambiguous, two lists that
// carry calls are ambiguous, and so is a member whose name folds equal to
// one read (internal/jsonread's fold) without being it.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// msgMembers holds the spans of the members a message is read from, in one
// object.
type msgMembers struct {
	choices, toolCalls, functionCall, content, output, role, object span
	message                                                         span // a choice's message

	// variant is the first member whose name folds equal to one of
	// msgNames without being it, and variantOf that name.
	variant, variantOf string
}

// msgNames are the member names a message is read from.
var msgNames = [...]string{"choices", "tool_calls", "function_call", "content", "output", "role", "object", "message"}

// record notes the current member of o in m, if it is one a message is
// read from, and reports whether it was. (A name that folds equal to one
// of those is noted by topLevel.noteVariant, in locate.go.)
func (m *msgMembers) record(o *jsonread.Iter) bool {
	var s *span
	switch string(o.Name()) {
	case "choices":
		s = &m.choices
	case "tool_calls":
		s = &m.toolCalls
	case "function_call":
		s = &m.functionCall
	case "content":
		s = &m.content
	case "output":
		s = &m.output
	case "role":
		s = &m.role
	case "object":
		s = &m.object
	case "message":
		s = &m.message
	default:
		return false
	}
	*s = valueSpan(o)
	return true
}

// marker returns the name of the first member that makes an object a
// message (message, which only a choice has, does not), or "".
func (m *msgMembers) marker() string {
	switch {
	case m.choices.found():
		return "choices"
	case m.toolCalls.found():
		return "tool_calls"
	case m.functionCall.found():
		return "function_call"
	case m.content.found():
		return "content"
	case m.output.found():
		return "output"
	case m.role.found():
		return "role"
	case m.object.found():
		return "object"
	}
	return ""
}

// callMember returns the name of the first top-level member of t that a
// call is read from, or "".
func callMember(t *topLevel) string {
	switch {
	case t.flat.name.found():
		return "name"
	case t.flat.arguments.found():
		return "arguments"
	case t.flat.input.found():
		return "input"
	case t.flat.args.found():
		return "args"
	case t.wrapper != 0:
		return wrapperNames[t.wrapper]
	case t.method.found():
		return "method"
	case t.jsonrpc.found():
		return "jsonrpc"
	}
	return ""
}

// messageInCall is locateTop's check that the object t walked is a call
// and not a message: a member whose name folds equal to one a message is
// read from, or such a member beside one a call is read from
// (or, nested, in a message's item), is ambiguous; an object with such
// members only is a message, reported with isMessage set.
func messageInCall(t *topLevel, nested bool) (pr *problem, isMessage bool) {
	if t.msg.variant != "" {
		return variantProblem(t), false
	}
	mk := t.msg.marker()
	if mk == "" {
		return nil, false
	}
	if c := callMember(t); c != "" {
		return ambiguousBeside(mk, c), false
	}
	if nested {
		return &problem{[]string{mk}, "/" + mk, "ambiguous: a tool call with a top-level " + mk + " member, which a message has"}, false
	}
	return &problem{pathTop, "", "the input is an assistant message or a model response (it has a top-level " + mk + " member), not one tool call"}, true
}

// ambiguousBeside reports a message's member mk beside a call's member c.
func ambiguousBeside(mk, c string) *problem {
	return &problem{[]string{c}, "/" + c, "ambiguous: a tool call's " + c + " member beside a message's " + mk}
}

// variantProblem reports a member of the object t walked whose name
// folds equal to one a call or a message is read from without being it.
// Such a name is printable and holds no '/' or '~' (it folds equal to a
// name without them), so it is written as it is, and is its own JSON
// Pointer token.
func variantProblem(t *topLevel) *problem {
	if t.variant != "" {
		path, ptr := []string{t.variant}, "/"+t.variant
		if t.variantIn != "" {
			path, ptr = []string{t.variantIn, t.variant}, "/"+t.variantIn+"/"+t.variant
		}
		return &problem{path, ptr, variantMsg(t.variant, t.variantOf, "the call")}
	}
	if v := t.msg.variant; v != "" {
		return &problem{[]string{v}, "/" + v, variantMsg(v, t.msg.variantOf, "a message")}
	}
	return nil
}

// variantMsg is the message of a member v, a spelling of the name of that
// what is read from.
func variantMsg(v, of, what string) string {
	if strings.EqualFold(v, of) { // case, ſ and the Kelvin sign: encoding/json v1 matches it
		return "ambiguous: a member " + v + " differs only in case from one " + what + " is read from: a decoder that ignores case (encoding/json) takes it for " + of
	}
	return "ambiguous: a member " + v + " differs only in case, '_' and '-' from one " + what +
		" is read from: a decoder that ignores them (encoding/json/v2 ignoring case) takes it for " + of
}

// memberList describes the canonical object doc by its member names, for
// a message: `an object with members "a", "b"`, at most eight of them.
func memberList(doc []byte) string {
	const most = 8
	var b []byte
	n := 0
	for o := jsonread.Object(doc, 0); o.Next(); {
		if n++; n > most {
			continue
		}
		if n > 1 {
			b = append(b, ", "...)
		}
		if q := o.QuotedName(); len(q) <= 66 {
			b = append(b, q...)
		} else {
			b = append(b, "a name of "+strconv.Itoa(len(q)-2)+" bytes"...)
		}
	}
	switch {
	case n == 0:
		return "an empty object"
	case n == 1:
		return "an object with one member " + string(b)
	case n > most:
		b = append(b, ", and "+strconv.Itoa(n-most)+" more"...)
	}
	return "an object with members " + string(b)
}

// family is what an item of a message's list is.
type family uint8

const (
	famChat      family = iota + 1 // OpenAI Chat Completions tool_calls entries
	famFunction                    // the legacy function_call object of a Chat Completions message: one call
	famAnthropic                   // Anthropic content blocks
	famResponses                   // OpenAI Responses output items
)

// famInfo describes a family.
type famInfo struct {
	form  form   // the form of its calls
	shape Shape  // their Shape
	item  string // an item, for messages
	list  string // a bare array of items
	none  string // what a message without calls has none of
}

var families = [...]famInfo{
	famChat:      {formChat, ShapeOpenAI, "a tool_calls entry", "a JSON array of tool_calls entries", "no tool calls"},
	famFunction:  {formFunction, ShapeOpenAI, "function_call", "", "no tool calls"},
	famAnthropic: {formAnthropic, ShapeAnthropic, "a content block", "a JSON array of content blocks", "no tool_use block"},
	famResponses: {formResponses, ShapeOpenAI, "an output item", "a JSON array of output items", "no function_call item"},
}

// msgShapeWhat names a Shape for messages.
var msgShapeWhat = [...]string{
	ShapeAnthropic: "an Anthropic message",
	ShapeOpenAI:    "an OpenAI message or response",
	ShapeMCP:       "an MCP message (MCP has none: a tools/call request carries one call)",
}

// Item types. callTypes are the types of items that are calls a host or a
// vendor runs, in any family: a type that is one of them, or folds equal
// to one (callTypeSet: case, ſ, the Kelvin sign, '_' and '-' ignored, as
// for member names), is never skipped as text. Of OpenAI Responses output
// items, function_call is the call an act binds, responsesHostCalls are
// the other calls the host runs (none of which an act binds), and
// responsesSkip the items the host does not run (OpenAI runs the tool
// calls among them); any other type is refused, as it may be a call the
// host runs.
var (
	callTypes          = []string{"tool_use", "function", "custom", "function_call", "custom_tool_call", "computer_call", "local_shell_call", "shell_call", "apply_patch_call"}
	callTypeSet        = jsonread.NewNameSet(callTypes...)
	chatTypes          = []string{"function", "custom"}
	responsesHostCalls = []string{"custom_tool_call", "computer_call", "local_shell_call", "shell_call", "apply_patch_call"}
	responsesSkip      = []string{"message", "reasoning", "web_search_call", "file_search_call", "code_interpreter_call",
		"image_generation_call", "mcp_call", "mcp_list_tools", "mcp_approval_request"}
)

// typeIn reports whether the type v (a string's body) is one of set.
func typeIn(v []byte, set []string) bool {
	for _, s := range set {
		if string(v) == s {
			return true
		}
	}
	return false
}

// callType reports whether the type v (a string's body) is a call's type,
// or folds equal to one.
func callType(v []byte) bool { return callTypeSet.Match(v) >= 0 }

// at places an object of a message in the input, for errors: the value at
// path (JSON Pointer ptr), or, indexed, its item idx.
type at struct {
	path    []string
	ptr     string
	idx     int
	indexed bool
}

// pointer returns the JSON Pointer of rel (a pointer within the object w
// places) in the input; a nil w is the input's top level.
func (w *at) pointer(rel string) string {
	switch {
	case w == nil:
		return rel
	case w.indexed:
		return w.ptr + "/" + strconv.Itoa(w.idx) + rel
	}
	return w.ptr + rel
}

// problem returns pr, a problem within the object w places, as a problem
// of the input.
func (w *at) problem(pr *problem) *problem {
	path := make([]string, 0, len(w.path)+1+len(pr.path))
	path = append(path, w.path...)
	if w.indexed {
		path = append(path, strconv.Itoa(w.idx))
	}
	return &problem{append(path, pr.path...), w.pointer(pr.ptr), pr.msg}
}

// places are where a message object keeps its lists.
type places struct {
	self, toolCalls, functionCall, content, output at
}

var (
	topPlaces = places{
		self:         at{path: pathTop},
		toolCalls:    at{path: []string{"tool_calls"}, ptr: "/tool_calls"},
		functionCall: at{path: []string{"function_call"}, ptr: "/function_call"},
		content:      at{path: []string{"content"}, ptr: "/content"},
		output:       at{path: []string{"output"}, ptr: "/output"},
	}
	choicePlaces = places{
		self:         at{path: []string{"choices", "0", "message"}, ptr: "/choices/0/message"},
		toolCalls:    at{path: []string{"choices", "0", "message", "tool_calls"}, ptr: "/choices/0/message/tool_calls"},
		functionCall: at{path: []string{"choices", "0", "message", "function_call"}, ptr: "/choices/0/message/function_call"},
		content:      at{path: []string{"choices", "0", "message", "content"}, ptr: "/choices/0/message/content"},
		output:       at{path: []string{"choices", "0", "message", "output"}, ptr: "/choices/0/message/output"},
	}
	atChoice   = at{path: []string{"choices", "0"}, ptr: "/choices/0"}
	pathChoice = []string{"choices"}
)

// msgLoc is where locateMessage found a message's list of items.
type msgLoc struct {
	fam  family
	what string // the message, for messages: "an Anthropic message"
	list span   // the array of items in the document (famFunction: the call object)
	at   at     // the list's place in the input
}

// locateMessage finds the list of items of the message in the canonical
// document doc, for shape s. t is scratch memory.
func locateMessage(doc []byte, s Shape, m *msgLoc, t *topLevel) *problem {
	switch doc[0] { // the gate accepted doc: it is not empty
	case '[':
		return locateList(doc, s, m, t)
	case '{':
	default:
		return &problem{pathTop, "", "neither an assistant message nor a tool call: the input is " + jsonread.KindWithArticle(doc[0])}
	}
	walkTop(doc, t)
	if pr := variantProblem(t); pr != nil {
		return pr
	}
	mm := t.msg
	mk := mm.marker()
	if c := callMember(t); c != "" {
		if mk != "" {
			return ambiguousBeside(mk, c)
		}
		return &problem{pathTop, "", "not an assistant message or a model response: the input is one tool call (it has a top-level " + c + " member)"}
	}
	if mk == "" {
		return &problem{pathTop, "", "neither a tool call nor an assistant message: " + memberList(doc)}
	}
	if mm.choices.found() {
		return chatResponse(doc, s, m, t, &mm)
	}
	return objectMessage(doc, span{0, len(doc)}, &topPlaces, s, m, t, &mm)
}

// chatResponse finds the list of a Chat Completions response, whose
// members mm holds: the calls of its one choice's message.
func chatResponse(doc []byte, s Shape, m *msgLoc, t *topLevel, mm *msgMembers) *problem {
	for _, o := range [...]struct {
		s    span
		name string
	}{{mm.toolCalls, "tool_calls"}, {mm.functionCall, "function_call"}, {mm.content, "content"}, {mm.output, "output"}} {
		if o.s.found() {
			return &problem{[]string{o.name}, "/" + o.name, "ambiguous: " + o.name + " beside choices"}
		}
	}
	if pr := valueIs(doc, mm.object, "object", `"chat.completion"`); pr != nil {
		return pr
	}
	c := mm.choices
	if doc[c.start] != '[' {
		return &problem{pathChoice, "/choices", "choices is " + jsonread.KindWithArticle(doc[c.start]) + ", not an array"}
	}
	var first span
	n := 0
	for it := jsonread.Array(doc, c.start); it.Elem(); n++ {
		if n == 0 {
			first = valueSpan(&it)
		}
	}
	switch {
	case n == 0:
		return &problem{pathChoice, "/choices", "an OpenAI Chat Completions response with no choices"}
	case n > 1:
		return &problem{pathChoice, "/choices", "ambiguous: " + strconv.Itoa(n) +
			" choices, each with its own message: give the message of the one choice the host acts on"}
	}
	if doc[first.start] != '{' {
		return &problem{atChoice.path, atChoice.ptr, "choices/0 is " + jsonread.KindWithArticle(doc[first.start]) + ", not an object"}
	}
	ch := doc[first.start:first.end]
	walkTop(ch, t)
	if pr := variantProblem(t); pr != nil {
		return atChoice.problem(pr)
	}
	if cm := callMember(t); cm != "" {
		return atChoice.problem(&problem{[]string{cm}, "/" + cm, "ambiguous: a tool call's " + cm + " member in a choice"})
	}
	msg := t.msg.message
	switch {
	case !msg.found():
		return &problem{atChoice.path, atChoice.ptr, "no message member in choices/0 (a streaming chunk's choice has a delta instead)"}
	case ch[msg.start] != '{':
		return &problem{choicePlaces.self.path, choicePlaces.self.ptr, "message is " + jsonread.KindWithArticle(ch[msg.start]) + ", not an object"}
	}
	ms := span{first.start + msg.start, first.start + msg.end}
	walkTop(doc[ms.start:ms.end], t)
	if pr := variantProblem(t); pr != nil {
		return choicePlaces.self.problem(pr)
	}
	inner := t.msg
	if cm := callMember(t); cm != "" {
		return choicePlaces.self.problem(&problem{[]string{cm}, "/" + cm, "ambiguous: a tool call's " + cm + " member in a choice's message"})
	}
	if inner.choices.found() {
		return choicePlaces.self.problem(&problem{[]string{"choices"}, "/choices", "ambiguous: choices in a choice's message"})
	}
	return objectMessage(doc, ms, &choicePlaces, s, m, t, &inner)
}

// objectMessage finds the list of the message object at obj in doc, whose
// members mm and t hold (their spans relative to obj), placed at pl: the
// input's top level, or (choicePlaces) a Chat Completions response's
// message, which must be a Chat Completions message.
func objectMessage(doc []byte, obj span, pl *places, s Shape, m *msgLoc, t *topLevel, mm *msgMembers) *problem {
	pr := objectList(doc[obj.start:obj.end], pl, m, t, mm)
	if pr == nil && s != ShapeAuto && s != families[m.fam].shape {
		return &problem{pathTop, "", "not " + msgShapeWhat[s] + ": the input reads as " + m.what}
	}
	if pr != nil && pl == &choicePlaces {
		return pl.self.problem(pr)
	}
	if pr == nil {
		m.list = span{obj.start + m.list.start, obj.start + m.list.end}
	}
	return pr
}

// objectList is objectMessage in obj, the message object: problems and
// m.list are relative to it.
func objectList(obj []byte, pl *places, m *msgLoc, t *topLevel, mm *msgMembers) *problem {
	inChoice := pl == &choicePlaces
	present := func(s span) bool { return s.found() && obj[s.start] != 'n' }
	typ := t.flat.typ // before carries walks other objects with t
	contentArray := present(mm.content) && obj[mm.content.start] == '['
	var list span
	var place *at
	switch {
	case present(mm.output):
		for _, o := range [...]struct {
			s    span
			name string
		}{{mm.toolCalls, "tool_calls"}, {mm.functionCall, "function_call"}, {mm.content, "content"}} {
			if present(o.s) {
				return &problem{[]string{"output"}, "/output", "ambiguous: output (OpenAI Responses) beside " + o.name}
			}
		}
		if inChoice {
			return &problem{[]string{"output"}, "/output", "ambiguous: output (OpenAI Responses) in a Chat Completions message"}
		}
		if pr := valueIs(obj, mm.object, "object", `"response"`); pr != nil {
			return pr
		}
		m.fam, m.what, list, place = famResponses, "an OpenAI Responses response", mm.output, &pl.output
	case mm.toolCalls.found() || mm.functionCall.found() || inChoice:
		if present(mm.toolCalls) && present(mm.functionCall) {
			return &problem{[]string{"function_call"}, "/function_call", "ambiguous: both tool_calls and function_call"}
		}
		if contentArray && carries(obj, mm.content, t) {
			return &problem{[]string{"content"}, "/content", "ambiguous: content holds a call beside tool_calls"}
		}
		if pr := valueIs(obj, mm.role, "role", `"assistant"`); pr != nil {
			return pr
		}
		m.what = "an OpenAI Chat Completions assistant message"
		if inChoice {
			m.what = "an OpenAI Chat Completions response"
		}
		switch {
		case present(mm.functionCall):
			m.fam, list, place = famFunction, mm.functionCall, &pl.functionCall
		case present(mm.toolCalls):
			m.fam, list, place = famChat, mm.toolCalls, &pl.toolCalls
		case mm.toolCalls.found():
			return &problem{[]string{"tool_calls"}, "/tool_calls", m.what + " with no tool calls"}
		case mm.functionCall.found():
			return &problem{[]string{"function_call"}, "/function_call", m.what + " with no tool calls"}
		default:
			return &problem{pathTop, "", m.what + " with no tool calls: " + memberList(obj)}
		}
	case contentArray:
		if pr := valueIs(obj, typ, "type", `"message"`); pr != nil {
			return pr
		}
		if pr := valueIs(obj, mm.role, "role", `"assistant"`); pr != nil {
			return pr
		}
		m.fam, m.what, list, place = famAnthropic, "an Anthropic message", mm.content, &pl.content
	default:
		if pr := valueIs(obj, mm.role, "role", `"assistant"`); pr != nil {
			return pr
		}
		return &problem{pathTop, "", "an assistant message with no tool calls: " + memberList(obj)}
	}
	want, wantKind := byte('['), "an array"
	if m.fam == famFunction {
		want, wantKind = '{', "an object"
	}
	if obj[list.start] != want {
		name := place.path[len(place.path)-1]
		return &problem{[]string{name}, "/" + name, name + " is " + jsonread.KindWithArticle(obj[list.start]) + ", not " + wantKind}
	}
	m.list, m.at = list, *place
	return nil
}

// carries reports whether the array at a in obj (a Chat Completions
// message's content) holds an item a reader could take for a call: one
// whose type is a call's (or folds equal to one), or one with a member
// whose name folds equal to one a call or message is read from.
func carries(obj []byte, a span, t *topLevel) bool {
	for it := jsonread.Array(obj, a.start); it.Elem(); {
		el := it.Value()
		if el[0] != '{' {
			continue
		}
		walkTop(el, t)
		if t.variant != "" || t.msg.variant != "" {
			return true
		}
		if typ := t.flat.typ; typ.found() && el[typ.start] == '"' && callType(el[typ.start+1:typ.end-1]) {
			return true
		}
	}
	return false
}

// valueIs reports a member name at s in doc whose value is not want (a
// canonical JSON string); an absent member is no problem.
func valueIs(doc []byte, s span, name, want string) *problem {
	if !s.found() || string(doc[s.start:s.end]) == want {
		return nil
	}
	return &problem{[]string{name}, "/" + name, name + " is " + quoted(doc, s) + ", not " + want}
}

// locateList finds the family of the bare array doc: that of its first
// item that is a call (a tool_use block, a function_call or other
// Responses call item, a tool_calls entry). A JSON-RPC request among the
// items before it makes the array a batch, which MCP no longer has.
func locateList(doc []byte, s Shape, m *msgLoc, t *topLevel) *problem {
	var fam family
	it := jsonread.Array(doc, 0)
	for n := 0; fam == 0 && it.Elem(); n++ {
		el := it.Value()
		if el[0] != '{' {
			continue
		}
		walkTop(el, t)
		if t.method.found() || t.jsonrpc.found() || t.wrapper == wrapParams || t.wrapper == wrapGateway {
			i := strconv.Itoa(n)
			return &problem{[]string{i}, "/" + i, "a JSON-RPC batch, which MCP removed in its 2025-06-18 revision: give each tools/call request on its own"}
		}
		typ := t.flat.typ
		switch {
		case !typ.found():
			if t.wrapper == wrapFunction {
				fam = famChat
			}
		case el[typ.start] != '"':
		case string(el[typ.start:typ.end]) == `"tool_use"`:
			fam = famAnthropic
		case typeIn(el[typ.start+1:typ.end-1], chatTypes):
			fam = famChat
		case string(el[typ.start:typ.end]) == `"function_call"` || typeIn(el[typ.start+1:typ.end-1], responsesHostCalls):
			fam = famResponses
		}
	}
	if fam == 0 {
		if len(doc) == 2 {
			return &problem{pathTop, "", "an empty JSON array, with no tool calls"}
		}
		return &problem{pathTop, "", "a JSON array with no tool calls: none of its items is a tool_use block, a function_call item or a tool_calls entry"}
	}
	m.fam, m.what, m.list, m.at = fam, families[fam].list, span{0, len(doc)}, topPlaces.self
	if s != ShapeAuto && s != families[fam].shape {
		return &problem{pathTop, "", "not " + msgShapeWhat[s] + ": the input reads as " + m.what}
	}
	return nil
}

// item reads el, an item of a message's list of family fam: it reports
// whether el is a call, and locates it in loc, or refuses it.
func item(el []byte, fam family, s Shape, loc *located, t *topLevel) (call bool, pr *problem) {
	fi := &families[fam]
	if el[0] != '{' {
		return false, &problem{pathTop, "", fi.item + " is " + jsonread.KindWithArticle(el[0]) + ", not an object"}
	}
	walkTop(el, t)
	if pr := variantProblem(t); pr != nil {
		return false, pr
	}
	typ := t.flat.typ
	var v []byte // the type's string body
	if typ.found() {
		if el[typ.start] != '"' {
			return false, &problem{[]string{"type"}, "/type", "type is " + jsonread.KindWithArticle(el[typ.start]) + ", not a string"}
		}
		v = el[typ.start+1 : typ.end-1]
	}
	switch fam {
	case famChat:
		if typ.found() && string(v) != "function" {
			return false, typeProblem(el, typ, `"function"`)
		}
		if t.wrappers == 0 {
			return false, &problem{pathTop, "", "no function member (the call) in a tool_calls entry"}
		}
	case famAnthropic:
		switch {
		case !typ.found():
			return false, &problem{pathTop, "", "a content block with no type member"}
		case string(v) == "tool_use":
		case callType(v):
			return false, &problem{[]string{"type"}, "/type", "type is " + quoted(el, typ) + `: a call's type, but not "tool_use"`}
		default:
			return false, nil // text, thinking, and the calls Anthropic runs itself
		}
	case famResponses:
		switch {
		case !typ.found():
			return false, &problem{pathTop, "", "an output item with no type member"}
		case string(v) == "function_call":
		case typeIn(v, responsesSkip):
			return false, nil
		case typeIn(v, responsesHostCalls):
			return false, &problem{[]string{"type"}, "/type", "type is " + quoted(el, typ) + ": a call the host runs that is not a function call, which no act binds"}
		default:
			return false, &problem{[]string{"type"}, "/type", "type is " + quoted(el, typ) +
				", an output item this reader does not know: refused, as it may be a call the host runs"}
		}
	}
	if pr := locateTop(el, s, loc, t, true); pr != nil {
		return false, pr
	}
	if loc.form != fi.form {
		return false, &problem{pathTop, "", fi.item + " that reads as " + forms[loc.form].what}
	}
	return true, nil
}

// AppendMessage appends to dst the act of every tool call in src, in
// order, and returns the extended slice. src is an assistant message or a
// model response that holds calls, or a bare array of them, in shape s
// (ShapeAuto: any; see the package documentation, # Messages):
//
//   - an OpenAI Chat Completions assistant message (its tool_calls, or
//     its legacy function_call), or a whole response with one choice;
//   - an Anthropic message (its tool_use content blocks), or a whole
//     Messages API response;
//   - an OpenAI Responses API response (its function_call output items);
//   - the bare array of tool_calls entries, content blocks or output
//     items of one of those.
//
// Each call is read as [Parser.ParseInto] reads the same object on its
// own, and its Act is the one ParseInto would store; only the message's
// members that a vendor's decoder reads are read. A message with no call,
// an item that may be a call no act binds, and every problem of a call are
// refused with an *[Error] whose Pointer and Offset are in src (the third
// tool_calls entry's arguments string is "/tool_calls/2/function/arguments").
// One call given on its own is refused with [ErrShape]: read it with
// ParseInto.
//
// The Acts in dst's spare capacity, dst[len(dst):cap(dst)], are rewritten
// as ParseInto rewrites an Act, reusing their memory: once warm, with
// room in dst and the tool names of the previous calls, AppendMessage
// allocates nothing for input the strict profile accepts as a whole. src
// must not overlap the Canonical of those Acts. On an error the result is
// dst itself, its length unchanged; the Acts in its spare capacity may
// have been rewritten.
func (p *Parser) AppendMessage(dst []Act, src []byte, s Shape) ([]Act, error) {
	doc, wrapped, err := p.start(src, s)
	if err != nil {
		return dst, err
	}
	var m msgLoc
	if pr := locateMessage(doc, s, &m, &p.top); pr != nil {
		return dst, shapeProblem(src, pr)
	}
	var rawList span
	if wrapped {
		var ok bool
		if rawList, ok = findTop(src, m.at.path); !ok {
			return dst, fmt.Errorf("act: internal error: %q found in the canonical form but not in the input", m.at.ptr)
		}
	}
	n := len(dst)
	if m.fam == famFunction {
		dst, err = p.appendItem(dst, src, doc[m.list.start:m.list.end], wrapped, rawList, &m.at, m.fam, s)
	} else {
		var raw jsonread.TextArray
		if wrapped {
			raw = jsonread.OpenTextArray(src, rawList.start)
		}
		w := m.at
		w.indexed = true
		for it := jsonread.Array(doc, m.list.start); it.Elem(); w.idx++ {
			var rawEl span
			if wrapped {
				if !raw.Next() {
					err = fmt.Errorf("act: internal error: %q has fewer items in the input than in its canonical form", m.at.ptr)
					break
				}
				rawEl.start, rawEl.end = raw.Value()
			}
			if dst, err = p.appendItem(dst, src, it.Value(), wrapped, rawEl, &w, m.fam, s); err != nil {
				break
			}
		}
	}
	if err != nil {
		return dst[:n], err
	}
	if len(dst) == n {
		return dst, shapeProblem(src, &problem{m.at.path, m.at.ptr, m.what + " with " + families[m.fam].none})
	}
	return dst, nil
}

// appendItem appends the act of the item el of a message's list to dst,
// if it is a call: see item. w places el in the input; rawEl is its span
// in src when wrapped.
func (p *Parser) appendItem(dst []Act, src, el []byte, wrapped bool, rawEl span, w *at, fam family, s Shape) ([]Act, error) {
	var loc located
	call, pr := item(el, fam, s, &loc, &p.top)
	if pr != nil {
		return dst, shapeProblem(src, w.problem(pr))
	}
	if !call {
		return dst, nil
	}
	var r parsed
	out, err := p.actOf(p.out[:0], src, el, &loc, wrapped, rawEl, w, &r)
	p.out = out[:0]
	if err != nil {
		return dst, err
	}
	if len(dst) < cap(dst) {
		dst = dst[:len(dst)+1]
	} else {
		dst = append(dst, Act{})
	}
	p.fill(&dst[len(dst)-1], out, &r)
	return dst, nil
}

// ParseMessage returns the acts of the tool calls in the message src, in
// shape s (ShapeAuto: any), binding server ("" for none): the one-shot form
// of [Parser.AppendMessage] with [Parser.Server] set to server. It is safe
// for concurrent use.
func ParseMessage(src []byte, s Shape, server string) ([]Act, error) {
	p := getParser(server)
	acts, err := p.AppendMessage(nil, src, s)
	putParser(p)
	if err != nil {
		return nil, err
	}
	return acts, nil
}
