package mcpgate_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/gate/mcpgate"
)

// askToPay is a pay handler that asks the user which account to pay before
// it pays: a multi-round-trip tool. Its first run returns an input request;
// a run that carries the answer pays the account the answer names, which
// the act (tool and arguments) never bound. It reports each payment to
// paid.
func askToPay(paid func(to string)) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		answer, ok := req.Params.InputResponses["account"].(*mcp.ElicitResult)
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"account": &mcp.ElicitParams{
				Message:         "Which account?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"to": map[string]any{"type": "string"}}},
			}}}, nil
		}
		to, _ := answer.Content["to"].(string)
		paid(to)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "paid " + to}}}, nil
	}
}

// answerEvil is a client's elicitation handler that names another account
// than the act's.
func answerEvil(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"to": "acct-evil"}}, nil
}

// TestServerMultiRoundTrip: on a client protocol before 2026-07-28 the
// SDK's serverMultiRoundTripMiddleware, which NewServer installs before any
// middleware of ours and so runs inside it, answers a tool's input request
// by asking the client and running the handler again, inside the one
// tools/call mcpgate.Server decided. Every run of pay's handler must have
// had its own allowing decision; Server, which cannot see the second run,
// refuses such sessions before the gate, consuming nothing. On 2026-07-28
// the client retries with a new tools/call, which Server gates: the
// authority the first round consumed does not cover the second.
func TestServerMultiRoundTrip(t *testing.T) {
	for _, protocol := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			var paid []string
			h := newHarnessWith(t, setup{gate: "server", protocol: protocol, elicit: answerEvil,
				pay: askToPay(func(to string) { paid = append(paid, to) })})
			r := h.call("pay", map[string]any{"amount_cents": 1999, "to": "acct-7"}, h.authority(`{"amount_cents":1999,"to":"acct-7"}`))

			allowed := 0
			for _, d := range h.decided() {
				if d.Allow {
					allowed++
				}
			}
			if runs := int(h.entered["pay"].Load()); runs > allowed {
				t.Errorf("pay's handler ran %d times after %d allowing decision(s) (paid %q, result %q)", runs, allowed, paid, text(r))
			}
			if len(paid) != 0 {
				t.Errorf("paid %q on one authority for acct-7", paid)
			}
			if protocol >= "2026-07-28" {
				h.denied(r, gate.ReasonConsumed)
				if runs, n := h.entered["pay"].Load(), len(h.decided()); runs != 1 || n != 2 {
					t.Errorf("%d runs and %d decisions, want 1 and 2", runs, n)
				}
				return
			}
			if !r.IsError || !strings.Contains(text(r), "refused") || !strings.Contains(text(r), protocol) || !strings.Contains(text(r), "mcpgate.Tool") {
				t.Errorf("result %q (isError %v), want the refusal for %s that names mcpgate.Tool", text(r), r.IsError, protocol)
			}
			if n := len(h.decided()); n != 0 || h.entered["pay"].Load() != 0 {
				t.Errorf("%d decisions, %d runs: a refused call reaches neither the gate nor the tool", n, h.entered["pay"].Load())
			}
		})
	}
}

// TestServerUnknownProtocol: Server refuses a tools/call whose session it
// cannot read a protocol version from, before the gate: a request with no
// session, and one on a session not initialized yet.
func TestServerUnknownProtocol(t *testing.T) {
	h := newHarness(t, true)
	srv := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "v1"}, nil)
	st, _ := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	for _, c := range []struct {
		session *mcp.ServerSession
		want    string
	}{
		{nil, "no server session"},
		{ss, "not known yet"},
	} {
		entered := false
		next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
			entered = true
			return &mcp.CallToolResult{}, nil
		}
		req := &mcp.CallToolRequest{Session: c.session, Params: &mcp.CallToolParamsRaw{Name: "search", Arguments: []byte(`{}`)}}
		res, err := mcpgate.Server(h.g, nil)(next)(context.Background(), "tools/call", req)
		if err != nil {
			t.Fatal(err)
		}
		if r := res.(*mcp.CallToolResult); entered || !r.IsError || !strings.Contains(text(r), "refused: ") || !strings.Contains(text(r), c.want) {
			t.Errorf("entered %v, result %q; want the refusal saying %q", entered, text(r), c.want)
		}
	}
	if n := len(h.decided()); n != 0 {
		t.Errorf("%d decisions, want none", n)
	}
}

// TestClientMultiRoundTrip: on 2026-07-28 the client SDK's multi-round-trip
// middleware, which NewClient installs inside every sending middleware,
// would answer a tool's input request and send the call again, past
// mcpgate.Client. Client refuses that second send (the server's handler
// runs once, pays nothing); with the automatic retry off, the host answers
// and calls again, and that call is a decision of its own: the first
// authority is consumed, a second one lets it run.
func TestClientMultiRoundTrip(t *testing.T) {
	args := map[string]any{"amount_cents": 1999, "to": "acct-7"}
	const bound = `{"amount_cents":1999,"to":"acct-7"}`
	t.Run("automatic", func(t *testing.T) {
		var paid []string
		h := newHarnessWith(t, setup{gate: "client", elicit: answerEvil, pay: askToPay(func(to string) { paid = append(paid, to) })})
		r := h.call("pay", args, h.authority(bound))
		if !r.IsError || !strings.Contains(text(r), "refused: the server asks for more input") || !strings.Contains(text(r), "MultiRoundTrip.Disabled") {
			t.Fatalf("result %q (isError %v), want the refusal of the retry", text(r), r.IsError)
		}
		if runs, n := h.entered["pay"].Load(), len(h.decided()); runs != 1 || n != 1 || len(paid) != 0 {
			t.Errorf("%d runs, %d decisions, paid %q; want 1, 1 and nothing", runs, n, paid)
		}
	})
	t.Run("manual", func(t *testing.T) {
		var paid []string
		h := newHarnessWith(t, setup{gate: "client", manual: true, pay: askToPay(func(to string) { paid = append(paid, to) })})
		auth := h.authority(bound)
		first := h.call("pay", args, auth)
		if !first.NeedsInput() || first.InputRequests["account"] == nil {
			t.Fatalf("first round %q, want the input request", text(first))
		}
		again := func(auth []byte) *mcp.CallToolResult {
			t.Helper()
			res, err := h.session.CallTool(context.Background(), &mcp.CallToolParams{
				Name: "pay", Arguments: args, Meta: mcp.Meta{gate.MetaKey: json.RawMessage(auth)},
				InputResponses: mcp.InputResponseMap{"account": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"to": "acct-7"}}},
				RequestState:   first.RequestState,
			})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		h.denied(again(auth), gate.ReasonConsumed)
		if r := again(h.authority(bound)); r.IsError || text(r) != "paid acct-7" {
			t.Fatalf("second round with its own authority: %q", text(r))
		}
		if runs, n := h.entered["pay"].Load(), len(h.decided()); runs != 2 || n != 3 || len(paid) != 1 {
			t.Errorf("%d runs, %d decisions, paid %q; want 2, 3 and one payment", runs, n, paid)
		}
	})
}
