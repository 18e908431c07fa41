package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/casename"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// draftBuilder builds the §6.4 example from its parts: the texts as
// encoding/json reads them from demo.DraftEnvelope, the two actions of
// demo.DraftAction1 and DraftAction2. Each call returns a Builder of its
// own, which the caller may change.
func draftBuilder() *Builder {
	d := draftDecoded
	b := &Builder{
		Synopsis:        d.Synopsis,
		Findings:        slices.Clone(d.Findings),
		Recommendations: slices.Clone(d.Recommendations),
		Offer:           d.Offer,
		Stem:            d.Question.Stem,
		Hatches:         Hatches(d.Question.Hatches),
		RecommendedIdx:  d.Question.RecommendedIdx,
	}
	for i, act := range [][]byte{demo.DraftAction1(), demo.DraftAction2()} {
		o := d.Question.Options[i]
		b.AddOption(o.Label, o.Reasoning, act)
	}
	return b
}

func TestBuildDraftExample(t *testing.T) {
	e, err := draftBuilder().Build()
	if err != nil {
		t.Fatal(err)
	}
	if e.Digest().String() != demo.DraftEnvelopeDigest {
		t.Errorf("digest = %s, want %s", e.Digest(), demo.DraftEnvelopeDigest)
	}
	// Round trip: Build -> MarshalJSON -> Parse gives the same envelope.
	j, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(j, e.Canonical()) || !canon.IsCanonical(j, canon.Strict) {
		t.Errorf("MarshalJSON is not the canonical form:\n%s", j)
	}
	e2, err := Parse(j)
	if err != nil {
		t.Fatal(err)
	}
	if e2.Digest() != e.Digest() || !reflect.DeepEqual(e2, e) {
		t.Errorf("round trip differs:\n%+v\n%+v", e2, e)
	}
}

func TestBuildMeta(t *testing.T) {
	b := draftBuilder()
	dc, note := "consent", "Earlier I understated the \"risk\".\n"
	b.Meta = &Meta{DecisionClass: &dc, CalibrationNote: &note}
	e, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if m := e.Meta(); *m.DecisionClass != dc || *m.CalibrationNote != note {
		t.Errorf("meta = %+v", m)
	}
	e2, err := Parse(e.Canonical())
	if err != nil || e2.Digest() != e.Digest() {
		t.Fatalf("reparse: %v", err)
	}
}

func TestBuildRefuses(t *testing.T) {
	for _, tc := range []struct {
		name casename.CaseName
		edit func(b *Builder)
		want []Problem // nil: an *ActionError is expected
	}{
		{casename.Name("one-option"), func(b *Builder) { b.Options = b.Options[:1] }, []Problem{{"/question/options", wrongOptionCnt + "1"}}},
		{casename.Name("five-options"), func(b *Builder) {
			b.Options = append(b.Options, b.Options...)
			b.Options = append(b.Options, b.Options[0])
		},
			[]Problem{{"/question/options", wrongOptionCnt + "5"}}},
		{casename.Name("idx-out-of-range"), func(b *Builder) { b.RecommendedIdx = 2 },
			[]Problem{{"/question/recommended_idx", "out of range: 2 is not an index of the 2 options"}}},
		{casename.Name("idx-negative"), func(b *Builder) { b.RecommendedIdx = -1 },
			[]Problem{{"/question/recommended_idx", "out of range: -1 is negative"}}},
		{casename.Name("invalid-utf8"), func(b *Builder) { b.Options[1].Label = "bad\xff"; b.Synopsis = "\xc3" },
			[]Problem{{"/synopsis", "invalid UTF-8"}, {"/question/options/1/label", "invalid UTF-8"}}},
		{casename.Name("action-duplicate"), func(b *Builder) { b.Options[0].Action = []byte(`{"a":1,"a":2}`) }, nil},
		{casename.Name("action-float"), func(b *Builder) { b.Options[1].Action = []byte(`{"amount":2.5}`) }, nil},
		{casename.Name("action-missing"), func(b *Builder) { b.Options[1].Action = nil }, nil},
		{casename.Name("action-digest-mismatch"), func(b *Builder) { b.Options[1].ActionDigest = mustDigest(t, demo.DraftAction1Digest) }, nil},
	} {
		t.Run(tc.name.Name, func(t *testing.T) {
			b := draftBuilder()
			tc.edit(b)
			e, err := b.Build()
			if e != nil {
				t.Fatalf("%s: Build succeeded: %s", tc.name.Where, e.Canonical())
			}
			if tc.want == nil {
				var ae *ActionError
				if !errors.As(err, &ae) {
					t.Fatalf("%s: error = %v, want an *ActionError", tc.name.Where, err)
				}
				return
			}
			var me *MalformedError
			if !errors.As(err, &me) || !reflect.DeepEqual(me.Problems, tc.want) {
				t.Fatalf("%s: error = %v, want problems %q", tc.name.Where, err, tc.want)
			}
		})
	}
}

