package gate_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/receipt"
)

// elicitPolicy is principalPolicy's with its elicitation member set to
// classes (a JSON array), or left out when classes is "".
func elicitPolicy(t *testing.T, classes string) *gate.Policy {
	t.Helper()
	p := principalPolicy(t, "")
	if classes == "" {
		return p
	}
	b, err := p.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	b = append(b[:len(b)-1], `,"elicitation":`+classes+`}`...)
	if p, err = gate.ParsePolicy(b); err != nil {
		t.Fatal(err)
	}
	return p
}

// elicited hands the gate the user's answer option to the request d asked,
// asked a second ago.
func (f *fixture) elicited(call string, d gate.Decision, option int) gate.Decision {
	f.t.Helper()
	return f.g.AuthorizeElicited(context.Background(), gate.Call{Src: []byte(call)},
		gate.Elicited{EnvelopeDigest: d.EnvelopeDigest, Option: option, AskedAt: time.Now().Add(-time.Second)})
}

// checkChannel asserts d's channel, in the decision and in its receipt.
func checkChannel(t *testing.T, d gate.Decision, want gate.Channel) {
	t.Helper()
	if d.Channel != want || d.Receipt == nil || d.Receipt.Payload.Channel != string(want) {
		t.Fatalf("channel %q, receipt %+v; want %q in both", d.Channel, d.Receipt, want)
	}
}

// TestElicitedAllow: under a policy that lists FINANCIAL, the user's Allow
// allows the pending act once: the receipt's channel is elicitation, the
// envelope is consumed in the ledger, the request is closed holding the
// recorded answer; the same answer again, or the identical call, is no
// authority.
func TestElicitedAllow(t *testing.T) {
	store := ledger.NewMemory()
	f, _ := newApprovalFixture(t, store, elicitPolicy(t, `["FINANCIAL"]`))
	if !f.g.Elicits(gate.Financial) || f.g.Elicits(gate.Physical) || f.g.Elicits(gate.Ordinary) || f.g.Elicits(gate.Unconfigured) {
		t.Fatal("Elicits does not follow the policy's elicitation member")
	}
	asked := f.pending(payCall)
	d := f.elicited(payCall, asked, gate.AllowOption)
	f.check(d, true, gate.ReasonAuthority)
	checkChannel(t, d, gate.ChannelElicitation)
	if d.PrincipalKeyID != "" || d.EnvelopeDigest != asked.EnvelopeDigest || !strings.Contains(d.Detail, "MCP client's user") || d.Receipt.Payload.ResolutionOutcome != "authority" {
		t.Fatalf("allow %+v; receipt %+v", d, d.Receipt.Payload)
	}
	if e, _ := f.ledger.Lookup(asked.EnvelopeDigest); e.State != ledger.StateResolved || e.Outcome != ledger.OutcomeAuthority {
		t.Fatalf("the envelope is %+v after the allow", e)
	}
	closedAs(t, store, asked, gate.ReasonAuthority)
	r, _, _ := store.Request(asked.EnvelopeDigest)
	want := fmt.Sprintf(`{"@version":"bbdigest-elicited-decision/v1","act_digest":"%s","answered_at_ms":`, asked.Act.Digest)
	if !bytes.HasPrefix(r.Decision, []byte(want)) || !bytes.HasSuffix(r.Decision, fmt.Appendf(nil, `,"channel":"elicitation","envelope_digest":"%s","option_idx":0}`, asked.EnvelopeDigest)) {
		t.Fatalf("the request records %s", r.Decision)
	}

	// The same answer again: the question is no longer asked.
	again := f.elicited(payCall, asked, gate.AllowOption)
	f.check(again, false, gate.ReasonConsumed)
	checkChannel(t, again, gate.ChannelElicitation)
	// The identical call asks anew.
	if next := f.pending(payCall); next.EnvelopeDigest == asked.EnvelopeDigest {
		t.Fatal("the call after the allow got the spent envelope")
	}
	f.verify()
}

// TestElicitedDeny: the user's Deny, or a decline, denies the act
// (approval_denied), spends the envelope and closes the request; a denial
// is honoured even for a class whose elicited Allow would not count.
func TestElicitedDeny(t *testing.T) {
	for _, c := range []struct {
		option int
		what   string
	}{
		{gate.DenyOption, `chose "Deny"`},
		{gate.ElicitDeclined, "declined the question"},
	} {
		t.Run(c.what, func(t *testing.T) {
			store := ledger.NewMemory()
			f, _ := newApprovalFixture(t, store, principalPolicy(t, "")) // FINANCIAL not listed
			asked := f.pending(payCall)
			d := f.elicited(payCall, asked, c.option)
			f.check(d, false, gate.ReasonApprovalDenied)
			checkChannel(t, d, gate.ChannelElicitation)
			if !strings.Contains(d.Detail, c.what) || d.Receipt.Payload.ResolutionOutcome != "declined" {
				t.Fatalf("deny %q; receipt %+v", d.Detail, d.Receipt.Payload)
			}
			if e, _ := f.ledger.Lookup(asked.EnvelopeDigest); e.State != ledger.StateResolved || e.Outcome != ledger.OutcomeDeclined {
				t.Fatalf("the envelope is %+v after the deny", e)
			}
			closedAs(t, store, asked, gate.ReasonApprovalDenied)
			f.verify()
		})
	}
}

