package mcpgate_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/gate/mcpgate"
	"github.com/bbdigest/bbdigest/ledger"
)

// approvalPolicy is the harness's policy with a principal, "unlock"
// PHYSICAL, and elicitation as given (nil: the default).
func approvalPolicy(t *testing.T, elicitation []gate.Class) *gate.Policy {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &gate.Policy{Version: "mcp-test", Server: server,
		Tools:       map[string]gate.Class{"search": gate.ReadOnly, "pay": gate.Financial, "unlock": gate.Physical},
		Principals:  []gate.Principal{{Name: "alice", PublicKey: pub}},
		Elicitation: elicitation,
	}
}

// user is a client's elicitation handler that answers the gate's question
// with action and, on accept, the decision choice; it answers any other
// question (a tool's) with the account "acct-evil". It keeps the gate's
// questions it was asked.
type user struct {
	action, choice string

	mu    sync.Mutex
	asked []*mcp.ElicitParams // the gate's questions
	other int                 // other questions
}

func (u *user) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if !strings.Contains(req.Params.Message, "bbdigest gate") {
		u.other++
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"to": "acct-evil"}}, nil
	}
	u.asked = append(u.asked, req.Params)
	if u.action != "accept" {
		return &mcp.ElicitResult{Action: u.action}, nil
	}
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{mcpgate.DecisionField: u.choice}}, nil
}

func (u *user) questions() []*mcp.ElicitParams {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.asked)
}

// placements are the gate's placements that ask: Server on 2026-07-28
// (an input request, answered in the client's next tools/call), Tool on
// 2026-07-28 (the same) and on 2025-11-25 (elicitation/create, inside the
// request).
var placements = []struct {
	name string
	s    setup
}{
	{"server", setup{gate: "server"}},
	{"tool/2026-07-28", setup{wrap: mcpgate.Tool, protocol: "2026-07-28"}},
	{"tool/2025-11-25", setup{wrap: mcpgate.Tool, protocol: "2025-11-25"}},
}

// elicitHarness is a harness whose gate asks (Approvals, a principal) under
// policy, whose client's user answers as u does.
func elicitHarness(t *testing.T, s setup, policy *gate.Policy, u *user) *harness {
	t.Helper()
	s.policy, s.approvals = policy, true
	if u != nil {
		s.elicit = u.handle
	}
	return newHarnessWith(t, s)
}

// lastReceipt returns the last decision, checking its receipt.
func (h *harness) last() gate.Decision {
	h.t.Helper()
	ds := h.decided()
	if len(ds) == 0 || ds[len(ds)-1].Receipt == nil {
		h.t.Fatalf("decisions %v", ds)
	}
	return ds[len(ds)-1]
}

// reasons returns the reasons of the decisions so far.
func (h *harness) reasons() []gate.Reason {
	var rs []gate.Reason
	for _, d := range h.decided() {
		rs = append(rs, d.Reason)
	}
	return rs
}

