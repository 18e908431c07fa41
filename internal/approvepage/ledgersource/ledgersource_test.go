package ledgersource

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/approvepage"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
	"github.com/bbdigest/bbdigest/receipt"
)

// fixture is a bolt ledger, a receipts log and a policy naming alice as a
// principal, over which a gate asks for approval of a FINANCIAL call, as
// bbdigest gate --ask does: each call a gate of its own that opens the
// ledger and closes it.
type fixture struct {
	ledger, receipts string
	policy           *gate.Policy
	gateKey, alice   ed25519.PrivateKey
	aliceID          string
}

// payCall is the fixture's FINANCIAL call.
const payCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pay","arguments":{"to":"hotel","amount_cents":25000}}}`

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{ledger: filepath.Join(dir, "ledger.db"), receipts: filepath.Join(dir, "receipts.jsonl")}
	var pub ed25519.PublicKey
	var err error
	if _, f.gateKey, err = ed25519.GenerateKey(rand.Reader); err != nil {
		t.Fatal(err)
	}
	if pub, f.alice, err = ed25519.GenerateKey(rand.Reader); err != nil {
		t.Fatal(err)
	}
	f.aliceID = receipt.KeyID(pub)
	f.policy, err = gate.ParsePolicy(fmt.Appendf(nil, `{"policy_version":"v3","tools":{"search":"READ_ONLY","pay":"FINANCIAL"},"principals":[{"name":"alice","public_key":%q}]}`, receipt.MarshalPublicKey(pub)))
	if err != nil {
		t.Fatal(err)
	}
	l, err := bolt.Create(f.ledger, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return f
}

