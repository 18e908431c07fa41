package gate_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/act"
	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// TestEnvelopeAuthority binds an envelope option to an act and verifies a
// resolution selecting it against the same call arriving in each vendor
// shape: each is authority for that option; a call with one argument
// changed, or to another tool or server, is only a record.
func TestEnvelopeAuthority(t *testing.T) {
	src := demo.ToolCall()
	const server = "hotels.example"
	bound, err := act.Parse(src, act.ShapeMCP, server)
	if err != nil {
		t.Fatal(err)
	}
	other, err := act.New(server, "book_hotel", []byte(`{"city":"Bern","nights":1}`))
	if err != nil {
		t.Fatal(err)
	}
	b := &envelope.Builder{
		Synopsis:        "Book the hotel in Zürich.",
		Findings:        []string{"The room is available."},
		Recommendations: []string{"Book three nights."},
		Offer:           "Ask for detail on any item.",
		Stem:            "Which booking should be made?",
		Hatches:         envelope.Hatches{FreeText: true, Dialogue: true},
	}
	b.AddOption("Zürich, three nights", "As asked.", bound.Canonical)
	b.AddOption("Bern, one night", "Cheaper.", other.Canonical)
	env, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := env.Option(0); o.ActionDigest != bound.Digest {
		t.Fatalf("action_digest %s, act digest %s", o.ActionDigest, bound.Digest)
	}
	res := &envelope.Resolution{EnvelopeDigest: env.Digest(), Kind: envelope.KindOption, OptionIdx: 0}

	// The same call in every shape, as the vendors write it.
	var params struct {
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(src, &params); err != nil {
		t.Fatal(err)
	}
	args := string(params.Params.Arguments)
	str, _ := json.Marshal(args)
	calls := map[string]string{
		"mcp request":         string(src),
		"mcp params":          `{"name":"book_hotel","arguments":` + args + `,"_meta":{"progressToken":3}}`,
		"mcp gateway":         `{"Params":{"name":"book_hotel","arguments":` + args + `},"Session":{},"Extra":null}`,
		"anthropic tool_use":  `{"type":"tool_use","id":"toolu_01","name":"book_hotel","input":` + args + `}`,
		"openai chat":         `{"id":"call_1","type":"function","function":{"name":"book_hotel","arguments":` + string(str) + `}}`,
		"openai responses":    `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"book_hotel","arguments":` + string(str) + `,"status":"completed"}`,
		"openai function obj": `{"name":"book_hotel","arguments":` + string(str) + `}`,
	}
	p := act.Parser{Server: server}
	for name, call := range calls {
		a, err := p.Parse([]byte(call), act.ShapeAuto)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r := envelope.Verify(env, res, a.Canonical); r.Outcome != envelope.OutcomeAuthority {
			t.Errorf("%s: %s (%s), want authority", name, r.Outcome, r.Reason)
		}
		// One argument changed: the act no longer matches the option.
		changed := strings.Replace(call, "2026-11-02", "2026-11-03", 1)
		if changed == call {
			t.Fatalf("%s: no date to change", name)
		}
		c, err := p.Parse([]byte(changed), act.ShapeAuto)
		if err != nil {
			t.Fatalf("%s changed: %v", name, err)
		}
		if r := envelope.Verify(env, res, c.Canonical); r.Outcome != envelope.OutcomeRecord {
			t.Errorf("%s with a changed argument: %s, want record", name, r.Outcome)
		}
	}
	// Another tool name, or no server: a record.
	for _, a := range []struct {
		server, tool string
	}{{server, "book_hotel_now"}, {"", "book_hotel"}, {"other.example", "book_hotel"}} {
		x, err := act.New(a.server, a.tool, params.Params.Arguments)
		if err != nil {
			t.Fatal(err)
		}
		if r := envelope.Verify(env, res, x.Canonical); r.Outcome != envelope.OutcomeRecord {
			t.Errorf("server %q tool %q: %s, want record", a.server, a.tool, r.Outcome)
		}
	}
	// New gives the bound act from Go values.
	x, err := act.New(server, "book_hotel", params.Params.Arguments)
	if err != nil || envelope.Verify(env, res, x.Canonical).Outcome != envelope.OutcomeAuthority {
		t.Errorf("New: %v", err)
	}
}
