package gate_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/gate"
	"github.com/bbdigest/bbdigest/internal/casename"
	"github.com/bbdigest/bbdigest/ledger"
)

// geoAct is the act of a call to geocode with {"lat":47.37,"lon":8.54},
// read under rfc8785, written out by hand; geoDigest is its SHA-256.
const geoAct = `{"act":"tool_call/v1","arguments":{"lat":47.37,"lon":8.54},"profile":"rfc8785","tool":"geocode"}`

func geoDigest() string {
	sum := sha256.Sum256([]byte(geoAct))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// profilePolicy names a READ_ONLY tool of each default and override, an
// ORDINARY one, and a FINANCIAL one; Version is testPolicy's (check
// compares the receipts' with it).
func profilePolicy() *gate.Policy {
	return &gate.Policy{
		Version: testPolicy.Version,
		Tools: map[string]gate.Class{
			"geocode": gate.ReadOnly, "lookup": gate.ReadOnly, "draft": gate.Ordinary,
			"pay": gate.Financial, "route": gate.Ordinary,
		},
		NumberProfiles: gate.NumberProfiles{
			Classes: map[gate.Class]canon.Profile{gate.Ordinary: canon.Strict},
			Tools:   map[string]canon.Profile{"lookup": canon.Strict, "route": canon.RFC8785},
		},
	}
}

// TestNumberProfileOf: a tool's profile is its own entry, else its
// class's, else rfc8785 below the threshold and strict at or above it; a
// tool the policy does not name is strict.
func TestNumberProfileOf(t *testing.T) {
	p := profilePolicy()
	for tool, want := range map[string]canon.Profile{
		"geocode": canon.RFC8785, // READ_ONLY, the default below the threshold
		"lookup":  canon.Strict,  // READ_ONLY, its own entry
		"draft":   canon.Strict,  // ORDINARY, its class's entry
		"route":   canon.RFC8785, // ORDINARY, its own entry over its class's
		"pay":     canon.Strict,  // FINANCIAL, at the threshold
		"nosuch":  canon.Strict,  // Unconfigured
	} {
		if got := p.NumberProfile(tool); got != want {
			t.Errorf("NumberProfile(%q) = %v, want %v", tool, got, want)
		}
	}
	low := &gate.Policy{Version: "v", Threshold: gate.ReadOnly, Tools: map[string]gate.Class{"geocode": gate.ReadOnly, "x": gate.NetworkControl}}
	if got := low.NumberProfile("geocode"); got != canon.Strict {
		t.Errorf("READ_ONLY at a READ_ONLY threshold: %v", got)
	}
	high := &gate.Policy{Version: "v", Threshold: gate.Financial, Tools: map[string]gate.Class{"draft": gate.Ordinary}}
	if got := high.NumberProfile("draft"); got != canon.RFC8785 {
		t.Errorf("ORDINARY below a FINANCIAL threshold: %v", got)
	}
}

// TestAuthorizeNumberProfiles: a READ_ONLY tool taking a fraction is
// allowed on policy, and its receipt names the rfc8785 act (in every
// shape and as a split call); a tool whose profile is strict (FINANCIAL,
// an override, its class's, an unconfigured tool) is refused as
// malformed, as before; with Approvals, too, before anything is asked.
func TestAuthorizeNumberProfiles(t *testing.T) {
	f := newFixtureWith(t, nil, profilePolicy())
	ctx := context.Background()
	for _, call := range []gate.Call{
		{Src: []byte(`{"type":"tool_use","id":"toolu_9","name":"geocode","input":{"lon":8.540,"lat":4737e-2}}`)},
		{Src: []byte(`{"id":"call_1","type":"function","function":{"name":"geocode","arguments":"{\"lat\": 47.37, \"lon\": 8.54}"}}`)},
		{Src: []byte(`{"jsonrpc":"2.0","id":0.5,"method":"tools/call","params":{"name":"geocode","arguments":{"lat":47.37,"lon":8.54}}}`)},
		{Tool: "geocode", Arguments: []byte(`{"lat":47.37,"lon":8.54}`)},
	} {
		d := f.g.Authorize(ctx, call)
		f.check(d, true, gate.ReasonPolicy)
		if d.Class != gate.ReadOnly || string(d.Act.Canonical) != geoAct || d.Act.Profile != canon.RFC8785 ||
			d.Receipt.Payload.ActDigest.String() != geoDigest() {
			t.Fatalf("%s%s: act %s, receipt act_digest %s; want %s", call.Src, call.Tool, d.Act.Canonical, d.Receipt.Payload.ActDigest, geoDigest())
		}
	}
	// The same tool with integers only: still its rfc8785 act, never the
	// strict act of the same arguments.
	d := f.g.Authorize(ctx, gate.Call{Tool: "geocode", Arguments: []byte(`{"lat":47,"lon":8}`)})
	f.check(d, true, gate.ReasonPolicy)
	strict, err := act.New("", "geocode", []byte(`{"lat":47,"lon":8}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.Act.Profile != canon.RFC8785 || d.Act.Digest == strict.Digest || d.Act.ArgumentsDigest() != strict.ArgumentsDigest() {
		t.Fatalf("integer arguments: act %s", d.Act.Canonical)
	}

	for _, tc := range []struct {
		where casename.CasePos
		call  gate.Call
		class gate.Class
	}{
		{casename.Here(), gate.Call{Src: []byte(`{"type":"tool_use","id":"t","name":"pay","input":{"to":"acct-7","amount":19.99}}`)}, gate.Unconfigured},
		{casename.Here(), gate.Call{Tool: "pay", Arguments: []byte(`{"to":"acct-7","amount":19.99}`)}, gate.Unconfigured},
		{casename.Here(), gate.Call{Tool: "lookup", Arguments: []byte(`{"lat":47.37}`)}, gate.Unconfigured},
		{casename.Here(), gate.Call{Tool: "draft", Arguments: []byte(`{"ratio":0.25}`)}, gate.Unconfigured},
		{casename.Here(), gate.Call{Tool: "nosuch", Arguments: []byte(`{"lat":47.37}`)}, gate.Unconfigured},
	} {
		d := f.g.Authorize(ctx, tc.call)
		f.check(d, false, gate.ReasonMalformedCall)
		e, ok := errors.AsType[*act.Error](d.Err)
		if !ok || e.Class() != canon.ClassNonInteger || d.Act != nil || d.Class != tc.class {
			t.Errorf("%s: %v (%T), act %v", tc.where, d.Err, d.Err, d.Act)
		}
	}
	// route is ORDINARY, its own entry rfc8785 over its class's strict.
	d = f.g.Authorize(ctx, gate.Call{Tool: "route", Arguments: []byte(`{"km":2.5}`)})
	f.check(d, true, gate.ReasonPolicy)

	ap, _ := newApprovalFixture(t, ledger.NewMemory(), withProfiles(principalPolicy(t, "")))
	d = ap.authorize(`{"type":"tool_use","id":"t","name":"pay","input":{"amount":19.99}}`, nil)
	ap.check(d, false, gate.ReasonMalformedCall)
}

// withProfiles returns p with a READ_ONLY geocode tool, whose default
// profile is rfc8785.
func withProfiles(p *gate.Policy) *gate.Policy {
	p.Tools["geocode"] = gate.ReadOnly
	return p
}

// TestAuthorizeActProfile: an Act a host read itself is decided only if
// it was read under the profile the policy gives its tool.
func TestAuthorizeActProfile(t *testing.T) {
	f := newFixtureWith(t, nil, profilePolicy())
	ctx := context.Background()
	strict, err := act.New("", "geocode", []byte(`{"lat":47}`))
	if err != nil {
		t.Fatal(err)
	}
	d := f.g.Authorize(ctx, gate.Call{Act: strict})
	f.check(d, false, gate.ReasonMalformedCall)
	if want := `the act was read under the strict profile, and policy "test-1" reads tool "geocode" under rfc8785`; d.Detail != want {
		t.Errorf("detail %q, want %q", d.Detail, want)
	}
	p := act.Parser{Profile: canon.RFC8785}
	loose, err := p.New("geocode", []byte(`{"lat":47.37,"lon":8.54}`))
	if err != nil {
		t.Fatal(err)
	}
	f.check(f.g.Authorize(ctx, gate.Call{Act: loose}), true, gate.ReasonPolicy)
	payLoose, err := p.New("pay", []byte(`{"amount_cents":1999,"to":"acct-7"}`))
	if err != nil {
		t.Fatal(err)
	}
	d = f.g.Authorize(ctx, gate.Call{Act: payLoose, Authority: f.authority(payCall, 0)})
	f.check(d, false, gate.ReasonMalformedCall)
	if !strings.Contains(d.Detail, `reads tool "pay" under strict`) {
		t.Errorf("detail %q", d.Detail)
	}
}

// TestNumberProfilesPolicy: ParsePolicy reads number_profiles, MarshalJSON
// writes it back, and every value that would read a call needing
// authority under rfc8785, or is not a profile, is refused with the
// pointer of the member at fault, from JSON and from Go alike.
func TestNumberProfilesPolicy(t *testing.T) {
	p, err := gate.ParsePolicy([]byte(`{"policy_version":"v","tools":{"a":"READ_ONLY","b":"ORDINARY","c":"FINANCIAL"},` +
		`"number_profiles":{"classes":{"ORDINARY":"strict","FINANCIAL":"strict"},"tools":{"a":"strict","b":"rfc8785","c":"strict"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := gate.NumberProfiles{
		Classes: map[gate.Class]canon.Profile{gate.Ordinary: canon.Strict, gate.Financial: canon.Strict},
		Tools:   map[string]canon.Profile{"a": canon.Strict, "b": canon.RFC8785, "c": canon.Strict},
	}
	if !reflect.DeepEqual(p.NumberProfiles, want) {
		t.Fatalf("number profiles %+v", p.NumberProfiles)
	}
	for _, q := range []*gate.Policy{p, profilePolicy(), {Version: "v", Tools: map[string]gate.Class{"a": gate.ReadOnly},
		NumberProfiles: gate.NumberProfiles{Tools: map[string]canon.Profile{"a": canon.Strict}}}} {
		b, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		back, err := gate.ParsePolicy(b)
		if err != nil || !reflect.DeepEqual(back, q) {
			t.Errorf("%s reads back as %+v, %v", b, back, err)
		}
	}
	if b, _ := json.Marshal(testPolicy); strings.Contains(string(b), "number_profiles") {
		t.Errorf("a policy without number profiles marshals as %s", b)
	}

	pol := func(threshold, np string) string {
		if threshold != "" {
			threshold = `"threshold":"` + threshold + `",`
		}
		return `{"policy_version":"v",` + threshold + `"tools":{"a":"READ_ONLY","b":"ORDINARY","pay":"FINANCIAL"},"number_profiles":` + np + `}`
	}
	for _, c := range []struct {
		where        casename.CasePos
		src, pointer string
	}{
		{casename.Here(), pol("", `null`), "/number_profiles"},
		{casename.Here(), pol("", `[]`), "/number_profiles"},
		{casename.Here(), pol("", `{"class":{}}`), "/number_profiles/class"},
		{casename.Here(), pol("", `{"classes":[]}`), "/number_profiles/classes"},
		{casename.Here(), pol("", `{"tools":"rfc8785"}`), "/number_profiles/tools"},
		{casename.Here(), pol("", `{"classes":{"READ_ONLY":"loose"}}`), "/number_profiles/classes/READ_ONLY"},
		{casename.Here(), pol("", `{"classes":{"READ_ONLY":"RFC8785"}}`), "/number_profiles/classes/READ_ONLY"},
		{casename.Here(), pol("", `{"classes":{"READ_ONLY":null}}`), "/number_profiles/classes/READ_ONLY"},
		{casename.Here(), pol("", `{"classes":{"read_only":"strict"}}`), "/number_profiles/classes/read_only"},
		{casename.Here(), pol("", `{"classes":{"UNCONFIGURED":"strict"}}`), "/number_profiles/classes/UNCONFIGURED"},
		{casename.Here(), pol("", `{"classes":{"FINANCIAL":"rfc8785"}}`), "/number_profiles/classes/FINANCIAL"},
		{casename.Here(), pol("", `{"classes":{"NETWORK_CONTROL":"rfc8785"}}`), "/number_profiles/classes/NETWORK_CONTROL"},
		{casename.Here(), pol("ORDINARY", `{"classes":{"ORDINARY":"rfc8785"}}`), "/number_profiles/classes/ORDINARY"},
		{casename.Here(), pol("", `{"tools":{"pay":"rfc8785"}}`), "/number_profiles/tools/pay"},
		{casename.Here(), pol("READ_ONLY", `{"tools":{"a":"rfc8785"}}`), "/number_profiles/tools/a"},
		{casename.Here(), pol("", `{"tools":{"x/y":"rfc8785"}}`), "/number_profiles/tools/x~1y"},
		{casename.Here(), pol("", `{"tools":{"":"strict"}}`), "/number_profiles/tools/"},
		{casename.Here(), pol("", `{"tools":{"a":7}}`), "/number_profiles/tools/a"},
		{casename.Here(), pol("", `{"tools":{"a":"strict","a":"rfc8785"}}`), ""},
	} {
		_, err := gate.ParsePolicy([]byte(c.src))
		if c.pointer == "" {
			if _, ok := errors.AsType[*canon.Error](err); !ok {
				t.Errorf("%s: ParsePolicy(%s) = %v; want the duplicate name refused", c.where, c.src, err)
			}
			continue
		}
		pe, ok := errors.AsType[*gate.PolicyError](err)
		if !ok || pe.Pointer != c.pointer {
			t.Errorf("%s: ParsePolicy(%s) = %v; want a *PolicyError at %q", c.where, c.src, err, c.pointer)
		}
	}
	if _, err := gate.ParsePolicy([]byte(pol("", `{"classes":{"FINANCIAL":"rfc8785"}}`))); err == nil ||
		err.Error() != `gate: policy: "/number_profiles/classes/FINANCIAL": rfc8785 for class FINANCIAL, at or above the threshold FINANCIAL: a call that needs authority is bound by its act in the strict profile (an envelope's action_digest is a strict digest, §6.3)` {
		t.Errorf("message: %v", err)
	}
	if _, err := gate.ParsePolicy([]byte(pol("", `{"tools":{"nosuch":"rfc8785"}}`))); err == nil ||
		!strings.Contains(err.Error(), `rfc8785 for tool "nosuch", which tools does not name (UNCONFIGURED), at or above`) {
		t.Errorf("message: %v", err)
	}

	small, err := canon.RFC8785.WithMaxSize(1 << 10)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]gate.Class{"a": gate.ReadOnly, "pay": gate.Financial}
	for _, c := range []struct {
		where   casename.CasePos
		np      gate.NumberProfiles
		pointer string
	}{
		{casename.Here(), gate.NumberProfiles{Classes: map[gate.Class]canon.Profile{gate.ReadOnly: small}}, "/number_profiles/classes/READ_ONLY"},
		{casename.Here(), gate.NumberProfiles{Classes: map[gate.Class]canon.Profile{gate.Unconfigured: canon.Strict}}, "/number_profiles/classes/UNCONFIGURED"},
		{casename.Here(), gate.NumberProfiles{Classes: map[gate.Class]canon.Profile{9: canon.Strict}}, "/number_profiles/classes/Class(9)"},
		{casename.Here(), gate.NumberProfiles{Classes: map[gate.Class]canon.Profile{gate.Physical: canon.RFC8785}}, "/number_profiles/classes/PHYSICAL"},
		{casename.Here(), gate.NumberProfiles{Tools: map[string]canon.Profile{"pay": canon.RFC8785}}, "/number_profiles/tools/pay"},
		{casename.Here(), gate.NumberProfiles{Tools: map[string]canon.Profile{"a": small}}, "/number_profiles/tools/a"},
		{casename.Here(), gate.NumberProfiles{Tools: map[string]canon.Profile{"": canon.Strict}}, "/number_profiles/tools/"},
	} {
		p := gate.Policy{Version: "v", Tools: tools, NumberProfiles: c.np}
		err := p.Validate()
		pe, ok := errors.AsType[*gate.PolicyError](err)
		if !ok || pe.Pointer != c.pointer {
			t.Errorf("%s: Validate(%+v) = %v; want a *PolicyError at %q", c.where, c.np, err, c.pointer)
		}
		if _, err := gate.New(gate.Config{Policy: &p, Ledger: ledger.NewMemory(), Receipts: nil}); !errors.As(err, &pe) {
			t.Errorf("%s: New = %v; want the *PolicyError", c.where, err)
		}
	}
}

// TestNumberProfilesCopied: the gate copies its policy's number profiles:
// a change after New does not reach it.
func TestNumberProfilesCopied(t *testing.T) {
	p := profilePolicy()
	f := newFixtureWith(t, nil, p)
	p.NumberProfiles.Tools["geocode"] = canon.Strict
	d := f.g.Authorize(context.Background(), gate.Call{Tool: "geocode", Arguments: []byte(`{"lat":47.37,"lon":8.54}`)})
	f.check(d, true, gate.ReasonPolicy)
	got := f.g.Policy()
	if _, set := got.NumberProfiles.Tools["geocode"]; set || got.NumberProfile("geocode") != canon.RFC8785 {
		t.Errorf("the gate's policy reads geocode under %v", got.NumberProfile("geocode"))
	}
}
