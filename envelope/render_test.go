package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/internal/demo"
)

func TestRenderTextInvariants(t *testing.T) {
	e, err := Parse(demo.DraftEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	out := RenderText(e)
	// §9.1: all four briefing slots, findings and recommendations in full.
	for _, s := range append(append([]string{e.Synopsis(), e.Offer(), e.Stem()}, e.Findings()...), e.Recommendations()...) {
		if !strings.Contains(out, `"`+s+`"`) {
			t.Errorf("rendering lacks %q:\n%s", s, out)
		}
	}
	// Each option with its reasoning right under its label; the recommended
	// one marked, and only it.
	for i, o := range e.Options() {
		label := "  " + string(rune('1'+i)) + `. "` + o.Label + `"`
		if i == e.RecommendedIdx() {
			label = "* " + label[2:] + "  " + RecommendedMark
		}
		if !strings.Contains(out, label+"\n       \""+o.Reasoning+"\"\n") {
			t.Errorf("option %d not rendered as %q with its reasoning:\n%s", i, label, out)
		}
	}
	if n := strings.Count(out, RecommendedMark); n != 1 {
		t.Errorf("%d recommended marks, want 1", n)
	}
	if !strings.Contains(out, "  d. Decline") {
		t.Errorf("no decline affordance:\n%s", out)
	}
	if !strings.Contains(out, "Envelope: "+demo.DraftEnvelopeDigest) {
		t.Errorf("no digest line")
	}
	// Hatches: each appears exactly when its flag is true.
	for _, h := range []Hatches{{true, true}, {true, false}, {false, true}, {false, false}} {
		b := draftBuilder()
		b.Hatches = h
		out := RenderText(mustBuild(t, b))
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
	b := draftBuilder()
	b.RecommendedIdx = 1
	if out := RenderText(mustBuild(t, b)); !strings.Contains(out, `* 2. "`+b.Options[1].Label+`"  `+RecommendedMark+"\n") ||
		strings.Count(out, RecommendedMark) != 1 || !strings.Contains(out, `  1. "`+b.Options[0].Label+`"`+"\n") {
		t.Errorf("mark not on option 2 alone:\n%s", out)
	}
}

func mustBuild(t testing.TB, b *Builder) *Envelope {
	t.Helper()
	e, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestRenderTextMeta(t *testing.T) {
	e, err := Parse(demo.MetaEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	out := RenderText(e)
	for _, s := range []string{`Decision: "recompute"` + "\n", `Note: "Earlier I called the expiry \"not urgent\"; it is 3 days out."` + "\n",
		`* 1. "Renew with the existing key"  (recommended)` + "\n", `  3. "Let it lapse"` + "\n", "  q. Reject"} {
		if !strings.Contains(out, s) {
			t.Errorf("rendering lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "  a. Answer") {
		t.Errorf("free-text hatch rendered though false")
	}
}

func TestRenderTextZeroEnvelope(t *testing.T) {
	for _, e := range []*Envelope{nil, new(Envelope)} {
		out := RenderText(e)
		if strings.Contains(out, RecommendedMark) || strings.Contains(out, "Decline") || !strings.HasPrefix(out, "binding moment discarded") {
			t.Errorf("RenderText of %v renders a decision:\n%s", e, out)
		}
	}
}

// renderMarks are the marks and line starts RenderText writes, and strings
// a reader could take for them.
var renderMarks = []string{
	RecommendedMark, "(Recommended)", "(RECOMMENDED)", "  (recommended)",
	"* ", "* 1. ", "  1. ", "  2. ", "* 3. Fake", "       ", "  - ",
	"  " + DeclineKey + ". Decline: answer no to the question as put",
	"  " + FreeTextKey + ". Answer in your own words instead of choosing an option",
	"  " + DialogueKey + ". Reject the question and reopen the discussion",
	"Envelope: " + demo.DraftEnvelopeDigest, "Synopsis: ", "Findings:", "Recommendations:", "Offer: ",
	"Question: ", "Decision: ", "Note: ", "(none)", "binding moment discarded: ",
}

// hostile wraps a mark in the ways agent text could try to get it onto a
// line of its own or hide what surrounds it.
func hostile(mark string) []string {
	return []string{
		mark,
		"x\n" + mark,
		"x\r" + mark,
		"x\u2028" + mark,
		"x\u0085" + mark,
		"x\"  " + mark,
		"x\u201d  " + mark,
		"x\uff02  " + mark,
		"\u202e" + mark + "\u202c",
		"x\x1b[2K\r" + mark,
		"x\\\"  " + mark,
		"\u0301" + mark,
		"x\u00a0\u3000  " + mark,
	}
}

// skeleton returns a rendering with the body of every quoted string
// removed (the quotes kept) and the digest line dropped: what the renderer
// wrote, as opposed to what the agent wrote. It fails the test when a quoted
// string does not decode, as unescapeRendered reads it, to one of texts.
func skeleton(t *testing.T, out string, texts map[string]bool) string {
	t.Helper()
	var sk strings.Builder
	for i := 0; i < len(out); i++ {
		c := out[i]
		if c != '"' {
			sk.WriteByte(c)
			continue
		}
		j := i + 1
		for ; j < len(out) && out[j] != '"'; j++ {
			if out[j] == '\\' {
				j++
			}
		}
		if j >= len(out) {
			t.Fatalf("unterminated quoted text at %d:\n%s", i, out)
		}
		body := out[i+1 : j]
		if dec := unescapeRendered(t, body); !texts[dec] {
			t.Errorf("quoted text %q decodes to %q, which the agent did not write", body, dec)
		}
		sk.WriteString(`""`)
		i = j
	}
	lines := strings.Split(sk.String(), "\n")
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, "Envelope: ") }), "\n")
}

// unescapeRendered decodes the escapes of RenderText's quoted text.
func unescapeRendered(t *testing.T, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case '"', '\\':
			b.WriteByte(s[i])
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
			v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil {
				t.Fatalf("bad escape in %q", s)
			}
			if s[i] == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i += n
		default:
			t.Fatalf("unknown escape \\%c in %q", s[i], s)
		}
	}
	return b.String()
}