// TestElicitAllow: a client that declares elicitation is asked, in the same
// tool call, with a form showing the rendered envelope and offering its
// options; its user's "Allow this call once" runs the tool once, and the
// receipt's channel is elicitation. The next identical call is asked again,
// with a new envelope.
func TestElicitAllow(t *testing.T) {
	for _, c := range placements {
		t.Run(c.name, func(t *testing.T) {
			u := &user{action: "accept", choice: "Allow this call once"}
			h := elicitHarness(t, c.s, approvalPolicy(t, []gate.Class{gate.Financial}), u)
			args := map[string]any{"amount_cents": 1999, "to": "acct-7"}
			if r := h.call("pay", args, nil); r.IsError || text(r) != "done pay" {
				t.Fatalf("pay: %q", text(r))
			}
			if got := h.reasons(); !slices.Equal(got, []gate.Reason{gate.ReasonApprovalPending, gate.ReasonAuthority}) {
				t.Fatalf("decisions %v, want approval_pending then authority", got)
			}
			d := h.last()
			if d.Channel != gate.ChannelElicitation || d.Receipt.Payload.Channel != "elicitation" || h.entered["pay"].Load() != 1 {
				t.Fatalf("allow %+v, receipt %+v, %d runs", d, d.Receipt.Payload, h.entered["pay"].Load())
			}
			qs := u.questions()
			if len(qs) != 1 {
				t.Fatalf("asked %d times", len(qs))
			}
			q := qs[0]
			schema, _ := json.Marshal(q.RequestedSchema)
			if !strings.Contains(q.Message, "Envelope "+d.EnvelopeDigest.String()) || !strings.Contains(q.Message, `Synopsis: "The agent asks to call tool \"pay\"`) ||
				!strings.Contains(q.Message, `1. "Allow this call once"`) ||
				string(schema) != `{"properties":{"decision":{"enum":["Allow this call once","Deny"],"title":"Decision","type":"string"}},"required":["decision"],"type":"object"}` {
				t.Fatalf("question %q, schema %s", q.Message, schema)
			}
			if r, _, _ := h.ledger.Request(d.EnvelopeDigest); r.State != ledger.RequestClosed || r.Closing != "authority" {
				t.Fatalf("the request is %v (%q)", r.State, r.Closing)
			}

			if r := h.call("pay", args, nil); r.IsError || h.entered["pay"].Load() != 2 {
				t.Fatalf("the next call: %q, %d runs", text(r), h.entered["pay"].Load())
			}
			if qs := u.questions(); len(qs) != 2 || strings.Contains(qs[1].Message, d.EnvelopeDigest.String()) {
				t.Fatalf("the next call was not asked anew: %d questions", len(qs))
			}
		})
	}
}

// TestElicitDeny: a user who chooses "Deny", or declines, denies the call
// (approval_denied), and the tool does not run; one who dismisses the
// question (cancel) leaves it pending for a principal (approval_pending),
// and is not asked twice in one call.
func TestElicitDeny(t *testing.T) {
	for _, c := range placements {
		for _, a := range []struct {
			action, choice string
			want           gate.Reason
		}{
			{"accept", "Deny", gate.ReasonApprovalDenied},
			{"decline", "", gate.ReasonApprovalDenied},
			{"cancel", "", gate.ReasonApprovalPending},
		} {
			t.Run(c.name+"/"+a.action+"/"+a.choice, func(t *testing.T) {
				u := &user{action: a.action, choice: a.choice}
				h := elicitHarness(t, c.s, approvalPolicy(t, []gate.Class{gate.Financial}), u)
				r := h.call("pay", map[string]any{"amount_cents": 1999, "to": "acct-7"}, nil)
				h.denied(r, a.want)
				d := h.last()
				if h.entered["pay"].Load() != 0 || len(u.questions()) != 1 {
					t.Fatalf("%d runs, %d questions", h.entered["pay"].Load(), len(u.questions()))
				}
				state := ledger.RequestClosed
				if a.want == gate.ReasonApprovalPending {
					state = ledger.RequestPending
					if !strings.Contains(text(r), "stays pending") {
						t.Fatalf("result %q does not say the request stays pending", text(r))
					}
				} else if d.Channel != gate.ChannelElicitation || d.Receipt.Payload.Channel != "elicitation" {
					t.Fatalf("deny channel %q", d.Channel)
				}
				if req, _, _ := h.ledger.Request(d.EnvelopeDigest); req.State != state {
					t.Fatalf("the request is %v, want %v", req.State, state)
				}
			})
		}
	}
}

