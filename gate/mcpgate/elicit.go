package mcpgate

// This file asks the MCP client's user to approve a call the gate holds
// (approval_pending), through MCP elicitation, and hands the answer to the
// gate (gate.Gate.AuthorizeElicited): see the package doc, Elicitation.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/hashing"
)

// ApprovalInputKey is the key of the gate's question among a result's
// InputRequests, and of the client's answer among the InputResponses of
// the call that follows (protocol 2026-07-28 and later).
const ApprovalInputKey = "dev.bbdigest/approval"

// DecisionField is the one field of the gate's elicitation form: a string
// whose enum is the labels of the approval envelope's options, "Allow this
// call once" and "Deny".
const DecisionField = "decision"

// maxQuestions bounds the questions a middleware (or a gated tool) keeps
// asked and unanswered on protocol 2026-07-28 and later; past it, a call
// is not asked, and stays approval_pending.
const maxQuestions = 4096

// asker asks the MCP client's user about pending calls and decides the
// calls on the answers, for one Server middleware or one gated tool. On
// protocol 2026-07-28 and later it keeps each question it asked, by the
// random request state it gave the client, until the answer comes back.
type asker struct {
	g *gate.Gate
	o *Options

	mu    sync.Mutex
	asked map[string]question // by request state
}

// question is one question asked through a result's InputRequests.
type question struct {
	envelope hashing.Digest
	at       time.Time
}

func newAsker(g *gate.Gate, o *Options) *asker {
	return &asker{g: g, o: o, asked: make(map[string]question)}
}

// gateCall decides the tools/call req with params p, asking the client's
// user where the gate holds it for approval and the client can be asked.
// It returns the tool error or the input request that answers the call,
// or nil and the params to run the tool with: p without the gate's
// question and answer.
func (k *asker) gateCall(ctx context.Context, req mcp.Request, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, *mcp.CallToolParamsRaw) {
	call := gate.Call{Tool: p.Name, Arguments: p.Arguments}
	authorize(ctx, k.o, p.Name, p.Meta, &call)
	if _, answered := p.InputResponses[ApprovalInputKey]; answered {
		q, ok := k.take(p.RequestState)
		if !ok {
			// Not an answer to a question this gate asked: a call cannot
			// claim one. Decide the call as it is, and ask no one: it
			// carries an input round of its own.
			d := k.decide(ctx, call)
			if d.Allow {
				return nil, stripped(p)
			}
			return note(DenyResult(&d), "the call carries an answer under "+ApprovalInputKey+" that answers no question this gate asked (or asked so long ago that it forgot it): it is ignored"), nil
		}
		return k.answered(ctx, call, p, q, p.InputResponses[ApprovalInputKey])
	}
	d := k.decide(ctx, call)
	if d.Allow {
		return nil, p
	}
	if !k.mayAsk(req, p, &d) {
		if d.Reason == gate.ReasonApprovalPending && clientElicits(req) && !k.g.Elicits(d.Class) {
			return note(DenyResult(&d), fmt.Sprintf("the MCP client's user was not asked: the gate's policy does not count an elicited answer as authority for %v tools (an answer through the client proves only that whoever controls the client's interface chose), so a principal's signed decision is needed", d.Class)), nil
		}
		return DenyResult(&d), nil
	}
	env, err := gate.RequestEnvelope(d.Approval)
	if err != nil {
		return DenyResult(&d), nil
	}
	params := elicitParams(env)
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if ss != nil && !newProtocol(ss) {
		// Before 2026-07-28 the server asks the client itself, inside
		// this request: elicitation/create.
		at := time.Now()
		res, err := ss.Elicit(ctx, params)
		if err != nil {
			return note(DenyResult(&d), "the MCP client's user could not be asked ("+err.Error()+"): the request stays pending for a principal's signed decision"), nil
		}
		return k.answered(ctx, call, p, question{envelope: d.EnvelopeDigest, at: at}, res)
	}
	// From 2026-07-28 the server may not send a request of its own: it
	// answers with an input request, and the client calls again with the
	// answer and the request state.
	state, ok := k.put(question{envelope: d.EnvelopeDigest, at: time.Now()})
	if !ok {
		return note(DenyResult(&d), "too many questions are waiting for MCP clients' answers: this call's user was not asked"), nil
	}
	res, err := inputRequired(params, state)
	if err != nil {
		k.take(state)
		return note(DenyResult(&d), "the gate's question could not be made: "+err.Error()), nil
	}
	return res, nil
}