// TestElicitationNotAuthority: under the default policy an elicited Allow
// of a FINANCIAL or PHYSICAL tool is no authority (elicitation_not_authority,
// saying why), consumes nothing, and leaves the request pending for a
// principal, whose signed grant then allows the call (channel signed); an
// unconfigured tool never takes an elicited Allow, whatever the policy
// lists.
func TestElicitationNotAuthority(t *testing.T) {
	for _, c := range []struct {
		name, classes, call string
		class               gate.Class
	}{
		{"financial by default", "", payCall, gate.Financial},
		{"physical by default", "", strings.Replace(payCall, `"pay"`, `"unlock"`, 1), gate.Physical},
		{"physical not listed", `["FINANCIAL"]`, strings.Replace(payCall, `"pay"`, `"unlock"`, 1), gate.Physical},
		{"unconfigured", `["READ_ONLY","ORDINARY","FINANCIAL","PHYSICAL","NETWORK_CONTROL"]`, strings.Replace(payCall, `"pay"`, `"wire"`, 1), gate.Unconfigured},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := ledger.NewMemory()
			p := elicitPolicy(t, c.classes)
			p.Tools["unlock"] = gate.Physical
			f, _ := newApprovalFixture(t, store, p)
			asked := f.pending(c.call)
			if asked.Class != c.class {
				t.Fatalf("the call is %v, want %v", asked.Class, c.class)
			}
			if f.g.Elicits(asked.Class) {
				t.Fatalf("Elicits(%v) under elicitation %s", asked.Class, c.classes)
			}
			d := f.elicited(c.call, asked, gate.AllowOption)
			f.check(d, false, gate.ReasonElicitationNotAuthority)
			checkChannel(t, d, gate.ChannelElicitation)
			if !strings.Contains(d.Detail, "does not count an elicited answer as authority for "+asked.Class.String()) ||
				!strings.Contains(d.Detail, "whoever controls the MCP client's interface") || !strings.Contains(d.Detail, "stays pending") {
				t.Fatalf("detail %q does not say why", d.Detail)
			}
			if e, _ := f.ledger.Lookup(asked.EnvelopeDigest); e.State != ledger.StateEmitted {
				t.Fatalf("the envelope is %+v; want still emitted", e)
			}
			if r, _, _ := store.Request(asked.EnvelopeDigest); r.State != ledger.RequestPending {
				t.Fatalf("the request is %v; want pending", r.State)
			}
			decide(t, store, asked, true, aliceKey)
			ok := f.authorize(c.call, nil)
			f.check(ok, true, gate.ReasonAuthority)
			checkChannel(t, ok, gate.ChannelSigned)
			if ok.PrincipalKeyID != aliceID {
				t.Fatalf("allowed on %q", ok.PrincipalKeyID)
			}
		})
	}
}

