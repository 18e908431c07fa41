package envelope

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestRenderTextInvariants(t *testing.T) {
	e, err := Parse(readTestdata(t, draftFile))
	if err != nil {
		t.Fatal(err)
	}
	out := RenderText(e)
	// §9.1: all four briefing slots, findings and recommendations in full.
	for _, s := range append(append([]string{e.Synopsis, e.Offer, e.Question.Stem}, e.Findings...), e.Recommendations...) {
		if !strings.Contains(out, s) {
			t.Errorf("rendering lacks %q:\n%s", s, out)
		}
	}
	// Each option with its reasoning right under its label; the recommended
	// one marked, and only it.
	for i, o := range e.Question.Options {
		label := "  " + string(rune('1'+i)) + ". " + o.Label
		if i == e.Question.RecommendedIdx {
			label = "* " + label[2:] + "  " + RecommendedMark
		}
		if !strings.Contains(out, label+"\n       "+o.Reasoning+"\n") {
			t.Errorf("option %d not rendered as %q with its reasoning:\n%s", i, label, out)
		}
	}
	if n := strings.Count(out, RecommendedMark); n != 1 {
		t.Errorf("%d recommended marks, want 1", n)
	}
	if !strings.Contains(out, "  d. Decline") {
		t.Errorf("no decline affordance:\n%s", out)
	}
	if !strings.Contains(out, "Envelope: "+draftDigest) {
		t.Errorf("no digest line")
	}
	// Hatches: each appears exactly when its flag is true.
	for _, h := range []Hatches{{true, true}, {true, false}, {false, true}, {false, false}} {
		e.Question.Hatches = h
		out := RenderText(e)
		if got := strings.Contains(out, "  a. Answer in your own words"); got != h.FreeText {
			t.Errorf("hatches %+v: free-text affordance shown = %v", h, got)
		}
		if got := strings.Contains(out, "  q. Reject the question"); got != h.Dialogue {
			t.Errorf("hatches %+v: dialogue affordance shown = %v", h, got)
		}
		if !strings.Contains(out, "  d. Decline") {
			t.Errorf("hatches %+v: decline missing", h)
		}
	}
	// The recommended mark moves with recommended_idx.
	e.Question.RecommendedIdx = 1
	if out := RenderText(e); !strings.Contains(out, "* 2. Share dates and passport number  "+RecommendedMark+"\n") {
		t.Errorf("mark not on option 2:\n%s", out)
	}
}

func TestRenderTextMeta(t *testing.T) {
	e, err := Parse(readTestdata(t, metaFile))
	if err != nil {
		t.Fatal(err)
	}
	out := RenderText(e)
	for _, s := range []string{"Decision: recompute\n", `Note: Earlier I called the expiry "not urgent"; it is 3 days out.` + "\n", "* 1. Renew with the existing key  (recommended)\n", "  3. Let it lapse\n", "  q. Reject"} {
		if !strings.Contains(out, s) {
			t.Errorf("rendering lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "  a. Answer") {
		t.Errorf("free-text hatch rendered though false")
	}
}

// Agent text cannot forge lines of the rendering (§12.1).
func TestRenderTextEscapes(t *testing.T) {
	b := draftBuilder(t)
	b.Options[1].Label = "Share all\n* 3. Fake  (recommended)"
	b.Options[0].Reasoning = "ok\u202eevil\x1b[31m"
	e, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	out := RenderText(e)
	if strings.Count(out, RecommendedMark) != 2 || strings.Count(out, "\n* ") != 1 {
		t.Errorf("forged line:\n%s", out)
	}
	if !strings.Contains(out, `Share all\n* 3. Fake`) || !strings.Contains(out, `ok\u202eevil\x1b[31m`) {
		t.Errorf("not escaped:\n%s", out)
	}
}

func TestRender(t *testing.T) {
	env := string(readTestdata(t, draftFile))
	var buf bytes.Buffer
	if err := Render(&buf, []byte(`{"rooms":3,"binding_moment":`+env+`}`)); err != nil {
		t.Fatal(err)
	}
	e, _ := Parse([]byte(env))
	if buf.String() != RenderText(e) {
		t.Errorf("Render differs from RenderText")
	}
}

// §9.3, §12.8: a malformed envelope is never rendered as a decision.
func TestRenderFallback(t *testing.T) {
	env := string(readTestdata(t, draftFile))
	bad := strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": 7`, 1)
	for _, tc := range []struct {
		name, src string
		want      []string
		err       error
	}{
		{"tool-result", `{"rooms":3,"binding_moment":` + bad + `,"z":"last"}`,
			[]string{"{\n  \"rooms\": 3,\n  \"z\": \"last\"\n}\n", "binding moment discarded: envelope: malformed binding_moment: 1 problem: \"/question/recommended_idx\": out of range"}, ErrMalformed},
		{"mcp", `{"content":[{"type":"text","text":"3 rooms"}],"structuredContent":{"binding_moment":` + bad + `}}`,
			[]string{`"text": "3 rooms"`, `"structuredContent": {}`, "binding moment discarded"}, ErrMalformed},
		{"bare", bad, []string{"(no conventional payload", "binding moment discarded"}, ErrMalformed},
		{"no-envelope", `{"structuredContent":{"rooms":3}}`, []string{`"rooms": 3`, "binding moment discarded: envelope: no binding_moment member"}, ErrNoEnvelope},
		{"canon", `{"a":1,"a":2,"binding_moment":` + env + `}`, []string{`{"a":1,"a":2,`, "binding moment discarded: canon: duplicate-name"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Render(&buf, []byte(tc.src))
			if err == nil || (tc.err != nil && !errors.Is(err, tc.err)) {
				t.Fatalf("Render error = %v, want %v", err, tc.err)
			}
			out := buf.String()
			for _, s := range tc.want {
				if !strings.Contains(out, s) {
					t.Errorf("fallback lacks %q:\n%s", s, out)
				}
			}
			for _, s := range []string{RecommendedMark, "Decline", "Share dates only"} {
				if strings.Contains(out, s) && tc.name != "canon" {
					t.Errorf("fallback renders the decision (%q):\n%s", s, out)
				}
			}
		})
	}
}

func TestPayload(t *testing.T) {
	env := string(readTestdata(t, draftFile))
	for _, tc := range []struct{ src, want string }{
		{`{"rooms":3,"binding_moment":` + env + `}`, `{"rooms":3}`},
		{`{"binding_moment":` + env + `,"rooms":3}`, `{"rooms":3}`},
		{`{"binding_moment":` + env + `}`, `{}`},
		{`{"jsonrpc":"2.0","id":1,"result":{"binding_moment":` + env + `,"structuredContent":{"a":1,"binding_moment":` + env + `,"b":2}}}`,
			`{"id":1,"jsonrpc":"2.0","result":{"structuredContent":{"a":1,"b":2}}}`},
		{env, ``},
	} {
		got, err := Payload([]byte(tc.src))
		if err != nil || string(got) != tc.want {
			t.Errorf("Payload = %s, %v; want %s", got, err, tc.want)
		}
	}
}
