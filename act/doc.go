// Package act turns a model's tool call into the act a gate binds: one
// canonical JSON object, and its SHA-256 digest, for the same logical call
// whichever vendor's shape it arrived in.
//
// A tool call a model emits is not yet an invocation. Before the host
// dispatches it, the gate (package gate) reads the call into its act,
// digests it, and allows the call only with a verified authority for that
// digest. This package is the first step: [Parse] (or a reusable
// [Parser]) reads an Anthropic tool_use block, an OpenAI tool call or an
// MCP tools/call request into an [Act], and [ParseMessage] (or
// [Parser.AppendMessage]) reads every call of an assistant message or a
// model response into one Act each (# Messages).
//
// # The act
//
// The canonical act is the JCS form (RFC 8785, under the strict profile of
// package canon unless the act is made under rfc8785: # Profiles) of the
// object
//
//	{"act":"tool_call/v1","arguments":{…},"server":"<id>","tool":"<name>"}
//
// with its members in that (sorted) order and no whitespace:
//
//   - act is the fixed type and version tag [Tag], "tool_call/v1". It keeps
//     an act digest apart from the digest of any other document: no
//     arguments object, envelope or receipt digests to an act digest.
//   - arguments is the call's arguments, always a JSON object: Anthropic's
//     input, the JSON text an OpenAI arguments string holds, MCP's
//     params.arguments. Absent (Anthropic, MCP) is {}. Anything that is not
//     an object (null, an array, a string for Anthropic or MCP, an OpenAI
//     string whose text is not an object) is refused, never repaired.
//   - profile is "rfc8785" in an act made under the rfc8785 profile, and
//     absent in an act made under the strict profile (the default), whose
//     bytes are therefore those of every act before profiles were added.
//   - server is the server identity the host configures ([Parser.Server],
//     the server argument of [Parse] and [New]); it is absent when none is
//     configured, and never read from the call.
//   - tool is the tool's name, a non-empty string.
//
// [Act.Digest] is SHA-256 over those bytes, written "sha256:" and 64
// lowercase hex digits (hashing.Digest). The canonical bytes are exactly
// what an envelope option's action is: envelope.BuildOption{Action:
// a.Canonical} gives an action_digest equal to a.Digest, and
// envelope.Verify(env, res, a.Canonical) checks a resolution against the
// act. [Act.ArgumentsDigest], SHA-256 of the canonical arguments object
// alone, is the arguments_digest of a receipt.
//
// Only the tool name and the arguments (and the configured server) are
// bound. Request and call ids (id, call_id), type, status, _meta and any
// other member never change the digest, so a retry keeps its digest.
//
// # The strict profile, and how to pass other values
//
// By default (the zero [Parser], [Parse], [ParseMessage], [New]) the act
// goes through canon's strict profile
// (draft-morrison-binding-moment-envelope-04 §6.3, which §5.6 applies to
// actions): no duplicate member names, also after escapes are decoded; no
// unpaired surrogates; a number only when its exact value is an integer of
// magnitude at most 2^53-1 (1.0, 1e2 and -0 are read as 1, 100 and 0; 1.5,
// 1e400 and 9007199254740992 are refused); nesting at most 64 levels. The act object
// is level 1 and its arguments level 2, so the arguments nest at most 63
// levels of their own ([MaxArgumentsDepth]).
//
// A tool whose arguments hold other numbers takes them in another form,
// which the host and the tool agree on: an amount in minor units as an
// integer ("amount_cents": 1999 rather than "amount": 19.99), or a decimal
// as a string ("ratio": "0.25"). A call that carries 19.99 is refused with
// class non-integer: it is the model's output that must change, never the
// gate's reading of it, unless the host reads that tool's acts under the
// rfc8785 profile (# Profiles).
//
// # Profiles
//
// [Parser.Profile] reads acts under canon.RFC8785 instead: the arguments
// may hold any number RFC 8785 takes (a finite IEEE-754 double after
// correct rounding, written as ECMAScript writes it: 47.37, 1.5, 1e+21;
// 9007199254740993 is read as 9007199254740992, 1e400 refused as
// number-range) and nest [MaxArgumentsDepthRFC8785] (999) levels of their
// own, which in place, not in an OpenAI string, the input's 1000 levels
// bound, the levels around the arguments (a message's, say) included.
// Duplicate names, invalid UTF-8 and unpaired surrogates are refused as
// under strict. [Parser.ProfileOf] chooses the profile per call, by the
// tool's name: the name is read before the arguments, so a gate reads
// each tool's acts under the profile its policy gives that tool (package
// gate, Policy.NumberProfiles). [Act.Profile] is the profile an act was
// made under.
//
// The act records its profile: an act made under rfc8785 has the member
//
//	{"act":"tool_call/v1","arguments":{"lat":47.37},"profile":"rfc8785","tool":"geo"}
//
// and an act made under strict has none, so no act made under rfc8785
// has the bytes, or the digest, of any act made under strict, even for
// arguments that are integers only (FuzzProfiles holds it). The arguments
// object, and [Act.ArgumentsDigest], do not depend on the profile: both
// profiles write a value that the strict one takes the same way.
//
// An rfc8785 act is no action for an envelope: the envelope draft (§5.6,
// §6.3) requires an action, whose digest an option's action_digest is, to
// be in the strict profile, and a fraction is not. So a call that needs
// authority is read under the strict profile; package gate refuses a
// policy that would read such a call under rfc8785.
//
// # Shapes
//
// A call is read in one of these forms. [ShapeAuto] recognises every one;
// an explicit [Shape] accepts only its own, and refuses any other with
// [ErrShape] rather than guess.
//
// [ShapeAnthropic], an Anthropic Messages API tool_use content block:
//
//	{"type":"tool_use","id":"toolu_…","name":"book_hotel","input":{…}}
//
// [ShapeOpenAI], an OpenAI Chat Completions tool_calls entry, its function
// object, or a Responses API function_call item, whose arguments is a JSON
// string holding the arguments' JSON text:
//
//	{"id":"call_…","type":"function","function":{"name":"book_hotel","arguments":"{\"city\":…}"}}
//	{"name":"book_hotel","arguments":"{\"city\":…}"}
//	{"type":"function_call","id":"fc_…","call_id":"call_…","name":"book_hotel","arguments":"{…}","status":"completed"}
//
// The string is decoded and its text put through the strict gate like any
// other arguments: the string itself is never hashed, so "{\"a\":1}" and
// "{ \"a\" : 1 }" (and the same text written with \u escapes) give one act.
//
// [ShapeMCP], an MCP tools/call JSON-RPC request, its params, or the
// request as docker/mcp-gateway hands it to an interceptor: its Go struct
// marshalled without JSON tags (older releases), or {"method","params"}
// (newer ones):
//
//	{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"book_hotel","arguments":{…},"_meta":{…}}}
//	{"name":"book_hotel","arguments":{…},"_meta":{…}}
//	{"Params":{"name":"book_hotel","arguments":{…}},"Session":{},"Extra":{…}}
//
// The call object (the one holding the name and the arguments) is the top
// level, or the object value of exactly one of function (OpenAI chat),
// params (MCP request) and Params (docker/mcp-gateway). The rules, in
// order:
//
//   - The input is a JSON object. Two of function, params and Params, or
//     one of them beside a top-level name, arguments, input or args, is
//     ambiguous and refused.
//   - With function: type, if present, is "function"; the call is
//     OpenAI. With params: method, if present, is "tools/call"; the call
//     is MCP. With Params: MCP. A method or jsonrpc member is refused
//     everywhere but beside params.
//   - At the top level: type "tool_use" is Anthropic (an arguments member
//     beside it is refused), type "function_call" is OpenAI Responses (an
//     input member is refused), any other type is refused (a
//     server_tool_use or custom tool call is not a call the host runs).
//     Without type: input is Anthropic (input and arguments together are
//     refused), a string arguments is OpenAI, and anything else is MCP
//     params, whose arguments, when present, must be an object.
//   - The tool name is the call object's name member, a non-empty string
//     of at most MaxToolName (256) bytes.
//   - The call object carries its arguments in one member: input
//     (Anthropic) or arguments (OpenAI, MCP). Beside it, the other one, and
//     args (Gemini's functionCall and LangChain's tool calls carry their
//     arguments there), are refused, in the top level and in function,
//     params and Params alike: no vendor's decoder of the form reads them,
//     but a host that reads several vendors' calls through one struct
//     ({Name, Input, Arguments}) would run those arguments, not the ones
//     bound (foldErrCases and foldMessageErrCases, in TestErrors and
//     TestMessageErrors, hold each refusal to its pointer and offset).
//     OpenAI arguments are required; Anthropic input and MCP arguments
//     may be absent ({}).
//   - No member of the call object or its wrapper may have a name that is
//     a spelling of one of the names read (# Member names): Name beside
//     name, ARGUMENTS, Function, paramſ, tool-calls. docker/mcp-gateway's
//     Params is a wrapper of its own, and refused beside params.
//
// Any other member of the input, at any depth, is read only to check it
// (below) and never bound. An object that is none of these forms is
// refused with the names of its members; one that is a message (below),
// or a JSON array, is refused with [ErrMessage] beside ErrShape.
//
// # Messages
//
// [Parser.AppendMessage] and [ParseMessage] read a message that holds
// calls, and return the act of every call in it, in order:
//
//	{"role":"assistant","content":null,"tool_calls":[{…},{…}]}       OpenAI Chat Completions message
//	{"role":"assistant","function_call":{"name":…,"arguments":"…"}}  its legacy form: one call
//	{"id":…,"object":"chat.completion","choices":[{"message":{…}}]}  a Chat Completions response
//	{"role":"assistant","content":[{"type":"text",…},{"type":"tool_use",…}]}  Anthropic message
//	{"id":…,"type":"message","role":"assistant","content":[…]}       a Messages API response
//	{"id":…,"object":"response","output":[{"type":"function_call",…}]}  OpenAI Responses response
//	[{…},{…}]                                                        the bare list of one of those
//
// Each call is read exactly as the same object given on its own, under
// the rules above, with the [Shape] of its form; a problem in it is
// reported at its place in the message ("/tool_calls/2/function/arguments"
// for the third tool_calls entry's arguments string). What a message is,
// and where its calls are, is decided by its top-level members, as a
// vendor's decoder reads them:
//
//   - choices: a Chat Completions response, with exactly one choice (of
//     several, which one the host acts on is its choice: refused as
//     ambiguous), whose message is read as a Chat Completions message;
//     object, if present, is "chat.completion" (a streaming chunk, whose
//     calls come in pieces, is refused).
//   - output: a Responses response; object, if present, is "response".
//     Its function_call items are the calls. The items the host does not
//     run (message, reasoning, and the calls OpenAI runs itself:
//     web_search_call, file_search_call, code_interpreter_call,
//     image_generation_call, mcp_call, mcp_list_tools,
//     mcp_approval_request) are skipped. Every other item is refused: the
//     calls the host runs that no act binds (custom_tool_call,
//     computer_call, local_shell_call, shell_call, apply_patch_call), and
//     any type this version does not know, as it may be such a call.
//   - tool_calls, or function_call: a Chat Completions message. Every
//     tool_calls entry is a call, with type "function" if present (a
//     custom tool call is refused); null or [] holds none. Its content
//     (text, or an array of text parts) is not read.
//   - content, an array: an Anthropic message; type, if present, is
//     "message". Its tool_use blocks are the calls. Every other block is
//     text, thinking, or a call Anthropic runs itself (server_tool_use,
//     mcp_tool_use) or its result, and is skipped, since every call the
//     host runs is a tool_use block; but a block whose type is a spelling
//     of a call's (# Member names: Tool_Use, tool_uſe), or is another
//     vendor's call, is refused.
//   - role, if present, is "assistant".
//   - A bare JSON array is the list of one of those: its first item that
//     is a call (a tool_use block, a function_call or other Responses call
//     item, a tool_calls entry) decides which, and every item is read by
//     that list's rules. An array of JSON-RPC requests is refused: MCP
//     removed batching in its 2025-06-18 revision, so a tools/call request
//     is one call, which Parse reads.
//
// The rules of a call's wrapper apply to the message too. Two of output,
// tool_calls (or function_call), a content array holding a call-like item
// and choices are ambiguous, and so are tool_calls and function_call
// together; so is a member a call is read from (name, arguments, input,
// args, function, params, Params, method, jsonrpc) beside them, and a
// member whose name is a spelling (# Member names) of one a message or a
// call is read from (Tool_Calls, Content, a block's Type, tool_callſ), in
// the message, a choice, its message and every item. A content block
// whose type is a spelling of a call's type (Tool_Use, tool_uſe) is
// refused, not skipped. A message without a call is refused with what it
// holds ("an Anthropic message with no tool_use block"); one call given
// on its own is refused (Parse reads it).
// Everything else, at any depth, is read only to check it, under the
// rfc8785 profile, whose 1000 levels of nesting the message's own levels
// count toward.
//
// # Member names
//
// encoding/json matches a member to a struct field by its exact name, and
// failing that without case, by Unicode simple folding: ſ (U+017F) is an
// s and the Kelvin sign (U+212A) a k to it, so a host that decodes
// {"params":{…search…},"paramſ":{…pay…}} into a struct tagged params runs
// pay. encoding/json/v2 and go-json-experiment/json, told to match names
// without case, also ignore '_' and '-' (toolCalls and tool-calls are
// tool_calls to them). A member is therefore refused, with ErrShape, when
// its name, after its JSON escapes are decoded, is not one that act reads
// at its level but folds equal to one under the union of those rules
// (internal/jsonread's fold: '_' and '-' dropped, ASCII letters without
// case, every other rune the smallest of its case-fold orbit). The names of a
// call (name, arguments, input, args, type, function, params, Params,
// method, jsonrpc) are checked in every object act reads members of: a
// call's top level and its function, params or Params object, and the
// objects of a message (the message, a choice and its message, each
// item); the names of a message (choices, tool_calls, function_call,
// content, output, role, object, message) in the same objects but a
// call's function, params or Params, where no decoder looks for them. The
// folding is stricter than encoding/json v1 only where v2 is (the
// delimiters). The refusal names the member's pointer and the offset of
// its value. No name act reads holds a k, so the Kelvin sign spells none
// of them: a member "\u212Aind" (Kind) is accepted, and not bound.
//
// Tests hold the promise. TestFoldVariants adds a member at each level
// where names are read, spelled in every way jsonnametest.Variants makes
// of each name (case, ſ, the Kelvin sign, '_' and '-', look-alikes),
// raw and \u-escaped: a member encoding/json takes for a name read is
// refused, and exactly the spellings of names read are; the other members
// leave the act as it was. FuzzActVsEncodingJSON decodes the input with
// encoding/json into the vendors' structs (MCP request, params and
// docker/mcp-gateway request; Anthropic tool_use block and message; OpenAI
// tool_calls entry, function, Responses function_call item; Chat
// Completions message and response, Responses response, and the bare
// lists) and requires, whenever act accepts, the same tool names and
// canonical arguments. TestErrors and TestMessageErrors hold each refusal
// to its class, pointer and offset (foldErrCases, foldMessageErrCases).
// internal/jsonread's TestFoldVsEncodingJSON holds the rule to
// encoding/json v1 (and, under GOEXPERIMENT=jsonv2, to encoding/json/v2),
// and the fuzz module's TestFoldVsJSONExperiment and
// FuzzFoldVsJSONExperiment to go-json-experiment/json.
//
// # The wrapper
//
// Everything outside the arguments is read under canon's rfc8785 profile:
// ids may be any number, _meta and Extra may hold fractions or nest deeply.
// But a duplicate member name, invalid UTF-8, an unpaired surrogate or a
// syntax error anywhere in the input is refused, because an ambiguous
// wrapper could hide a second name or arguments that another reader would
// take.
//
// In the common case (a wrapper in the strict profile too, as ids that are
// integers or strings make it) the whole input takes one pass through the
// strict gate, and the act is written from the canonical bytes: JCS is
// compositional, so the canonical arguments are a span of the canonical
// input. Otherwise the input is read again under rfc8785, and the
// arguments alone under the strict profile (for an act in the rfc8785
// profile, the rfc8785 reading is the arguments' canonical form).
//
// # Errors
//
// A call that fails is refused with an *[Error]: its [Error.Class] is the
// canon.Class of a rejection by the canon gate (syntax, invalid-utf8,
// duplicate-name, unpaired-surrogate, non-integer, unsafe-integer,
// number-range, depth, too-large), or 0 for a refusal that wraps [ErrShape]
// (not one of the forms above, or not the Shape asked for), which messages
// name "shape" ([ClassShape]); with the JSON Pointer (RFC 6901) and byte
// offset of the offending value
// in the caller's input. Inside an OpenAI arguments string the offsets are
// those of the decoded text, not of the input: [Error.InString] is set,
// Pointer names the string member ("/function/arguments" or
// "/arguments", in a message "/tool_calls/2/function/arguments"), Offset
// counts bytes of the string's decoded text, and the
// *canon.Error in [Error.Err] has the pointer within that text. The
// messages may change between versions; the class names do not.
//
// # Memory and speed
//
// A [Parser] keeps its scratch memory (two strict canon.Canonicalizers,
// the rfc8785 ones it has needed, and buffers) between calls, under
// either profile and with ProfileOf: once warm, [Parser.Digest] does not
// allocate, and neither does [Parser.ParseInto] when the tool name is
// that of the Act's previous call, in every shape (an OpenAI string
// included) for input the strict profile accepts as a whole; a wrapper
// that only the rfc8785 profile accepts costs what canon allocates for
// the strict rejection it then discards. [Parser.AppendMessage] allocates
// nothing either, once warm, for such input when dst has room for the acts
// and its Acts past len(dst) hold the previous message's tool names. Input
// size is bounded by the strict profile's 256 MiB; memory stays linear in
// the input (a message's Acts each hold their own canonical act).
//
// # Concurrency
//
// A Parser is not safe for concurrent use; use one per goroutine, or
// [Parse], [ParseMessage] and [New], which draw Parsers from a pool. An Act is a value
// that nothing else holds: read it from any number of goroutines.
package act
