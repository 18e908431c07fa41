package verdict

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/demo"
	"github.com/bbdigest/bbdigest/ledger"
)

// asJSON returns v as encoding/json writes it.
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func parse(src string) (*envelope.Envelope, error) { return envelope.Parse([]byte(src)) }

func TestCanonReason(t *testing.T) {
	for _, tc := range []struct {
		e    canon.Error
		want string
	}{
		{canon.Error{Class: canon.ClassSyntax, Msg: "unexpected end of input, want a value", Offset: 13, Pointer: "/synopsis"}, "syntax: unexpected end of input, want a value at offset 13"},
		{canon.Error{Class: canon.ClassTooLarge, Offset: 7}, "too-large at offset 7"},
	} {
		if got := CanonReason(&tc.e); got != tc.want {
			t.Errorf("CanonReason(%+v) = %q, want %q", tc.e, got, tc.want)
		}
	}
}

func TestValidation(t *testing.T) {
	e, err := envelope.Parse(demo.DraftEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := asJSON(t, Validate(e, nil)), `{"valid":true,"digest":"`+e.Digest().String()+`","problems":[]}`; got != want {
		t.Errorf("valid: %s, want %s", got, want)
	}
	_, err = parse(`{"synopsis": "x"}`)
	want := `{"valid":false,"digest":null,"problems":[{"pointer":"/findings","reason":"missing required member"},{"pointer":"/recommendations","reason":"missing required member"},{"pointer":"/offer","reason":"missing required member"},{"pointer":"/question","reason":"missing required member"}]}`
	if got := asJSON(t, Validate(nil, err)); got != want {
		t.Errorf("malformed: %s, want %s", got, want)
	}
	_, err = parse(`{"synopsis": `)
	want = `{"valid":false,"digest":null,"problems":[{"pointer":"/synopsis","reason":"syntax: unexpected end of input, want a value at offset 13","class":"syntax","offset":13}]}`
	if got := asJSON(t, Validate(nil, err)); got != want {
		t.Errorf("canon: %s, want %s", got, want)
	}
}

func TestRejected(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"malformed", `{"synopsis": "x"}`, `{"outcome":"error","error":"malformed","input":"envelope","file":"bad.json","reason":"malformed envelope: 4 problems","problems":[{"pointer":"/findings","reason":"missing required member"},{"pointer":"/recommendations","reason":"missing required member"},{"pointer":"/offer","reason":"missing required member"},{"pointer":"/question","reason":"missing required member"}]}`},
		{"canon", `{"synopsis": `, `{"outcome":"error","error":"canon","input":"envelope","file":"bad.json","reason":"syntax: unexpected end of input, want a value at offset 13","class":"syntax","pointer":"/synopsis","offset":13}`},
		{"placement", `{"content": [], "structuredContent": {"rooms": 3}}`, `{"outcome":"error","error":"placement","input":"envelope","file":"bad.json","reason":"no binding_moment member","pointer":"/structuredContent"}`},
	} {
		_, err := parse(tc.src)
		if got := asJSON(t, Rejected("envelope", "bad.json", err)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if got, want := asJSON(t, Error(ErrUsage, "", "", "missing --envelope FILE")), `{"outcome":"error","error":"usage","reason":"missing --envelope FILE"}`; got != want {
		t.Errorf("usage: %s, want %s", got, want)
	}
}

// TestOmitted: the problems past envelope.MaxProblems are counted, in
// Omitted and in Rejected's reason, but not listed.
func TestOmitted(t *testing.T) {
	var findings []string
	for range envelope.MaxProblems + 5 {
		findings = append(findings, `1`)
	}
	_, err := parse(`{"synopsis":"x","findings":[` + strings.Join(findings, ",") + `],"recommendations":[],"offer":"","question":{}}`)
	n := Omitted(err)
	if n == 0 {
		t.Fatalf("Omitted(%v) = 0, want the problems past %d", err, envelope.MaxProblems)
	}
	v := Rejected("envelope", "f", err)
	if len(v.Problems) != envelope.MaxProblems || v.Omitted != n || v.Reason != fmt.Sprintf("malformed envelope: %d problems", envelope.MaxProblems+n) {
		t.Errorf("Rejected: %d problems listed, %d omitted, reason %q", len(v.Problems), v.Omitted, v.Reason)
	}
	if Omitted(nil) != 0 || Omitted(&canon.Error{Class: canon.ClassSyntax}) != 0 {
		t.Errorf("Omitted of an error that is not malformed is not 0")
	}
}

// TestSummary: a request as approve list --json prints it, the times not
// reached left out, and its status with why it closed.
func TestSummary(t *testing.T) {
	emitted := time.Date(2026, 12, 4, 15, 0, 0, 123456789, time.FixedZone("CET", 3600))
	r := ledger.Request{EnvelopeDigest: hashing.Sum([]byte("e")), ActDigest: hashing.Sum([]byte("a")), Tool: "pay", Class: "FINANCIAL",
		State: ledger.RequestPending, EmittedAt: emitted}
	want := `{"envelope_digest":"` + r.EnvelopeDigest.String() + `","state":"pending","tool":"pay","server":"","class":"FINANCIAL","act_digest":"` + r.ActDigest.String() + `","emitted":"2026-12-04T14:00:00.123456789Z"}`
	if got := asJSON(t, Summary(&r)); got != want {
		t.Errorf("pending: %s, want %s", got, want)
	}
	if got := Status(&r); got != "pending" {
		t.Errorf("Status = %q, want pending", got)
	}
	r.State, r.Closing, r.DecidedAt, r.ClosedAt = ledger.RequestClosed, "authority", emitted.Add(time.Second), emitted.Add(2*time.Second)
	s := Summary(&r)
	if s.State != "closed" || s.Closing != "authority" || s.Decided != "2026-12-04T14:00:01.123456789Z" || s.Closed != "2026-12-04T14:00:02.123456789Z" {
		t.Errorf("closed: %+v", s)
	}
	if got := Status(&r); got != "closed (authority)" {
		t.Errorf("Status = %q, want closed (authority)", got)
	}
}
