package gate_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/internal/casename"
	"github.com/bbdigest/bbdigest/receipt"
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
		// policy_version is a string: null is not one (finding 9).
		`{"policy_version":null,"tools":{}}`,
		`{"policy_version":1,"tools":{}}`,
		`{"policy_version":["v"],"tools":{}}`,
		`{"policy_version":"v","server":null,"tools":{}}`,
		`{"policy_version":"v","threshold":null,"tools":{}}`,
		`{"policy_version":"v","tools":{"a":null}}`,
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
	// The names are receipt's: the consequence_class values it checks.
	for c, want := range map[gate.Class]string{
		gate.ReadOnly: receipt.ClassReadOnly, gate.Ordinary: receipt.ClassOrdinary, gate.Financial: receipt.ClassFinancial,
		gate.Physical: receipt.ClassPhysical, gate.NetworkControl: receipt.ClassNetworkControl, gate.Unconfigured: receipt.ClassUnconfigured,
	} {
		if c.String() != want {
			t.Errorf("%d: %q, want receipt's %q", uint8(c), c.String(), want)
		}
	}
	const wantErr = `gate: unknown consequence class "read_only" (want READ_ONLY, ORDINARY, FINANCIAL, PHYSICAL or NETWORK_CONTROL)`
	if _, err := gate.ParseClass("read_only"); err == nil || err.Error() != wantErr {
		t.Errorf("ParseClass(read_only): %v, want %s", err, wantErr)
	}
	// A policy names the member, with ParseClass's reason.
	for src, pointer := range map[string]string{
		`{"policy_version":"v","tools":{"a":"read_only"}}`:                  "/tools/a",
		`{"policy_version":"v","tools":{},"threshold":"read_only"}`:         "/threshold",
		`{"policy_version":"v","tools":{"a/b":"read_only","c":"ORDINARY"}}`: "/tools/a~1b",
	} {
		_, err := gate.ParsePolicy([]byte(src))
		if pe, ok := errors.AsType[*gate.PolicyError](err); !ok || pe.Pointer != pointer || "gate: "+pe.Reason != wantErr {
			t.Errorf("ParsePolicy(%s): %v, want %q at %q", src, err, wantErr, pointer)
		}
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
	// Each refusal names the member at fault by its JSON Pointer (an
	// *AuthorityError), or is the canon gate's (pointer "-" here).
	for _, tc := range []struct{ bad, pointer string }{
		{strings.Replace(src, `"expires"`, `"expiry"`, 1), "/expiry"},
		{strings.Replace(src, `"2026-12-02T11:00:00Z"`, `"tomorrow"`, 1), "/expires"},
		{strings.Replace(src, `"2026-12-02T11:00:00Z"`, `1796209200`, 1), "/expires"},
		{strings.Replace(src, `{"envelope":`, `{"expires":"2026-12-02T11:00:00Z","envelope":`, 1), "-"},
		{fmt.Sprintf(`{"envelope":%s,"resolution":%s}`, env.Canonical(), res), "/expires"},
		{fmt.Sprintf(`{"envelope":{"binding_moment":%s},"resolution":%s,"expires":"2026-12-02T11:00:00Z"}`, env.Canonical(), res), "/envelope"},
		{fmt.Sprintf(`{"envelope":{},"resolution":%s,"expires":"2026-12-02T11:00:00Z"}`, res), "/envelope"},
		{`{"envelope":{},"resolution":{},"expires":"x","a/b":1}`, "/a~1b"},
		{`[]`, ""}, {`null`, ""}, {`{`, "-"},
	} {
		_, err := gate.ParseAuthority([]byte(tc.bad))
		if err == nil {
			t.Errorf("ParseAuthority(%.80s...) succeeded", tc.bad)
			continue
		}
		ae, ok := errors.AsType[*gate.AuthorityError](err)
		if tc.pointer == "-" {
			if _, isCanon := errors.AsType[*canon.Error](err); !isCanon || ok {
				t.Errorf("ParseAuthority(%.80s...): %v, want the canon gate's error", tc.bad, err)
			}
		} else if !ok || ae.Pointer != tc.pointer || !strings.HasPrefix(err.Error(), "gate: authority: "+strconv.Quote(tc.pointer)+": ") {
			t.Errorf("ParseAuthority(%.80s...): %v, want an *AuthorityError at %q", tc.bad, err, tc.pointer)
		}
	}
	// The envelope's own error stays reachable.
	_, err = gate.ParseAuthority(fmt.Appendf(nil, `{"envelope":{},"resolution":%s,"expires":"2026-12-02T11:00:00Z"}`, res))
	if !errors.Is(err, envelope.ErrMalformed) {
		t.Errorf("an empty envelope: %v, want it to wrap envelope.ErrMalformed", err)
	}
}