// gate decides call as one bbdigest gate --ask process does, and returns
// the decision.
func (f *fixture) gate(t testing.TB, call string) gate.Decision {
	t.Helper()
	l, err := bolt.Open(f.ledger, &bolt.Options{Wait: bolt.LockTimeout, MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	log, err := receipt.Open(f.receipts, receipt.NewSigner(f.gateKey), receipt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	g, err := gate.New(gate.Config{Policy: f.policy, Ledger: l, Receipts: log, Approvals: l})
	if err != nil {
		t.Fatal(err)
	}
	return g.Authorize(context.Background(), gate.Call{Src: []byte(call), Shape: act.ShapeAuto})
}

// pending runs the fixture's gate on call and returns the envelope digest
// of the approval it asks for.
func (f *fixture) pending(t testing.TB, call string) hashing.Digest {
	t.Helper()
	d := f.gate(t, call)
	if d.Reason != gate.ReasonApprovalPending || d.EnvelopeDigest == (hashing.Digest{}) {
		t.Fatalf("gate --ask: %s, want approval_pending naming an envelope", d.Message())
	}
	return d.EnvelopeDigest
}

// request reads the request d from the fixture's ledger, and closes it.
func (f *fixture) request(t *testing.T, d hashing.Digest) ledger.Request {
	t.Helper()
	l, err := bolt.Open(f.ledger, &bolt.Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r, ok, err := l.Request(d)
	if err != nil || !ok {
		t.Fatalf("request %s: %v, %v", d, ok, err)
	}
	return r
}

// decision is a call of Options.OnDecision.
type decision struct {
	envelope hashing.Digest
	tool     string
	grant    bool
}

// TestDecide runs the Source over a real bolt ledger between the calls of
// a gate: it lists what the gate asked, records a grant that the gate's
// retry allows once (naming alice's key id) and a deny that the retry
// denies, refuses a second decision, an unknown request and an option
// that does not authorize the act, and leaves the ledger closed between
// its calls.
func TestDecide(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var log []decision
	src := New(f.ledger, Options{Key: f.alice, Wait: time.Second, OnDecision: func(r *ledger.Request, grant bool) {
		log = append(log, decision{r.EnvelopeDigest, r.Tool, grant})
	}})

	if items, err := src.Pending(ctx); err != nil || len(items) != 0 {
		t.Fatalf("Pending on an empty ledger: %v, %v", items, err)
	}
	d := f.pending(t, payCall)
	items, err := src.Pending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 {
		t.Fatalf("Pending lists %d items, want 1", len(items))
	}
	it := items[0]
	r := f.request(t, d)
	if it.EnvelopeDigest != d || it.Tool != "pay" || it.Server != "" || it.ActDigest != r.ActDigest ||
		!it.Emitted.Equal(r.EmittedAt) || it.Emitted.IsZero() || !bytes.Equal(it.Envelope, r.Envelope) {
		t.Errorf("Pending lists %+v, want the request %+v", it, r)
	}
	e, err := envelope.Parse(it.Envelope)
	if err != nil || e.Digest() != d {
		t.Errorf("the listed envelope parses to %v (%v), want digest %s", e, err, d)
	}

	// An option that does not authorize the act (Deny, as a grant), and
	// an envelope that was never asked: refused, nothing recorded.
	err = src.Decide(ctx, approvepage.Decision{Envelope: d, Option: 1})
	if err == nil || !strings.Contains(err.Error(), `option 2 ("Deny") does not authorize the act`) {
		t.Errorf("granting option 2 (Deny): %v, want a refusal", err)
	} else if de, ok := errors.AsType[*gate.DecideError](err); !ok || de.Kind != gate.NotSigned {
		t.Errorf("granting option 2 (Deny): %v, want a *gate.DecideError (NotSigned) underneath", err)
	}
	unknown, _ := hashing.ParseDigest("sha256:" + strings.Repeat("0", 64))
	err = src.Decide(ctx, approvepage.Decision{Envelope: unknown})
	if want := "no approval request " + unknown.String() + " in ledger " + f.ledger; err == nil || err.Error() != want || !errors.Is(err, ledger.ErrNoRequest) {
		t.Errorf("deciding an unknown envelope: %v, want %q wrapping ledger.ErrNoRequest", err, want)
	}
	if r := f.request(t, d); r.State != ledger.RequestPending {
		t.Fatalf("after refused decisions the request is %v, want pending", r.State)
	}

	// The grant: recorded, signed by alice; listed no more; decided once.
	if err := src.Decide(ctx, approvepage.Decision{Envelope: d, Option: 0}); err != nil {
		t.Fatalf("Decide (grant): %v", err)
	}
	r = f.request(t, d)
	if r.State != ledger.RequestGranted || len(r.Decision) == 0 || r.DecidedAt.IsZero() {
		t.Errorf("after the grant the request is %v with decision %q, want granted with a signed document", r.State, r.Decision)
	}
	if !bytes.Contains(r.Decision, []byte(f.aliceID)) {
		t.Errorf("the recorded decision does not name alice's key %s: %s", f.aliceID, r.Decision)
	}
	if want := (decision{d, "pay", true}); len(log) != 1 || log[0] != want {
		t.Errorf("OnDecision was called with %+v, want %+v", log, want)
	}
	if items, err := src.Pending(ctx); err != nil || len(items) != 0 {
		t.Errorf("Pending after the grant: %v, %v, want none", items, err)
	}
	err = src.Decide(ctx, approvepage.Decision{Envelope: d, Deny: true})
	if want := "request " + d.String() + " is granted: a request is decided once"; err == nil || err.Error() != want {
		t.Errorf("a second decision: %v, want %q", err, want)
	}

	// The gate's retry is allowed once, on alice's signature; the next
	// one asks anew.
	if g := f.gate(t, payCall); !g.Allow || !strings.Contains(g.Message(), "allow (authority): principal "+f.aliceID+` ("alice")`) {
		t.Fatalf("the retry: %s; want allow (authority) by alice", g.Message())
	}
	d2 := f.pending(t, payCall)
	if d2 == d {
		t.Fatalf("the second retry asks with envelope %s again, want a new envelope", d2)
	}
	// A closed request's refusal carries the hint, as the page shows it.
	err = src.Decide(ctx, approvepage.Decision{Envelope: d, Deny: true})
	if want := "request " + d.String() + " is closed (authority): a request is decided once (the agent's next identical call asks anew, with a new envelope)"; err == nil || err.Error() != want {
		t.Errorf("a decision on the closed request: %v, want %q", err, want)
	}

	// The deny: the retry is denied, approval_denied.
	if err := src.Decide(ctx, approvepage.Decision{Envelope: d2, Deny: true}); err != nil {
		t.Fatalf("Decide (deny): %v", err)
	}
	if r := f.request(t, d2); r.State != ledger.RequestDenied || len(r.Decision) == 0 {
		t.Errorf("after the deny the request is %v, want denied with a signed document", r.State)
	}
	if want := (decision{d2, "pay", false}); len(log) != 2 || log[1] != want {
		t.Errorf("OnDecision was called with %+v, want %+v second", log, want)
	}
	if g := f.gate(t, payCall); g.Reason != gate.ReasonApprovalDenied {
		t.Errorf("the retry after the deny: %s, want approval_denied", g.Message())
	}
	lf, err := os.Open(f.receipts)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	if sum, err := receipt.Verify(ctx, lf, f.gateKey.Public().(ed25519.PublicKey), receipt.VerifyOptions{}); err != nil || sum.Records != 4 {
		t.Errorf("the receipts: %+v, %v; want 4 records verified", sum, err)
	}
}

// TestUnchanged: the listing of an unchanged ledger does not open it (so
// a gate holding it does not make it wait), and a commit by another
// process, a gate asking, is listed at once.
func TestUnchanged(t *testing.T) {
	f := newFixture(t)
	src := New(f.ledger, Options{Key: f.alice, Wait: 50 * time.Millisecond})
	ctx := context.Background()
	d := f.pending(t, payCall)
	items, err := src.Pending(ctx)
	if err != nil || len(items) != 1 || items[0].EnvelopeDigest != d {
		t.Fatalf("Pending: %v, %v; want %s", items, err, d)
	}
	l, err := bolt.Open(f.ledger, nil) // as a gate deciding a call holds it
	if err != nil {
		t.Fatal(err)
	}
	again, err := src.Pending(ctx)
	if err != nil || len(again) != 1 || again[0].EnvelopeDigest != items[0].EnvelopeDigest {
		t.Errorf("Pending of the unchanged ledger while another holds it: %v, %v; want the last listing", again, err)
	}
	// Another act asked, in the same second: listed at the next call.
	r, _, err := l.Request(items[0].EnvelopeDigest)
	if err != nil {
		t.Fatal(err)
	}
	r.EnvelopeDigest = hashing.Sum([]byte("another envelope"))
	r.ActDigest = hashing.Sum([]byte("another act"))
	if _, _, err := l.Ask(&r); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if items, err := src.Pending(ctx); err != nil || len(items) != 2 || items[1].EnvelopeDigest != r.EnvelopeDigest {
		t.Errorf("Pending after a commit: %v, %v; want the new request listed", items, err)
	}
}

// TestLocked: a source whose ledger another process (here, another open
// file) holds waits its Wait bound and fails with a message the page
// shows, naming the lock; it opens nothing when its context is done before
// its turn.
func TestLocked(t *testing.T) {
	f := newFixture(t)
	src := New(f.ledger, Options{Key: f.alice, Wait: 50 * time.Millisecond})
	l, err := bolt.Open(f.ledger, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Pending(context.Background())
	l.Close()
	if !errors.Is(err, ledger.ErrLocked) || strings.HasPrefix(err.Error(), "ledger: ") || !strings.Contains(err.Error(), "locked") {
		t.Errorf("Pending on a held ledger: %v, want ErrLocked, said without the package's name", err)
	}
	src.turn <- struct{}{} // a call of the source has the ledger
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Pending(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Pending with a done context while another call has the ledger: %v, want context.Canceled", err)
	}
	if err := src.Decide(ctx, approvepage.Decision{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Decide with a done context while another call has the ledger: %v, want context.Canceled", err)
	}
	<-src.turn
	if _, err := src.Pending(context.Background()); err != nil {
		t.Errorf("Pending once the ledger is free: %v", err)
	}
}

// BenchmarkPending measures one listing of the approval page, which it
// asks for every second while it is open. changed=true is a listing after
// the ledger changed: open the ledger (with every check of bolt.Open),
// read its requests, close it, while the gate's processes cannot open it;
// changed=false the listing of an unchanged ledger, which does not open
// it. The ledger holds N closed requests (every call the gate asked about
// stays in it, closed) and one pending, each with the envelope the gate
// builds for a FINANCIAL call.
func BenchmarkPending(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("closed=%d", n), func(b *testing.B) {
			f := newFixture(b)
			f.pending(b, payCall)
			l, err := bolt.Open(f.ledger, nil)
			if err != nil {
				b.Fatal(err)
			}
			rs, err := l.Requests()
			if err != nil || len(rs) != 1 {
				b.Fatal(rs, err)
			}
			for i := range n {
				r := rs[0].Clone()
				r.EnvelopeDigest = hashing.Sum(fmt.Appendf(nil, "envelope %d", i))
				r.ActDigest = hashing.Sum(fmt.Appendf(nil, "act %d", i))
				if _, _, err := l.Ask(&r); err != nil {
					b.Fatal(err)
				}
				if _, err := l.Finish(r.EnvelopeDigest, "expired"); err != nil {
					b.Fatal(err)
				}
			}
			if err := l.Close(); err != nil {
				b.Fatal(err)
			}
			st, err := os.Stat(f.ledger)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("the ledger file: %d bytes", st.Size())
			for _, changed := range []bool{true, false} {
				b.Run(fmt.Sprintf("changed=%t", changed), func(b *testing.B) {
					src := New(f.ledger, Options{Key: f.alice, Wait: time.Second})
					ctx := context.Background()
					if _, err := src.Pending(ctx); err != nil { // the listing of changed=false
						b.Fatal(err)
					}
					for b.Loop() {
						if changed {
							src.listed.valid = false // as after a commit
						}
						items, err := src.Pending(ctx)
						if err != nil || len(items) != 1 {
							b.Fatal(items, err)
						}
					}
				})
			}
		})
	}
}