// checkTerminalSafe fails the test when out holds anything a terminal acts
// on or that is not shown: every rune must be printable, or '\n'.
func checkTerminalSafe(t *testing.T, out string) {
	t.Helper()
	for i, r := range out {
		if r == '\n' {
			continue
		}
		if r == utf8.RuneError || !strconv.IsPrint(r) || isQuoteLike(r) {
			t.Errorf("rendering holds %U at byte %d:\n%s", r, i, out)
			return
		}
	}
}

// No text the agent writes can forge a line or a mark of the rendering
// (§12.1), whatever it holds: with every mark the renderer writes, in every
// agent-written slot, the rendering keeps the structure of a benign one,
// shows the recommended mark once, and holds nothing a terminal acts on.
func TestRenderTextMarksUnforgeable(t *testing.T) {
	benign := draftBuilder()
	dc, note := "consent", "A note."
	benign.Meta = &Meta{DecisionClass: &dc, CalibrationNote: &note}
	want := skeleton(t, RenderText(mustBuild(t, benign)), textsOf(benign))
	slots := []func(b *Builder, s string){
		func(b *Builder, s string) { b.Synopsis = s },
		func(b *Builder, s string) { b.Findings[1] = s },
		func(b *Builder, s string) { b.Recommendations[0] = s },
		func(b *Builder, s string) { b.Offer = s },
		func(b *Builder, s string) { b.Stem = s },
		func(b *Builder, s string) { b.Options[0].Label = s },
		func(b *Builder, s string) { b.Options[1].Label = s },
		func(b *Builder, s string) { b.Options[1].Reasoning = s },
		func(b *Builder, s string) { b.Meta.DecisionClass = &s },
		func(b *Builder, s string) { b.Meta.CalibrationNote = &s },
	}
	for _, mark := range renderMarks {
		for _, text := range hostile(mark) {
			for si, set := range slots {
				b := draftBuilder()
				dc, note := "consent", "A note."
				b.Meta = &Meta{DecisionClass: &dc, CalibrationNote: &note}
				set(b, text)
				out := RenderText(mustBuild(t, b))
				if got := skeleton(t, out, textsOf(b)); got != want {
					t.Fatalf("slot %d holding %q changes the rendering's structure:\n%s\nwant the structure of\n%s", si, text, got, want)
				}
				if n := strings.Count(out, RecommendedMark); n != 1 {
					t.Fatalf("slot %d holding %q: %d recommended marks:\n%s", si, text, n, out)
				}
				checkTerminalSafe(t, out)
			}
		}
	}
}

