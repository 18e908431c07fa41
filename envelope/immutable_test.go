package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/bbdigest/bbdigest"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// snapshot is everything an Envelope shows to its users.
type snapshot struct {
	digest    hashing.Digest
	canonical []byte
	marshal   []byte
	render    string
	verify    []Result // option i selected, with action a, for every i and a
}

func takeSnapshot(t *testing.T, e *Envelope, actions [][]byte) snapshot {
	t.Helper()
	m, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot{digest: e.Digest(), canonical: bytes.Clone(e.Canonical()), marshal: bytes.Clone(m), render: RenderText(e)}
	for i := range 4 {
		for _, a := range actions {
			res := &Resolution{EnvelopeDigest: e.Digest(), Kind: KindOption, OptionIdx: i}
			s.verify = append(s.verify, Verify(e, res, a))
		}
	}
	return s
}

// mutateAll changes every value reachable from v that can be changed: the
// elements of slices, the targets of pointers, the fields of structs.
func mutateAll(v reflect.Value, other hashing.Digest) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			mutateAll(v.Elem(), other)
		}
	case reflect.Slice:
		for i := range v.Len() {
			mutateAll(v.Index(i), other)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[hashing.Digest]() && v.CanSet() {
			v.Set(reflect.ValueOf(other))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				mutateAll(v.Field(i), other)
			}
		}
	case reflect.Array:
		if v.CanSet() && v.Type() == reflect.TypeFor[hashing.Digest]() {
			v.Set(reflect.ValueOf(other))
			return
		}
		for i := range v.Len() {
			mutateAll(v.Index(i), other)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString("mutated " + v.String())
		}
	case reflect.Bool:
		if v.CanSet() {
			v.SetBool(!v.Bool())
		}
	case reflect.Int:
		if v.CanSet() {
			v.SetInt(v.Int() ^ 1)
		}
	case reflect.Uint8:
		if v.CanSet() {
			v.SetUint(v.Uint() ^ 0xff)
		}
	}
}

