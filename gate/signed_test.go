package gate_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/casename"
	"github.com/bbdigest/bbdigest/ledger"
	"github.com/bbdigest/bbdigest/receipt"
)

var forever = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// emitted returns when f's ledger recorded the emission of env.
func (f *fixture) emitted(env *envelope.Envelope) time.Time {
	f.t.Helper()
	e, err := f.ledger.Lookup(env.Digest())
	if err != nil || e.State != ledger.StateEmitted || e.EmittedAt.IsZero() {
		f.t.Fatalf("Lookup(%s) = %+v, %v", env.Digest(), e, err)
	}
	return e.EmittedAt
}

// sign returns auth with its resolution signed by priv at signedAt, for the
// act of the selected option, and an expiry of 9999-12-31: only the policy
// bounds its life.
func sign(t testing.TB, auth *gate.Authority, priv ed25519.PrivateKey, signedAt time.Time) *gate.Authority {
	t.Helper()
	res, err := envelope.ParseResolution(auth.Resolution)
	if err != nil {
		t.Fatal(err)
	}
	opt, ok := auth.Envelope.Option(res.OptionIdx)
	if !ok {
		t.Fatalf("option %d", res.OptionIdx)
	}
	doc, err := gate.SignResolution(auth.Envelope, res, opt.ActionDigest, priv, signedAt)
	if err != nil {
		t.Fatal(err)
	}
	return &gate.Authority{Envelope: auth.Envelope, Resolution: doc, Expires: forever}
}

// signedAuthority emits an envelope whose option idx is the act of call
// (see fixture.authority), has principal priv sign its selection a second
// after the ledger recorded the emission, and sets f's clock two seconds
// after it.
func (f *fixture) signedAuthority(call string, idx int, priv ed25519.PrivateKey) (*gate.Authority, time.Time) {
	f.t.Helper()
	auth := f.authority(call, idx)
	at := f.emitted(auth.Envelope)
	f.now = at.Add(2 * time.Second)
	return sign(f.t, auth, priv, at.Add(time.Second)), at
}

// otherEnvelope emits an envelope that differs from fixture.authority's in
// its synopsis, with the same two acts, and returns it.
func (f *fixture) otherEnvelope(call string) *envelope.Envelope {
	f.t.Helper()
	b := &envelope.Builder{
		Synopsis: "Pay the invoice from acct-7 tomorrow.", Offer: "Ask.", Stem: "Should the invoice be paid?",
		Hatches: envelope.Hatches{FreeText: true, Dialogue: true},
	}
	b.AddOption("Pay 19.99", "It is due.", parseAct(f.t, call).Canonical)
	b.AddOption("Pay the other amount", "A different act.", parseAct(f.t, payOther).Canonical)
	env, err := b.Build()
	if err != nil {
		f.t.Fatal(err)
	}
	if err := f.ledger.Emit(env.Digest()); err != nil {
		f.t.Fatal(err)
	}
	return env
}

