// Package mcpgate puts a gate.Gate in front of the tools of the official MCP
// Go SDK (github.com/modelcontextprotocol/go-sdk, v1.8.0): every run of a
// tool passes the gate first, and a call the gate denies never reaches the
// tool.
//
// # On a server
//
// Tool gates a tool's handler, and is the server-side gate for every
// protocol version:
//
//	srv.AddTool(&mcp.Tool{Name: "pay", InputSchema: schema}, mcpgate.Tool(g, nil, pay))
//
// Each run of the handler is one decision, on the tool's name and the
// arguments that run is given (CallToolParamsRaw.Arguments: the raw bytes,
// with no decode and re-encode, which are what the handler reads), with the
// authority that run carries; the handler runs only on an allow
// (TestTool). Tool takes a plain mcp.ToolHandler, which decodes its own
// arguments; it does not wrap the typed handlers of mcp.AddTool.
//
// Server returns a receiving middleware, one line for a whole server:
//
//	srv.AddReceivingMiddleware(mcpgate.Server(g, nil))
//
// It decides each tools/call request before the SDK dispatches it, reading
// the arguments as the SDK received them, as Tool does. A request is one
// run of the handler only when the client speaks protocol 2026-07-28 or
// later. On earlier versions (2025-06-18, 2025-11-25, ...) the SDK answers a
// tool's request for more input itself: its multi-round-trip middleware,
// which NewServer installs before any middleware is added and which so
// runs inside every one of them, asks the client and runs the handler a
// second time, with the client's answer, inside the request the middleware
// decided. The middleware cannot see that run. So on such a session, and on
// a session whose protocol version it cannot read (not initialized yet, or
// no session), Server refuses every tools/call before the gate, with a tool
// error "bbdigest gate: refused: ..." that says why and names Tool:
// nothing is decided, nothing receipted, no authority consumed, and the
// tool is not called (TestServerMultiRoundTrip, TestServerUnknownProtocol).
// Use Tool there. Use Server or Tool, not both: a run under both is refused
// (TestServerAndTool), since Server has consumed the authority Tool would
// need.
//
// # Tools that ask for more input
//
// Each run is its own decision, with its own receipt, and consumes its own
// authority (a tool below the policy's threshold needs none: each run is
// allowed on policy). A tool that asks for more input (a result with
// InputRequests) runs again with the answer, and that run needs an
// authority of its own: the first run consumed the one in _meta. Before 2026-07-28 the server SDK makes the
// second run's request from the first's params, _meta and all; from
// 2026-07-28 the client calls again, and the go-sdk client's automatic
// retry copies the params as well. Either way the second run presents the
// consumed authority, is denied as consumed (gate.ReasonConsumed), and the
// tool does not complete. A client that calls again with another authority
// in _meta, or Options.Authority, gives each run its own
// (TestToolMultiRoundTrip). The act binds the tool's name and its arguments, never the answer
// (InputResponses) or the request state: an authority for the act allows a
// run whatever they say, so give a later round its authority only where the
// answer can change nothing the principal approved.
//
// # Elicitation: asking the client's user
//
// With a gate that asks (gate.Config.Approvals), a call that needs
// authority and carries none is held, approval_pending, while a principal
// decides. Server and Tool can ask the MCP client's user instead, in the
// same tool call, when three things hold: the gate holds the call
// (approval_pending), the gate takes an elicited answer for the tool's
// class (gate.Gate.Elicits: the policy's elicitation member, by default
// READ_ONLY and ORDINARY only), and the client declared form elicitation
// (its capabilities: at initialization, or in the request's _meta from
// 2026-07-28). The question is a form: its message is the approval
// envelope's digest and text rendering (envelope.RenderText), its one
// field, DecisionField, a string whose enum is the envelope's options,
// "Allow this call once" and "Deny" (TestElicitAllow).
//
//   - From protocol 2026-07-28 the server may not send requests of its own,
//     so the middleware answers the call with an input request
//     (InputRequests under ApprovalInputKey, resultType input_required) and
//     a random request state that it keeps, once, for the policy's
//     MaxAuthorityAge; the client (the go-sdk client does this by itself)
//     asks its user and calls again with the answer. Before 2026-07-28
//     (Tool) the server sends elicitation/create inside the request.
//   - "Allow this call once" is handed to gate.Gate.AuthorizeElicited,
//     which allows the call once and consumes the envelope as a
//     principal's grant is consumed; the tool runs with params without the
//     gate's question and answer, and its receipt's channel is
//     "elicitation". "Deny", or a decline, denies the call,
//     approval_denied, and spends the request (TestElicitDeny).
//   - A cancel (the user dismissed the question), an answer outside the
//     enum, or a client that cannot be reached leaves the request pending
//     for a principal's signed decision: the call is approval_pending, and
//     its text says why; the user is not asked again in that call.
//   - A client without the capability is not asked: approval_pending, as
//     before. Nor is a client asked about a class the policy does not let
//     an elicited answer decide (by default FINANCIAL, PHYSICAL,
//     NETWORK_CONTROL, and every tool the policy does not name), and the
//     answer says so (TestElicitNotAsked).
//
// A call cannot claim an elicited answer: the gate takes one only from
// AuthorizeElicited, which this package calls after it asked, never from
// _meta; an answer under ApprovalInputKey whose request state this
// middleware did not give, or gave and took an answer for already, is
// ignored (TestElicitNotClaimed, TestElicitReplay). The questions live in
// the middleware's memory: an answer that reaches another process, or one
// restarted, is ignored, and the call is approval_pending.
//
// The rule of "Tools that ask for more input" holds: the user's Allow is
// the authority of one run. A call that carries an input round of another
// (a tool's answers and request state) is not asked, since the gate's
// input request would replace that state: its run stays approval_pending
// until a principal decides (TestElicitMultiRoundTrip).
//
// What an elicited answer proves is only that whoever controls the MCP
// client's interface chose: a person at the client, or code that answers
// for one (an agent runtime can answer its own elicitations). A principal's
// signed resolution (bbdigest approve grant, the approval page) proves that
// the holder of the principal's key decided. Hence the default, and the
// receipt's channel, which tells the two apart; see package gate, Channels.
//
// # On a client
//
// Client returns a sending middleware, for a host that calls tools on
// servers it does not run:
//
//	client := mcp.NewClient(impl, nil)
//	client.AddSendingMiddleware(mcpgate.Client(g, nil))
//
// It encodes the Go value the host passes to CallTool as Arguments once
// (encoding/json), gates those bytes, and sends those bytes, as a
// json.RawMessage in a copy of the params (the host's params are left as
// they were): the server receives the act the gate decided, even from a
// value that encodes differently each time, a stateful json.Marshaler or a
// map another goroutine changes (TestClientSendsGatedBytes).
//
// From protocol 2026-07-28 on, the client SDK answers a tool's request for
// more input itself: its multi-round-trip middleware, which NewClient
// installs inside every sending middleware, would call the host's
// elicitation, sampling or roots handlers and send the call again, past
// the gate. Client's params are of a type that middleware does not copy,
// so it cannot: the call fails there, and Client answers it with a tool
// error "bbdigest gate: refused: the server asks for more input ...". A
// host that serves such tools sets ClientOptions.MultiRoundTrip.Disabled,
// gets the input request back from CallTool (CallToolResult.NeedsInput),
// and calls again with the answers, a call the gate decides anew, with an
// authority of its own (TestClientMultiRoundTrip). Before 2026-07-28 the
// server asks the client's handlers through requests of its own, and the
// client sends nothing again; what a server does with an answer is its own
// gate's to decide.
//
// # Denials
//
// A denied call is answered with a tool error (CallToolResult with IsError
// set), whose text content gives the decision's reason and its receipt's
// sequence number and digest, and whose _meta carries the same under
// DecisionKey; the tool is not called (on a client, nothing is sent). A
// tools/call request the SDK did not make (other params) is denied as
// malformed (TestOtherRequests). Every other method passes through
// untouched.
//
// # Authority
//
// The authority for a call comes, by default, from its params' _meta under
// gate.MetaKey, in the JSON form gate.ParseAuthority reads; Options.Authority
// replaces that, and its error denies the call (TestAuthorityOption). The
// act digest never covers _meta.
//
// One Gate binds one server identity (gate.Policy.Server): a client-side
// gate for several servers, or a gateway in front of several, binds the
// same identity for all of them, so an authority for one server's tool fits
// another's tool of the same name and arguments; use a Gate per server
// where that matters.
package mcpgate
