package mcpgate_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
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

type harness struct {
	t       *testing.T
	g       *gate.Gate
	ledger  *ledger.Memory
	entered map[string]*atomic.Int32
	session *mcp.ClientSession
}

// newHarness connects a real SDK client and server over the SDK's in-memory
// transport, with tools "search" (READ_ONLY) and "pay" (FINANCIAL), and the
// gate on the server (receiving) or on the client (sending).
func newHarness(t *testing.T, onServer bool) *harness {
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
	h.g, err = gate.New(gate.Config{
		Policy:   &gate.Policy{Version: "mcp-test", Server: server, Tools: map[string]gate.Class{"search": gate.ReadOnly, "pay": gate.Financial}},
		Ledger:   h.ledger,
		Receipts: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "pay-server", Version: "v1"}, nil)
	for _, name := range []string{"search", "pay"} {
		n := new(atomic.Int32)
		h.entered[name] = n
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				n.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done " + req.Params.Name}}}, nil
			})
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, nil)
	if onServer {
		srv.AddReceivingMiddleware(mcpgate.Server(h.g, nil))
	} else {
		client.AddSendingMiddleware(mcpgate.Client(h.g, nil))
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	h.session, err = client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.session.Close() })
	return h
}

// authority emits an envelope whose first option is the act of calling pay
// with args, and returns the authority selecting it, in its JSON form.
func (h *harness) authority(args string) json.RawMessage {
	h.t.Helper()
	a, err := act.New(server, "pay", []byte(args))
	if err != nil {
		h.t.Fatal(err)
	}
	b := &envelope.Builder{Synopsis: "Pay the invoice.", Offer: "Ask.", Stem: "Pay the invoice?", Hatches: envelope.Hatches{FreeText: true}}
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

func (h *harness) call(name string, args map[string]any, auth json.RawMessage) *mcp.CallToolResult {
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
	for _, onServer := range []bool{true, false} {
		t.Run(map[bool]string{true: "server", false: "client"}[onServer], func(t *testing.T) {
			h := newHarness(t, onServer)
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

			if got := h.entered["pay"].Load(); got != 1 {
				t.Errorf("pay's handler entered %d times, want 1", got)
			}
			if got := h.entered["search"].Load(); got != 1 {
				t.Errorf("search's handler entered %d times, want 1", got)
			}
		})
	}
}

// TestAuthorityOption: Options.Authority replaces _meta, and its error
// denies the call.
func TestAuthorityOption(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	log, err := receipt.Open(filepath.Join(t.TempDir(), "r"), receipt.NewSigner(priv), receipt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	g, err := gate.New(gate.Config{Policy: &gate.Policy{Version: "v", Tools: map[string]gate.Class{"pay": gate.Financial}}, Ledger: ledger.NewMemory(), Receipts: log})
	if err != nil {
		t.Fatal(err)
	}
	var decided []gate.Reason
	mw := mcpgate.Server(g, &mcpgate.Options{
		Authority: func(context.Context, string, mcp.Meta) (*gate.Authority, error) {
			return nil, fmt.Errorf("vault unreachable")
		},
		Decided: func(_ context.Context, d *gate.Decision) { decided = append(decided, d.Reason) },
	})
	entered := false
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		entered = true
		return &mcp.CallToolResult{}, nil
	}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "pay", Arguments: json.RawMessage(`{"a":1}`)}}
	res, err := mw(next)(context.Background(), "tools/call", req)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.(*mcp.CallToolResult); entered || !r.IsError || !strings.Contains(text(r), "vault unreachable") {
		t.Fatalf("entered %v, result %q", entered, text(r))
	}
	if len(decided) != 1 || decided[0] != gate.ReasonNoAuthority {
		t.Fatalf("Decided saw %v", decided)
	}
	// Other methods pass untouched, and a tools/call the SDK did not make
	// is denied.
	if _, err := mw(next)(context.Background(), "tools/list", &mcp.ListToolsRequest{}); err != nil || !entered {
		t.Fatalf("tools/list: %v, entered %v", err, entered)
	}
	entered = false
	res, _ = mw(next)(context.Background(), "tools/call", &mcp.ListToolsRequest{})
	if r := res.(*mcp.CallToolResult); entered || !r.IsError {
		t.Fatalf("a foreign request passed: entered %v", entered)
	}
}