// mutate returns the signed document doc with fn applied to its members
// (decoded with encoding/json), written again: canonical, but with the
// signature it had.
func mutate(t testing.TB, doc []byte, fn func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSignedAuthorityAllows: a resolution signed by a principal of the
// policy is authority, once; the decision and its receipt name the
// principal's key id.
func TestSignedAuthorityAllows(t *testing.T) {
	f := newFixtureWith(t, nil, principalPolicy(t, ""))
	if !f.g.Authenticated() {
		t.Fatal("a gate whose policy names principals is not Authenticated")
	}
	auth, _ := f.signedAuthority(payCall, 0, aliceKey)
	d := f.authorize(payCall, auth)
	f.check(d, true, gate.ReasonAuthority)
	aliceID := receipt.KeyID(aliceKey.Public().(ed25519.PublicKey))
	if d.PrincipalKeyID != aliceID || d.PrincipalName != "alice" {
		t.Errorf("decision names principal %q %q, want %s alice", d.PrincipalKeyID, d.PrincipalName, aliceID)
	}
	if !strings.HasPrefix(d.Receipt.Payload.Detail, "principal "+aliceID+` ("alice") signed`) {
		t.Errorf("the receipt does not name the principal: %q", d.Receipt.Payload.Detail)
	}
	// The same signed resolution again: consumed.
	f.check(f.authorize(payCall, auth), false, gate.ReasonConsumed)

	// bob, a principal without a name, signs another envelope.
	env := f.otherEnvelope(payCall)
	f.now = f.emitted(env).Add(time.Second)
	a := sign(t, &gate.Authority{Envelope: env, Resolution: fmt.Appendf(nil, `{"envelope_digest":%q,"resolution":"option","option_idx":0}`, env.Digest())}, bobKey, f.now)
	d = f.authorize(payCall, a)
	f.check(d, true, gate.ReasonAuthority)
	if bobID := receipt.KeyID(bobKey.Public().(ed25519.PublicKey)); d.PrincipalKeyID != bobID || !strings.HasPrefix(d.Detail, "principal "+bobID+" signed") {
		t.Errorf("decision %q names %q", d.Detail, d.PrincipalKeyID)
	}
	f.verify()
}

// TestSignedAuthorityJSON: the signed document travels as the resolution of
// the authority's JSON form (params._meta), re-spelt as JSON on the way
// (other whitespace and member order, escapes): it is verified in its
// canonical form, so it still verifies.
func TestSignedAuthorityJSON(t *testing.T) {
	f := newFixtureWith(t, nil, principalPolicy(t, ""))
	auth, _ := f.signedAuthority(payCall, 0, aliceKey)
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, auth.Resolution, "", "  "); err != nil {
		t.Fatal(err)
	}
	respelt := strings.Replace(pretty.String(), `"option"`, `"\u006fption"`, 1)
	src := fmt.Sprintf(`{"resolution": %s, "expires": "9999-12-31T00:00:00Z", "envelope": %s}`, respelt, auth.Envelope.Canonical())
	d := f.g.Authorize(context.Background(), gate.Call{Src: []byte(payMCP), AuthorityJSON: []byte(src)})
	f.check(d, true, gate.ReasonAuthority)
}

// TestMaxAuthorityAge: a signed authority lives max_authority_age from the
// envelope's emission as the ledger recorded it; the authority's own
// expires (9999-12-31 here) may end it sooner, never later.
func TestMaxAuthorityAge(t *testing.T) {
	f := newFixtureWith(t, nil, principalPolicy(t, "2m"))
	auth, emitted := f.signedAuthority(payCall, 0, aliceKey)
	f.now = emitted.Add(2 * time.Minute)
	d := f.authorize(payCall, auth)
	f.check(d, false, gate.ReasonExpired)
	if !strings.Contains(d.Detail, "max_authority_age") {
		t.Errorf("detail %q", d.Detail)
	}
	if e, _ := f.ledger.Lookup(auth.Envelope.Digest()); e.State != ledger.StateEmitted {
		t.Fatalf("an expired authority consumed the envelope: %v", e.State)
	}
	f.now = emitted.Add(24 * 365 * time.Hour)
	f.check(f.authorize(payCall, auth), false, gate.ReasonExpired)

	// A shorter expires of its own ends it sooner.
	short := *auth
	short.Expires = emitted.Add(30 * time.Second)
	f.now = emitted.Add(31 * time.Second)
	f.check(f.authorize(payCall, &short), false, gate.ReasonExpired)

	// Within both bounds it is authority.
	f.now = emitted.Add(2*time.Minute - time.Millisecond)
	f.check(f.authorize(payCall, auth), true, gate.ReasonAuthority)

	// The default bound is DefaultMaxAuthorityAge.
	f = newFixtureWith(t, nil, principalPolicy(t, ""))
	auth, emitted = f.signedAuthority(payCall, 0, aliceKey)
	f.now = emitted.Add(gate.DefaultMaxAuthorityAge)
	f.check(f.authorize(payCall, auth), false, gate.ReasonExpired)
}

// TestSignedBeforeEmission: a signature made before the ledger recorded
// this emission of the envelope (beyond ClockSkew) was made for another
// one: a ledger that was reset and the same envelope emitted again.
func TestSignedBeforeEmission(t *testing.T) {
	f := newFixtureWith(t, nil, principalPolicy(t, ""))
	auth := f.authority(payCall, 0)
	emitted := f.emitted(auth.Envelope)
	f.now = emitted.Add(time.Second)
	old := sign(t, auth, aliceKey, emitted.Add(-gate.ClockSkew-time.Millisecond))
	d := f.authorize(payCall, old)
	f.check(d, false, gate.ReasonExpired)
	if !strings.Contains(d.Detail, "before the ledger recorded") {
		t.Errorf("detail %q", d.Detail)
	}
	// Within the skew it is accepted.
	f.check(f.authorize(payCall, sign(t, auth, aliceKey, emitted.Add(-gate.ClockSkew))), true, gate.ReasonAuthority)
}

