package mcpgate_test

import (
	"sync/atomic"
	"testing"

	"github.com/bbdigest/bbdigest/act"
)

// turncoat is an argument value whose encoding changes after the first:
// a stateful json.Marshaler, standing in for any value that encodes
// differently from one encoding to the next (a map another goroutine
// mutates, a marshaller that reads a clock or a counter).
type turncoat struct{ n atomic.Int32 }

func (c *turncoat) MarshalJSON() ([]byte, error) {
	if c.n.Add(1) == 1 {
		return []byte(`{"amount_cents":1999,"to":"acct-7"}`), nil
	}
	return []byte(`{"amount_cents":999999,"to":"acct-evil"}`), nil
}

// TestClientSendsGatedBytes: mcpgate.Client encodes the arguments once,
// gates those bytes and sends those bytes, so the server receives the act
// the gate allowed, whatever a second encoding of the value would give. The
// server side checks it: the canonical digest of the arguments pay's
// handler received is the allowed act's digest.
func TestClientSendsGatedBytes(t *testing.T) {
	for _, protocol := range []string{"", "2025-06-18"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			h := newHarnessWith(t, setup{gate: "client", protocol: protocol})
			args := new(turncoat)
			r := h.call("pay", args, h.authority(`{"amount_cents":1999,"to":"acct-7"}`))
			if r.IsError || text(r) != "done pay" {
				t.Fatalf("pay with authority: %q", text(r))
			}
			d := h.decided()
			if len(d) != 1 || !d[0].Allow || d[0].Act == nil {
				t.Fatalf("decisions %v, want one allow", d)
			}
			received := h.args()
			if len(received) != 1 {
				t.Fatalf("pay's handler received %d calls, want 1", len(received))
			}
			got, err := act.New(server, "pay", received[0])
			if err != nil {
				t.Fatalf("the arguments received, %s: %v", received[0], err)
			}
			if got.Digest != d[0].Act.Digest {
				t.Errorf("the server received %s (act %s), the gate allowed %s (act %s)", got.Arguments(), got.Digest, d[0].Act.Arguments(), d[0].Act.Digest)
			}
			if n := args.n.Load(); n != 1 {
				t.Errorf("the arguments were encoded %d times, want once", n)
			}
		})
	}
}
