package gate_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/gate"
)

// FuzzParsePolicy: ParsePolicy never panics, and a policy it accepts is
// valid, was a JSON object without duplicate names, and reads back the same
// through encoding/json.
func FuzzParsePolicy(f *testing.F) {
	f.Add([]byte(`{"policy_version":"v7","server":"mcp://x","threshold":"ORDINARY","tools":{"a":"READ_ONLY","b":"NETWORK_CONTROL"}}`))
	f.Add([]byte(`{"policy_version":"","tools":{}}`))
	f.Add([]byte(`{"policy_version":"v","tools":{"a":"READ_ONLY","a":"FINANCIAL"}}`))
	f.Add([]byte(`{"policy_version":"v","tools":{},"threshold":"PHYSICAL"}`))
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
