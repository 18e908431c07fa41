package mcpgate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bbdigest/bbdigest/gate"
)

// DecisionKey is the _meta member of a denied call's result that carries
// the decision's gate.Summary: {"allow":false,"reason":...,"detail":...,
// "receipt_seq":...,"receipt_digest":...}.
const DecisionKey = "dev.bbdigest/decision"

// Options adjusts a middleware or a gated tool. The zero value, or nil,
// takes the authority from _meta.
type Options struct {
	// Authority, if not nil, returns the authority for a call to the tool
	// name whose params carry meta, in place of reading meta[gate.MetaKey].
	// It returns nil for none. An error denies the call (no_authority).
	// Under Tool it is asked once per run of the handler.
	Authority func(ctx context.Context, name string, meta mcp.Meta) (*gate.Authority, error)
	// Decided, if not nil, is called with every decision, allow or deny,
	// before the call proceeds or is answered: the place to log.
	Decided func(ctx context.Context, d *gate.Decision)
}

// multiRoundTripVersion is the first protocol version on which the SDK
// leaves a tool's input request to the client, which answers it with a
// new tools/call; on earlier ones the SDK's serverMultiRoundTripMiddleware
// answers it inside the request and runs the handler again (go-sdk v1.8.0,
// mcp/mrtr.go, clientSupportsMultiRoundTrip).
const multiRoundTripVersion = "2026-07-28"

// serverGated marks the context under which Server lets a request through,
// so that Tool can tell a run the middleware has decided already.
type serverGated struct{}

// Server returns a receiving middleware that gates the tools/call requests a
// server receives from clients on protocol 2026-07-28 or later, and refuses
// those of earlier clients: see the package doc. o may be nil.
func Server(g *gate.Gate, o *Options) mcp.Middleware {
	k := newAsker(g, o)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			p, ok := params[*mcp.CallToolParamsRaw](req)
			if !ok {
				// Not the request the SDK makes for tools/call:
				// nothing to read an act from, so nothing passes.
				return decide(ctx, g, o, gate.Call{Src: []byte("null")}), nil
			}
			if why := rerunsInside(req); why != "" {
				return refusal(why + "; gate the server's tools with mcpgate.Tool"), nil
			}
			res, run := k.gateCall(ctx, req, p)
			if res != nil {
				return res, nil
			}
			if run != p {
				// The tool runs without the gate's question and answer.
				ss, _ := req.GetSession().(*mcp.ServerSession)
				req = &mcp.CallToolRequest{Session: ss, Params: run, Extra: req.GetExtra()}
			}
			return next(context.WithValue(ctx, serverGated{}, true), method, req)
		}
	}
}

// rerunsInside says why the SDK may run a tool's handler more than once
// inside req, past a receiving middleware, or returns "" when it runs it at
// most once. It reads the session's protocol version as the SDK does, except
// that a version not known yet (or no session) counts as one on which it
// may. The SDK reads the version again after this check, which is sound
// because a session's version only moves from unknown to known, and from
// before 2026-07-28 to 2026-07-28 or later, never back (go-sdk v1.8.0:
// initialize sets it only where none is; a discover request, or a request
// of the new protocol, sets one of 2026-07-28 or later): a session this
// check passes is one on which the SDK runs the handler once.
func rerunsInside(req mcp.Request) string {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return "the request has no server session to read the client's protocol version from"
	}
	ip := ss.InitializeParams()
	switch {
	case ip == nil:
		return "the client's protocol version is not known yet"
	case ip.ProtocolVersion < multiRoundTripVersion:
		return fmt.Sprintf("the client speaks MCP %q, on which the SDK answers a tool's request for more input itself and runs the tool again inside this request, where this middleware cannot gate it", ip.ProtocolVersion)
	}
	return ""
}

// Tool returns h gated: every run of h is one decision of g, on the tool's
// name and the arguments that run is given (req.Params.Arguments, the raw
// bytes h reads), with the authority that run carries, and h runs only on
// an allow. A run that asks for more input and the run that follows with
// the answer are two decisions: see the package doc. o may be nil.
func Tool(g *gate.Gate, o *Options, h mcp.ToolHandler) mcp.ToolHandler {
	k := newAsker(g, o)
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if ctx.Value(serverGated{}) != nil {
			// Server decided this request already, and consumed its
			// authority if it took one: a second decision would deny
			// it as consumed. One of the two gates a server.
			return refusal("the call passed mcpgate.Server already; gate a server with mcpgate.Server or with mcpgate.Tool, not both"), nil
		}
		if req == nil || req.Params == nil {
			return decide(ctx, g, o, gate.Call{Src: []byte("null")}), nil
		}
		res, run := k.gateCall(ctx, req, req.Params)
		if res != nil {
			return res, nil
		}
		if run != req.Params {
			// The tool runs without the gate's question and answer.
			r := *req
			r.Params = run
			req = &r
		}
		return h(ctx, req)
	}
}