// inputRequired returns the result that asks the client params, with the
// request state state: resultType "input_required", which the SDK writes
// only on the results of a tool's handler, and not on a receiving
// middleware's (its setter is unexported, its JSON decoding sets it).
func inputRequired(params *mcp.ElicitParams, state string) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(&mcp.CallToolResult{InputRequests: mcp.InputRequestMap{ApprovalInputKey: params}, RequestState: state})
	if err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, err
	}
	members["resultType"] = json.RawMessage(`"input_required"`)
	if b, err = json.Marshal(members); err != nil {
		return nil, err
	}
	res := new(mcp.CallToolResult)
	if err := json.Unmarshal(b, res); err != nil {
		return nil, err
	}
	if !res.NeedsInput() {
		return nil, fmt.Errorf("the SDK does not read resultType \"input_required\"")
	}
	return res, nil
}

// decide runs the gate on call and reports the decision to Decided.
func (k *asker) decide(ctx context.Context, call gate.Call) gate.Decision {
	d := k.g.Authorize(ctx, call)
	if k.o != nil && k.o.Decided != nil {
		k.o.Decided(ctx, &d)
	}
	return d
}

// mayAsk reports whether the user of the client of req may be asked about
// the call of p that d holds: d is approval_pending on a request, the gate
// takes an elicited answer for the tool's class, the call carries no input
// round of another's (whose request state an input request of the gate's
// would replace), and the client declared form elicitation.
func (k *asker) mayAsk(req mcp.Request, p *mcp.CallToolParamsRaw, d *gate.Decision) bool {
	if d.Reason != gate.ReasonApprovalPending || d.Approval == nil || !k.g.Elicits(d.Class) {
		return false
	}
	if len(p.InputResponses) > 0 || p.RequestState != "" {
		return false
	}
	return clientElicits(req)
}

