package gate_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
)

// decisionStore is an approvalStore as gate.Decide takes it.
type decisionStore interface {
	approvalStore
	gate.DecisionStore
}

// request reads the request d asked from store.
func request(t *testing.T, store ledger.Approvals, d gate.Decision) ledger.Request {
	t.Helper()
	r, ok, err := store.Request(d.EnvelopeDigest)
	if err != nil || !ok {
		t.Fatalf("Request(%s) = %v, %v", d.EnvelopeDigest, ok, err)
	}
	return r
}

// decideRefused checks that err is a *gate.DecideError of kind, for r,
// whose Reason holds reason and whose Hint is hint.
func decideRefused(t *testing.T, err error, kind gate.DecideKind, r *ledger.Request, reason, hint string) {
	t.Helper()
	de, ok := errors.AsType[*gate.DecideError](err)
	if !ok {
		t.Fatalf("Decide = %v, want a *gate.DecideError", err)
	}
	if de.Kind != kind || de.Request != r.EnvelopeDigest || !strings.Contains(de.Reason, reason) || de.Hint != hint ||
		de.Error() != "gate: decide: "+de.Reason {
		t.Fatalf("Decide = %+v (%q), want kind %d for %s, reason %q, hint %q", de, de.Error(), kind, r.EnvelopeDigest, reason, hint)
	}
}

// TestDecide: a principal's grant recorded by Decide, in memory and in a
// bolt ledger, allows the identical call once on her key; her deny denies
// it; each is recorded once, signed, and the request is then refused as
// decided (DecidedAlready, with the hint for a closed one).
func TestDecide(t *testing.T) {
	bl, err := bolt.Open(filepath.Join(t.TempDir(), "ledger.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bl.Close()
	for name, store := range map[string]decisionStore{"memory": ledger.NewMemory(), "bolt": bl} {
		t.Run(name, func(t *testing.T) {
			f, _ := newApprovalFixture(t, store, principalPolicy(t, ""))
			p := f.pending(payCall)
			r := request(t, store, p)
			if err := gate.Decide(store, &r, true, gate.AllowOption, aliceKey, time.Now()); err != nil {
				t.Fatalf("Decide (grant) = %v", err)
			}
			granted := request(t, store, p)
			if granted.State != ledger.RequestGranted || !strings.Contains(string(granted.Decision), aliceID) || granted.DecidedAt.IsZero() {
				t.Fatalf("after Decide the request is %v, decision %s", granted.State, granted.Decision)
			}
			decideRefused(t, gate.Decide(store, &granted, false, 0, aliceKey, time.Now()), gate.DecidedAlready, &r,
				"request "+r.EnvelopeDigest.String()+" is granted: a request is decided once", "")
			// The stale read: pending when read, granted since.
			decideRefused(t, gate.Decide(store, &r, false, 0, aliceKey, time.Now()), gate.DecidedAlready, &r, "not pending", "")
			if err := gate.Decide(store, &r, false, 0, aliceKey, time.Now()); !errors.Is(err, ledger.ErrNotPending) {
				t.Fatalf("Decide on a stale read = %v, want ledger.ErrNotPending underneath", err)
			}
			d := f.authorize(payCall, nil)
			f.check(d, true, gate.ReasonAuthority)
			if d.PrincipalKeyID != aliceID {
				t.Fatalf("the retry is allowed on key %s, want alice's %s", d.PrincipalKeyID, aliceID)
			}
			closed := request(t, store, p)
			decideRefused(t, gate.Decide(store, &closed, true, gate.AllowOption, aliceKey, time.Now()), gate.DecidedAlready, &r,
				"is closed (authority): a request is decided once", "the agent's next identical call asks anew, with a new envelope")

			// The deny of the next request.
			next := f.pending(payCall)
			r = request(t, store, next)
			if err := gate.Decide(store, &r, false, 0, aliceKey, time.Now()); err != nil {
				t.Fatalf("Decide (deny) = %v", err)
			}
			if got := request(t, store, next); got.State != ledger.RequestDenied || len(got.Decision) == 0 {
				t.Fatalf("after the deny the request is %v", got.State)
			}
			f.check(f.authorize(payCall, nil), false, gate.ReasonApprovalDenied)
		})
	}
}

// TestDecideRefuses: Decide records nothing for an option that does not
// authorize the act (NotSigned, the signing error underneath), a request
// whose envelope is spent in the ledger (EnvelopeSpent), or a store whose
// Lookup fails (its error, not a *gate.DecideError).
func TestDecideRefuses(t *testing.T) {
	f, _ := newApprovalFixture(t, nil, principalPolicy(t, ""))
	store := f.ledger.(decisionStore)
	p := f.pending(payCall)
	r := request(t, store, p)

	err := gate.Decide(store, &r, true, gate.DenyOption, aliceKey, time.Now())
	decideRefused(t, err, gate.NotSigned, &r, `option 2 ("Deny") does not authorize the act`, "")
	if de, _ := errors.AsType[*gate.DecideError](err); de.Err == nil || de.Reason != de.Err.Error() {
		t.Errorf("NotSigned carries %v, want the signing error as its reason", de.Err)
	}
	if got := request(t, store, p); got.State != ledger.RequestPending {
		t.Fatalf("a refused grant left the request %v", got.State)
	}

	failing := lookupFails{store}
	if err := gate.Decide(failing, &r, true, gate.AllowOption, aliceKey, time.Now()); !errors.Is(err, errLookup) {
		t.Fatalf("Decide over a failing store = %v, want its error", err)
	} else if _, ok := errors.AsType[*gate.DecideError](err); ok {
		t.Fatalf("a store's failure is a *gate.DecideError: %v", err)
	}

	// The envelope resolved otherwise (declined) while the request stayed
	// pending.
	if _, err := store.Resolve(r.EnvelopeDigest, ledger.OutcomeDeclined); err != nil {
		t.Fatal(err)
	}
	decideRefused(t, gate.Decide(store, &r, true, gate.AllowOption, aliceKey, time.Now()), gate.EnvelopeSpent, &r,
		"the envelope of request "+r.EnvelopeDigest.String()+" is resolved in the ledger, not emitted: nothing can be decided on it", "")
	if got := request(t, store, p); got.State != ledger.RequestPending || len(got.Decision) != 0 {
		t.Fatalf("a refused decision recorded %v %s", got.State, got.Decision)
	}
}

var errLookup = errors.New("lookup failed")

// lookupFails is a store whose Lookup fails.
type lookupFails struct{ decisionStore }

func (lookupFails) Lookup(hashing.Digest) (ledger.Entry, error) { return ledger.Entry{}, errLookup }
