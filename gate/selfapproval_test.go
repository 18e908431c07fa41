package gate_test

// These tests use only what the gate had before principals (ParsePolicy,
// Authority, Authorize), so that they also build against that gate and
// show what it did: accept a policy naming principals nowhere, and let an
// unsigned authority whose expiry is whatever the presenter wrote approve
// a call.

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/receipt"
)

// principalKey returns the deterministic Ed25519 key of seed byte b.
func principalKey(b byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize))
}

var (
	aliceKey   = principalKey(1) // a principal of principalPolicy, named "alice"
	bobKey     = principalKey(2) // a principal of principalPolicy, without a name
	malloryKey = principalKey(3) // no principal's
)

func publicText(priv ed25519.PrivateKey) string {
	return receipt.MarshalPublicKey(priv.Public().(ed25519.PublicKey))
}

// principalPolicy is testPolicy naming alice and bob as its principals,
// with maxAge (a duration, or "" for the default) as its max_authority_age.
func principalPolicy(t testing.TB, maxAge string) *gate.Policy {
	t.Helper()
	age := ""
	if maxAge != "" {
		age = fmt.Sprintf(`,"max_authority_age":%q`, maxAge)
	}
	src := fmt.Sprintf(`{"policy_version":%q,"tools":{"pay":"FINANCIAL","search":"READ_ONLY","note":"ORDINARY"},
		"principals":[{"name":"alice","public_key":%q},{"public_key":%q}]%s}`,
		testPolicy.Version, publicText(aliceKey), publicText(bobKey), age)
	p, err := gate.ParsePolicy([]byte(src))
	if err != nil {
		t.Fatalf("a policy naming its principals: %v", err)
	}
	return p
}

// TestSelfApprovalRefused: under a policy that names its principals, an
// authority whose resolution nobody signed, which anyone who has seen the
// envelope (the agent sees it in the deny) can write into params._meta,
// with an expiry it chose (9999-12-31), is refused, and consumes nothing.
func TestSelfApprovalRefused(t *testing.T) {
	f := newFixtureWith(t, nil, principalPolicy(t, ""))
	auth := f.authority(payCall, 0)
	auth.Expires = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	d := f.authorize(payCall, auth)
	f.check(d, false, gate.Reason("unsigned"))
	if e, _ := f.ledger.Lookup(auth.Envelope.Digest()); e.State != ledger.StateEmitted {
		t.Errorf("an unsigned authority consumed the envelope: %v", e.State)
	}
	// The same authority in its JSON form, as params._meta carries it.
	src := fmt.Sprintf(`{"envelope":%s,"resolution":%s,"expires":"9999-12-31T00:00:00Z"}`, auth.Envelope.Canonical(), auth.Resolution)
	f.check(f.g.Authorize(t.Context(), gate.Call{Src: []byte(payCall), AuthorityJSON: []byte(src)}), false, gate.Reason("unsigned"))
}

// TestUnauthenticatedAsBefore: without principals the same authority is
// still accepted: that mode stays, and is what the gate's Authenticated
// and bbdigest gate's hint say it is.
func TestUnauthenticatedAsBefore(t *testing.T) {
	f := newFixture(t, nil)
	auth := f.authority(payCall, 0)
	auth.Expires = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	f.check(f.authorize(payCall, auth), true, gate.ReasonAuthority)
}