// noEmissionTime is a ledger that records no emission time, as a bolt
// ledger file of an earlier bbdigest holds its pending envelopes.
type noEmissionTime struct{ *ledger.Memory }

func (l noEmissionTime) Lookup(d hashing.Digest) (ledger.Entry, error) {
	e, err := l.Memory.Lookup(d)
	e.EmittedAt = time.Time{}
	return e, err
}

// TestNoEmissionTime: an envelope whose emission time the ledger does not
// hold has no age to bound: refused under principals.
func TestNoEmissionTime(t *testing.T) {
	mem := ledger.NewMemory()
	f := newFixtureWith(t, noEmissionTime{mem}, principalPolicy(t, ""))
	auth := f.authority(payCall, 0)
	e, _ := mem.Lookup(auth.Envelope.Digest())
	f.now = e.EmittedAt.Add(time.Second)
	d := f.authorize(payCall, sign(t, auth, aliceKey, f.now))
	f.check(d, false, gate.ReasonExpired)
	if !strings.Contains(d.Detail, "no emission time") {
		t.Errorf("detail %q", d.Detail)
	}
}

// TestUnknownPrincipal: a valid signature by a key the policy does not
// name is not authority; nor is that signature under a principal's key id.
func TestUnknownPrincipal(t *testing.T) {
	f := newFixtureWith(t, nil, principalPolicy(t, ""))
	auth, _ := f.signedAuthority(payCall, 0, malloryKey)
	f.check(f.authorize(payCall, auth), false, gate.ReasonUnknownPrincipal)

	// mallory's signature, claiming alice's key id.
	aliceID := receipt.KeyID(aliceKey.Public().(ed25519.PublicKey))
	forged := *auth
	forged.Resolution = mutate(t, auth.Resolution, func(m map[string]any) { m["key_id"] = aliceID })
	d := f.authorize(payCall, &forged)
	f.check(d, false, gate.ReasonBadSignature)
	if !errors.Is(d.Err, gate.ErrBadSignature) {
		t.Errorf("Err = %v", d.Err)
	}
	if e, _ := f.ledger.Lookup(auth.Envelope.Digest()); e.State != ledger.StateEmitted {
		t.Errorf("a refused signature consumed the envelope: %v", e.State)
	}
}

// TestSignatureBindsAct: a signature over another act digest is not
// authority for this call's act, neither as signed nor with the act
// digest rewritten.
func TestSignatureBindsAct(t *testing.T) {
	f := newFixtureWith(t, nil, principalPolicy(t, ""))
	auth, _ := f.signedAuthority(payCall, 1, aliceKey) // option 1: payOther's act
	f.check(f.authorize(payCall, auth), false, gate.ReasonNotActBound)

	// The act digest and the option rewritten to this call's: the
	// signature no longer verifies.
	a := parseAct(t, payCall)
	forged := *auth
	forged.Resolution = mutate(t, auth.Resolution, func(m map[string]any) {
		m["act_digest"] = a.Digest.String()
		m["binding_moment_resolution"].(map[string]any)["option_idx"] = 0
	})
	f.check(f.authorize(payCall, &forged), false, gate.ReasonBadSignature)

	// The principal's authority for the act it names is intact.
	f.check(f.authorize(payOther, auth), true, gate.ReasonAuthority)
}

