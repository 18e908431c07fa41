package gate_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/hashing"
)

// FuzzParsePolicy: ParsePolicy never panics, and a policy it accepts is
// valid, was a JSON object without duplicate names, and reads back the same
// through encoding/json.
func FuzzParsePolicy(f *testing.F) {
	f.Add([]byte(`{"policy_version":"v7","server":"mcp://x","threshold":"ORDINARY","tools":{"a":"READ_ONLY","b":"NETWORK_CONTROL"}}`))
	f.Add([]byte(`{"policy_version":"","tools":{}}`))
	f.Add([]byte(`{"policy_version":"v","tools":{"a":"READ_ONLY","a":"FINANCIAL"}}`))
	f.Add([]byte(`{"policy_version":"v","tools":{},"threshold":"PHYSICAL"}`))
	f.Add([]byte(`{"policy_version":"v","tools":{"a":"READ_ONLY","b":"ORDINARY"},"number_profiles":{"classes":{"ORDINARY":"strict"},"tools":{"a":"strict","b":"rfc8785"}}}`))
	f.Add([]byte(`{"policy_version":"v","tools":{"p":"FINANCIAL"},"number_profiles":{"classes":{},"tools":{"p":"rfc8785"}}}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := gate.ParsePolicy(src)
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted an invalid policy: %v", err)
		}
		if err := canon.Validate(src, canon.RFC8785); err != nil {
			t.Fatalf("accepted a policy the rfc8785 gate refuses: %v", err)
		}
		var raw struct {
			Version   string            `json:"policy_version"`
			Server    string            `json:"server"`
			Threshold string            `json:"threshold"`
			Tools     map[string]string `json:"tools"`
		}
		if err := json.Unmarshal(src, &raw); err != nil {
			t.Fatalf("accepted what encoding/json cannot read: %v", err)
		}
		if raw.Version != p.Version || raw.Server != p.Server || len(raw.Tools) != len(p.Tools) {
			t.Fatalf("policy %+v, encoding/json reads %+v", p, raw)
		}
		for name, c := range p.Tools {
			if raw.Tools[name] != c.String() {
				t.Fatalf("tool %q: %v, encoding/json reads %q", name, c, raw.Tools[name])
			}
		}
		// The number profiles read back the same through MarshalJSON, and
		// none reads a call that needs authority under rfc8785.
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("MarshalJSON of an accepted policy: %v", err)
		}
		back, err := gate.ParsePolicy(b)
		if err != nil || !reflect.DeepEqual(back.NumberProfiles, p.NumberProfiles) {
			t.Fatalf("%s reads back as %+v, %v; want %+v", b, back, err, p.NumberProfiles)
		}
		threshold := p.Threshold
		if threshold == 0 {
			threshold = gate.Financial
		}
		for name, c := range p.Tools {
			if c >= threshold {
				if p.NumberProfile(name) != canon.Strict {
					t.Fatalf("tool %q, %v, is read under %v", name, c, p.NumberProfile(name))
				}
			}
		}
	})
}

// FuzzParseAuthority: ParseAuthority never panics, and an authority it
// accepts has an envelope, a resolution and an expiry that encoding/json
// reads the same.
func FuzzParseAuthority(f *testing.F) {
	f.Add([]byte(`{"envelope":{},"resolution":{},"expires":"2026-12-02T11:00:00Z"}`))
	f.Add([]byte(`{"envelope":null,"resolution":1,"expires":"x"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, src []byte) {
		a, err := gate.ParseAuthority(src)
		if err != nil {
			return
		}
		if a.Envelope == nil || len(a.Resolution) == 0 || a.Expires.IsZero() {
			t.Fatalf("accepted an incomplete authority: %+v", a)
		}
		var raw struct {
			Resolution json.RawMessage `json:"resolution"`
			Expires    string          `json:"expires"`
		}
		if err := json.Unmarshal(src, &raw); err != nil {
			t.Fatalf("accepted what encoding/json cannot read: %v", err)
		}
		exp, err := time.Parse(time.RFC3339Nano, raw.Expires)
		if err != nil || !exp.Equal(a.Expires) || string(raw.Resolution) != string(a.Resolution) {
			t.Fatalf("authority %+v, encoding/json reads %s %q", a, raw.Resolution, raw.Expires)
		}
	})
}

// FuzzParseSignedResolution: ParseSignedResolution never panics; what it
// accepts is a selection whose members encoding/json reads the same, whose
// signature value is the one base64url spelling of 64 bytes, and which its
// canonical form reads as too; and a document that verifies under the
// seeds' key carries exactly the contents of a document that key signed:
// no re-spelling changes what a signature covers.
func FuzzParseSignedResolution(f *testing.F) {
	b := &envelope.Builder{Synopsis: "Pay it.", Offer: "Ask.", Stem: "Pay?", Hatches: envelope.Hatches{FreeText: true}}
	b.AddOption("Pay", "Due.", []byte(`{"a":1}`))
	b.AddOption("Wait", "Not due.", []byte(`{"a":2}`))
	env, err := b.Build()
	if err != nil {
		f.Fatal(err)
	}
	pub := aliceKey.Public().(ed25519.PublicKey)
	type content struct {
		res      envelope.Resolution
		act, env hashing.Digest
		at       int64
	}
	var signed []content
	for idx := range 2 {
		opt, _ := env.Option(idx)
		res := envelope.Resolution{EnvelopeDigest: env.Digest(), Kind: envelope.KindOption, OptionIdx: idx}
		at := time.UnixMilli(1_796_209_200_000 + int64(idx))
		doc, err := gate.SignResolution(env, &res, opt.ActionDigest, aliceKey, at)
		if err != nil {
			f.Fatal(err)
		}
		signed = append(signed, content{res, opt.ActionDigest, env.Digest(), at.UnixMilli()})
		f.Add(doc)
		var pretty bytes.Buffer
		json.Indent(&pretty, doc, "", " ")
		f.Add(pretty.Bytes())
		f.Add(bytes.Replace(doc, []byte(`","signed_at_ms"`), []byte(`==","signed_at_ms"`), 1))
		f.Add(bytes.Replace(doc, []byte(`"value":"`), []byte(`"value":"\n`), 1))
		f.Add(bytes.Replace(doc, []byte(`"option_idx":`+fmt.Sprint(idx)), []byte(`"option_idx":`+fmt.Sprint(1-idx)), 1))
		f.Add(bytes.Replace(doc, []byte(`{"@version"`), []byte(`{"x":1,"@version"`), 1))
	}
	f.Add([]byte(`{"envelope_digest":"sha256:0000000000000000000000000000000000000000000000000000000000000000","resolution":"declined"}`))
	f.Add([]byte(`{"@version":"bbdigest-signed-resolution/v1"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := gate.ParseSignedResolution(src)
		if err != nil {
			if s != nil {
				t.Fatalf("an error (%v) with a document", err)
			}
			return
		}
		if s.Resolution.Kind != envelope.KindOption || s.Resolution.EnvelopeDigest != s.EnvelopeDigest || s.SignedAt.UnixMilli() <= 0 {
			t.Fatalf("accepted %+v", s)
		}
		if _, err := hashing.ParseDigest(s.KeyID); err != nil {
			t.Fatalf("key id %q: %v", s.KeyID, err)
		}
		var raw struct {
			Act       hashing.Digest  `json:"act_digest"`
			Env       hashing.Digest  `json:"envelope_digest"`
			KeyID     string          `json:"key_id"`
			At        json.Number     `json:"signed_at_ms"` // any spelling of an integer: 1796209E00000 too
			Res       json.RawMessage `json:"binding_moment_resolution"`
			Signature struct {
				Value string `json:"value"`
			} `json:"signature"`
		}
		if err := json.Unmarshal(src, &raw); err != nil {
			t.Fatalf("accepted what encoding/json cannot read: %v", err)
		}
		// The strict profile takes an integer in any JSON spelling (an
		// exponent too: 1796209E00000 is 1796209), as its canonical form
		// does not keep the spelling: the value must be the same.
		at, err := strconv.ParseFloat(raw.At.String(), 64)
		if err != nil || at != float64(s.SignedAt.UnixMilli()) {
			t.Fatalf("signed_at_ms %s reads as %v, %v; the document says %d", raw.At, at, err, s.SignedAt.UnixMilli())
		}
		if raw.Act != s.ActDigest || raw.Env != s.EnvelopeDigest || raw.KeyID != s.KeyID {
			t.Fatalf("document %+v, encoding/json reads %+v", s, raw)
		}
		if r, err := envelope.ParseResolution(raw.Res); err != nil || *r != s.Resolution {
			t.Fatalf("resolution %+v, ParseResolution reads %+v, %v", s.Resolution, r, err)
		}
		sig, err := base64.RawURLEncoding.DecodeString(raw.Signature.Value)
		if err != nil || len(sig) != ed25519.SignatureSize || base64.RawURLEncoding.EncodeToString(sig) != raw.Signature.Value {
			t.Fatalf("accepted the signature value %q", raw.Signature.Value)
		}
		c, err := canon.Canonicalize(src, canon.Strict)
		if err != nil {
			t.Fatalf("accepted what the strict gate refuses: %v", err)
		}
		s2, err := gate.ParseSignedResolution(c)
		if err != nil || s2.ActDigest != s.ActDigest || s2.EnvelopeDigest != s.EnvelopeDigest || s2.KeyID != s.KeyID ||
			!s2.SignedAt.Equal(s.SignedAt) || s2.Resolution != s.Resolution || (s2.Verify(pub) == nil) != (s.Verify(pub) == nil) {
			t.Fatalf("its canonical form reads as %+v, %v; want %+v", s2, err, s)
		}
		if s.Verify(pub) == nil {
			for _, c := range signed {
				if c.res == s.Resolution && c.act == s.ActDigest && c.env == s.EnvelopeDigest && c.at == s.SignedAt.UnixMilli() {
					return
				}
			}
			t.Fatalf("a document the key never signed verifies: %+v", s)
		}
	})
}
