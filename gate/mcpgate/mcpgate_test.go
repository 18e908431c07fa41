package mcpgate_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/gate/mcpgate"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/receipt"
)

const server = "mcp://pay.example"

// setup says how a harness is built.
type setup struct {
	// gate is where the gate sits: "server" (mcpgate.Server, a receiving
	// middleware), "client" (mcpgate.Client, a sending middleware), or ""
	// when wrap gates the tools.
	gate string
	// wrap, if not nil, wraps each tool's handler, the harness's count
	// included (mcpgate.Tool).
	wrap func(g *gate.Gate, o *mcpgate.Options, h mcp.ToolHandler) mcp.ToolHandler
	// protocol is the version the client asks for; "" for the SDK's latest.
	protocol string
	// opts are the gate's options; the harness records every decision
	// before calling opts.Decided.
	opts *mcpgate.Options
	// pay answers pay once the harness has counted the run; nil answers
	// "done pay".
	pay mcp.ToolHandler
	// elicit is the client's elicitation handler, if not nil.
	elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	// manual turns the client SDK's automatic multi-round-trip retry off
	// (ClientOptions.MultiRoundTrip), so a result that asks for input
	// comes back to the caller.
	manual bool
	// policy, if not nil, replaces the harness's policy; approvals gives
	// the gate the harness's ledger as its Approvals.
	policy    *gate.Policy
	approvals bool
}

type harness struct {
	t       *testing.T
	g       *gate.Gate
	ledger  *ledger.Memory
	entered map[string]*atomic.Int32
	session *mcp.ClientSession
	emitted int // envelopes authority emitted

	mu        sync.Mutex
	decisions []gate.Decision // every decision, in order
	received  [][]byte        // the arguments pay's handler got, in order
}

// newHarness connects a real SDK client and server over the SDK's in-memory
// transport, with tools "search" (READ_ONLY), "pay" (FINANCIAL) and
// "refund" (not in the policy), and the gate on the server (receiving) or
// on the client (sending).
func newHarness(t *testing.T, onServer bool) *harness {
	t.Helper()
	return newHarnessWith(t, setup{gate: map[bool]string{true: "server", false: "client"}[onServer]})
}

func newHarnessWith(t *testing.T, s setup) *harness {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	log, err := receipt.Open(filepath.Join(t.TempDir(), "receipts.jsonl"), receipt.NewSigner(priv), receipt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	h := &harness{t: t, ledger: ledger.NewMemory(), entered: map[string]*atomic.Int32{}}
	policy := &gate.Policy{Version: "mcp-test", Server: server, Tools: map[string]gate.Class{"search": gate.ReadOnly, "pay": gate.Financial}}
	if s.policy != nil {
		policy = s.policy
	}
	cfg := gate.Config{Policy: policy, Ledger: h.ledger, Receipts: log}
	if s.approvals {
		cfg.Approvals = h.ledger
	}
	h.g, err = gate.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var o mcpgate.Options
	if s.opts != nil {
		o = *s.opts
	}
	decided := o.Decided
	o.Decided = func(ctx context.Context, d *gate.Decision) {
		h.mu.Lock()
		h.decisions = append(h.decisions, *d)
		h.mu.Unlock()
		if decided != nil {
			decided(ctx, d)
		}
	}
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "pay-server", Version: "v1"}, nil)
	for _, name := range []string{"search", "pay", "refund", "unlock"} {
		n := new(atomic.Int32)
		h.entered[name] = n
		var handler mcp.ToolHandler = func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n.Add(1)
			if name == "pay" {
				h.mu.Lock()
				h.received = append(h.received, bytes.Clone(req.Params.Arguments))
				h.mu.Unlock()
				if s.pay != nil {
					return s.pay(ctx, req)
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done " + req.Params.Name}}}, nil
		}
		if s.wrap != nil {
			handler = s.wrap(h.g, &o, handler)
		}
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, handler)
	}
	copts := &mcp.ClientOptions{ElicitationHandler: s.elicit}
	if s.manual {
		copts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, copts)
	switch s.gate {
	case "server":
		srv.AddReceivingMiddleware(mcpgate.Server(h.g, &o))
	case "client":
		client.AddSendingMiddleware(mcpgate.Client(h.g, &o))
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	h.session, err = client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: s.protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.session.Close() })
	if want := s.protocol; want != "" {
		if got := h.session.InitializeResult().ProtocolVersion; got != want {
			t.Fatalf("the session speaks %s, want %s", got, want)
		}
	}
	return h
}

// args returns a copy of the arguments pay's handler got so far.
func (h *harness) args() [][]byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.received)
}

// decided returns a copy of the decisions so far.
func (h *harness) decided() []gate.Decision {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.decisions)
}

// authority emits an envelope whose first option is the act of calling pay
// with args, and returns the authority selecting it, in its JSON form. Each
// call emits another envelope.
func (h *harness) authority(args string) json.RawMessage {
	h.t.Helper()
	a, err := act.New(server, "pay", []byte(args))
	if err != nil {
		h.t.Fatal(err)
	}
	h.emitted++
	b := &envelope.Builder{Synopsis: fmt.Sprintf("Pay the invoice (%d).", h.emitted), Offer: "Ask.", Stem: "Pay the invoice?", Hatches: envelope.Hatches{FreeText: true}}
	b.AddOption("Pay", "It is due.", a.Canonical)
	b.AddOption("Do not pay", "It is disputed.", []byte(`{"act":"noop"}`))
	env, err := b.Build()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.ledger.Emit(env.Digest()); err != nil {
		h.t.Fatal(err)
	}
	res := fmt.Sprintf(`{"envelope_digest":%q,"resolution":"option","option_idx":0}`, env.Digest())
	exp := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	return json.RawMessage(fmt.Sprintf(`{"envelope":%s,"resolution":%s,"expires":%q}`, env.Canonical(), res, exp))
}