// TestParsePolicyPrincipals: principals and max_authority_age are read
// strictly; every refusal names the member at fault by its JSON Pointer.
func TestParsePolicyPrincipals(t *testing.T) {
	alice, bob := publicText(aliceKey), publicText(bobKey)
	p, err := gate.ParsePolicy(fmt.Appendf(nil, `{"policy_version":"v","tools":{},"principals":[{"name":"alice","public_key":%q},{"public_key":%q}],"max_authority_age":"90s"}`, alice, bob))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Principals) != 2 || p.Principals[0].Name != "alice" || !p.Principals[0].PublicKey.Equal(aliceKey.Public()) ||
		p.Principals[1].Name != "" || !p.Principals[1].PublicKey.Equal(bobKey.Public()) || p.MaxAuthorityAge != 90*time.Second {
		t.Fatalf("policy %+v", p)
	}

	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecDER, err := x509.MarshalPKIXPublicKey(&ecKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := base64.RawURLEncoding.DecodeString(alice)
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	pr := func(members string) string {
		return `{"policy_version":"v","tools":{},"principals":[` + members + `]}`
	}
	key := func(k string) string { return fmt.Sprintf(`{"public_key":%q}`, k) }
	for _, c := range []struct {
		where        casename.CasePos
		src, pointer string
	}{
		{casename.Here(), `{"policy_version":"v","tools":{},"principals":[]}`, "/principals"},
		{casename.Here(), `{"policy_version":"v","tools":{},"principals":null}`, "/principals"},
		{casename.Here(), `{"policy_version":"v","tools":{},"principals":{"alice":"x"}}`, "/principals"},
		{casename.Here(), pr(`"` + alice + `"`), "/principals/0"},
		{casename.Here(), pr(`{"name":"alice"}`), "/principals/0/public_key"},
		{casename.Here(), pr(key("not a key")), "/principals/0/public_key"},
		{casename.Here(), pr(key(alice + "\n")), "/principals/0/public_key"},
		{casename.Here(), pr(key(" " + alice)), "/principals/0/public_key"},
		{casename.Here(), pr(key(alice + "==")), "/principals/0/public_key"},
		{casename.Here(), pr(key(pemKey)), "/principals/0/public_key"},
		{casename.Here(), pr(key(base64.RawURLEncoding.EncodeToString(ecDER))), "/principals/0/public_key"},
		{casename.Here(), pr(key(base64.RawURLEncoding.EncodeToString(aliceKey.Public().(ed25519.PublicKey)))), "/principals/0/public_key"},
		{casename.Here(), pr(`{"public_key":null}`), "/principals/0/public_key"},
		{casename.Here(), pr(key(alice) + "," + key(bob) + "," + key(alice)), "/principals/2/public_key"},
		{casename.Here(), pr(`{"name":"a","public_key":"` + alice + `"},{"name":"a","public_key":"` + bob + `"}`), "/principals/1/name"},
		{casename.Here(), pr(`{"name":"","public_key":"` + alice + `"}`), "/principals/0/name"},
		{casename.Here(), pr(`{"name":7,"public_key":"` + alice + `"}`), "/principals/0/name"},
		{casename.Here(), pr(`{"name":"` + strings.Repeat("n", 129) + `","public_key":"` + alice + `"}`), "/principals/0/name"},
		{casename.Here(), pr(`{"pubkey":"` + alice + `","public_key":"` + alice + `"}`), "/principals/0/pubkey"},
		{casename.Here(), `{"policy_version":"v","tools":{},"max_authority_age":"5m"}`, "/max_authority_age"},
		{casename.Here(), `{"policy_version":"v","tools":{},"principals":[` + key(alice) + `],"max_authority_age":"5 minutes"}`, "/max_authority_age"},
		{casename.Here(), `{"policy_version":"v","tools":{},"principals":[` + key(alice) + `],"max_authority_age":"-5m"}`, "/max_authority_age"},
		{casename.Here(), `{"policy_version":"v","tools":{},"principals":[` + key(alice) + `],"max_authority_age":"0s"}`, "/max_authority_age"},
		{casename.Here(), `{"policy_version":"v","tools":{},"principals":[` + key(alice) + `],"max_authority_age":"25h"}`, "/max_authority_age"},
		{casename.Here(), `{"policy_version":"v","tools":{},"principals":[` + key(alice) + `],"max_authority_age":300}`, "/max_authority_age"},
		{casename.Here(), `{"policy_version":null,"tools":{}}`, "/policy_version"},
		{casename.Here(), `{"policy_version":false,"tools":{}}`, "/policy_version"},
		{casename.Here(), `{"tools":{}}`, "/policy_version"},
		{casename.Here(), `{"policy_version":"v","tools":{"a/b":null}}`, "/tools/a~1b"},
		{casename.Here(), `{"policy_version":"v","tools":[]}`, "/tools"},
		{casename.Here(), `{"policy_version":"v","tools":{},"threshold":"PHYSICAL"}`, "/threshold"},
		{casename.Here(), `{"policy_version":"v","tools":{},"x~y":1}`, "/x~0y"},
	} {
		_, err := gate.ParsePolicy([]byte(c.src))
		pe, ok := errors.AsType[*gate.PolicyError](err)
		if !ok || pe.Pointer != c.pointer {
			t.Errorf("%s: ParsePolicy(%.120s) = %v; want a *PolicyError at %q", c.where, c.src, err, c.pointer)
		}
	}
}