// TestElicitedRefusals: an answer asked too long ago, or with no time, is
// expired; an option the envelope does not have is no authority; a
// principal who decided first is the one decided on; a gate whose
// Approvals do not record decisions takes no elicited answer.
func TestElicitedRefusals(t *testing.T) {
	store := ledger.NewMemory()
	f, _ := newApprovalFixture(t, store, elicitPolicy(t, `["FINANCIAL"]`))
	asked := f.pending(payCall)
	for _, c := range []struct {
		e    gate.Elicited
		want gate.Reason
	}{
		{gate.Elicited{EnvelopeDigest: asked.EnvelopeDigest, Option: gate.AllowOption}, gate.ReasonExpired},
		{gate.Elicited{EnvelopeDigest: asked.EnvelopeDigest, Option: gate.AllowOption, AskedAt: time.Now().Add(-gate.DefaultMaxAuthorityAge)}, gate.ReasonExpired},
		{gate.Elicited{EnvelopeDigest: asked.EnvelopeDigest, Option: 2, AskedAt: time.Now()}, gate.ReasonNotAuthority},
		{gate.Elicited{EnvelopeDigest: hashing.Sum([]byte("another question")), Option: gate.AllowOption, AskedAt: time.Now()}, gate.ReasonConsumed},
	} {
		d := f.g.AuthorizeElicited(context.Background(), gate.Call{Src: []byte(payCall)}, c.e)
		f.check(d, false, c.want)
		checkChannel(t, d, gate.ChannelElicitation)
	}
	if r, _, _ := store.Request(asked.EnvelopeDigest); r.State != ledger.RequestPending {
		t.Fatalf("the request is %v after refused answers; want pending", r.State)
	}

	// Alice denied first: her signed deny is the decision, not the user's Allow.
	decide(t, store, asked, false, aliceKey)
	d := f.elicited(payCall, asked, gate.AllowOption)
	f.check(d, false, gate.ReasonApprovalDenied)
	checkChannel(t, d, gate.ChannelSigned)
	if d.PrincipalKeyID != aliceID {
		t.Fatalf("denied by %q", d.PrincipalKeyID)
	}

	// Approvals that only ask and finish: no elicitation.
	g, err := gate.New(gate.Config{Policy: elicitPolicy(t, `["FINANCIAL"]`), Ledger: store, Receipts: f.log, Approvals: askOnly{store}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Elicits(gate.Financial) {
		t.Fatal("Elicits with Approvals that cannot record a decision")
	}
	next := g.Authorize(context.Background(), gate.Call{Src: []byte(payCall)})
	d = g.AuthorizeElicited(context.Background(), gate.Call{Src: []byte(payCall)}, gate.Elicited{EnvelopeDigest: next.EnvelopeDigest, Option: gate.AllowOption, AskedAt: time.Now()})
	if d.Allow || d.Reason != gate.ReasonApprovalError {
		t.Fatalf("%s: %s", d.Reason, d.Detail)
	}
	f.verify()
}

// askOnly is an Approvals store that does not record decisions.
type askOnly struct{ s *ledger.Memory }

func (a askOnly) Ask(r *ledger.Request) (ledger.Request, bool, error) { return a.s.Ask(r) }
func (a askOnly) Finish(d hashing.Digest, why string) (bool, error)   { return a.s.Finish(d, why) }

// TestElicitedNotFromBytes: nothing a call carries is an elicited answer. A
// recorded elicited grant presented as the call's authority (its
// resolution) is refused as unsigned, and one left in the store by a gate
// that failed before consuming it is refused when read back
// (not_authority), closing the request; an elicited denial left there is
// honoured.
func TestElicitedNotFromBytes(t *testing.T) {
	store := ledger.NewMemory()
	f, _ := newApprovalFixture(t, store, elicitPolicy(t, `["FINANCIAL"]`))
	asked := f.pending(payCall)
	r, _, _ := store.Request(asked.EnvelopeDigest)
	env, err := gate.RequestEnvelope(&r)
	if err != nil {
		t.Fatal(err)
	}
	doc := fmt.Appendf(nil, `{"@version":"bbdigest-elicited-decision/v1","act_digest":"%s","answered_at_ms":%d,"channel":"elicitation","envelope_digest":"%s","option_idx":0}`,
		asked.Act.Digest, time.Now().UnixMilli(), asked.EnvelopeDigest)
	d := f.authorize(payCall, &gate.Authority{Envelope: env, Resolution: doc, Expires: time.Now().Add(time.Minute)})
	if d.Allow || (d.Reason != gate.ReasonBadSignature && d.Reason != gate.ReasonUnsigned) || d.Channel != "" {
		t.Fatalf("an elicited decision as the call's authority: %s (%s), channel %q", d.Reason, d.Detail, d.Channel)
	}
	if e, _ := f.ledger.Lookup(asked.EnvelopeDigest); e.State != ledger.StateEmitted {
		t.Fatalf("the envelope is %+v; want still emitted", e)
	}

	if _, err := store.Decide(asked.EnvelopeDigest, ledger.RequestGranted, doc); err != nil {
		t.Fatal(err)
	}
	d = f.authorize(payCall, nil)
	f.check(d, false, gate.ReasonNotAuthority)
	checkChannel(t, d, gate.ChannelElicitation)
	closedAs(t, store, asked, gate.ReasonNotAuthority)

	next := f.pending(payCall)
	deny := bytes.Replace(doc, []byte(asked.EnvelopeDigest.String()), []byte(next.EnvelopeDigest.String()), 1)
	if _, err := store.Decide(next.EnvelopeDigest, ledger.RequestDenied, bytes.Replace(deny, []byte(`"option_idx":0`), []byte(`"option_idx":1`), 1)); err != nil {
		t.Fatal(err)
	}
	d = f.authorize(payCall, nil)
	f.check(d, false, gate.ReasonApprovalDenied)
	checkChannel(t, d, gate.ChannelElicitation)
	closedAs(t, store, next, gate.ReasonApprovalDenied)
	f.verify()
}

// The receipt's channel of a principal's signed grant is "signed".
func TestSignedChannel(t *testing.T) {
	store := ledger.NewMemory()
	f, _ := newApprovalFixture(t, store, principalPolicy(t, ""))
	asked := f.pending(payCall)
	if asked.Channel != "" || asked.Receipt.Payload.Channel != "" {
		t.Fatalf("a pending decision has channel %q", asked.Channel)
	}
	decide(t, store, asked, true, aliceKey)
	d := f.authorize(payCall, nil)
	f.check(d, true, gate.ReasonAuthority)
	checkChannel(t, d, gate.ChannelSigned)
	if !bytes.Contains(d.Receipt.Line, []byte(`"channel":"`+receipt.ChannelSigned+`"`)) {
		t.Fatalf("receipt line %s", d.Receipt.Line)
	}
}