// An Envelope cannot be changed apart from its digest (issue: setting
// Options[0].ActionDigest after Build left the digest, the canonical bytes
// and the rendering as they were, while Verify answered authority for
// another action). Every value any method returns is mutated; nothing the
// envelope shows may change.
func TestEnvelopeImmutable(t *testing.T) {
	if n := reflect.TypeFor[Envelope]().NumField(); n == 0 {
		t.Fatal("Envelope has no fields?")
	}
	for i := range reflect.TypeFor[Envelope]().NumField() {
		if f := reflect.TypeFor[Envelope]().Field(i); f.IsExported() {
			t.Errorf("Envelope has an exported field %s: it could change apart from the digest", f.Name)
		}
	}
	a1, a2 := demo.DraftAction1(), demo.DraftAction2()
	other := []byte(`{"disclose":["everything"],"recipient":"evil.example"}`)
	otherDigest, err := bbdigest.Digest(other)
	if err != nil {
		t.Fatal(err)
	}
	actions := [][]byte{a1, a2, other, nil}

	b := draftBuilder()
	dc, note := "consent", "A note."
	b.Meta = &Meta{DecisionClass: &dc, CalibrationNote: &note}
	built := mustBuild(t, b)
	parsed, err := Parse(built.Canonical())
	if err != nil {
		t.Fatal(err)
	}
	var viaJSON Envelope
	if err := json.Unmarshal(built.Canonical(), &viaJSON); err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]*Envelope{"Build": built, "Parse": parsed, "UnmarshalJSON": &viaJSON} {
		t.Run(name, func(t *testing.T) {
			before := takeSnapshot(t, e, actions)
			// The case first.
			e.Options()[0].ActionDigest = otherDigest
			res := &Resolution{EnvelopeDigest: e.Digest(), Kind: KindOption, OptionIdx: 0}
			if r := Verify(e, res, other); r.Outcome == OutcomeAuthority {
				t.Fatalf("Verify authorizes another action after Options()[0] was changed: %v", r)
			}
			// Every method without arguments (and Option, with each index).
			ev := reflect.ValueOf(e)
			for m := range ev.NumMethod() {
				meth := ev.Method(m)
				name := ev.Type().Method(m).Name
				var outs []reflect.Value
				switch {
				case meth.Type().NumIn() == 0:
					outs = meth.Call(nil)
				case name == "Option":
					for i := range 5 {
						outs = append(outs, meth.Call([]reflect.Value{reflect.ValueOf(i)})...)
					}
				case name == "AppendCanonical":
					outs = meth.Call([]reflect.Value{reflect.ValueOf([]byte(nil))})
				default:
					continue // ParseInto-like methods replace the whole value by design
				}
				for _, out := range outs {
					// Work on an addressable copy, so that values handed
					// out by value can be set too (which must not matter).
					cp := reflect.New(out.Type()).Elem()
					cp.Set(out)
					mutateAll(cp, otherDigest)
				}
			}
			if after := takeSnapshot(t, e, actions); !reflect.DeepEqual(before, after) {
				t.Errorf("the envelope changed through a value one of its methods returned:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

// The mutation test above must be able to fail: an envelope whose accessor
// hands out its own slice is caught.
func TestMutateReachesSlices(t *testing.T) {
	e := mustBuild(t, draftBuilder())
	leaked := e.options // what a leaking Options() would return
	mutateAll(reflect.ValueOf(leaked), hashing.Sum([]byte("x")))
	if e.options[0].ActionDigest != hashing.Sum([]byte("x")) || !strings.HasPrefix(e.options[0].Label, "mutated ") {
		t.Errorf("mutateAll did not change a shared slice: %+v", e.options[0])
	}
}

// json.Unmarshal of a marshalled envelope gives back the same envelope,
// through Parse: the issue found it gave zeros and no error.
func TestEnvelopeJSONRoundTrip(t *testing.T) {
	b := draftBuilder()
	dc := "consent"
	b.Meta = &Meta{DecisionClass: &dc}
	e := mustBuild(t, b)
	type stored struct {
		Env  Envelope  `json:"env"`
		Ptr  *Envelope `json:"ptr"`
		Nil  *Envelope `json:"nil"`
		Name string    `json:"name"`
	}
	text, err := json.Marshal(stored{Env: *e, Ptr: e, Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var got stored
	if err := json.Unmarshal(text, &got); err != nil {
		t.Fatal(err)
	}
	for _, g := range []*Envelope{&got.Env, got.Ptr} {
		if g == nil || g.Digest() != e.Digest() || !bytes.Equal(g.Canonical(), e.Canonical()) ||
			!reflect.DeepEqual(g.Options(), e.Options()) || g.RecommendedIdx() != e.RecommendedIdx() ||
			g.Hatches() != e.Hatches() || RenderText(g) != RenderText(e) {
			t.Fatalf("round trip gave %+v, want %+v", g, e)
		}
	}
	if got.Nil != nil {
		t.Errorf("null pointer field = %+v", got.Nil)
	}
	// Pretty-printed input is read through the gate.
	var pretty bytes.Buffer
	json.Indent(&pretty, e.Canonical(), "", "  ")
	var p Envelope
	if err := json.Unmarshal(pretty.Bytes(), &p); err != nil || p.Digest() != e.Digest() {
		t.Errorf("pretty: %v, %s", err, p.Digest())
	}
	// Edited text gives the digest of what it says, never the old one.
	edited := bytes.Replace(e.Canonical(), []byte(`"recommended_idx":0`), []byte(`"recommended_idx":1`), 1)
	var ed Envelope
	if err := json.Unmarshal(edited, &ed); err != nil || ed.Digest() == e.Digest() || ed.Digest() != hashing.Sum(edited) {
		t.Errorf("edited: %v, digest %s", err, ed.Digest())
	}
}

func TestEnvelopeUnmarshalJSONRejects(t *testing.T) {
	env := string(demo.DraftEnvelope())
	for name, tc := range map[string]struct {
		src  string
		want error
	}{
		"malformed":      {strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": 5`, 1), ErrMalformed},
		"duplicate":      {strings.Replace(env, `"offer":`, `"offer":"x","offer":`, 1), canon.ErrDuplicateName},
		"wrapper":        {`{"binding_moment":` + env + `}`, errWrapperNotBare},
		"null":           {`null`, ErrMalformed},
		"empty-object":   {`{}`, ErrMalformed},
		"float":          {strings.Replace(env, `"recommended_idx": 0`, `"recommended_idx": 0.5`, 1), canon.ErrNonInteger},
		"go-struct-dump": {`{"Synopsis":"x","Findings":null,"Question":{"Options":null}}`, ErrMalformed},
	} {
		t.Run(name, func(t *testing.T) {
			e := mustBuild(t, draftBuilder())
			before := e.Digest()
			err := json.Unmarshal([]byte(tc.src), e)
			if !errors.Is(err, tc.want) {
				t.Errorf("json.Unmarshal error = %v, want %v", err, tc.want)
			}
			if e.Digest() != before || RenderText(e) != RenderText(mustBuild(t, draftBuilder())) {
				t.Errorf("a failed UnmarshalJSON changed the envelope")
			}
			var v struct{ E Envelope }
			if err := json.Unmarshal([]byte(`{"E":`+tc.src+`}`), &v); err == nil {
				t.Errorf("unmarshal into a struct field succeeded with digest %s", v.E.Digest())
			}
		})
	}
}

// The zero Envelope is not an envelope anywhere.
func TestZeroEnvelope(t *testing.T) {
	var e Envelope
	res := &Resolution{EnvelopeDigest: e.Digest(), Kind: KindOption}
	if r := Verify(&e, res, []byte(`{}`)); r.Outcome != OutcomeDiscarded {
		t.Errorf("Verify(zero envelope) = %v", r)
	}
	if _, err := e.MarshalJSON(); err == nil {
		t.Errorf("MarshalJSON of the zero Envelope succeeded")
	}
	if _, err := ToolResult(nil, &e); err == nil {
		t.Errorf("ToolResult of the zero Envelope succeeded")
	}
	// A failed ParseInto leaves no envelope behind.
	good := mustBuild(t, draftBuilder())
	var p Parser
	if err := p.ParseInto(good, []byte(`{"synopsis":1}`)); err == nil {
		t.Fatal("ParseInto accepted a malformed envelope")
	}
	if r := Verify(good, &Resolution{EnvelopeDigest: good.Digest(), Kind: KindDeclined}, nil); r.Outcome != OutcomeDiscarded {
		t.Errorf("Verify after a failed ParseInto = %v", r)
	}
}

// Build lists every problem, not only the first (issue item 11), with the
// full pointer of an action's error.
func TestBuildListsEveryProblem(t *testing.T) {
	b := draftBuilder()
	b.Synopsis = "bad \xff utf-8"
	b.RecommendedIdx = 5
	b.Options[1].Action = []byte(`{"a":1,"a":2}`)
	b.Options = append(b.Options, BuildOption{Label: "no action", Reasoning: "r"})
	_, err := b.Build()
	var me *MalformedError
	if !errors.As(err, &me) {
		t.Fatalf("Build error = %v, want a *MalformedError", err)
	}
	want := map[string]string{
		"/synopsis":                         "invalid UTF-8",
		"/question/options/1/action/a":      "action rejected by the canon gate: duplicate-name: ",
		"/question/options/2/action_digest": "no action and no action digest given",
		"/question/recommended_idx":         "out of range: 5 is not an index of the 3 options",
	}
	got := map[string]string{}
	for _, p := range me.Problems {
		got[p.Pointer] = p.Reason
	}
	for ptr, reason := range want {
		if !strings.HasPrefix(got[ptr], reason) {
			t.Errorf("problem at %s = %q, want %q...; all: %+v", ptr, got[ptr], reason, me.Problems)
		}
	}
	if len(me.Problems) != len(want) {
		t.Errorf("%d problems, want %d: %+v", len(me.Problems), len(want), me.Problems)
	}
	if !strings.Contains(got["/question/options/1/action/a"], "at offset 7 of the action") {
		t.Errorf("action problem lacks its offset: %q", got["/question/options/1/action/a"])
	}
	var ae *ActionError
	if !errors.As(err, &ae) || ae.Index != 1 || !errors.Is(err, canon.ErrDuplicateName) || !errors.Is(err, ErrMalformed) {
		t.Errorf("errors.As/Is through the MalformedError: %v %v", ae, err)
	}
}

// An envelope with a million unknown members costs a hundred problems.
func TestProblemsCapped(t *testing.T) {
	env := string(demo.DraftEnvelope())
	var extra strings.Builder
	const n = 5000
	for i := range n {
		extra.WriteString(`"x` + strconv.Itoa(i) + `":0,`)
	}
	src := strings.Replace(env, `"offer":`, extra.String()+`"offer":`, 1)
	_, err := Parse([]byte(src))
	var me *MalformedError
	if !errors.As(err, &me) {
		t.Fatalf("err %v", err)
	}
	if len(me.Problems) != MaxProblems || me.Omitted != n-MaxProblems {
		t.Errorf("%d problems kept, %d omitted; want %d and %d", len(me.Problems), me.Omitted, MaxProblems, n-MaxProblems)
	}
	if !strings.Contains(me.Error(), strconv.Itoa(n)+" problems") {
		t.Errorf("message %q does not count every problem", me.Error())
	}
	if ps := Validate([]byte(src)); len(ps) != MaxProblems {
		t.Errorf("Validate returned %d problems", len(ps))
	}
	// Options past the fourth are counted, not kept.
	opts := strings.Repeat(`{"label":"l","reasoning":"r","action_digest":"`+demo.DraftAction1Digest+`"},`, 1000)
	src = strings.Replace(env, `"options": [`, `"options": [`+opts, 1)
	_, err = Parse([]byte(src))
	if !errors.As(err, &me) || len(me.Problems) != 1 || me.Problems[0].Reason != "want 2 to 4 options, got 1002" {
		t.Errorf("err %v", err)
	}
}

// An Envelope's canonical bytes and strings are views of one text
// (Parser.textFor; from Parse, in the Envelope's own allocation,
// newOwned): ParseInto into it later leaves the strings and bytes handed
// out before as they were, and Canonical is the new envelope's.
func TestParseIntoAfterParseKeepsStrings(t *testing.T) {
	var p Parser
	e, err := p.Parse(demo.DraftEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	syn, findings, canonical := e.Synopsis(), e.Findings(), e.Canonical()
	label := e.Options()[0].Label
	if !sameText(e.canonical, e.synopsis) {
		t.Fatal("Parse did not share the canonical bytes with the strings")
	}
	old := e.canonical
	if err := p.ParseInto(e, demo.MetaEnvelope()); err != nil {
		t.Fatal(err)
	}
	if sameText(old, e.synopsis) || &old[0] == &e.canonical[0] {
		t.Error("ParseInto reused the memory of the Envelope's text")
	}
	if !sameText(e.canonical, e.synopsis) {
		t.Error("ParseInto did not share the canonical bytes with the strings")
	}
	again, err := Parse(demo.DraftEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	if syn != again.Synopsis() || !slices.Equal(findings, again.Findings()) || label != again.Options()[0].Label ||
		!bytes.Equal(canonical, again.Canonical()) {
		t.Errorf("strings handed out before ParseInto changed: %q %q %q", syn, findings, label)
	}
	meta, err := Parse(demo.MetaEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(e.Canonical(), meta.Canonical()) || e.Digest() != meta.Digest() || e.Synopsis() != meta.Synopsis() {
		t.Errorf("ParseInto after Parse: %s, want %s", e.Canonical(), meta.Canonical())
	}
}

// A bare envelope with a member that is not an envelope's, first or later,
// is read as decode reads any envelope (the probe stops at the member and
// locate finds the envelope bare): the same problems whatever the member's
// place, and a wrapper whose first member is an envelope's is still found.
func TestProbeStopsAtUnknownMember(t *testing.T) {
	env := string(demo.DraftEnvelope())
	for _, src := range []string{
		strings.Replace(env, `"synopsis":`, `"aaa":1,"synopsis":`, 1),
		strings.Replace(env, `"synopsis":`, `"zzz":1,"synopsis":`, 1),
	} {
		_, err := Parse([]byte(src))
		var me *MalformedError
		if !errors.As(err, &me) || len(me.Problems) != 1 || me.Problems[0].Reason != "member not defined by the envelope grammar" {
			t.Errorf("%.40s: err %v", src, err)
		}
	}
	// findings sorts before binding_moment's neighbours: a tool result
	// {"binding_moment":..., "findings":...} is a wrapper either way.
	src := `{"findings":[],"binding_moment":` + env + `}`
	e, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var p Parser
	var into Envelope
	if err := p.ParseInto(&into, []byte(src)); err != nil || into.Digest() != e.Digest() || p.Placement() != PlacementToolResult {
		t.Errorf("ParseInto of a tool result: %v, %v, %v", into.Digest(), err, p.Placement())
	}
	if d, _ := Parse(demo.DraftEnvelope()); d.Digest() != e.Digest() {
		t.Errorf("digest of the envelope in a tool result %v, bare %v", e.Digest(), d.Digest())
	}
}

// sameText reports whether s is a view of the memory of text.
func sameText(text []byte, s string) bool {
	if len(text) == 0 || len(s) == 0 {
		return false
	}
	base, p := uintptr(unsafe.Pointer(&text[0])), uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return p >= base && p+uintptr(len(s)) <= base+uintptr(len(text))
}

// An Envelope is a value: a copy of one shares the backing of its lists,
// and ParseInto into either must leave the other as it was (it did not:
// ParseInto of another envelope into a copy of a parsed Envelope wrote
// the new options into the original's, under the original's digest, so
// Verify would have checked an option selection against another action).
// ParseInto writes a list's backing only with the decode of the text that
// filled it (Parser.textFor); every route is taken: Parse and ParseInto,
// bare and wrapped, the same text again and another.
func TestEnvelopeCopyUnchanged(t *testing.T) {
	draft, meta := demo.DraftEnvelope(), demo.MetaEnvelope()
	wrapped := []byte(`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"binding_moment":` + string(meta) + `}}}`)
	for _, first := range [][]byte{draft, meta, wrapped} {
		for _, then := range [][]byte{draft, meta, wrapped, fastSlowBase} {
			for _, viaParse := range []bool{true, false} {
				var p Parser
				e := new(Envelope)
				if viaParse {
					var err error
					if e, err = p.Parse(first); err != nil {
						t.Fatal(err)
					}
				} else if err := p.ParseInto(e, first); err != nil {
					t.Fatal(err)
				}
				want := deepCopy(e)
				c := *e
				if err := p.ParseInto(&c, then); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(*e, want) {
					t.Fatalf("ParseInto(copy, %.30s) changed the original of %.30s (Parse %v):\n%+v\nwant\n%+v", then, first, viaParse, *e, want)
				}
				// And the other way: the original parsed again, the copy kept.
				want = deepCopy(&c)
				d := c
				if err := p.ParseInto(&c, first); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(d, want) {
					t.Fatalf("ParseInto(original, %.30s) changed its copy (Parse %v):\n%+v\nwant\n%+v", first, viaParse, d, want)
				}
				if c.Digest() != e.Digest() || !reflect.DeepEqual(deepCopy(&c), deepCopy(e)) {
					t.Fatalf("ParseInto of %.30s again: %+v, want %+v", first, c, *e)
				}
			}
		}
	}
}