// TestPolicyMarshalJSON: MarshalJSON writes what ParsePolicy reads back as
// the same policy, and refuses an invalid one.
func TestPolicyMarshalJSON(t *testing.T) {
	for _, p := range []*gate.Policy{
		testPolicy,
		principalPolicy(t, ""),
		principalPolicy(t, "90s"),
		{Version: "v", Server: "mcp://x", Threshold: gate.ReadOnly, Tools: map[string]gate.Class{}},
	} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := gate.ParsePolicy(b)
		if err != nil {
			t.Fatalf("ParsePolicy(%s): %v", b, err)
		}
		if !reflect.DeepEqual(back, p) {
			t.Errorf("%s reads back as %+v, want %+v", b, back, p)
		}
	}
	bad := &gate.Policy{Version: "v", Tools: map[string]gate.Class{}, MaxAuthorityAge: time.Minute}
	if b, err := json.Marshal(bad); err == nil {
		t.Errorf("an invalid policy marshals as %s", b)
	}
}

// TestNewRefusesPrincipals: a Policy built in Go is checked as a parsed one.
func TestNewRefusesPrincipals(t *testing.T) {
	pub := aliceKey.Public().(ed25519.PublicKey)
	for _, c := range []struct {
		where   casename.CasePos
		p       gate.Policy
		pointer string
	}{
		{casename.Here(), gate.Policy{Principals: []gate.Principal{}}, "/principals"},
		{casename.Here(), gate.Policy{Principals: []gate.Principal{{PublicKey: pub[:31]}}}, "/principals/0/public_key"},
		{casename.Here(), gate.Policy{Principals: []gate.Principal{{PublicKey: pub}, {PublicKey: pub}}}, "/principals/1/public_key"},
		{casename.Here(), gate.Policy{Principals: []gate.Principal{{Name: "alice", PublicKey: pub}}}, ""},
		{casename.Here(), gate.Policy{Principals: []gate.Principal{{PublicKey: pub}}, MaxAuthorityAge: -time.Second}, "/max_authority_age"},
		{casename.Here(), gate.Policy{Principals: []gate.Principal{{PublicKey: pub}}, MaxAuthorityAge: 25 * time.Hour}, "/max_authority_age"},
		{casename.Here(), gate.Policy{MaxAuthorityAge: time.Minute}, "/max_authority_age"},
	} {
		c.p.Version, c.p.Tools = "v", map[string]gate.Class{}
		err := c.p.Validate()
		if c.pointer == "" { // a valid name
			if err != nil {
				t.Errorf("%s: Validate(%+v) = %v", c.where, c.p, err)
			}
			continue
		}
		pe, ok := errors.AsType[*gate.PolicyError](err)
		if !ok || pe.Pointer != c.pointer {
			t.Errorf("%s: Validate(%+v) = %v; want a *PolicyError at %q", c.where, c.p, err, c.pointer)
		}
	}
	p := gate.Policy{Version: "v", Tools: map[string]gate.Class{}, Principals: []gate.Principal{{Name: string([]byte{0xff}), PublicKey: pub}}}
	if err := p.Validate(); err == nil {
		t.Error("a principal's name that is not UTF-8 is valid")
	}
}