// clientElicits reports whether the client of req declared form
// elicitation: in the request's _meta from 2026-07-28, at initialization
// before (the SDK's ClientCapabilities reads either).
func clientElicits(req mcp.Request) bool {
	r, ok := req.(*mcp.CallToolRequest)
	if !ok || r == nil {
		return false
	}
	caps := r.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	// A client that declares neither mode supports form, as before form
	// and url were told apart (the SDK's reading, ServerSession.Elicit).
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// answered decides the call on the client's answer res to the question q:
// a choice of the form's enum, a decline, or a cancel (the call stays
// approval_pending, and the user is not asked again in this call).
func (k *asker) answered(ctx context.Context, call gate.Call, p *mcp.CallToolParamsRaw, q question, res mcp.InputResponse) (*mcp.CallToolResult, *mcp.CallToolParamsRaw) {
	er, _ := res.(*mcp.ElicitResult)
	option, why := gate.ElicitDeclined, ""
	switch {
	case er == nil:
		why = "the MCP client answered the gate's question with something other than an elicitation result"
	case er.Action == "decline":
	case er.Action == "accept":
		option, why = k.choice(q, er.Content)
	case er.Action == "cancel":
		why = "the MCP client's user dismissed the gate's question without choosing"
	default:
		why = fmt.Sprintf("the MCP client answered the gate's question with action %q", er.Action)
	}
	if why != "" {
		d := k.decide(ctx, call)
		if d.Allow {
			return nil, stripped(p)
		}
		return note(DenyResult(&d), why+": the request stays pending for a principal's signed decision"), nil
	}
	call.Authority, call.AuthorityJSON, call.AuthorityErr = nil, nil, nil
	d := k.g.AuthorizeElicited(ctx, call, gate.Elicited{EnvelopeDigest: q.envelope, Option: option, AskedAt: q.at})
	if k.o != nil && k.o.Decided != nil {
		k.o.Decided(ctx, &d)
	}
	if d.Allow {
		return nil, stripped(p)
	}
	return DenyResult(&d), nil
}

// choice reads the option the user chose in the form of the question q,
// or says why content chooses none.
func (k *asker) choice(q question, content map[string]any) (int, string) {
	s, _ := content[DecisionField].(string)
	switch s {
	case allowLabel:
		return gate.AllowOption, ""
	case denyLabel:
		return gate.DenyOption, ""
	}
	return gate.ElicitDeclined, fmt.Sprintf("the MCP client's answer to the question about envelope %s chooses no option (its %q is not %q or %q)", q.envelope, DecisionField, allowLabel, denyLabel)
}

// The labels of an approval envelope's options (gate.NewRequest).
const (
	allowLabel = "Allow this call once"
	denyLabel  = "Deny"
)

// elicitParams is the gate's question about the approval envelope env: a
// form whose message is the envelope's text rendering, and whose one field
// offers its options' labels.
func elicitParams(env *envelope.Envelope) *mcp.ElicitParams {
	labels := make([]any, 0, env.NumOptions())
	for _, o := range env.Options() {
		labels = append(labels, o.Label)
	}
	return &mcp.ElicitParams{
		Mode: "form",
		Message: "The bbdigest gate holds a tool call until you decide it. What you decide here counts as your approval only for the classes the gate's policy lets an answer from this client decide.\n\n" +
			"Envelope " + env.Digest().String() + ":\n\n" + envelope.RenderText(env),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				DecisionField: map[string]any{"type": "string", "title": "Decision", "enum": labels},
			},
			"required": []any{DecisionField},
		},
	}
}

// put keeps q under a new random request state, and returns it; false
// when maxQuestions are kept and none has expired.
func (k *asker) put(q question) (string, bool) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", false
	}
	state := "bbdigest-approval:" + hex.EncodeToString(b[:])
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.asked) >= maxQuestions {
		life := k.life()
		for s, old := range k.asked {
			if time.Since(old.at) >= life {
				delete(k.asked, s)
			}
		}
		if len(k.asked) >= maxQuestions {
			return "", false
		}
	}
	k.asked[state] = q
	return state, true
}

// take returns the question kept under state and forgets it: an answer
// answers once.
func (k *asker) take(state string) (question, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	q, ok := k.asked[state]
	delete(k.asked, state)
	return q, ok
}

// life is how long a question is kept: the policy's MaxAuthorityAge, past
// which the gate refuses its answer anyway.
func (k *asker) life() time.Duration {
	if age := k.g.Policy().MaxAuthorityAge; age > 0 {
		return age
	}
	return gate.DefaultMaxAuthorityAge
}

// newProtocol reports whether the session speaks 2026-07-28 or later, on
// which the server may not send requests of its own.
func newProtocol(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= multiRoundTripVersion
}

// stripped returns p without the gate's answer and request state: what the
// tool runs with.
func stripped(p *mcp.CallToolParamsRaw) *mcp.CallToolParamsRaw {
	if _, ok := p.InputResponses[ApprovalInputKey]; !ok {
		return p
	}
	c := *p
	c.InputResponses, c.RequestState = nil, ""
	return &c
}

// note adds a second text to the tool error r.
func note(r *mcp.CallToolResult, text string) *mcp.CallToolResult {
	r.Content = append(r.Content, &mcp.TextContent{Text: "bbdigest gate: " + text})
	return r
}
