package mcpgate_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/gate/mcpgate"
)

// TestTool: a tool gated by mcpgate.Tool answers every call as the
// middlewares do, on the latest protocol and on earlier ones.
func TestTool(t *testing.T) {
	for _, protocol := range []string{"", "2025-06-18"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			checkGated(t, newHarnessWith(t, setup{wrap: mcpgate.Tool, protocol: protocol}))
		})
	}
}

// TestToolMultiRoundTrip: under mcpgate.Tool every run of a tool that asks
// for more input is its own decision, on the arguments that run is given,
// on every protocol: where the SDK runs the handler again inside the
// request (before 2026-07-28) and where the client calls again (2026-07-28).
// The authority in _meta, which the retry carries again, was consumed by
// the first run, so the second is denied and nothing is paid; an authority
// of its own for each run (Options.Authority) lets both run, each on its
// own allow and receipt.
func TestToolMultiRoundTrip(t *testing.T) {
	args := map[string]any{"amount_cents": 1999, "to": "acct-7"}
	const bound = `{"amount_cents":1999,"to":"acct-7"}`
	for _, protocol := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(protocol+"/meta", func(t *testing.T) {
			var paid []string
			h := newHarnessWith(t, setup{wrap: mcpgate.Tool, protocol: protocol, elicit: answerEvil,
				pay: askToPay(func(to string) { paid = append(paid, to) })})
			h.denied(h.call("pay", args, h.authority(bound)), gate.ReasonConsumed)
			d := h.decided()
			if len(d) != 2 || !d[0].Allow || d[0].Reason != gate.ReasonAuthority || d[1].Allow {
				t.Fatalf("decisions %v, want the first run allowed by its authority and the second denied", d)
			}
			if runs := h.entered["pay"].Load(); runs != 1 || len(paid) != 0 {
				t.Errorf("%d runs past the gate, paid %q; want 1 (the one that asked) and nothing", runs, paid)
			}
			if received := h.args(); len(received) != 1 || string(received[0]) != bound {
				t.Errorf("pay's handler got %q", received)
			}
		})
		t.Run(protocol+"/authority-per-run", func(t *testing.T) {
			var (
				mu    sync.Mutex
				paid  []string
				queue []*gate.Authority
			)
			o := &mcpgate.Options{Authority: func(context.Context, string, mcp.Meta) (*gate.Authority, error) {
				mu.Lock()
				defer mu.Unlock()
				if len(queue) == 0 {
					return nil, nil
				}
				a := queue[0]
				queue = queue[1:]
				return a, nil
			}}
			h := newHarnessWith(t, setup{wrap: mcpgate.Tool, protocol: protocol, elicit: answerEvil, opts: o,
				pay: askToPay(func(to string) { mu.Lock(); paid = append(paid, to); mu.Unlock() })})
			for range 2 {
				a, err := gate.ParseAuthority(h.authority(bound))
				if err != nil {
					t.Fatal(err)
				}
				queue = append(queue, a)
			}
			if r := h.call("pay", args, nil); r.IsError || text(r) != "paid acct-evil" {
				t.Fatalf("result %q", text(r))
			}
			d := h.decided()
			if len(d) != 2 || !d[0].Allow || !d[1].Allow || d[0].Receipt.Seq == d[1].Receipt.Seq || d[0].EnvelopeDigest == d[1].EnvelopeDigest {
				t.Fatalf("decisions %v, want two allows, each on its own authority and receipt", d)
			}
			if runs := h.entered["pay"].Load(); runs != 2 || len(paid) != 1 {
				t.Errorf("%d runs, paid %q; want 2 runs and one payment", runs, paid)
			}
		})
	}
}

// TestServerAndTool: a run under both Server and Tool is refused, naming
// both: Server's decision consumed the authority, and a second decision
// would answer "consumed".
func TestServerAndTool(t *testing.T) {
	h := newHarnessWith(t, setup{gate: "server", wrap: mcpgate.Tool})
	r := h.call("search", map[string]any{"q": "x"}, nil)
	if !r.IsError || !strings.Contains(text(r), "refused") || !strings.Contains(text(r), "not both") {
		t.Fatalf("result %q (isError %v), want the refusal of a call gated twice", text(r), r.IsError)
	}
	if n, runs := len(h.decided()), h.entered["search"].Load(); n != 1 || runs != 0 {
		t.Errorf("%d decisions, %d runs; want Server's one and none", n, runs)
	}
}