// textsOf returns every string b asks the envelope to carry.
func textsOf(b *Builder) map[string]bool {
	m := map[string]bool{b.Synopsis: true, b.Offer: true, b.Stem: true}
	for _, s := range append(append([]string{}, b.Findings...), b.Recommendations...) {
		m[s] = true
	}
	for _, o := range b.Options {
		m[o.Label], m[o.Reasoning] = true, true
	}
	if b.Meta != nil {
		for _, p := range []*string{b.Meta.DecisionClass, b.Meta.CalibrationNote} {
			if p != nil {
				m[*p] = true
			}
		}
	}
	return m
}

func TestRender(t *testing.T) {
	env := string(demo.DraftEnvelope())
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
	env := string(demo.DraftEnvelope())
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
			for _, s := range []string{RecommendedMark, "Decline", draftDecoded.Question.Options[0].Label} {
				if strings.Contains(out, s) && tc.name != "canon" {
					t.Errorf("fallback renders the decision (%q):\n%s", s, out)
				}
			}
		})
	}
}

func TestPayload(t *testing.T) {
	env := string(demo.DraftEnvelope())
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

// The fallback shows nothing a terminal acts on, no bidi control and no
// recommended mark, whatever the tool result holds (§9.3, §12.1).
func TestRenderFallbackEscapes(t *testing.T) {
	env := string(demo.DraftEnvelope())
	bad := strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": 7`, 1)
	rng := rand.New(rand.NewPCG(3, 4))
	garbage := make([]byte, 2000)
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	hostileName := "x\u202e(recommended)\n* 1. y\x1b[31m"
	for _, tc := range []struct {
		name, src string
		json      bool // the fallback is the payload as JSON
		want      []string
	}{
		{"terminal-escapes", "{\"a\":1,\"a\":2,\"t\":\"\x1b]0;pwned\x07\x1b[2J\x1b[31mAPPROVED\"}", false,
			[]string{`| {"a":1,"a":2,"t":"\x1b]0;pwned\x07\x1b[2J\x1b[31mAPPROVED"}`}},
		{"garbage", string(garbage), false, []string{"(the tool result is not shown as JSON: canon: "}},
		{"payload-hostile", `{"note":"a\u202eb","c1":"\u0085","mark":"* 1. Approve  (recommended)","q":"\u201d","binding_moment":` + bad + `}`, true,
			[]string{`"note": "a\u202eb"`, `"c1": "\u0085"`, `"mark": "* 1. Approve  \u0028recommended)"`, `"q": "\u201d"`}},
		{"price-and-malformed", `{"price":120.5,"binding_moment":` + bad + `}`, true, []string{`"price": 120.5`}},
		{"hostile-member-name", `{"binding_moment":` + strings.Replace(env, `"offer"`, jsonQuote(hostileName)+`:1,"offer"`, 1) + `}`, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Render(&buf, []byte(tc.src)); err == nil {
				t.Fatal("Render accepted the input")
			}
			out := buf.String()
			checkTerminalSafe(t, out)
			if n := strings.Count(out, RecommendedMark); n != 0 {
				t.Errorf("%d recommended marks in the fallback:\n%s", n, out)
			}
			for _, s := range tc.want {
				if !strings.Contains(out, s) {
					t.Errorf("fallback lacks %q:\n%s", s, out)
				}
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if !strings.HasPrefix(lines[len(lines)-1], "binding moment discarded: ") {
				t.Errorf("last line is not the diagnostic:\n%s", out)
			}
			if tc.json {
				// Still JSON, with the payload's value.
				text := strings.Join(lines[:len(lines)-1], "\n")
				payload, err := Payload([]byte(tc.src))
				if err != nil {
					t.Fatal(err)
				}
				var got, want any
				if err := json.Unmarshal([]byte(text), &got); err != nil {
					t.Fatalf("fallback is not JSON: %v\n%s", err, text)
				}
				json.Unmarshal(payload, &want)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("fallback JSON = %v, want the payload %v", got, want)
				}
			} else {
				for _, l := range lines[1 : len(lines)-1] {
					if !strings.HasPrefix(l, "| ") {
						t.Errorf("raw line without its gutter: %q", l)
					}
				}
			}
		})
	}
}

// A large input that is not JSON is shown in part.
func TestRenderFallbackRawBounded(t *testing.T) {
	src := bytes.Repeat([]byte("\xff\n"), 200_000)
	out := FallbackText(src)
	if len(out) > 8*maxRawShown || !bytes.Contains(out, []byte("more bytes not shown")) {
		t.Errorf("fallback of %d bytes is %d bytes long", len(src), len(out))
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
