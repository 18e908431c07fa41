package gate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
)

func TestParsePolicy(t *testing.T) {
	p, err := gate.ParsePolicy([]byte(`{"policy_version":"v7","server":"mcp://x","threshold":"ORDINARY","tools":{"a":"READ_ONLY","b":"NETWORK_CONTROL"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != "v7" || p.Server != "mcp://x" || p.Threshold != gate.Ordinary || len(p.Tools) != 2 || p.Tools["b"] != gate.NetworkControl {
		t.Fatalf("policy %+v", p)
	}
	for _, bad := range []string{
		``,
		`[]`,
		`{"policy_version":"v","tools":{}, "tools":{}}`,
		`{"policy_version":"v","tools":{"a":"READ_ONLY","a":"FINANCIAL"}}`,
		`{"policy_version":"v","tools":{"a":"read_only"}}`,
		`{"policy_version":"v","tools":{"a":"UNCONFIGURED"}}`,
		`{"policy_version":"v","tools":{"a":1}}`,
		`{"policy_version":"v","tools":null}`,
		`{"policy_version":"v"}`,
		`{"tools":{}}`,
		`{"policy_version":"v","tools":{},"threshold":"PHYSICAL"}`,
		`{"policy_version":"v","tools":{},"treshold":"READ_ONLY"}`,
		`{"policy_version":"v","tools":{"":"READ_ONLY"}}`,
	} {
		if _, err := gate.ParsePolicy([]byte(bad)); err == nil {
			t.Errorf("ParsePolicy(%s) succeeded", bad)
		}
	}
}

func TestClassNames(t *testing.T) {
	for c := gate.ReadOnly; c <= gate.NetworkControl; c++ {
		got, err := gate.ParseClass(c.String())
		if err != nil || got != c {
			t.Errorf("ParseClass(%q) = %v, %v", c.String(), got, err)
		}
	}
	if gate.Unconfigured.String() != "UNCONFIGURED" {
		t.Error(gate.Unconfigured.String())
	}
	if _, err := gate.ParseClass("UNCONFIGURED"); err == nil {
		t.Error("UNCONFIGURED parsed as a class a policy can give")
	}
	if !(gate.ReadOnly < gate.Ordinary && gate.Ordinary < gate.Financial && gate.Financial < gate.Physical && gate.Physical < gate.NetworkControl && gate.NetworkControl < gate.Unconfigured) {
		t.Error("classes out of order")
	}
}

func TestParseAuthority(t *testing.T) {
	b := &envelope.Builder{
		Synopsis: "Pay it.", Offer: "Ask.", Stem: "Pay?",
		Hatches: envelope.Hatches{FreeText: true},
	}
	b.AddOption("Pay", "Due.", []byte(`{"a":1}`))
	b.AddOption("Wait", "Not due.", []byte(`{"a":2}`))
	env, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	res := fmt.Sprintf(`{"envelope_digest":%q,"resolution":"option","option_idx":0}`, env.Digest())
	src := fmt.Sprintf(`{"envelope":%s,"resolution":%s,"expires":"2026-12-02T11:00:00Z"}`, env.Canonical(), res)
	a, err := gate.ParseAuthority([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if a.Envelope.Digest() != env.Digest() || string(a.Resolution) != res || !a.Expires.Equal(time.Date(2026, 12, 2, 11, 0, 0, 0, time.UTC)) {
		t.Fatalf("authority %+v", a)
	}
	for _, bad := range []string{
		strings.Replace(src, `"expires"`, `"expiry"`, 1),
		strings.Replace(src, `"2026-12-02T11:00:00Z"`, `"tomorrow"`, 1),
		strings.Replace(src, `"2026-12-02T11:00:00Z"`, `1796209200`, 1),
		strings.Replace(src, `{"envelope":`, `{"expires":"2026-12-02T11:00:00Z","envelope":`, 1),
		fmt.Sprintf(`{"envelope":%s,"resolution":%s}`, env.Canonical(), res),
		fmt.Sprintf(`{"envelope":{"binding_moment":%s},"resolution":%s,"expires":"2026-12-02T11:00:00Z"}`, env.Canonical(), res),
		fmt.Sprintf(`{"envelope":{},"resolution":%s,"expires":"2026-12-02T11:00:00Z"}`, res),
		`[]`, `null`, `{`,
	} {
		if _, err := gate.ParseAuthority([]byte(bad)); err == nil {
			t.Errorf("ParseAuthority(%.80s...) succeeded", bad)
		}
	}
}