// Client returns a sending middleware that gates the tools/call requests a
// client sends: it encodes the arguments once, gates those bytes and sends
// those bytes. o may be nil.
func Client(g *gate.Gate, o *Options) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			p, ok := params[*mcp.CallToolParams](req)
			cs, _ := req.GetSession().(*mcp.ClientSession)
			if !ok || cs == nil {
				return decide(ctx, g, o, gate.Call{Src: []byte("null")}), nil
			}
			args, err := json.Marshal(p.Arguments)
			if err != nil || p.Arguments == nil {
				args = []byte("null") // unencodable: the gate denies it
			}
			call := gate.Call{Tool: p.Name, Arguments: args}
			authorize(ctx, o, p.Name, p.Meta, &call)
			if deny := decide(ctx, g, o, call); deny != nil {
				return deny, nil
			}
			// Send the bytes the gate read, in a copy of the params:
			// the host's are its own, and the SDK would encode its
			// Arguments again, perhaps into another act.
			sent := *p
			sent.Arguments = json.RawMessage(args)
			res, err := next(ctx, method, &mcp.ClientRequest[mcp.Params]{Session: cs, Params: gatedParams{&sent}})
			// The SDK says so only in its error's text. Should that
			// text change, its error still reaches the host, and
			// nothing is sent again either way.
			if err != nil && strings.Contains(err.Error(), fmt.Sprintf("unsupported params type %T", gatedParams{})) {
				return refusal("the server asks for more input (or to call again), and the SDK would send this call again past the gate; set ClientOptions.MultiRoundTrip.Disabled, and call again with the answers (CallToolParams.InputResponses), with an authority of its own"), nil
			}
			return res, err
		}
	}
}

// gatedParams are the params Client sends: they encode as the
// *mcp.CallToolParams they hold, but their type is not one the SDK's
// multi-round-trip middleware, which NewClient installs inside every sending
// middleware, can copy into a retry (go-sdk v1.8.0, mcp/mrtr.go,
// setMultiRoundTripRetryParams). So a call the gate allowed is sent once:
// an input request from the server fails that retry, and Client answers it
// with a refusal, where the SDK would have sent the call again ungated.
type gatedParams struct{ *mcp.CallToolParams }

// params returns req's params as a P, if they are one and not nil. The SDK
// makes a server's tools/call request a *mcp.CallToolRequest and a client's
// a *mcp.ClientRequest[mcp.Params], so the params are read through the
// interface rather than by the request's type.
func params[P interface {
	*mcp.CallToolParamsRaw | *mcp.CallToolParams
}](req mcp.Request) (P, bool) {
	if req == nil {
		return nil, false
	}
	p, ok := req.GetParams().(P)
	return p, ok && p != nil
}

// authorize sets call's authority from o's function or from meta.
func authorize(ctx context.Context, o *Options, name string, meta mcp.Meta, call *gate.Call) {
	if o != nil && o.Authority != nil {
		a, err := o.Authority(ctx, name, meta)
		switch {
		case err != nil:
			call.AuthorityErr = err
		case a != nil:
			call.Authority = a
		}
		return
	}
	v, ok := meta[gate.MetaKey]
	if !ok {
		return
	}
	raw, err := json.Marshal(v)
	if err != nil {
		raw = []byte("null")
	}
	call.AuthorityJSON = raw
}

// decide runs the gate on call and returns nil on an allow, else the deny's
// tool error.
func decide(ctx context.Context, g *gate.Gate, o *Options, call gate.Call) *mcp.CallToolResult {
	d := g.Authorize(ctx, call)
	if o != nil && o.Decided != nil {
		o.Decided(ctx, &d)
	}
	if d.Allow {
		return nil
	}
	return DenyResult(&d)
}

// DenyResult is the tool error that answers a denied call: its text is the
// decision's Message (reason, detail, receipt), and its _meta[DecisionKey]
// the decision's fields.
func DenyResult(d *gate.Decision) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Meta:    mcp.Meta{DecisionKey: d.Summary()},
		Content: []mcp.Content{&mcp.TextContent{Text: "bbdigest gate: " + d.Message()}},
		IsError: true,
	}
}

// refusal is the tool error that answers a call the package will not let
// run, or run again, because it could not gate that run: "bbdigest gate:
// refused: " and why. It carries no decision of its own, so no _meta.
func refusal(why string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: "bbdigest gate: refused: " + why}},
		IsError: true,
	}
}