// TestElicitNotAsked: a client without the elicitation capability is not
// asked (approval_pending, as before); nor is one asked about a PHYSICAL
// tool under the default policy, or a FINANCIAL one under the default
// policy, and the answer says why; a gate without Approvals asks no one.
func TestElicitNotAsked(t *testing.T) {
	args := map[string]any{"amount_cents": 1999, "to": "acct-7"}
	for _, c := range placements {
		t.Run(c.name+"/no capability", func(t *testing.T) {
			h := elicitHarness(t, c.s, approvalPolicy(t, []gate.Class{gate.Financial}), nil)
			r := h.call("pay", args, nil)
			h.denied(r, gate.ReasonApprovalPending)
			if r.NeedsInput() || strings.Contains(text(r), "not asked") || h.entered["pay"].Load() != 0 {
				t.Fatalf("result %q", text(r))
			}
		})
		for _, tool := range []string{"unlock", "pay"} {
			t.Run(c.name+"/default policy/"+tool, func(t *testing.T) {
				u := &user{action: "accept", choice: "Allow this call once"}
				h := elicitHarness(t, c.s, approvalPolicy(t, nil), u)
				r := h.call(tool, args, nil)
				h.denied(r, gate.ReasonApprovalPending)
				class := map[string]string{"unlock": "PHYSICAL", "pay": "FINANCIAL"}[tool]
				if !strings.Contains(text(r), "was not asked: the gate's policy does not count an elicited answer as authority for "+class+" tools") {
					t.Fatalf("result %q does not say why the user was not asked", text(r))
				}
				if len(u.questions()) != 0 || h.entered[tool].Load() != 0 {
					t.Fatalf("%d questions, %d runs", len(u.questions()), h.entered[tool].Load())
				}
			})
		}
	}
	t.Run("no approvals", func(t *testing.T) {
		u := &user{action: "accept", choice: "Allow this call once"}
		h := newHarnessWith(t, setup{gate: "server", elicit: u.handle, policy: approvalPolicy(t, []gate.Class{gate.Financial})})
		h.denied(h.call("pay", args, nil), gate.ReasonNoAuthority)
		if len(u.questions()) != 0 {
			t.Fatal("asked without Approvals")
		}
	})
}