// TestSignatureBindsEnvelope: a signed resolution replayed with another
// envelope (pending, offering the same act) is refused, and so is the same
// signature with the envelope digests rewritten to the other envelope's.
func TestSignatureBindsEnvelope(t *testing.T) {
	f := newFixtureWith(t, nil, principalPolicy(t, ""))
	auth, _ := f.signedAuthority(payCall, 0, aliceKey)
	other := f.otherEnvelope(payCall)
	replay := &gate.Authority{Envelope: other, Resolution: auth.Resolution, Expires: forever}
	d := f.authorize(payCall, replay)
	f.check(d, false, gate.ReasonConsumed)
	if !strings.Contains(d.Detail, "the signed resolution names envelope") {
		t.Errorf("detail %q", d.Detail)
	}
	forged := *replay
	forged.Resolution = mutate(t, auth.Resolution, func(m map[string]any) {
		m["envelope_digest"] = other.Digest().String()
		m["binding_moment_resolution"].(map[string]any)["envelope_digest"] = other.Digest().String()
	})
	f.check(f.authorize(payCall, &forged), false, gate.ReasonBadSignature)
	for _, env := range []*envelope.Envelope{other, auth.Envelope} {
		if e, _ := f.ledger.Lookup(env.Digest()); e.State != ledger.StateEmitted {
			t.Errorf("envelope %s: %v", env.Digest(), e.State)
		}
	}
	// Consumed once, the signed resolution is refused with its envelope too.
	f.check(f.authorize(payCall, auth), true, gate.ReasonAuthority)
	f.check(f.authorize(payCall, auth), false, gate.ReasonConsumed)
}

// TestSignatureRespelt: the signature value has one spelling. Padding,
// a line break (which encoding/base64 skips), the standard alphabet,
// non-zero unused bits and a truncated or extended value are refused
// (receipt once accepted line breaks), as is a signature of the wrong
// algorithm name.
func TestSignatureRespelt(t *testing.T) {
	f := newFixtureWith(t, nil, principalPolicy(t, ""))
	unsigned := f.authority(payCall, 0)
	emitted := f.emitted(unsigned.Envelope)
	f.now = emitted.Add(time.Second)
	// Sign at successive milliseconds until the signature has a character
	// that the standard alphabet spells otherwise (each does with
	// probability 1-(62/64)^86, about 0.93).
	var auth *gate.Authority
	var value, std string
	for ms := range 1000 {
		auth = sign(t, unsigned, aliceKey, emitted.Add(time.Duration(ms)*time.Millisecond))
		var doc struct {
			Signature struct{ Value string } `json:"signature"`
		}
		if err := json.Unmarshal(auth.Resolution, &doc); err != nil {
			t.Fatal(err)
		}
		value = doc.Signature.Value
		raw, err := base64.RawURLEncoding.DecodeString(value)
		if err != nil || len(raw) != ed25519.SignatureSize {
			t.Fatalf("signature %q: %v", value, err)
		}
		if std = base64.RawStdEncoding.EncodeToString(raw); std != value {
			break
		}
	}
	if std == value {
		t.Fatal("1000 signatures without '-' or '_'")
	}
	// The last of 86 characters carries 4 bits: setting one of the 2
	// unused bits decodes to the same bytes with a lax decoder.
	last := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", value[len(value)-1])
	lax := value[:len(value)-1] + string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last|1])
	for name, v := range map[string]any{
		"padded":      value + "==",
		"line break":  value[:40] + "\n" + value[40:],
		"CRLF at end": value + "\r\n",
		"std":         std,
		"unused bits": lax,
		"short":       value[:85],
		"long":        value + "A",
		"empty":       "",
		"not string":  json.Number("1"),
	} {
		if v == value {
			t.Fatalf("%s: the value unchanged", name)
		}
		forged := *auth
		forged.Resolution = mutate(t, auth.Resolution, func(m map[string]any) {
			m["signature"].(map[string]any)["value"] = v
		})
		d := f.authorize(payCall, &forged)
		if d.Allow || d.Reason != gate.ReasonBadSignature {
			t.Errorf("%s: %v %s (%s), want bad_signature", name, d.Allow, d.Reason, d.Detail)
		}
		if _, ok := errors.AsType[*gate.SignedResolutionError](d.Err); !ok {
			t.Errorf("%s: Err = %v, want a *gate.SignedResolutionError", name, d.Err)
		}
	}
	for name, sig := range map[string]any{
		"algorithm":    map[string]any{"algorithm": "EdDSA", "value": value},
		"extra member": map[string]any{"algorithm": "Ed25519", "value": value, "kid": "x"},
		"bare string":  value,
	} {
		forged := *auth
		forged.Resolution = mutate(t, auth.Resolution, func(m map[string]any) { m["signature"] = sig })
		if d := f.authorize(payCall, &forged); d.Allow || d.Reason != gate.ReasonBadSignature {
			t.Errorf("%s: %v %s (%s), want bad_signature", name, d.Allow, d.Reason, d.Detail)
		}
	}
	// The genuine one still passes: nothing above consumed it.
	f.check(f.authorize(payCall, auth), true, gate.ReasonAuthority)
}