// TestParsePolicyElicitation: the elicitation member lists classes, each
// once, only beside principals; every refusal is a *PolicyError naming the
// member; nil (left out) and [] (none) survive MarshalJSON apart.
func TestParsePolicyElicitation(t *testing.T) {
	alice := publicText(aliceKey)
	src := func(elicitation string) string {
		s := fmt.Sprintf(`{"policy_version":"v","tools":{},"principals":[{"public_key":%q}]`, alice)
		if elicitation != "" {
			s += `,"elicitation":` + elicitation
		}
		return s + "}"
	}
	for _, c := range []struct {
		where casename.CasePos
		src   string
		want  []gate.Class
	}{
		{casename.Here(), src(""), nil},
		{casename.Here(), src(`[]`), []gate.Class{}},
		{casename.Here(), src(`["FINANCIAL","ORDINARY"]`), []gate.Class{gate.Financial, gate.Ordinary}},
		{casename.Here(), src(`["PHYSICAL"]`), []gate.Class{gate.Physical}},
	} {
		p, err := gate.ParsePolicy([]byte(c.src))
		if err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
		if !reflect.DeepEqual(p.Elicitation, c.want) {
			t.Errorf("%s: Elicitation %#v, want %#v", c.where, p.Elicitation, c.want)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := gate.ParsePolicy(b)
		if err != nil || !reflect.DeepEqual(back.Elicitation, c.want) {
			t.Errorf("%s: %s reads back as %#v (%v)", c.where, b, back.Elicitation, err)
		}
	}
	for _, c := range []struct {
		where        casename.CasePos
		src, pointer string
	}{
		{casename.Here(), src(`null`), "/elicitation"},
		{casename.Here(), src(`"FINANCIAL"`), "/elicitation"},
		{casename.Here(), src(`{"FINANCIAL":true}`), "/elicitation"},
		{casename.Here(), src(`["financial"]`), "/elicitation/0"},
		{casename.Here(), src(`["ORDINARY","UNCONFIGURED"]`), "/elicitation/1"},
		{casename.Here(), src(`["ORDINARY",3]`), "/elicitation/1"},
		{casename.Here(), src(`["ORDINARY",null]`), "/elicitation/1"},
		{casename.Here(), src(`["ORDINARY","FINANCIAL","ORDINARY"]`), "/elicitation/2"},
		{casename.Here(), `{"policy_version":"v","tools":{},"elicitation":["ORDINARY"]}`, "/elicitation"},
		{casename.Here(), `{"policy_version":"v","tools":{},"elicitation":[]}`, "/elicitation"},
	} {
		_, err := gate.ParsePolicy([]byte(c.src))
		pe, ok := errors.AsType[*gate.PolicyError](err)
		if !ok || pe.Pointer != c.pointer {
			t.Errorf("%s: ParsePolicy(%s) = %v; want a *PolicyError at %q", c.where, c.src, err, c.pointer)
		}
	}
	pub := aliceKey.Public().(ed25519.PublicKey)
	for _, c := range []struct {
		where   casename.CasePos
		classes []gate.Class
		pointer string
	}{
		{casename.Here(), []gate.Class{gate.Unconfigured}, "/elicitation/0"},
		{casename.Here(), []gate.Class{0}, "/elicitation/0"},
		{casename.Here(), []gate.Class{gate.Ordinary, gate.Ordinary}, "/elicitation/1"},
	} {
		p := gate.Policy{Version: "v", Tools: map[string]gate.Class{}, Principals: []gate.Principal{{PublicKey: pub}}, Elicitation: c.classes}
		pe, ok := errors.AsType[*gate.PolicyError](p.Validate())
		if !ok || pe.Pointer != c.pointer {
			t.Errorf("%s: Validate(%v) = %v; want a *PolicyError at %q", c.where, c.classes, pe, c.pointer)
		}
	}
}
