package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/casename"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// Problem reasons the tables expect.
const (
	unknownMember  = "member not defined by the envelope grammar"
	missingMember  = "missing required member"
	wrongOptionCnt = "want 2 to 4 options, got "
)

// draftDoc is an envelope as encoding/json reads it: the expected values
// of the tests that read the §6.4 example, from a decoder other than the
// one under test.
type draftDoc struct {
	Synopsis        string   `json:"synopsis"`
	Findings        []string `json:"findings"`
	Recommendations []string `json:"recommendations"`
	Offer           string   `json:"offer"`
	Question        struct {
		Stem    string `json:"stem"`
		Options []struct {
			Label        string `json:"label"`
			Reasoning    string `json:"reasoning"`
			ActionDigest string `json:"action_digest"`
		} `json:"options"`
		RecommendedIdx int `json:"recommended_idx"`
		Hatches        struct {
			FreeText bool `json:"free_text"`
			Dialogue bool `json:"dialogue"`
		} `json:"hatches"`
	} `json:"question"`
}

// draftDecoded is demo.DraftEnvelope as encoding/json reads it.
var draftDecoded = func() draftDoc {
	var d draftDoc
	if err := json.Unmarshal(demo.DraftEnvelope(), &d); err != nil {
		panic("BUG: encoding/json cannot read the demo's §6.4 envelope: " + err.Error())
	}
	return d
}()

func TestDraftExample(t *testing.T) {
	src := demo.DraftEnvelope()
	e, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Digest().String(); got != demo.DraftEnvelopeDigest {
		t.Errorf("digest = %s, want %s", got, demo.DraftEnvelopeDigest)
	}
	if n := len(e.Canonical()); n != demo.DraftCanonicalLen {
		t.Errorf("canonical form is %d bytes, want %d", n, demo.DraftCanonicalLen)
	}
	want, err := canon.Canonicalize(src, canon.Strict)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(e.Canonical(), want) {
		t.Errorf("Canonical() differs from canon.Canonicalize:\n%s\n%s", e.Canonical(), want)
	}
	for i, f := range []func() []byte{demo.DraftAction1, demo.DraftAction2} {
		d, err := bbdigest.Digest(f())
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{demo.DraftAction1Digest, demo.DraftAction2Digest}[i]; d.String() != want {
			t.Errorf("action %d digest = %s, want %s", i+1, d, want)
		}
		if e.Options()[i].ActionDigest != d {
			t.Errorf("option %d action_digest = %s, want %s", i, e.Options()[i].ActionDigest, d)
		}
	}
	wantEnv := struct {
		Synopsis, Offer, Stem     string
		Findings, Recommendations []string
		Options                   []Option
		RecommendedIdx            int
		Hatches                   Hatches
		Meta                      *Meta
	}{
		Synopsis:        draftDecoded.Synopsis,
		Findings:        draftDecoded.Findings,
		Recommendations: draftDecoded.Recommendations,
		Offer:           draftDecoded.Offer,
		Stem:            draftDecoded.Question.Stem,
		RecommendedIdx:  draftDecoded.Question.RecommendedIdx,
		Hatches:         Hatches(draftDecoded.Question.Hatches),
	}
	for _, o := range draftDecoded.Question.Options {
		wantEnv.Options = append(wantEnv.Options, Option{o.Label, o.Reasoning, mustDigest(t, o.ActionDigest)})
	}
	got := wantEnv
	got.Synopsis, got.Offer, got.Stem = e.Synopsis(), e.Offer(), e.Stem()
	got.Findings, got.Recommendations, got.Options = e.Findings(), e.Recommendations(), e.Options()
	got.RecommendedIdx, got.Hatches, got.Meta = e.RecommendedIdx(), e.Hatches(), e.Meta()
	if !reflect.DeepEqual(got, wantEnv) {
		t.Errorf("Parse = %+v\nwant %+v", got, wantEnv)
	}
	d, err := Digest(src)
	if err != nil || d.String() != demo.DraftEnvelopeDigest {
		t.Errorf("Digest = %s, %v; want %s", d, err, demo.DraftEnvelopeDigest)
	}
}