// TestSignedResolutionUnauthenticated: a gate without principals reads a
// signed document's resolution, and checks that it names the envelope and
// the act, but cannot check who signed it.
func TestSignedResolutionUnauthenticated(t *testing.T) {
	f := newFixture(t, nil)
	if f.g.Authenticated() {
		t.Fatal("a gate without principals is Authenticated")
	}
	auth := f.authority(payCall, 0)
	f.now = f.emitted(auth.Envelope)
	signed := sign(t, auth, malloryKey, f.now)
	f.check(f.authorize(payOther, signed), false, gate.ReasonNotActBound)
	d := f.authorize(payCall, signed)
	f.check(d, true, gate.ReasonAuthority)
	if d.PrincipalKeyID != "" {
		t.Errorf("an unauthenticated gate names principal %q", d.PrincipalKeyID)
	}
}

// TestSignedResolutionDomainSeparation: one Ed25519 key that signs both
// receipts and resolutions (a misuse the format still survives): a receipt
// is not a signed resolution, its signature signs no resolution document,
// and a signed resolution is no receipt.
func TestSignedResolutionDomainSeparation(t *testing.T) {
	f := newFixtureWith(t, nil, principalPolicy(t, ""))
	auth, _ := f.signedAuthority(payCall, 0, aliceKey)
	alicePub := aliceKey.Public().(ed25519.PublicKey)

	path := filepath.Join(t.TempDir(), "receipts.jsonl")
	log, err := receipt.Open(path, receipt.NewSigner(aliceKey), receipt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	r, err := log.Append(context.Background(), receipt.Payload{Result: receipt.ResultPass, Reason: "authority", Class: receipt.ClassFinancial, EnvelopeDigest: auth.Envelope.Digest()})
	if err != nil {
		t.Fatal(err)
	}
	// The receipt line as a resolution.
	line := *auth
	line.Resolution = r.Line
	f.check(f.authorize(payCall, &line), false, gate.ReasonBadSignature)
	// The receipt's signature on a resolution document.
	var rl struct {
		Signature struct{ Value string } `json:"signature"`
	}
	if err := json.Unmarshal(r.Line, &rl); err != nil {
		t.Fatal(err)
	}
	transplanted := *auth
	transplanted.Resolution = mutate(t, auth.Resolution, func(m map[string]any) {
		m["signature"].(map[string]any)["value"] = rl.Signature.Value
	})
	f.check(f.authorize(payCall, &transplanted), false, gate.ReasonBadSignature)
	// The resolution document as a receipt.
	if err := receipt.VerifyEP(auth.Resolution, alicePub); err == nil {
		t.Error("a signed resolution verifies as an EP-RECEIPT-v1 document")
	}
	if _, err := receipt.Verify(context.Background(), bytes.NewReader(append(auth.Resolution, '\n')), alicePub, receipt.VerifyOptions{}); err == nil {
		t.Error("a signed resolution verifies as a receipt log")
	}
	// And the genuine one passes.
	f.check(f.authorize(payCall, auth), true, gate.ReasonAuthority)
}

// TestParseSignedResolution: the document's members, and what is refused,
// with the pointer of the member at fault.
func TestParseSignedResolution(t *testing.T) {
	env := exampleEnvelope(t)
	opt, _ := env.Option(0)
	res := &envelope.Resolution{EnvelopeDigest: env.Digest(), Kind: envelope.KindOption}
	at := time.UnixMilli(1_796_209_200_123)
	doc, err := gate.SignResolution(env, res, opt.ActionDigest, aliceKey, at)
	if err != nil {
		t.Fatal(err)
	}
	if !canon.IsCanonical(doc, canon.Strict) {
		t.Errorf("SignResolution wrote a document that is not canonical: %s", doc)
	}
	if !bytes.HasPrefix(doc, []byte(`{"@version":"bbdigest-signed-resolution/v1","act_digest":"`+opt.ActionDigest.String()+`","binding_moment_resolution":{"envelope_digest":"`+env.Digest().String()+`","option_idx":0,"resolution":"option"},"envelope_digest":"`)) {
		t.Errorf("document %s", doc)
	}
	s, err := gate.ParseSignedResolution(doc)
	if err != nil {
		t.Fatal(err)
	}
	aliceID := receipt.KeyID(aliceKey.Public().(ed25519.PublicKey))
	if s.ActDigest != opt.ActionDigest || s.EnvelopeDigest != env.Digest() || s.KeyID != aliceID || !s.SignedAt.Equal(at) || s.Resolution != *res {
		t.Errorf("parsed %+v", s)
	}
	if err := s.Verify(aliceKey.Public().(ed25519.PublicKey)); err != nil {
		t.Errorf("Verify(alice) = %v", err)
	}
	if err := s.Verify(bobKey.Public().(ed25519.PublicKey)); !errors.Is(err, gate.ErrBadSignature) {
		t.Errorf("Verify(bob) = %v", err)
	}
	if string(s.ResolutionJSON()) != `{"envelope_digest":"`+env.Digest().String()+`","option_idx":0,"resolution":"option"}` {
		t.Errorf("ResolutionJSON = %s", s.ResolutionJSON())
	}

	for _, c := range []struct {
		name    casename.CaseName
		fn      func(m map[string]any)
		pointer string
	}{
		{casename.Name("no version"), func(m map[string]any) { delete(m, "@version") }, ""},
		{casename.Name("other version"), func(m map[string]any) { m["@version"] = "bbdigest-signed-resolution/v2" }, "/@version"},
		{casename.Name("EP version"), func(m map[string]any) { m["@version"] = "EP-RECEIPT-v1" }, "/@version"},
		{casename.Name("unknown member"), func(m map[string]any) { m["expires"] = "9999-12-31T00:00:00Z" }, "/expires"},
		{casename.Name("missing act"), func(m map[string]any) { delete(m, "act_digest") }, "/act_digest"},
		{casename.Name("missing signature"), func(m map[string]any) { delete(m, "signature") }, "/signature"},
		{casename.Name("missing time"), func(m map[string]any) { delete(m, "signed_at_ms") }, "/signed_at_ms"},
		{casename.Name("bad act"), func(m map[string]any) { m["act_digest"] = "sha256:ABC" }, "/act_digest"},
		{casename.Name("bad key id"), func(m map[string]any) { m["key_id"] = strings.ToUpper(aliceID) }, "/key_id"},
		{casename.Name("time zero"), func(m map[string]any) { m["signed_at_ms"] = 0 }, "/signed_at_ms"},
		{casename.Name("time negative"), func(m map[string]any) { m["signed_at_ms"] = -1 }, "/signed_at_ms"},
		{casename.Name("time string"), func(m map[string]any) { m["signed_at_ms"] = "1796209200123" }, "/signed_at_ms"},
		{casename.Name("other envelope"), func(m map[string]any) { m["envelope_digest"] = opt.ActionDigest.String() }, "/envelope_digest"},
		{casename.Name("declined"), func(m map[string]any) {
			m["binding_moment_resolution"] = map[string]any{"envelope_digest": env.Digest().String(), "resolution": "declined"}
		}, "/binding_moment_resolution/resolution"},
		{casename.Name("wrapped twice"), func(m map[string]any) {
			m["binding_moment_resolution"] = map[string]any{"binding_moment_resolution": m["binding_moment_resolution"]}
		}, "/binding_moment_resolution/envelope_digest"}, // the first of its problems
		{casename.Name("resolution extra"), func(m map[string]any) {
			m["binding_moment_resolution"].(map[string]any)["note"] = "x"
		}, "/binding_moment_resolution/note"},
		{casename.Name("resolution array"), func(m map[string]any) { m["binding_moment_resolution"] = []any{} }, "/binding_moment_resolution"},
	} {
		_, err := gate.ParseSignedResolution(mutate(t, doc, c.fn))
		se, ok := errors.AsType[*gate.SignedResolutionError](err)
		if !ok || se.Pointer != c.pointer {
			t.Errorf("%s: %s: %v, want a *SignedResolutionError at %q", c.name.Where, c.name.Name, err, c.pointer)
		}
	}
	for _, src := range []string{`[]`, `{}`, `{"envelope_digest":"` + env.Digest().String() + `","resolution":"declined"}`} {
		if _, err := gate.ParseSignedResolution([]byte(src)); !errors.Is(err, gate.ErrUnsigned) {
			t.Errorf("ParseSignedResolution(%s) = %v, want ErrUnsigned", src, err)
		}
	}
	// Duplicate names and numbers the profile refuses: the canon error.
	dup := bytes.Replace(doc, []byte(`{"@version":`), []byte(`{"key_id":"x","@version":`), 1)
	if _, err := gate.ParseSignedResolution(dup); !errors.Is(err, canon.ErrDuplicateName) {
		t.Errorf("duplicate key_id: %v", err)
	}
}

// TestSignResolutionRefuses: the signing side refuses what a gate would.
func TestSignResolutionRefuses(t *testing.T) {
	env := exampleEnvelope(t)
	opt0, _ := env.Option(0)
	opt1, _ := env.Option(1)
	now := time.Now()
	sel := func(idx int) *envelope.Resolution {
		return &envelope.Resolution{EnvelopeDigest: env.Digest(), Kind: envelope.KindOption, OptionIdx: idx}
	}
	for _, c := range []struct {
		name casename.CaseName
		env  *envelope.Envelope
		res  *envelope.Resolution
		act  hashing.Digest
		priv ed25519.PrivateKey
		now  time.Time
	}{
		{casename.Name("other act"), env, sel(0), opt1.ActionDigest, aliceKey, now},
		{casename.Name("out of range"), env, sel(2), opt0.ActionDigest, aliceKey, now},
		{casename.Name("declined"), env, &envelope.Resolution{EnvelopeDigest: env.Digest(), Kind: envelope.KindDeclined}, opt0.ActionDigest, aliceKey, now},
		{casename.Name("other env"), env, &envelope.Resolution{EnvelopeDigest: opt0.ActionDigest, Kind: envelope.KindOption}, opt0.ActionDigest, aliceKey, now},
		{casename.Name("no envelope"), nil, sel(0), opt0.ActionDigest, aliceKey, now},
		{casename.Name("zero envelope"), new(envelope.Envelope), sel(0), opt0.ActionDigest, aliceKey, now},
		{casename.Name("no resolution"), env, nil, opt0.ActionDigest, aliceKey, now},
		{casename.Name("short key"), env, sel(0), opt0.ActionDigest, aliceKey[:32], now},
		{casename.Name("before 1970"), env, sel(0), opt0.ActionDigest, aliceKey, time.Unix(0, 0)},
	} {
		if doc, err := gate.SignResolution(c.env, c.res, c.act, c.priv, c.now); err == nil {
			t.Errorf("%s: %s: signed %s", c.name.Where, c.name.Name, doc)
		}
	}
	if _, err := gate.SignResolution(env, sel(1), opt1.ActionDigest, aliceKey, now); err != nil {
		t.Errorf("option 1: %v", err)
	}
}

// exampleEnvelope returns an envelope with two options.
func exampleEnvelope(t testing.TB) *envelope.Envelope {
	t.Helper()
	b := &envelope.Builder{Synopsis: "Pay it.", Offer: "Ask.", Stem: "Pay?", Hatches: envelope.Hatches{FreeText: true}}
	b.AddOption("Pay", "Due.", []byte(`{"a":1}`))
	b.AddOption("Wait", "Not due.", []byte(`{"a":2}`))
	env, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// TestSignedAuthorityManyCallers: 32 goroutines present one signed
// authority at once; exactly one is allowed, the others find it consumed.
func TestSignedAuthorityManyCallers(t *testing.T) {
	f := newFixtureWith(t, nil, principalPolicy(t, ""))
	auth, _ := f.signedAuthority(payCall, 0, aliceKey)
	const n = 32
	decisions := make([]gate.Decision, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			decisions[i] = f.authorize(payCall, auth)
		})
	}
	close(start)
	wg.Wait()
	allowed := 0
	for _, d := range decisions {
		switch {
		case d.Allow && d.Reason == gate.ReasonAuthority:
			allowed++
		case !d.Allow && d.Reason == gate.ReasonConsumed:
		default:
			t.Errorf("decision %v %s: %s", d.Allow, d.Reason, d.Detail)
		}
	}
	if allowed != 1 {
		t.Fatalf("%d calls allowed on one signed authority, want 1", allowed)
	}
	if got := f.verify(); got != n {
		t.Fatalf("%d receipts, want %d", got, n)
	}
}
