// Package mcpgate puts a gate.Gate in front of the tools of the official MCP
// Go SDK (github.com/modelcontextprotocol/go-sdk): every tools/call passes
// the gate first, and a call the gate denies never reaches the tool.
//
// Server returns a receiving middleware, for a server's own tools:
//
//	srv := mcp.NewServer(impl, nil)
//	srv.AddReceivingMiddleware(mcpgate.Server(g, nil))
//
// It reads the tool's name and the arguments exactly as the SDK received
// them (CallToolParamsRaw.Arguments, the raw bytes, with no decode and
// re-encode), which are exactly what the tool handler will be given.
// Client returns a sending middleware, for a host that calls tools on
// servers it does not run:
//
//	client := mcp.NewClient(impl, nil)
//	client.AddSendingMiddleware(mcpgate.Client(g, nil))
//
// There the arguments are the Go value the host passes to CallTool: Client
// encodes it once (encoding/json), gates those bytes, and sends those bytes,
// as a json.RawMessage in a copy of the params (the host's params are left
// as they were), so the server receives the act the gate decided, even from
// a value that encodes differently each time, a stateful json.Marshaler or a
// map another goroutine changes (TestClientSendsGatedBytes).
//
// A denied call is answered with a tool error (CallToolResult with IsError
// set), whose text content gives the decision's reason and its receipt's
// sequence number and digest, and whose _meta carries the same under
// DecisionKey; the tool is not called (on a client, nothing is sent). Every
// other method passes through untouched.
//
// Two limits. A tool that asks for more input (an MCP multi-round-trip
// result, InputRequests) is called again by the client with a new
// tools/call; the gate sees a second call, and an authority consumed by the
// first does not cover it, so gate such tools below the threshold or give
// each round its own authority. And one Gate binds one server identity
// (gate.Policy.Server): a client-side gate for several servers, or a
// gateway in front of several, binds the same identity for all of them,
// so an authority for one server's tool fits another's tool of the same
// name and arguments; use a Gate per server where that matters.
//
// The authority for a call comes, by default, from its params' _meta under
// gate.MetaKey, in the JSON form gate.ParseAuthority reads; Options.Authority
// replaces that. The act digest never covers _meta.
package mcpgate

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bbdigest/bbdigest/gate"
)

// DecisionKey is the _meta member of a denied call's result that carries
// the decision's gate.Summary: {"allow":false,"reason":...,"detail":...,
// "receipt_seq":...,"receipt_digest":...}.
const DecisionKey = "dev.bbdigest/decision"

// Options adjusts a middleware. The zero value, or nil, takes the authority
// from _meta.
type Options struct {
	// Authority, if not nil, returns the authority for a call to the tool
	// name whose params carry meta, in place of reading meta[gate.MetaKey].
	// It returns nil for none. An error denies the call (no_authority).
	Authority func(ctx context.Context, name string, meta mcp.Meta) (*gate.Authority, error)
	// Decided, if not nil, is called with every decision, allow or deny,
	// before the call proceeds or is answered: the place to log.
	Decided func(ctx context.Context, d *gate.Decision)
}

// Server returns a receiving middleware that gates the tools/call requests a
// server receives. o may be nil.
func Server(g *gate.Gate, o *Options) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			var call gate.Call
			p, ok := params[*mcp.CallToolParamsRaw](req)
			if !ok {
				// Not the request the SDK makes for tools/call:
				// nothing to read an act from, so nothing passes.
				call.Src = []byte("null")
			} else {
				call.Tool, call.Arguments = p.Name, p.Arguments
				authorize(ctx, o, p.Name, p.Meta, &call)
			}
			if deny := decide(ctx, g, o, call); deny != nil {
				return deny, nil
			}
			return next(ctx, method, req)
		}
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
			return next(ctx, method, &mcp.ClientRequest[mcp.Params]{Session: cs, Params: &sent})
		}
	}
}

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