// TestElicitNotClaimed: a call cannot claim an elicited answer. Not in
// _meta (a made-up member, or the gate's record of an elicited grant as the
// authority's resolution), and not in InputResponses: an answer under
// mcpgate.ApprovalInputKey with a request state the gate never gave, or
// one it gave and took an answer for already, is ignored, and the tool does
// not run.
func TestElicitNotClaimed(t *testing.T) {
	args := map[string]any{"amount_cents": 1999, "to": "acct-7"}
	h := elicitHarness(t, setup{gate: "server", manual: true}, approvalPolicy(t, []gate.Class{gate.Financial}), nil)
	call := func(p *mcp.CallToolParams) *mcp.CallToolResult {
		t.Helper()
		res, err := h.session.CallTool(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	allow := mcp.InputResponseMap{mcpgate.ApprovalInputKey: &mcp.ElicitResult{Action: "accept", Content: map[string]any{mcpgate.DecisionField: "Allow this call once"}}}

	// A made-up _meta member: nothing reads it (this client cannot be asked).
	h.denied(call(&mcp.CallToolParams{Name: "pay", Arguments: args, Meta: mcp.Meta{"dev.bbdigest/elicited": map[string]any{"action": "accept", "decision": "Allow this call once"}}}), gate.ReasonApprovalPending)
	pending := h.last()

	// The gate's record of an elicited grant, as the call's authority.
	doc := fmt.Sprintf(`{"@version":"bbdigest-elicited-decision/v1","act_digest":"%s","answered_at_ms":%d,"channel":"elicitation","envelope_digest":"%s","option_idx":0}`,
		pending.Act.Digest, time.Now().UnixMilli(), pending.EnvelopeDigest)
	r, _, _ := h.ledger.Request(pending.EnvelopeDigest)
	auth := fmt.Sprintf(`{"envelope":%s,"resolution":%s,"expires":%q}`, r.Envelope, doc, time.Now().Add(time.Minute).UTC().Format(time.RFC3339))
	res := call(&mcp.CallToolParams{Name: "pay", Arguments: args, Meta: mcp.Meta{gate.MetaKey: json.RawMessage(auth)}})
	if !res.IsError || (!strings.Contains(text(res), "deny (bad_signature)") && !strings.Contains(text(res), "deny (unsigned)")) {
		t.Fatalf("an elicited record as authority: %q", text(res))
	}

	// An answer to no question, with a forged request state.
	res = call(&mcp.CallToolParams{Name: "pay", Arguments: args, InputResponses: allow, RequestState: "bbdigest-approval:00"})
	h.denied(res, gate.ReasonApprovalPending)
	if !strings.Contains(text(res), "answers no question this gate asked") {
		t.Fatalf("result %q", text(res))
	}
	if h.entered["pay"].Load() != 0 {
		t.Fatalf("pay ran %d times", h.entered["pay"].Load())
	}
}

// TestElicitReplay: with the client SDK's automatic retry off, the host
// sees the gate's input request (resultType input_required) and answers it.
// An answer outside the form's options chooses nothing (approval_pending);
// a good one runs the tool once, without the gate's question and answer in
// its params; the same request state and answer again answer nothing.
func TestElicitReplay(t *testing.T) {
	args := map[string]any{"amount_cents": 1999, "to": "acct-7"}
	u := &user{action: "accept", choice: "Allow this call once"}
	var sawRound []string
	pay := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sawRound = append(sawRound, fmt.Sprintf("%d responses, state %q", len(req.Params.InputResponses), req.Params.RequestState))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done pay"}}}, nil
	}
	h := elicitHarness(t, setup{gate: "server", manual: true, pay: pay}, approvalPolicy(t, []gate.Class{gate.Financial}), u)
	ask := func() *mcp.CallToolResult {
		t.Helper()
		first := h.call("pay", args, nil)
		q, ok := first.InputRequests[mcpgate.ApprovalInputKey].(*mcp.ElicitParams)
		if !first.NeedsInput() || !ok || !strings.Contains(q.Message, "bbdigest gate") || !strings.HasPrefix(first.RequestState, "bbdigest-approval:") {
			t.Fatalf("first round %q, want the gate's input request", text(first))
		}
		return first
	}
	answer := func(first *mcp.CallToolResult, choice string) *mcp.CallToolResult {
		t.Helper()
		res, err := h.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "pay", Arguments: args, RequestState: first.RequestState,
			InputResponses: mcp.InputResponseMap{mcpgate.ApprovalInputKey: &mcp.ElicitResult{Action: "accept", Content: map[string]any{mcpgate.DecisionField: choice}}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	r := answer(ask(), "Allow it twice")
	h.denied(r, gate.ReasonApprovalPending)
	if !strings.Contains(text(r), "chooses no option") {
		t.Fatalf("an answer outside the options: %q", text(r))
	}
	first := ask()
	if r := answer(first, "Allow this call once"); r.IsError || text(r) != "done pay" {
		t.Fatalf("the answer: %q", text(r))
	}
	if got := h.args(); len(got) != 1 || string(got[0]) != `{"amount_cents":1999,"to":"acct-7"}` || !slices.Equal(sawRound, []string{`0 responses, state ""`}) {
		t.Fatalf("pay got %q, %q", got, sawRound)
	}
	r = answer(first, "Allow this call once")
	h.denied(r, gate.ReasonApprovalPending)
	if !strings.Contains(text(r), "answers no question this gate asked") || h.entered["pay"].Load() != 1 || len(u.questions()) != 0 {
		t.Fatalf("the replay: %q, %d runs", text(r), h.entered["pay"].Load())
	}
}

// TestElicitMultiRoundTrip: the rule of the package doc holds with
// elicitation: the user's Allow is the authority of one run. A tool that
// asks for more input after it ran once is not run again on it: its next
// round is a decision of its own, which is not asked (it carries the
// tool's input round) and stays approval_pending; nothing is paid.
func TestElicitMultiRoundTrip(t *testing.T) {
	for _, c := range placements {
		t.Run(c.name, func(t *testing.T) {
			var paid []string
			u := &user{action: "accept", choice: "Allow this call once"}
			s := c.s
			s.pay = askToPay(func(to string) { paid = append(paid, to) })
			h := elicitHarness(t, s, approvalPolicy(t, []gate.Class{gate.Financial}), u)
			r := h.call("pay", map[string]any{"amount_cents": 1999, "to": "acct-7"}, nil)
			allowed := 0
			for _, d := range h.decided() {
				if d.Allow {
					allowed++
				}
			}
			if runs := int(h.entered["pay"].Load()); runs != 1 || allowed != 1 || len(paid) != 0 {
				t.Fatalf("%d runs on %d allows, paid %q; result %q (decisions %v)", runs, allowed, paid, text(r), h.reasons())
			}
			if !r.IsError || !strings.Contains(text(r), "approval_pending") || len(u.questions()) != 1 {
				t.Fatalf("result %q, %d questions", text(r), len(u.questions()))
			}
		})
	}
}