func TestBuildGivenDigest(t *testing.T) {
	b := draftBuilder()
	for i := range b.Options {
		b.Options[i].ActionDigest = mustDigest(t, []string{demo.DraftAction1Digest, demo.DraftAction2Digest}[i])
	}
	e, err := b.Build() // Action and ActionDigest agree
	if err != nil || e.Digest().String() != demo.DraftEnvelopeDigest {
		t.Fatalf("Build = %v", err)
	}
	for i := range b.Options {
		b.Options[i].Action = nil
	}
	e, err = b.Build() // digests alone
	if err != nil || e.Digest().String() != demo.DraftEnvelopeDigest {
		t.Fatalf("Build = %v", err)
	}
}

func TestToolResult(t *testing.T) {
	e, err := draftBuilder().Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		payload any
		keep    string // a member of the output besides binding_moment
	}{
		{"raw-object", json.RawMessage(` {"rooms": 3, "currency": "CHF"}`), `"rooms":3`},
		{"bytes-empty-object", []byte(`{ }`), ""},
		{"struct", struct {
			Rooms int `json:"rooms"`
		}{3}, `"rooms":3`},
		{"array", json.RawMessage(`[1,2]`), `"payload":[1,2]`},
		{"string", "done", `"payload":"done"`},
		{"nil", nil, ""},
		// §6.1: the strict profile binds the envelope alone.
		{"float", json.RawMessage(`{"price":120.5,"rooms":3.5}`), `"price":120.5`},
		{"deep", json.RawMessage(strings.Repeat("[", 80) + strings.Repeat("]", 80)), `"payload":[[[[`},
		{"map-float", map[string]any{"price": 120.5}, `"price":120.5`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := ToolResult(tc.payload, e)
			if err != nil {
				t.Fatal(err)
			}
			if !canon.IsCanonical(out, canon.RFC8785) || !bytes.Contains(out, []byte(tc.keep)) {
				t.Errorf("ToolResult = %s", out)
			}
			var p Parser
			got, err := p.Parse(out)
			if err != nil || got.Digest() != e.Digest() || p.Placement() != PlacementToolResult {
				t.Errorf("Parse(ToolResult) = %v, %v", err, p.Placement())
			}
		})
	}
	for name, payload := range map[string]any{
		"has-binding_moment": json.RawMessage(`{"binding_moment":1}`),
		"overflow":           json.RawMessage(`{"price":1e400}`),
		"lone-surrogate":     json.RawMessage(`{"a":"\ud800"}`),
		"escaped-binding":    json.RawMessage(`{"binding\u005fmoment":1}`),
		"not-json":           json.RawMessage(`{`),
		"duplicate":          json.RawMessage(`{"a":1,"a":1}`),
	} {
		if out, err := ToolResult(payload, e); err == nil {
			t.Errorf("%s: ToolResult = %s, want an error", name, out)
		}
	}
}

func TestAnnotateTool(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"name":"book_hotel","inputSchema":{"type":"object"}}`,
			`{"annotations":{"emits_binding_moment":true},"inputSchema":{"type":"object"},"name":"book_hotel"}`},
		{`{"name":"x","annotations":{"readOnlyHint":false,"title":"X"}}`,
			`{"annotations":{"emits_binding_moment":true,"readOnlyHint":false,"title":"X"},"name":"x"}`},
		{`{"name":"x","annotations":{"emits_binding_moment":false},"inputSchema":{"maximum":2.5}}`,
			`{"annotations":{"emits_binding_moment":true},"inputSchema":{"maximum":2.5},"name":"x"}`},
	} {
		got, err := AnnotateTool([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("AnnotateTool(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{`[]`, `null`, `{"annotations":[]}`, `{"annotations":null}`, `{"a":1,"a":2}`, `{`} {
		if got, err := AnnotateTool([]byte(in)); err == nil {
			t.Errorf("AnnotateTool(%s) = %s, want an error", in, got)
		}
	}
}