// call calls the tool name with args (any value CallTool takes) and the
// authority auth in _meta, if not nil.
func (h *harness) call(name string, args any, auth json.RawMessage) *mcp.CallToolResult {
	h.t.Helper()
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	if auth != nil {
		p.Meta = mcp.Meta{gate.MetaKey: auth}
	}
	res, err := h.session.CallTool(context.Background(), p)
	if err != nil {
		h.t.Fatalf("CallTool(%s): %v", name, err)
	}
	return res
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// denied asserts that r is the gate's deny with reason, carrying a receipt.
func (h *harness) denied(r *mcp.CallToolResult, reason gate.Reason) {
	h.t.Helper()
	if !r.IsError || !strings.Contains(text(r), "deny ("+string(reason)+")") || !strings.Contains(text(r), "receipt ") {
		h.t.Fatalf("result %q (isError %v), want a deny for %s with its receipt", text(r), r.IsError, reason)
	}
	raw, err := json.Marshal(r.Meta[mcpgate.DecisionKey])
	if err != nil {
		h.t.Fatal(err)
	}
	var s gate.Summary
	if err := json.Unmarshal(raw, &s); err != nil || s.Allow || s.Reason != reason || !strings.HasPrefix(s.ReceiptDigest, "sha256:") || s.ReceiptSeq == 0 {
		h.t.Fatalf("decision meta %s (%v)", raw, err)
	}
}

func TestMiddleware(t *testing.T) {
	for _, c := range []struct {
		name string
		s    setup
	}{
		{"server", setup{gate: "server"}},
		{"client", setup{gate: "client"}},
		{"client/2025-06-18", setup{gate: "client", protocol: "2025-06-18"}},
	} {
		t.Run(c.name, func(t *testing.T) { checkGated(t, newHarnessWith(t, c.s)) })
	}
}

// checkGated runs the calls every placement of the gate must answer alike.
func checkGated(t *testing.T, h *harness) {
	t.Helper()
	args := map[string]any{"amount_cents": 1999, "to": "acct-7"}

	if r := h.call("search", map[string]any{"q": "x"}, nil); r.IsError || text(r) != "done search" {
		t.Fatalf("search: %q", text(r))
	}
	h.denied(h.call("pay", args, nil), gate.ReasonNoAuthority)
	h.denied(h.call("refund", args, nil), gate.ReasonUnconfiguredTool)

	auth := h.authority(`{"to":"acct-7","amount_cents":1999}`)
	h.denied(h.call("pay", map[string]any{"amount_cents": 2000, "to": "acct-7"}, auth), gate.ReasonNotActBound)
	if r := h.call("pay", args, auth); r.IsError || text(r) != "done pay" {
		t.Fatalf("pay with authority: %q", text(r))
	}
	h.denied(h.call("pay", args, auth), gate.ReasonConsumed)
	h.denied(h.call("pay", map[string]any{"amount": 19.99}, nil), gate.ReasonMalformedCall)

	for name, want := range map[string]int32{"search": 1, "pay": 1, "refund": 0} {
		if got := h.entered[name].Load(); got != want {
			t.Errorf("%s's handler entered %d times, want %d", name, got, want)
		}
	}
	if got := len(h.decided()); got != 7 {
		t.Errorf("%d decisions, want 7 (one per call)", got)
	}
}

// TestAuthorityOption: Options.Authority replaces _meta, and its error
// denies the call.
func TestAuthorityOption(t *testing.T) {
	h := newHarnessWith(t, setup{gate: "server", opts: &mcpgate.Options{
		Authority: func(context.Context, string, mcp.Meta) (*gate.Authority, error) {
			return nil, fmt.Errorf("vault unreachable")
		},
	}})
	r := h.call("pay", map[string]any{"a": 1}, h.authority(`{"a":1}`))
	h.denied(r, gate.ReasonNoAuthority)
	if !strings.Contains(text(r), "vault unreachable") || h.entered["pay"].Load() != 0 {
		t.Fatalf("entered %d, result %q", h.entered["pay"].Load(), text(r))
	}
	if d := h.decided(); len(d) != 1 || d[0].Reason != gate.ReasonNoAuthority {
		t.Fatalf("Decided saw %v", d)
	}
}

// TestOtherRequests: other methods pass a middleware untouched, and a
// tools/call the SDK did not make is denied.
func TestOtherRequests(t *testing.T) {
	h := newHarness(t, true)
	for _, mw := range []mcp.Middleware{mcpgate.Server(h.g, nil), mcpgate.Client(h.g, nil)} {
		entered := false
		next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
			entered = true
			return &mcp.CallToolResult{}, nil
		}
		if _, err := mw(next)(context.Background(), "tools/list", &mcp.ListToolsRequest{}); err != nil || !entered {
			t.Fatalf("tools/list: %v, entered %v", err, entered)
		}
		entered = false
		res, _ := mw(next)(context.Background(), "tools/call", &mcp.ListToolsRequest{})
		if r := res.(*mcp.CallToolResult); entered || !r.IsError {
			t.Fatalf("a foreign request passed: entered %v", entered)
		}
		h.denied(res.(*mcp.CallToolResult), gate.ReasonMalformedCall)
	}
}
