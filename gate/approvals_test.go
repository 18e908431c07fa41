package gate_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/ledger/bolt"
	"github.com/bbdigest/bbdigest/receipt"
)

// approvalStore is what the approval tests need of a store: the gate's
// Approvals and the principal's side (Decide, Request, Requests), beside
// the ledger.
type approvalStore interface {
	ledger.Ledger
	ledger.Approvals
}

// newApprovalFixture is a fixture whose gate asks store for approvals under
// policy p (principalPolicy's), and whose clock is the real one plus
// f.skew (the ledger records emissions on the real clock).
func newApprovalFixture(t *testing.T, store approvalStore, p *gate.Policy) (*fixture, *time.Duration) {
	t.Helper()
	s, pub := newSigner(t)
	path := filepath.Join(t.TempDir(), "receipts.jsonl")
	log, err := receipt.Open(path, s, receipt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	if store == nil {
		store = ledger.NewMemory()
	}
	skew := new(time.Duration)
	f := &fixture{t: t, ledger: store, log: log, path: path, pub: pub}
	f.g, err = gate.New(gate.Config{Policy: p, Ledger: store, Receipts: log, Approvals: store, Now: func() time.Time { return time.Now().Add(*skew) }})
	if err != nil {
		t.Fatal(err)
	}
	return f, skew
}

// pending asks for call and checks the deny: approval_pending, naming the
// request's envelope, emitted in the ledger, receipted with its digest.
func (f *fixture) pending(call string) gate.Decision {
	f.t.Helper()
	d := f.authorize(call, nil)
	f.check(d, false, gate.ReasonApprovalPending)
	if d.Approval == nil || d.Approval.EnvelopeDigest != d.EnvelopeDigest || d.Approval.State != ledger.RequestPending ||
		d.Approval.ActDigest != d.Act.Digest || !bytes.Equal(d.Approval.Act, d.Act.Canonical) {
		f.t.Fatalf("approval_pending with request %+v, envelope %s", d.Approval, d.EnvelopeDigest)
	}
	if d.Receipt.Payload.EnvelopeDigest != d.EnvelopeDigest || !strings.Contains(d.Detail, d.EnvelopeDigest.String()) {
		f.t.Fatalf("the receipt or detail does not name envelope %s: %+v", d.EnvelopeDigest, d.Receipt.Payload)
	}
	if e, err := f.ledger.Lookup(d.EnvelopeDigest); err != nil || e.State != ledger.StateEmitted {
		f.t.Fatalf("the request's envelope is %+v, %v in the ledger; want emitted", e, err)
	}
	return d
}

// decide records priv's grant (or deny) of the request d asked.
func decide(t *testing.T, store ledger.Approvals, d gate.Decision, grant bool, priv ed25519.PrivateKey) ledger.Request {
	t.Helper()
	r, ok, err := store.Request(d.EnvelopeDigest)
	if err != nil || !ok {
		t.Fatalf("Request(%s) = %v, %v", d.EnvelopeDigest, ok, err)
	}
	var doc []byte
	state := ledger.RequestGranted
	if grant {
		doc, err = gate.SignGrant(&r, gate.AllowOption, priv, time.Now())
	} else {
		doc, err = gate.SignDeny(&r, priv, time.Now())
		state = ledger.RequestDenied
	}
	if err != nil {
		t.Fatal(err)
	}
	r, err = store.Decide(d.EnvelopeDigest, state, doc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// closedAs checks that the request d asked is closed, why.
func closedAs(t *testing.T, store ledger.Approvals, d gate.Decision, why gate.Reason) {
	t.Helper()
	if r, _, err := store.Request(d.EnvelopeDigest); err != nil || r.State != ledger.RequestClosed || r.Closing != string(why) {
		t.Fatalf("request %s is %v (%q), %v; want closed %q", d.EnvelopeDigest, r.State, r.Closing, err, why)
	}
}

var aliceID = receipt.KeyID(aliceKey.Public().(ed25519.PublicKey))

// TestApprovalLoop: the whole loop, in memory and in a bolt ledger: a call
// without authority asks (approval_pending) and the same act while pending
// gets the same envelope; an act one byte different gets its own; alice's
// grant allows the identical call once, naming her key id in the receipt,
// and consumes the envelope; the next identical call is a new request (a new
// envelope), and the consumed grant presented with a call is refused as
// consumed, as any authority is.
func TestApprovalLoop(t *testing.T) {
	bl, err := bolt.Open(filepath.Join(t.TempDir(), "ledger.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bl.Close()
	for name, store := range map[string]approvalStore{"memory": ledger.NewMemory(), "bolt": bl} {
		t.Run(name, func(t *testing.T) {
			f, _ := newApprovalFixture(t, store, principalPolicy(t, ""))
			first := f.pending(payCall)
			again := f.pending(payCall)
			if again.EnvelopeDigest != first.EnvelopeDigest || !strings.Contains(again.Detail, "still waiting") {
				t.Fatalf("the same act while pending got envelope %s, then %s (%s)", first.EnvelopeDigest, again.EnvelopeDigest, again.Detail)
			}
			// The same act in another shape is the same act.
			if d := f.pending(payMCP); d.EnvelopeDigest != first.EnvelopeDigest {
				t.Fatalf("the MCP shape of the act got envelope %s, want %s", d.EnvelopeDigest, first.EnvelopeDigest)
			}
			other := f.pending(strings.Replace(payCall, "1999", "1990", 1))
			if other.EnvelopeDigest == first.EnvelopeDigest || other.Act.Digest == first.Act.Digest {
				t.Fatal("an act one byte different got the same request")
			}

			r := decide(t, store, first, true, aliceKey)
			d := f.authorize(payCall, nil)
			f.check(d, true, gate.ReasonAuthority)
			if d.PrincipalKeyID != aliceID || d.PrincipalName != "alice" || d.EnvelopeDigest != first.EnvelopeDigest ||
				!strings.HasPrefix(d.Receipt.Payload.Detail, "principal "+aliceID) || d.Receipt.Payload.ResolutionOutcome != "authority" {
				t.Fatalf("allow %+v; receipt %+v", d, d.Receipt.Payload)
			}
			if e, _ := f.ledger.Lookup(first.EnvelopeDigest); e.State != ledger.StateResolved || e.Outcome != ledger.OutcomeAuthority {
				t.Fatalf("the envelope is %+v after the allow", e)
			}
			closedAs(t, store, first, gate.ReasonAuthority)

			// The next identical call: refused, and a new question.
			next := f.pending(payCall)
			if next.EnvelopeDigest == first.EnvelopeDigest || strings.Contains(next.Detail, "still waiting") {
				t.Fatalf("the call after the allow got envelope %s again (%s)", next.EnvelopeDigest, next.Detail)
			}
			// The consumed grant, presented with the call: consumed.
			env, _ := gate.RequestEnvelope(&r)
			f.check(f.authorize(payCall, &gate.Authority{Envelope: env, Resolution: r.Decision, Expires: forever}), false, gate.ReasonConsumed)
			// The other act is still pending, on its own envelope.
			if d := f.pending(strings.Replace(payCall, "1999", "1990", 1)); d.EnvelopeDigest != other.EnvelopeDigest {
				t.Fatal("the other act's request changed")
			}
			f.verify()
		})
	}
}

// TestApprovalDenied: alice's signed Deny denies the retry (approval_denied,
// her key id in the decision), spends the envelope in the ledger
// (declined), closes the request; the next identical call asks anew.
func TestApprovalDenied(t *testing.T) {
	f, _ := newApprovalFixture(t, nil, principalPolicy(t, ""))
	store := f.ledger.(approvalStore)
	p := f.pending(payCall)
	r := decide(t, store, p, false, aliceKey)
	d := f.authorize(payCall, nil)
	f.check(d, false, gate.ReasonApprovalDenied)
	if d.PrincipalKeyID != aliceID || !strings.Contains(d.Detail, "principal "+aliceID+` ("alice") denied`) || d.Receipt.Payload.ResolutionOutcome != "declined" {
		t.Fatalf("deny %+v", d)
	}
	if e, _ := f.ledger.Lookup(p.EnvelopeDigest); e.State != ledger.StateResolved || e.Outcome != ledger.OutcomeDeclined {
		t.Fatalf("the envelope is %+v after the deny", e)
	}
	closedAs(t, store, p, gate.ReasonApprovalDenied)
	if next := f.pending(payCall); next.EnvelopeDigest == p.EnvelopeDigest {
		t.Fatal("the call after the deny got the denied envelope")
	}
	// The signed deny is no authority for the call: it selects the Deny
	// option, whose action is the deny document, not the act.
	env, _ := gate.RequestEnvelope(&r)
	f.check(f.authorize(payCall, &gate.Authority{Envelope: env, Resolution: r.Decision, Expires: forever}), false, gate.ReasonNotActBound)
}

// TestApprovalExpired: a grant presented after max_authority_age from the
// emission is refused (expired), like any authority; the request is closed,
// and the next call asks anew.
func TestApprovalExpired(t *testing.T) {
	f, skew := newApprovalFixture(t, nil, principalPolicy(t, "1m"))
	store := f.ledger.(approvalStore)
	p := f.pending(payCall)
	decide(t, store, p, true, aliceKey)
	*skew = time.Minute + time.Second
	d := f.authorize(payCall, nil)
	f.check(d, false, gate.ReasonExpired)
	if !strings.Contains(d.Detail, "max_authority_age") {
		t.Fatalf("detail %q", d.Detail)
	}
	if e, _ := f.ledger.Lookup(p.EnvelopeDigest); e.State != ledger.StateEmitted {
		t.Fatalf("an expired grant consumed the envelope: %+v", e)
	}
	closedAs(t, store, p, gate.ReasonExpired)
	*skew = 0
	if next := f.pending(payCall); next.EnvelopeDigest == p.EnvelopeDigest {
		t.Fatal("the call after the expired grant got its envelope")
	}
}

// TestApprovalRefusedDecisions: a grant signed by a key the policy does not
// name, a deny signed by one, a grant whose document was altered in the
// store, and a signed deny stored as a grant are each refused for what
// they are, consume nothing, and close the request.
func TestApprovalRefusedDecisions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		grant bool
		key   ed25519.PrivateKey
		alter func(doc []byte) []byte
		state ledger.RequestState
		want  gate.Reason
	}{
		{"grant by mallory", true, malloryKey, nil, ledger.RequestGranted, gate.ReasonUnknownPrincipal},
		{"deny by mallory", false, malloryKey, nil, ledger.RequestDenied, gate.ReasonUnknownPrincipal},
		{"grant altered", true, aliceKey, func(doc []byte) []byte {
			return mutate(t, doc, func(m map[string]any) { m["signed_at_ms"] = json.Number("1796209200001") })
		}, ledger.RequestGranted, gate.ReasonBadSignature},
		{"deny altered", false, aliceKey, func(doc []byte) []byte {
			return mutate(t, doc, func(m map[string]any) { m["signed_at_ms"] = json.Number("1796209200001") })
		}, ledger.RequestDenied, gate.ReasonBadSignature},
		{"deny not a document", false, aliceKey, func([]byte) []byte { return []byte(`{"no":1}`) }, ledger.RequestDenied, gate.ReasonBadSignature},
		{"deny stored as a grant", false, aliceKey, nil, ledger.RequestGranted, gate.ReasonNotActBound},
		{"grant stored as a deny", true, aliceKey, nil, ledger.RequestDenied, gate.ReasonNotActBound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := newApprovalFixture(t, nil, principalPolicy(t, ""))
			store := f.ledger.(approvalStore)
			p := f.pending(payCall)
			r, _, _ := store.Request(p.EnvelopeDigest)
			var doc []byte
			var err error
			if tc.grant {
				doc, err = gate.SignGrant(&r, gate.AllowOption, tc.key, time.Now())
			} else {
				doc, err = gate.SignDeny(&r, tc.key, time.Now())
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.alter != nil {
				doc = tc.alter(doc)
			}
			if _, err := store.Decide(p.EnvelopeDigest, tc.state, doc); err != nil {
				t.Fatal(err)
			}
			d := f.authorize(payCall, nil)
			f.check(d, false, tc.want)
			if d.PrincipalKeyID != "" && tc.want != gate.ReasonNotActBound { // a verified signature names its principal
				t.Errorf("a refused decision names principal %s", d.PrincipalKeyID)
			}
			if e, _ := f.ledger.Lookup(p.EnvelopeDigest); e.State != ledger.StateEmitted {
				t.Fatalf("a refused decision spent the envelope: %+v", e)
			}
			closedAs(t, store, p, tc.want)
		})
	}
}

// TestApprovalsNeedPrincipals: New refuses Approvals under a policy without
// principals: an unsigned approval would be a bearer token.
func TestApprovalsNeedPrincipals(t *testing.T) {
	s, _ := newSigner(t)
	log, err := receipt.Open(filepath.Join(t.TempDir(), "r.jsonl"), s, receipt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	l := ledger.NewMemory()
	_, err = gate.New(gate.Config{Policy: testPolicy, Ledger: l, Receipts: log, Approvals: l})
	ce, ok := errors.AsType[*gate.ConfigError](err)
	if !ok || ce.Field != "Approvals" || !strings.Contains(err.Error(), "principals") {
		t.Fatalf("New = %v; want a *ConfigError for Approvals", err)
	}
}

// brokenStore is a store whose Ask, or whose Finish, fails, or whose Ask
// returns another act's request.
type brokenStore struct {
	*ledger.Memory
	failAsk, failFinish, wrongAct bool
}

func (s *brokenStore) Ask(r *ledger.Request) (ledger.Request, bool, error) {
	if s.failAsk {
		return ledger.Request{}, false, errDisk
	}
	if s.wrongAct {
		o := r.Clone()
		o.ActDigest = hashing.Sum([]byte("another act"))
		return s.Memory.Ask(&o)
	}
	return s.Memory.Ask(r)
}

func (s *brokenStore) Finish(d hashing.Digest, why string) (bool, error) {
	if s.failFinish {
		return false, errDisk
	}
	return s.Memory.Finish(d, why)
}

// TestApprovalStoreFails: a store that fails, or answers for another act,
// denies the call (approval_error), receipted; it never allows. A store
// that cannot close a consumed grant turns the allow into a deny, and the
// authority stays consumed.
func TestApprovalStoreFails(t *testing.T) {
	for name, s := range map[string]*brokenStore{
		"ask fails":       {failAsk: true},
		"another act":     {wrongAct: true},
		"finish fails":    {failFinish: true},
		"ask and finish ": {failAsk: true, failFinish: true},
	} {
		t.Run(name, func(t *testing.T) {
			s.Memory = ledger.NewMemory()
			f, _ := newApprovalFixture(t, s, principalPolicy(t, ""))
			if s.failFinish && !s.failAsk {
				p := f.pending(payCall)
				decide(t, s, p, true, aliceKey)
				d := f.authorize(payCall, nil)
				f.check(d, false, gate.ReasonApprovalError)
				if !errors.Is(d.Err, errDisk) || !strings.Contains(d.Detail, "consumed") {
					t.Fatalf("deny %+v", d)
				}
				if e, _ := s.Lookup(p.EnvelopeDigest); e.State != ledger.StateResolved {
					t.Fatalf("the envelope is %+v", e)
				}
				return
			}
			d := f.authorize(payCall, nil)
			f.check(d, false, gate.ReasonApprovalError)
			if s.failAsk && !errors.Is(d.Err, errDisk) {
				t.Fatalf("deny %+v", d)
			}
		})
	}
}

// TestApprovalManyGates: gates sharing one store, each asked for one act
// at once, end with one request, and every caller is told its envelope.
func TestApprovalManyGates(t *testing.T) {
	store := ledger.NewMemory()
	gates := make([]*fixture, 4)
	for i := range gates {
		gates[i], _ = newApprovalFixture(t, store, principalPolicy(t, ""))
	}
	var wg sync.WaitGroup
	ds := make([]gate.Decision, 32)
	for i := range ds {
		wg.Go(func() { ds[i] = gates[i%len(gates)].authorize(payCall, nil) })
	}
	wg.Wait()
	for _, d := range ds {
		if d.Reason != gate.ReasonApprovalPending || d.EnvelopeDigest != ds[0].EnvelopeDigest {
			t.Fatalf("decision %s on envelope %s; want approval_pending on %s", d.Reason, d.EnvelopeDigest, ds[0].EnvelopeDigest)
		}
	}
	if rs, _ := store.Requests(); len(rs) != 1 {
		t.Fatalf("%d requests, want 1", len(rs))
	}
}

// TestApprovalGatewayShapes: the loop through the payloads
// docker/mcp-gateway's before:exec interceptor hands the gate
// ({"Params":...,"Session":...,"Extra":...}) and a JSON-RPC tools/call: the
// same act whatever the wrapping, asked once, allowed once.
func TestApprovalGatewayShapes(t *testing.T) {
	f, _ := newApprovalFixture(t, nil, principalPolicy(t, ""))
	store := f.ledger.(approvalStore)
	const args = `{"amount_cents":1999,"to":"acct-7"}`
	gateway := `{"Params":{"name":"pay","arguments":` + args + `},"Session":{},"Extra":{"TokenInfo":null,"Header":{"Accept":["*/*"]}}}`
	gatewayMeta := `{"Params":{"_meta":{"progressToken":1},"name":"pay","arguments":{"to":"acct-7","amount_cents":1999}},"Session":{"id":"s1"},"Extra":null}`
	rpc := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"pay","arguments":` + args + `}}`
	p := f.pending(gateway)
	for _, call := range []string{gatewayMeta, rpc, payCall} {
		if d := f.pending(call); d.EnvelopeDigest != p.EnvelopeDigest {
			t.Fatalf("%s: envelope %s, want %s", call, d.EnvelopeDigest, p.EnvelopeDigest)
		}
	}
	decide(t, store, p, true, aliceKey)
	f.check(f.authorize(gatewayMeta, nil), true, gate.ReasonAuthority)
	if d := f.pending(gateway); d.EnvelopeDigest == p.EnvelopeDigest {
		t.Fatal("the gateway's retry after the allow got the consumed envelope")
	}
	f.verify()
}

// TestApprovalEnvelope: the envelope of a request is a well-formed binding
// moment (§4, §5): the synopsis names the tool and the server, the
// findings the class, the arguments as JSON, the act digest and the
// request's nonce; "Allow this call once" authorizes the act, "Deny" the
// deny document, and Deny is recommended. Two requests for one act differ
// (the nonce), so a new question is a new envelope.
func TestApprovalEnvelope(t *testing.T) {
	a := parseAct(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":{"amount_cents":1999,"to":"acct-7","memo":"line1\nline2 \u202e"}}}`)
	a.Server = "shop"
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	r, err := gate.NewRequest(a, gate.Financial, "v1", now, strings.NewReader(strings.Repeat("\x01", 16)))
	if err != nil {
		t.Fatal(err)
	}
	env, err := gate.RequestEnvelope(r)
	if err != nil {
		t.Fatal(err)
	}
	if r.ActDigest != a.Digest || !bytes.Equal(r.Act, a.Canonical) || r.Tool != "pay" || r.Server != "shop" || r.Class != "FINANCIAL" {
		t.Fatalf("request %+v", r)
	}
	if s := env.Synopsis(); !strings.Contains(s, `tool "pay" on server "shop"`) {
		t.Errorf("synopsis %q", s)
	}
	want := []string{
		`Tool "pay" is FINANCIAL under policy "v1", which needs a principal's authority for it.`,
		`Argument "amount_cents": 1999`,
		`Argument "memo": "line1\nline2 ` + "\u202e" + `"`,
		`Argument "to": "acct-7"`,
		"Act digest " + a.Digest.String() + ": an approval allows exactly this call, once.",
		"Request 01010101010101010101010101010101, asked at 2026-05-01T12:00:00Z.",
	}
	if got := env.Findings(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings\n%q\nwant\n%q", got, want)
	}
	opts := env.Options()
	if len(opts) != 2 || opts[gate.AllowOption].Label != "Allow this call once" || opts[gate.AllowOption].ActionDigest != a.Digest ||
		opts[gate.DenyOption].Label != "Deny" || opts[gate.DenyOption].ActionDigest != hashing.Sum(gate.DenyAction(a.Digest)) ||
		env.RecommendedIdx() != gate.DenyOption || env.Hatches() != (envelope.Hatches{}) {
		t.Errorf("options %+v, recommended %d, hatches %+v", opts, env.RecommendedIdx(), env.Hatches())
	}
	if c, ok := env.DecisionClass(); !ok || c != "FINANCIAL" {
		t.Errorf("decision_class %q, %v", c, ok)
	}
	// The renderer escapes what the agent wrote.
	if text := envelope.RenderText(env); strings.Contains(text, "\u202e") || !strings.Contains(text, `\u202e`) {
		t.Errorf("rendering keeps the bidi override raw:\n%s", text)
	}
	// Another request for the act: another envelope.
	r2, err := gate.NewRequest(a, gate.Financial, "v1", now, strings.NewReader(strings.Repeat("\x02", 16)))
	if err != nil || r2.EnvelopeDigest == r.EnvelopeDigest || r2.ActDigest != r.ActDigest {
		t.Fatalf("a second request: %v, envelope %s", err, r2.EnvelopeDigest)
	}
	// The deny document names the act.
	if got := string(gate.DenyAction(a.Digest)); got != `{"@version":"bbdigest-approval-deny/v1","act_digest":"`+a.Digest.String()+`"}` {
		t.Errorf("DenyAction = %s", got)
	}
	// A nonce that cannot be read: no request.
	if _, err := gate.NewRequest(a, gate.Financial, "v1", now, strings.NewReader("short")); err == nil {
		t.Error("NewRequest with a short nonce succeeded")
	}
}

// TestApprovalEnvelopeBounds: many arguments, long values and long names
// are shown in part, and the findings say so; the envelope stays valid.
func TestApprovalEnvelopeBounds(t *testing.T) {
	var args strings.Builder
	args.WriteString(`{`)
	for i := range 20 {
		if i > 0 {
			args.WriteString(",")
		}
		name := fmt.Sprintf("k%02d", i)
		if i == 19 {
			name = strings.Repeat("n", 600) // sorts last
		}
		fmt.Fprintf(&args, `"%s":"%s"`, name, strings.Repeat("é", 400))
	}
	args.WriteString(`}`)
	a := parseAct(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":`+args.String()+`}}`)
	r, err := gate.NewRequest(a, gate.Unconfigured, "v1", time.Now(), strings.NewReader(strings.Repeat("x", 16)))
	if err != nil {
		t.Fatal(err)
	}
	env, err := gate.RequestEnvelope(r)
	if err != nil {
		t.Fatal(err)
	}
	f := env.Findings()
	if f[0] != `Tool "pay" is not in policy "v1", which needs a principal's authority for every tool it does not name.` {
		t.Errorf("the class of an unconfigured tool: %q", f[0])
	}
	// class, 16 arguments, "4 more", act digest, request
	if len(f) != 1+16+1+2 {
		t.Fatalf("%d findings: %q", len(f), f)
	}
	if !strings.Contains(f[1], "(cut: 511 bytes of 802 shown; the act digest covers them all)") {
		t.Errorf("a long value: %q", f[1])
	}
	if f[17] != "4 more arguments, not listed here (20 in all): the act digest covers them all." {
		t.Errorf("the arguments not shown: %q", f[17])
	}
	// The last argument, with its long name, is not listed; shown alone,
	// its name is cut too.
	r.Act = nil
	b := parseAct(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":{"`+strings.Repeat("n", 600)+`":1}}}`)
	if r, err = gate.NewRequest(b, gate.Unconfigured, "v1", time.Now(), strings.NewReader(strings.Repeat("x", 16))); err != nil {
		t.Fatal(err)
	}
	env, _ = gate.RequestEnvelope(r)
	if f := env.Findings()[1]; !strings.HasPrefix(f, `Argument "nnn`) || !strings.Contains(f, "(cut: 512 bytes of 602 shown; the act digest covers them all): 1") {
		t.Errorf("a long name: %q", f)
	}
}

// TestSignGrantRefuses: a grant selects an option that authorizes the act;
// Deny is not one.
func TestSignGrantRefuses(t *testing.T) {
	r, err := gate.NewRequest(parseAct(t, payCall), gate.Financial, "v1", time.Now(), strings.NewReader(strings.Repeat("x", 16)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gate.SignGrant(r, gate.DenyOption, aliceKey, time.Now()); err == nil || !strings.Contains(err.Error(), "does not authorize") {
		t.Fatalf("SignGrant(Deny) = %v", err)
	}
	if _, err := gate.SignGrant(r, 5, aliceKey, time.Now()); err == nil {
		t.Fatal("SignGrant(option 5) succeeded")
	}
	bad := r.Clone()
	bad.EnvelopeDigest = hashing.Sum([]byte("x"))
	if _, err := gate.SignDeny(&bad, aliceKey, time.Now()); err == nil {
		t.Fatal("SignDeny of a request whose envelope is not its digest's succeeded")
	}
}

// TestApprovalUnconfiguredTool: a tool the policy does not name needs
// authority, so the gate asks for it too, and its grant allows it once.
func TestApprovalUnconfiguredTool(t *testing.T) {
	f, _ := newApprovalFixture(t, nil, principalPolicy(t, ""))
	p := f.pending(rebootCall)
	if p.Class != gate.Unconfigured || p.Approval.Class != "UNCONFIGURED" {
		t.Fatalf("class %v, request class %q", p.Class, p.Approval.Class)
	}
	decide(t, f.ledger.(approvalStore), p, true, aliceKey)
	f.check(f.authorize(rebootCall, nil), true, gate.ReasonAuthority)
}

// FuzzApprovalRequest: for every call the gate reads, NewRequest builds a
// well-formed envelope (RequestEnvelope reads it back, its digest the
// request's) with Allow bound to the act and Deny to its deny document,
// and at most 20 findings, whatever the arguments hold.
func FuzzApprovalRequest(f *testing.F) {
	f.Add([]byte(payCall))
	f.Add([]byte(payMCP))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x\u202e","arguments":{"":{"a":[1,"\u2028",null]},"b":"\u001b"}}}`))
	f.Add([]byte(`{"Params":{"name":"pay","arguments":{}},"Session":{}}`))
	f.Fuzz(func(t *testing.T, call []byte) {
		a, err := act.Parse(call, act.ShapeAuto, "srv")
		if err != nil {
			return
		}
		r, err := gate.NewRequest(a, gate.Financial, "v1", time.Unix(1, 0), bytes.NewReader(make([]byte, 16)))
		if err != nil {
			t.Fatalf("NewRequest(%s): %v", a.Canonical, err)
		}
		env, err := gate.RequestEnvelope(r)
		if err != nil {
			t.Fatal(err)
		}
		opts := env.Options()
		if len(opts) != 2 || opts[gate.AllowOption].ActionDigest != a.Digest || opts[gate.DenyOption].ActionDigest != hashing.Sum(gate.DenyAction(a.Digest)) {
			t.Fatalf("options %+v for act %s", opts, a.Digest)
		}
		if n := len(env.Findings()); n < 4 || n > 20 {
			t.Fatalf("%d findings", n)
		}
	})
}