func mustDigest(t testing.TB, s string) hashing.Digest {
	t.Helper()
	d, err := hashing.ParseDigest(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestMeta(t *testing.T) {
	e, err := Parse(demo.MetaEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	m := e.Meta()
	if m == nil || m.DecisionClass == nil || *m.DecisionClass != "recompute" {
		t.Fatalf("meta.decision_class = %+v", m)
	}
	const note = `Earlier I called the expiry "not urgent"; it is 3 days out.`
	if m.CalibrationNote == nil || *m.CalibrationNote != note {
		t.Errorf("meta.calibration_note = %v, want %q", m.CalibrationNote, note)
	}
	if e.Hatches() != (Hatches{FreeText: false, Dialogue: true}) {
		t.Errorf("hatches = %+v", e.Hatches())
	}
	if e.NumOptions() != 3 {
		t.Errorf("%d options, want 3", e.NumOptions())
	}
}

// placements puts the draft envelope into each accepted placement.
func placements(t testing.TB) []struct {
	name string
	want Placement
	src  string
} {
	env := string(demo.DraftEnvelope())
	return []struct {
		name string
		want Placement
		src  string
	}{
		{"bare", PlacementBare, env},
		{"tool-result", PlacementToolResult, `{"rooms": 3, "note": "x", "binding_moment": ` + env + `, "z": [1.0]}`},
		{"tool-result-only", PlacementToolResult, `{"binding_moment":` + env + `}`},
		{"mcp-result", PlacementStructuredContent, `{"content":[{"type":"text","text":"hi"}],"isError":false,
			"structuredContent":{"rooms":3,"binding_moment":` + env + `}}`},
		{"jsonrpc-structured", PlacementJSONRPC, `{"jsonrpc":"2.0","id":42,"result":{"content":[],
			"structuredContent":{"binding_moment":` + env + `,"rooms":3}}}`},
		{"jsonrpc-result", PlacementJSONRPC, `{"jsonrpc":"2.0","id":"a","result":{"content":[],"binding_moment":` + env + `}}`},
		{"jsonrpc-both-equal", PlacementJSONRPC, `{"jsonrpc":"2.0","id":1,"result":{"binding_moment":` + env +
			`,"structuredContent":{"binding_moment":` + env + `}}}`},
		{"tool-result-and-structured-equal", PlacementToolResult, `{"binding_moment":` + env +
			`,"structuredContent":{"binding_moment":` + env + `}}`},
	}
}

func TestPlacements(t *testing.T) {
	for _, tc := range placements(t) {
		t.Run(tc.name, func(t *testing.T) {
			var p Parser
			e, err := p.Parse([]byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if e.Digest().String() != demo.DraftEnvelopeDigest {
				t.Errorf("digest = %s, want %s", e.Digest(), demo.DraftEnvelopeDigest)
			}
			if p.Placement() != tc.want {
				t.Errorf("placement = %v, want %v", p.Placement(), tc.want)
			}
			if len(e.Canonical()) != demo.DraftCanonicalLen {
				t.Errorf("canonical length %d", len(e.Canonical()))
			}
		})
	}
}

func TestPlacementErrors(t *testing.T) {
	env := string(demo.DraftEnvelope())
	other := strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": 1`, 1)
	const none, differ = "no binding_moment member", "binding_moment members differ"
	for _, tc := range []struct {
		name, src, ptr string
		err            error
		reason         string
	}{
		{"mcp-no-envelope", `{"content":[],"structuredContent":{"rooms":3}}`, "/structuredContent", ErrNoEnvelope, none},
		{"jsonrpc-no-envelope", `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{}}}`, "/result/structuredContent", ErrNoEnvelope, none},
		{"jsonrpc-no-structured", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, "/result", ErrNoEnvelope, none},
		{"jsonrpc-error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"x"}}`, "/result", ErrNoEnvelope, none},
		{"ambiguous", `{"binding_moment":` + env + `,"structuredContent":{"binding_moment":` + other + `}}`,
			"/structuredContent/binding_moment", ErrAmbiguous, differ},
		{"ambiguous-result", `{"jsonrpc":"2.0","id":1,"result":{"binding_moment":` + other + `,"structuredContent":{"binding_moment":` + env + `}}}`,
			"/result/binding_moment", ErrAmbiguous, differ},
		{"ambiguous-top-and-result", `{"binding_moment":` + env + `,"result":{"structuredContent":{"x":1,"binding_moment":` + other + `}}}`,
			"/result/structuredContent/binding_moment", ErrAmbiguous, differ},
		{"jsonrpc-structured-not-object", `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":[{"binding_moment":1}]}}`, "/result", ErrNoEnvelope, none},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src))
			var pe *PlacementError
			if !errors.As(err, &pe) || !errors.Is(err, tc.err) || pe.Pointer != tc.ptr {
				t.Fatalf("Parse error = %v, want PlacementError %v at %q", err, tc.err, tc.ptr)
			}
			if pe.Reason() != tc.reason || err.Error() != "envelope: "+tc.reason+" within "+strconv.Quote(tc.ptr) {
				t.Errorf("Reason() = %q, message %q; want %q", pe.Reason(), err, tc.reason)
			}
			ps := Validate([]byte(tc.src))
			if len(ps) != 1 || ps[0].Pointer != tc.ptr || ps[0].Reason != tc.reason {
				t.Errorf("Validate = %v", ps)
			}
		})
	}
	// UnmarshalJSON's refusal of a wrapper is a PlacementError too.
	var e Envelope
	err := e.UnmarshalJSON([]byte(`{"binding_moment":` + env + `}`))
	if pe, ok := errors.AsType[*PlacementError](err); !ok || pe.Reason() != "UnmarshalJSON wants the bare binding_moment value, not a wrapper carrying it" {
		t.Errorf("UnmarshalJSON of a wrapper: %v", err)
	}
}

func TestCanonGate(t *testing.T) {
	env := string(demo.DraftEnvelope())
	for _, tc := range []struct {
		name     casename.CaseName
		src, ptr string
		class    canon.Class
	}{
		{casename.Name("duplicate-in-envelope"), strings.Replace(env, `"offer":`, `"offer":"x","offer":`, 1), "/offer", canon.ClassDuplicateName},
		{casename.Name("duplicate-escaped"), strings.Replace(env, `"offer":`, `"offer":"x","\u006fffer":`, 1), "/offer", canon.ClassDuplicateName},
		{casename.Name("duplicate-in-payload"), `{"a":1,"a":2,"binding_moment":` + env + `}`, "/a", canon.ClassDuplicateName},
		{casename.Name("lone-surrogate"), strings.Replace(env, `"Ask for detail`, `"\ud800 Ask for detail`, 1), "/offer", canon.ClassUnpairedSurrogate},
		{casename.Name("non-integer-idx"), strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": 0.5`, 1), "/question/recommended_idx", canon.ClassNonInteger},
		{casename.Name("unsafe-integer-idx"), strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": 9007199254740992`, 1), "/question/recommended_idx", canon.ClassUnsafeInteger},
		{casename.Name("wrapped-non-integer-idx"), `{"price": 2.5, "binding_moment":` + strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": 0.5`, 1) + `}`,
			"/binding_moment/question/recommended_idx", canon.ClassNonInteger},
		{casename.Name("wrapped-rounded-idx"), `{"price":2.5,"structuredContent":{"binding_moment":` + strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": 1.00000000000000001`, 1) + `}}`,
			"/structuredContent/binding_moment/question/recommended_idx", canon.ClassNonInteger},
		{casename.Name("wrapped-second-candidate"), `{"price":2.5,"binding_moment":` + env + `,"structuredContent":{"binding_moment":` +
			strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": 1e-400`, 1) + `}}`,
			"/structuredContent/binding_moment/question/recommended_idx", canon.ClassNonInteger},
		{casename.Name("wrapped-deep-envelope"), `{"price":2.5,"binding_moment":` + strings.Replace(env, `"offer":`, `"x":`+strings.Repeat("[", 64)+strings.Repeat("]", 64)+`,"offer":`, 1) + `}`,
			"/binding_moment/x", canon.ClassDepth},
		{casename.Name("wrapped-escaped-name"), `{"price":2.5,"\ud83d\ude00":1,"binding\u005fmoment":` + strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": 0.5`, 1) + `}`,
			"/binding_moment/question/recommended_idx", canon.ClassNonInteger},
		{casename.Name("duplicate-in-payload-with-fraction"), `{"price":2.5,"a":1,"a":2,"binding_moment":` + env + `}`, "/a", canon.ClassDuplicateName},
		{casename.Name("overflow-in-payload"), `{"price":1e400,"binding_moment":` + env + `}`, "/price", canon.ClassNumberRange},
		{casename.Name("bare-non-integer-elsewhere"), strings.Replace(env, `"offer":`, `"x":1.5,"offer":`, 1), "/x", canon.ClassNonInteger},
		{casename.Name("invalid-utf8"), strings.Replace(env, "Ask for", "Ask \xff for", 1), "/offer", canon.ClassInvalidUTF8},
		{casename.Name("depth"), strings.Repeat("[", 65) + strings.Repeat("]", 65), "", canon.ClassDepth},
		{casename.Name("syntax"), env[:100], "", canon.ClassSyntax},
		{casename.Name("trailing"), env + "{}", "", canon.ClassSyntax},
		{casename.Name("empty"), "", "", canon.ClassSyntax},
	} {
		t.Run(tc.name.Name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src))
			ce, ok := errors.AsType[*canon.Error](err)
			if !ok {
				t.Fatalf("%s: Parse error = %v, want a *canon.Error", tc.name.Where, err)
			}
			if ce.Class != tc.class || (tc.ptr != "" && !strings.HasPrefix(ce.Pointer, tc.ptr)) {
				t.Errorf("%s: error = %v (pointer %q), want class %v at %q", tc.name.Where, err, ce.Pointer, tc.class, tc.ptr)
			}
			// The offset is in the caller's input, at the offending token.
			if ce.Class != canon.ClassDuplicateName && ce.Class != canon.ClassSyntax {
				want := map[canon.Class]string{canon.ClassNonInteger: "0123456789-", canon.ClassUnsafeInteger: "0123456789-",
					canon.ClassNumberRange: "0123456789-", canon.ClassDepth: "[{", canon.ClassUnpairedSurrogate: `\`, canon.ClassInvalidUTF8: "\xff"}[ce.Class]
				if ce.Offset < 0 || int(ce.Offset) >= len(tc.src) || strings.IndexByte(want, tc.src[ce.Offset]) < 0 {
					t.Errorf("%s: offset %d does not point at the offending token in the input", tc.name.Where, ce.Offset)
				}
			}
			ps := Validate([]byte(tc.src))
			if len(ps) != 1 || !strings.HasPrefix(ps[0].Reason, tc.class.String()+": ") || ps[0].Pointer != ce.Pointer {
				t.Errorf("%s: Validate = %v", tc.name.Where, ps)
			}
		})
	}
}

// TestCanonGateChunkEnd checks, with a fresh Parser (whose canonicalizer
// tries canon's indexed pass first), input that is canonical but for a
// UTF-8 sequence cut short by the last byte of the indexed pass's first
// chunk (0xcf at offset 127), the next chunk ASCII: CI's fuzzing found
// that canon accepted it (FuzzParse: Parse reported the grammar problem
// instead of the canon gate's error).
func TestCanonGateChunkEnd(t *testing.T) {
	src := []byte(`{"findings":["a","b","` + strings.Repeat("x", 105) + "\xcf" + `"],"recommendations":true}`)
	var p Parser
	_, err := p.Parse(src)
	ce, ok := errors.AsType[*canon.Error](err)
	if !ok || ce.Class != canon.ClassInvalidUTF8 || ce.Offset != 127 || ce.Pointer != "/findings/2" {
		t.Fatalf("Parse error = %v, want invalid-utf8 at offset 127, /findings/2", err)
	}
}

// Accepted after the gate's normalisation: the digest is over the canonical
// form, so these all digest as the draft example does.
func TestCanonicalEquivalents(t *testing.T) {
	env := string(demo.DraftEnvelope())
	for name, src := range map[string]string{
		"idx-1.0":      strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": 0.0`, 1),
		"idx-0e5":      strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": 0e5`, 1),
		"idx--0":       strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": -0`, 1),
		"escaped-name": strings.Replace(env, `"offer":`, `"\u006f\u0066fer":`, 1),
		"escaped-char": strings.Replace(env, `Ask for`, `\u0041sk\u0020for`, 1),
		"reordered":    strings.Replace(env, `"hatches": { "free_text": true, "dialogue": true }`, `"hatches": { "dialogue": true, "free_text": true }`, 1),
	} {
		d, err := Digest([]byte(src))
		if err != nil || d.String() != demo.DraftEnvelopeDigest {
			t.Errorf("%s: Digest = %s, %v; want %s", name, d, err, demo.DraftEnvelopeDigest)
		}
	}
}

// mutation edits the decoded draft (or meta) envelope.
type mutation func(m map[string]any)

func at(m map[string]any, path ...string) map[string]any {
	var v any = m
	for _, p := range path {
		switch c := v.(type) {
		case map[string]any:
			v = c[p]
		case []any:
			i, _ := strconv.Atoi(p)
			v = c[i]
		}
	}
	return v.(map[string]any)
}

func del(name string, path ...string) mutation {
	return func(m map[string]any) { delete(at(m, path...), name) }
}

func set(name string, val any, path ...string) mutation {
	return func(m map[string]any) { at(m, path...)[name] = val }
}

func setElem(name string, i int, val any, path ...string) mutation {
	return func(m map[string]any) { at(m, path...)[name].([]any)[i] = val }
}

func both(ms ...mutation) mutation {
	return func(m map[string]any) {
		for _, f := range ms {
			f(m)
		}
	}
}

func mutate(t testing.TB, base []byte, f mutation) []byte {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(base))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// malformedCases is the table of §4 malformed envelopes: every member at
// every level missing, of the wrong type and accompanied by an unknown
// member, and the cases §4 and §5 name.
func malformedCases() []struct {
	name casename.CaseName
	meta bool // start from envelope-meta.json instead of the draft example
	f    mutation
	want []Problem
} {
	const (
		q   = "question"
		opt = "options"
		h   = "hatches"
	)
	p := func(ptr, reason string) []Problem { return []Problem{{ptr, reason}} }
	var cases []struct {
		name casename.CaseName
		meta bool
		f    mutation
		want []Problem
	}
	add := func(name casename.CaseName, meta bool, f mutation, want []Problem) {
		cases = append(cases, struct {
			name casename.CaseName
			meta bool
			f    mutation
			want []Problem
		}{name, meta, f, want})
	}

	// Every required member, missing.
	for _, m := range []struct {
		where casename.CasePos
		ptr   string
		name  string
		path  []string
	}{
		{casename.Here(), "/synopsis", "synopsis", nil},
		{casename.Here(), "/findings", "findings", nil},
		{casename.Here(), "/recommendations", "recommendations", nil},
		{casename.Here(), "/offer", "offer", nil},
		{casename.Here(), "/question", "question", nil},
		{casename.Here(), "/question/stem", "stem", []string{q}},
		{casename.Here(), "/question/options", "options", []string{q}},
		{casename.Here(), "/question/recommended_idx", "recommended_idx", []string{q}},
		{casename.Here(), "/question/hatches", "hatches", []string{q}},
		{casename.Here(), "/question/hatches/free_text", "free_text", []string{q, h}},
		{casename.Here(), "/question/hatches/dialogue", "dialogue", []string{q, h}},
		{casename.Here(), "/question/options/0/label", "label", []string{q, opt, "0"}},
		{casename.Here(), "/question/options/1/reasoning", "reasoning", []string{q, opt, "1"}},
		{casename.Here(), "/question/options/1/action_digest", "action_digest", []string{q, opt, "1"}},
	} {
		add(casename.CaseName{Name: "missing" + m.ptr, Where: m.where}, false, del(m.name, m.path...), p(m.ptr, missingMember))
	}
	// Every member, of the wrong type; each type tried where it is wrong.
	for _, m := range []struct {
		where     casename.CasePos
		ptr, name string
		path      []string
		val       any
		want      string
	}{
		{casename.Here(), "/synopsis", "synopsis", nil, 7, "want string, got number"},
		{casename.Here(), "/synopsis", "synopsis", nil, nil, "want string, got null"},
		{casename.Here(), "/synopsis", "synopsis", nil, []any{"a"}, "want string, got array"},
		{casename.Here(), "/findings", "findings", nil, "a finding", "want array, got string"},
		{casename.Here(), "/findings", "findings", nil, map[string]any{}, "want array, got object"},
		{casename.Here(), "/recommendations", "recommendations", nil, true, "want array, got boolean"},
		{casename.Here(), "/offer", "offer", nil, false, "want string, got boolean"},
		{casename.Here(), "/question", "question", nil, []any{}, "want object, got array"},
		{casename.Here(), "/question", "question", nil, "q", "want object, got string"},
		{casename.Here(), "/question/stem", "stem", []string{q}, map[string]any{}, "want string, got object"},
		{casename.Here(), "/question/options", "options", []string{q}, map[string]any{}, "want array, got object"},
		{casename.Here(), "/question/options", "options", []string{q}, nil, "want array, got null"},
		{casename.Here(), "/question/recommended_idx", "recommended_idx", []string{q}, "0", "want integer, got string"},
		{casename.Here(), "/question/recommended_idx", "recommended_idx", []string{q}, nil, "want integer, got null"},
		{casename.Here(), "/question/recommended_idx", "recommended_idx", []string{q}, false, "want integer, got boolean"},
		{casename.Here(), "/question/hatches", "hatches", []string{q}, true, "want object, got boolean"},
		{casename.Here(), "/question/hatches/free_text", "free_text", []string{q, h}, "true", "want boolean, got string"},
		{casename.Here(), "/question/hatches/free_text", "free_text", []string{q, h}, 1, "want boolean, got number"},
		{casename.Here(), "/question/hatches/dialogue", "dialogue", []string{q, h}, nil, "want boolean, got null"},
		{casename.Here(), "/question/options/0/label", "label", []string{q, opt, "0"}, 1, "want string, got number"},
		{casename.Here(), "/question/options/1/reasoning", "reasoning", []string{q, opt, "1"}, []any{}, "want string, got array"},
		{casename.Here(), "/question/options/0/action_digest", "action_digest", []string{q, opt, "0"}, 5, "want string, got number"},
		{casename.Here(), "/meta", "meta", nil, "consent", "want object, got string"},
		{casename.Here(), "/meta", "meta", nil, nil, "want object, got null"},
	} {
		add(casename.CaseName{Name: "type" + m.ptr + "/" + m.want, Where: m.where}, false, set(m.name, m.val, m.path...), p(m.ptr, m.want))
	}
	for _, m := range []struct {
		where     casename.CasePos
		ptr, name string
		val       any
		want      string
	}{
		{casename.Here(), "/meta/decision_class", "decision_class", 3, "want string, got number"},
		{casename.Here(), "/meta/calibration_note", "calibration_note", map[string]any{}, "want string, got object"},
	} {
		add(casename.CaseName{Name: "type" + m.ptr, Where: m.where}, true, set(m.name, m.val, "meta"), p(m.ptr, m.want))
	}
	// Array elements of the wrong type.
	add(casename.Name("type/findings/1"), false, setElem("findings", 1, 7), p("/findings/1", "want string, got number"))
	add(casename.Name("type/recommendations/0"), false, setElem("recommendations", 0, nil), p("/recommendations/0", "want string, got null"))
	add(casename.Name("type/options/1"), false, setElem("options", 1, "Share all", q), p("/question/options/1", "want object, got string"))
	// An unknown member at every level.
	for _, m := range []struct {
		where casename.CasePos
		ptr   string
		meta  bool
		path  []string
	}{
		{casename.Here(), "", false, nil},
		{casename.Here(), "/question", false, []string{q}},
		{casename.Here(), "/question/hatches", false, []string{q, h}},
		{casename.Here(), "/question/options/0", false, []string{q, opt, "0"}},
		{casename.Here(), "/question/options/1", false, []string{q, opt, "1"}},
		{casename.Here(), "/meta", true, []string{"meta"}},
	} {
		add(casename.CaseName{Name: "unknown" + m.ptr, Where: m.where}, m.meta, set("extra", "x", m.path...), p(m.ptr+"/extra", unknownMember))
	}
	add(casename.Name("unknown/escaped-name"), false, set("a/b~c", 1), p("/a~1b~0c", unknownMember))
	add(casename.Name("unknown/binding_moment-nested"), false, set("binding_moment", map[string]any{}, q), p("/question/binding_moment", unknownMember))
	// The cases §4 names, and those §5.6 and §5.7 imply.
	add(casename.Name("options/one"), false, set("options", []any{map[string]any{"label": "a", "reasoning": "b", "action_digest": demo.DraftAction1Digest}}, q),
		p("/question/options", wrongOptionCnt+"1"))
	add(casename.Name("options/none"), false, set("options", []any{}, q),
		[]Problem{{"/question/options", wrongOptionCnt + "0"}, {"/question/recommended_idx", "out of range: 0 is not an index of the 0 options"}})
	fiveOpts := make([]any, 5)
	for i := range fiveOpts {
		fiveOpts[i] = map[string]any{"label": "a", "reasoning": "b", "action_digest": demo.DraftAction1Digest}
	}
	add(casename.Name("options/five"), false, set("options", fiveOpts, q), p("/question/options", wrongOptionCnt+"5"))
	add(casename.Name("recommended_idx/=len"), false, set("recommended_idx", 2, q), p("/question/recommended_idx", "out of range: 2 is not an index of the 2 options"))
	add(casename.Name("recommended_idx/large"), false, set("recommended_idx", json.Number("9007199254740991"), q),
		p("/question/recommended_idx", "out of range: 9007199254740991 is not an index of the 2 options"))
	add(casename.Name("recommended_idx/negative"), false, set("recommended_idx", -1, q), p("/question/recommended_idx", "out of range: -1 is negative"))
	add(casename.Name("recommended_idx/meta-3-options"), true, set("recommended_idx", 3, q), p("/question/recommended_idx", "out of range: 3 is not an index of the 3 options"))
	const dg = `want "sha256:" and 64 lowercase hex digits: `
	for _, d := range []struct {
		where     casename.CasePos
		name, val string
	}{
		{casename.Here(), "uppercase", "sha256:FF" + demo.DraftAction1Digest[9:]},
		{casename.Here(), "63-digits", demo.DraftAction1Digest[:len(demo.DraftAction1Digest)-1]},
		{casename.Here(), "65-digits", demo.DraftAction1Digest + "0"},
		{casename.Here(), "sha512", "sha512:" + demo.DraftAction1Digest[7:]},
		{casename.Here(), "no-prefix", demo.DraftAction1Digest[7:]},
		{casename.Here(), "space", " " + demo.DraftAction1Digest},
		{casename.Here(), "empty", ""},
		{casename.Here(), "truncated", "sha256:ff91e3166e64..."},
	} {
		f := set("action_digest", d.val, q, opt, "1")
		_, err := hashing.ParseDigest(d.val)
		var de *hashing.DigestError
		if !errors.As(err, &de) {
			panic("BUG: test digest " + d.val + " parses")
		}
		add(casename.CaseName{Name: "action_digest/" + d.name, Where: d.where}, false, f, p("/question/options/1/action_digest", dg+de.Reason))
	}
	// Several problems at once: all reported, in document order, missing
	// members after the members of their object.
	add(casename.Name("many"), false, both(
		set("synopsis", 1),
		del("offer"),
		set("extra", true),
		del("dialogue", q, h),
		set("action_digest", "sha256:", q, opt, "0"),
		del("label", q, opt, "1"),
		set("recommended_idx", 5, q),
	), []Problem{
		{"/extra", unknownMember},
		{"/question/hatches/dialogue", missingMember},
		{"/question/options/0/action_digest", dg + "want 64 hex digits, got 0 bytes"},
		{"/question/options/1/label", missingMember},
		{"/question/recommended_idx", "out of range: 5 is not an index of the 2 options"},
		{"/synopsis", "want string, got number"},
		{"/offer", missingMember},
	})
	add(casename.Name("not-an-object/array"), false, nil, p("", "want object, got array"))
	return cases
}

func TestMalformed(t *testing.T) {
	draft, meta := demo.DraftEnvelope(), demo.MetaEnvelope()
	for _, tc := range malformedCases() {
		t.Run(tc.name.Name, func(t *testing.T) {
			var src []byte
			switch {
			case tc.f == nil:
				src = []byte(`[1,2]`)
			case tc.meta:
				src = mutate(t, meta, tc.f)
			default:
				src = mutate(t, draft, tc.f)
			}
			_, err := Parse(src)
			var me *MalformedError
			if !errors.As(err, &me) || !errors.Is(err, ErrMalformed) {
				t.Fatalf("%s: Parse error = %v, want a *MalformedError\ninput: %s", tc.name.Where, err, src)
			}
			if !reflect.DeepEqual(me.Problems, tc.want) {
				t.Errorf("%s: problems:\n got %q\nwant %q\ninput: %s", tc.name.Where, me.Problems, tc.want, src)
			}
			if got := Validate(src); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: Validate = %q", tc.name.Where, got)
			}
			// Every placement reports the same problems.
			wrapped := []byte(`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"binding_moment":` + string(src) + `}}}`)
			if got := Validate(wrapped); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: Validate(wrapped) = %q", tc.name.Where, got)
			}
		})
	}
}

// Members that are optional may be absent.
func TestOptionalMembers(t *testing.T) {
	meta := demo.MetaEnvelope()
	for name, f := range map[string]mutation{
		"no-meta":             del("meta"),
		"no-decision_class":   del("decision_class", "meta"),
		"no-calibration_note": del("calibration_note", "meta"),
		"empty-meta":          set("meta", map[string]any{}),
		"empty-strings":       both(set("synopsis", ""), set("offer", ""), set("stem", "", "question")),
		"empty-arrays":        both(set("findings", []any{}), set("recommendations", []any{})),
		"hatches-false":       set("hatches", map[string]any{"free_text": false, "dialogue": false}, "question"),
	} {
		src := mutate(t, meta, f)
		e, err := Parse(src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if ps := Validate(src); ps != nil {
			t.Errorf("%s: Validate = %v", name, ps)
		}
		_ = e
	}
}

func TestMalformedErrorMessage(t *testing.T) {
	e := &MalformedError{Problems: []Problem{{"/a", "x"}, {"/b", "y"}, {"", "z"}, {"/d", "w"}}}
	const want = `envelope: malformed binding_moment: 4 problems: "/a": x; "/b": y; "": z; ...`
	if got := e.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e.Problems = e.Problems[:1]
	if got := e.Error(); got != `envelope: malformed binding_moment: 1 problem: "/a": x` {
		t.Errorf("Error() = %q", got)
	}
}

// ParseInto reuses the Envelope and, on the same input, allocates nothing.
func TestParseIntoAllocs(t *testing.T) {
	src := demo.DraftEnvelope()
	var p Parser
	var e Envelope
	if err := p.ParseInto(&e, src); err != nil {
		t.Fatal(err)
	}
	n := testing.AllocsPerRun(100, func() {
		if err := p.ParseInto(&e, src); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("ParseInto allocates %v times per run, want 0", n)
	}
	if e.Digest().String() != demo.DraftEnvelopeDigest {
		t.Errorf("digest %s", e.Digest())
	}
	// A different envelope after the first: the strings change.
	meta := demo.MetaEnvelope()
	if err := p.ParseInto(&e, meta); err != nil {
		t.Fatal(err)
	}
	if e.Meta() == nil || e.NumOptions() != 3 || e.Synopsis() != "Renew the certificate today with the existing key." {
		t.Errorf("reused envelope not overwritten: %+v", e)
	}
	// The meta envelope's escaped string is unquoted once for its text
	// (Parser.unq), not at every ParseInto of it.
	n = testing.AllocsPerRun(100, func() {
		if err := p.ParseInto(&e, meta); err != nil {
			t.Fatal(err)
		}
	})
	if note, _ := e.CalibrationNote(); n != 0 || note != `Earlier I called the expiry "not urgent"; it is 3 days out.` {
		t.Errorf("ParseInto of an escaped string allocates %v times per run, want 0; note %q", n, note)
	}
	if err := p.ParseInto(&e, src); err != nil {
		t.Fatal(err)
	}
	if e.Meta() != nil || e.NumOptions() != 2 {
		t.Errorf("meta or options left over: %+v", e)
	}
}
