package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/casename"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// resD is the envelope digest of the §6.4 example.
const resD = demo.DraftEnvelopeDigest

var resDigest, _ = hashing.ParseDigest(resD)

// parseResolutionTests are the cases of TestParseResolution; they also seed
// FuzzParseResolution.
var parseResolutionTests = []struct {
	name  casename.CaseName
	in    string
	want  *Resolution // nil when rejected
	canon error       // the canon sentinel, when the gate rejects
	probs []Problem   // when malformed: pointers and reasons, in order
}{
	// Accepted: the four kinds, wrapped and bare.
	{name: casename.Name("option"), in: `{"binding_moment_resolution":{"envelope_digest":"` + resD + `","resolution":"option","option_idx":1}}`,
		want: &Resolution{EnvelopeDigest: resDigest, Kind: KindOption, OptionIdx: 1}},
	{name: casename.Name("option/bare"), in: `{"envelope_digest":"` + resD + `","resolution":"option","option_idx":0}`,
		want: &Resolution{EnvelopeDigest: resDigest, Kind: KindOption}},
	{name: casename.Name("option/whitespace-and-order"), in: " {\n \"binding_moment_resolution\" : { \"option_idx\" : 3 , \"resolution\" : \"option\" , \"envelope_digest\" : \"" + resD + "\" } } \n",
		want: &Resolution{EnvelopeDigest: resDigest, Kind: KindOption, OptionIdx: 3}},
	{name: casename.Name("option/idx-1e0"), in: `{"envelope_digest":"` + resD + `","resolution":"option","option_idx":1e0}`,
		want: &Resolution{EnvelopeDigest: resDigest, Kind: KindOption, OptionIdx: 1}},
	{name: casename.Name("option/idx-1.0"), in: `{"envelope_digest":"` + resD + `","resolution":"option","option_idx":1.0}`,
		want: &Resolution{EnvelopeDigest: resDigest, Kind: KindOption, OptionIdx: 1}},
	{name: casename.Name("option/idx-minus-0"), in: `{"envelope_digest":"` + resD + `","resolution":"option","option_idx":-0}`,
		want: &Resolution{EnvelopeDigest: resDigest, Kind: KindOption}},
	{name: casename.Name("option/idx-max-safe"), in: `{"envelope_digest":"` + resD + `","resolution":"option","option_idx":9007199254740991}`,
		want: &Resolution{EnvelopeDigest: resDigest, Kind: KindOption, OptionIdx: int(maxSafeIndex)}},
	{name: casename.Name("answer"), in: `{"binding_moment_resolution":{"envelope_digest":"` + resD + `","resolution":"answer","answer":"Dates only, \u00e9\n"}}`,
		want: &Resolution{EnvelopeDigest: resDigest, Kind: KindAnswer, Answer: "Dates only, é\n"}},
	{name: casename.Name("answer/empty"), in: `{"envelope_digest":"` + resD + `","resolution":"answer","answer":""}`,
		want: &Resolution{EnvelopeDigest: resDigest, Kind: KindAnswer}},
	{name: casename.Name("question"), in: `{"binding_moment_resolution":{"envelope_digest":"` + resD + `","resolution":"question"}}`,
		want: &Resolution{EnvelopeDigest: resDigest, Kind: KindQuestion}},
	{name: casename.Name("declined"), in: `{"binding_moment_resolution":{"envelope_digest":"` + resD + `","resolution":"declined"}}`,
		want: &Resolution{EnvelopeDigest: resDigest, Kind: KindDeclined}},

	// The canonicalization gate of §6.3 comes first.
	{name: casename.Name("gate/duplicate-name"), in: `{"envelope_digest":"` + resD + `","resolution":"option","option_idx":0,"option_idx":1}`, canon: canon.ErrDuplicateName},
	{name: casename.Name("gate/duplicate-wrapper"), in: `{"binding_moment_resolution":{},"binding_moment_resolution":{}}`, canon: canon.ErrDuplicateName},
	{name: casename.Name("gate/non-integer-idx"), in: `{"envelope_digest":"` + resD + `","resolution":"option","option_idx":0.5}`, canon: canon.ErrNonInteger},
	{name: casename.Name("gate/unsafe-integer-idx"), in: `{"envelope_digest":"` + resD + `","resolution":"option","option_idx":9007199254740992}`, canon: canon.ErrUnsafeInteger},
	{name: casename.Name("gate/unpaired-surrogate"), in: `{"envelope_digest":"` + resD + `","resolution":"answer","answer":"\ud800"}`, canon: canon.ErrUnpairedSurrogate},
	{name: casename.Name("gate/syntax"), in: `{"envelope_digest":`, canon: canon.ErrSyntax},
	{name: casename.Name("gate/empty"), in: ``, canon: canon.ErrSyntax},
	{name: casename.Name("gate/trailing"), in: `{} {}`, canon: canon.ErrSyntax},

	// Shape.
	{name: casename.Name("not-object/array"), in: `[]`, probs: []Problem{{"", "a resolution must be a JSON object, not an array"}}},
	{name: casename.Name("not-object/null"), in: `null`, probs: []Problem{{"", "a resolution must be a JSON object, not null"}}},
	{name: casename.Name("not-object/string"), in: `"option"`, probs: []Problem{{"", "a resolution must be a JSON object, not a string"}}},
	{name: casename.Name("wrapper/not-object"), in: `{"binding_moment_resolution":[1]}`,
		probs: []Problem{{"", "binding_moment_resolution must be a JSON object, not an array"}}},
	{name: casename.Name("wrapper/null"), in: `{"binding_moment_resolution":null}`,
		probs: []Problem{{"", "binding_moment_resolution must be a JSON object, not null"}}},
	{name: casename.Name("wrapper/extra-member"), in: `{"binding_moment_resolution":{"envelope_digest":"` + resD + `","resolution":"declined"},"x":1}`,
		probs: []Problem{{"", `unknown member "x" beside binding_moment_resolution`}}},
	{name: casename.Name("empty-object"), in: `{}`, probs: []Problem{
		{"/envelope_digest", "required member missing"},
		{"/resolution", "required member missing"}}},

	// envelope_digest: REQUIRED, the form of §6.2.
	{name: casename.Name("digest/missing"), in: `{"resolution":"declined"}`, probs: []Problem{{"/envelope_digest", "required member missing"}}},
	{name: casename.Name("digest/number"), in: `{"envelope_digest":1,"resolution":"declined"}`, probs: []Problem{{"/envelope_digest", "must be a string, not a number"}}},
	{name: casename.Name("digest/null"), in: `{"envelope_digest":null,"resolution":"declined"}`, probs: []Problem{{"/envelope_digest", "must be a string, not null"}}},
	{name: casename.Name("digest/uppercase"), in: `{"envelope_digest":"sha256:0DB384ab1b682c115d79babfefa91f014ad80c007d00c79119d748f32be232d1","resolution":"declined"}`,
		probs: []Problem{{"/envelope_digest", ""}}},
	{name: casename.Name("digest/no-prefix"), in: `{"envelope_digest":"0db384ab1b682c115d79babfefa91f014ad80c007d00c79119d748f32be232d1","resolution":"declined"}`,
		probs: []Problem{{"/envelope_digest", ""}}},
	{name: casename.Name("digest/short"), in: `{"envelope_digest":"sha256:0db384","resolution":"declined"}`,
		probs: []Problem{{"/envelope_digest", "not a digest of the form sha256:<64 lowercase hex>: want 64 hex digits, got 6 bytes at offset 7"}}},
	{name: casename.Name("digest/uppercase-reason"), in: `{"envelope_digest":"sha256:0DB384ab1b682c115d79babfefa91f014ad80c007d00c79119d748f32be232d1","resolution":"declined"}`,
		probs: []Problem{{"/envelope_digest", "not a digest of the form sha256:<64 lowercase hex>: uppercase hex digit 'D' (digests are lowercase) at offset 8"}}},
	{name: casename.Name("digest/escaped"), in: `{"envelope_digest":"sha256:\u000a0db384ab1b682c115d79babfefa91f014ad80c007d00c79119d748f32be232d","resolution":"declined"}`,
		probs: []Problem{{"/envelope_digest", `not a digest of the form sha256:<64 lowercase hex>: not a lowercase hex digit: "\n" at offset 7`}}},

	// resolution: REQUIRED, one of four.
	{name: casename.Name("resolution/missing"), in: `{"envelope_digest":"` + resD + `"}`, probs: []Problem{{"/resolution", "required member missing"}}},
	{name: casename.Name("resolution/unknown"), in: `{"envelope_digest":"` + resD + `","resolution":"Option","option_idx":0}`,
		probs: []Problem{{"/resolution", `must be "option", "answer", "question" or "declined", not "Option"`}}},
	{name: casename.Name("resolution/cancel"), in: `{"envelope_digest":"` + resD + `","resolution":"cancel"}`,
		probs: []Problem{{"/resolution", `must be "option", "answer", "question" or "declined", not "cancel"`}}},
	{name: casename.Name("resolution/escaped"), in: `{"envelope_digest":"` + resD + `","resolution":"opt\u0069on\n","option_idx":0}`,
		probs: []Problem{{"/resolution", `must be "option", "answer", "question" or "declined", not "option\n"`}}},
	{name: casename.Name("resolution/bool"), in: `{"envelope_digest":"` + resD + `","resolution":true}`,
		probs: []Problem{{"/resolution", "must be a string, not a boolean"}}},

	// option_idx: REQUIRED for option, absent otherwise, non-negative integer.
	{name: casename.Name("option_idx/missing"), in: `{"envelope_digest":"` + resD + `","resolution":"option"}`,
		probs: []Problem{{"/option_idx", `required member missing: resolution is "option"`}}},
	{name: casename.Name("option_idx/negative"), in: `{"envelope_digest":"` + resD + `","resolution":"option","option_idx":-1}`,
		probs: []Problem{{"/option_idx", "must be a non-negative integer, not -1"}}},
	{name: casename.Name("option_idx/string"), in: `{"envelope_digest":"` + resD + `","resolution":"option","option_idx":"0"}`,
		probs: []Problem{{"/option_idx", "must be a non-negative integer, not a string"}}},
	{name: casename.Name("option_idx/null"), in: `{"envelope_digest":"` + resD + `","resolution":"option","option_idx":null}`,
		probs: []Problem{{"/option_idx", "must be a non-negative integer, not null"}}},
	{name: casename.Name("option_idx/with-answer"), in: `{"envelope_digest":"` + resD + `","resolution":"answer","answer":"x","option_idx":0}`,
		probs: []Problem{{"/option_idx", `must be absent when resolution is "answer"`}}},
	{name: casename.Name("option_idx/with-question"), in: `{"envelope_digest":"` + resD + `","resolution":"question","option_idx":0}`,
		probs: []Problem{{"/option_idx", `must be absent when resolution is "question"`}}},
	{name: casename.Name("option_idx/with-declined"), in: `{"envelope_digest":"` + resD + `","resolution":"declined","option_idx":0}`,
		probs: []Problem{{"/option_idx", `must be absent when resolution is "declined"`}}},

	// answer: REQUIRED for answer, absent otherwise, a string.
	{name: casename.Name("answer/missing"), in: `{"envelope_digest":"` + resD + `","resolution":"answer"}`,
		probs: []Problem{{"/answer", `required member missing: resolution is "answer"`}}},
	{name: casename.Name("answer/number"), in: `{"envelope_digest":"` + resD + `","resolution":"answer","answer":42}`,
		probs: []Problem{{"/answer", "must be a string, not a number"}}},
	{name: casename.Name("answer/with-option"), in: `{"envelope_digest":"` + resD + `","resolution":"option","option_idx":0,"answer":"x"}`,
		probs: []Problem{{"/answer", `must be absent when resolution is "option"`}}},
	{name: casename.Name("answer/with-question"), in: `{"envelope_digest":"` + resD + `","resolution":"question","answer":"x"}`,
		probs: []Problem{{"/answer", `must be absent when resolution is "question"`}}},
	{name: casename.Name("answer/with-declined"), in: `{"envelope_digest":"` + resD + `","resolution":"declined","answer":""}`,
		probs: []Problem{{"/answer", `must be absent when resolution is "declined"`}}},

	// Exactly the members of §7.3.
	{name: casename.Name("unknown-member"), in: `{"envelope_digest":"` + resD + `","resolution":"declined","reason":"no"}`,
		probs: []Problem{{"/reason", "unknown member"}}},
	{name: casename.Name("unknown-member/escaped"), in: `{"envelope_digest":"` + resD + `","resolution":"declined","a/b~c":0}`,
		probs: []Problem{{"/a~1b~0c", "unknown member"}}},
	{name: casename.Name("unknown-member/inner-wrapper-name"), in: `{"envelope_digest":"` + resD + `","resolution":"declined","signature":"x"}`,
		probs: []Problem{{"/signature", "unknown member"}}},

	// Every problem is reported, in member order.
	{name: casename.Name("many"), in: `{"binding_moment_resolution":{"resolution":"question","option_idx":-2,"answer":1,"zz":0,"aa":0}}`,
		probs: []Problem{
			{"/envelope_digest", "required member missing"},
			{"/option_idx", `must be absent when resolution is "question"`},
			{"/answer", `must be absent when resolution is "question"`},
			{"/aa", "unknown member"},
			{"/zz", "unknown member"}}},
	{name: casename.Name("many/unknown-kind"), in: `{"envelope_digest":"sha256:x","resolution":"maybe","option_idx":-1,"answer":2}`,
		probs: []Problem{
			{"/envelope_digest", ""},
			{"/resolution", `must be "option", "answer", "question" or "declined", not "maybe"`},
			{"/option_idx", "must be a non-negative integer, not -1"},
			{"/answer", "must be a string, not a number"}}},
}

// maxSafeIndex is 2^53-1, the largest index the strict profile admits; an
// int holds it only where int has 64 bits (a variable, so that the table
// compiles on 32-bit platforms too).
var maxSafeIndex int64 = 1<<53 - 1

func TestParseResolution(t *testing.T) {
	for _, tt := range parseResolutionTests {
		t.Run(tt.name.Name, func(t *testing.T) {
			if strconv.IntSize == 32 && strings.Contains(tt.in, "9007199254740991") {
				t.Skip("the index does not fit a 32-bit int")
			}
			got, err := ParseResolution([]byte(tt.in))
			switch {
			case tt.want != nil:
				if err != nil {
					t.Fatalf("%s: ParseResolution: %v", tt.name.Where, err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("%s: ParseResolution = %+v, want %+v", tt.name.Where, got, tt.want)
				}
			case tt.canon != nil:
				if got != nil || !errors.Is(err, tt.canon) {
					t.Fatalf("%s: ParseResolution = %+v, %v; want %v", tt.name.Where, got, err, tt.canon)
				}
				if _, ok := errors.AsType[*canon.Error](err); !ok {
					t.Fatalf("%s: error %T is not a *canon.Error", tt.name.Where, err)
				}
			default:
				if got != nil || err == nil {
					t.Fatalf("%s: ParseResolution = %+v, %v; want malformed", tt.name.Where, got, err)
				}
				if !errors.Is(err, ErrMalformedResolution) {
					t.Fatalf("%s: error %v does not wrap ErrMalformedResolution", tt.name.Where, err)
				}
				me, ok := errors.AsType[*MalformedResolutionError](err)
				if !ok {
					t.Fatalf("%s: error %T is not a *MalformedResolutionError", tt.name.Where, err)
				}
				if len(me.Problems) != len(tt.probs) {
					t.Fatalf("%s: problems = %q, want %q", tt.name.Where, me.Problems, tt.probs)
				}
				for i, p := range me.Problems {
					w := tt.probs[i]
					if p.Pointer != w.Pointer || w.Reason != "" && p.Reason != w.Reason || p.Reason == "" {
						t.Errorf("%s: problem %d = %q, want %q", tt.name.Where, i, p, w)
					}
				}
			}
		})
	}
}

func TestMalformedResolutionErrorMessage(t *testing.T) {
	_, err := ParseResolution([]byte(`{"resolution":"option","x":1}`))
	want := `envelope: malformed resolution: 3 problems: "/envelope_digest": required member missing; ` +
		`"/option_idx": required member missing: resolution is "option"; "/x": unknown member`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant    %s", err, want)
	}
	_, err = ParseResolution([]byte(`{"resolution":"declined"}`))
	want = `envelope: malformed resolution: 1 problem: "/envelope_digest": required member missing`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant    %s", err, want)
	}
	_, err = ParseResolution([]byte(`{"a":1,"b":2,"c":3,"d":4,"e":5}`))
	if err == nil || err.Error() != `envelope: malformed resolution: 7 problems: "/envelope_digest": required member missing; "/resolution": required member missing; "/a": unknown member; "/b": unknown member; ...` {
		t.Fatalf("error = %v", err)
	}
}

// A Resolution marshals to the wire form of §7.3 and unmarshals through
// ParseResolution; Kind and Outcome read back their names.
func TestResolutionJSONRoundTrip(t *testing.T) {
	for _, r := range []Resolution{
		{EnvelopeDigest: resDigest, Kind: KindOption, OptionIdx: 3},
		{EnvelopeDigest: resDigest, Kind: KindOption},
		{EnvelopeDigest: resDigest, Kind: KindAnswer, Answer: "Dates only, \u00e9 \"q\" \\ \n\t\x01\u2028 \U0001F600 <&>"},
		{EnvelopeDigest: resDigest, Kind: KindAnswer},
		{EnvelopeDigest: resDigest, Kind: KindQuestion},
		{EnvelopeDigest: resDigest, Kind: KindDeclined},
	} {
		wire, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !canon.IsCanonical(wire, canon.Strict) || !bytes.HasPrefix(wire, []byte(`{"binding_moment_resolution":{`)) {
			t.Errorf("MarshalJSON = %s: not the canonical wire form", wire)
		}
		b, err := json.Marshal(r) // encoding/json escapes <, > and & again
		if err != nil {
			t.Fatal(err)
		}
		var got Resolution
		if err := json.Unmarshal(b, &got); err != nil || got != r {
			t.Errorf("round trip of %+v = %+v, %v", r, got, err)
		}
		p, err := ParseResolution(b)
		if err != nil || *p != r {
			t.Errorf("ParseResolution(%s) = %+v, %v", b, p, err)
		}
	}
	for _, r := range []Resolution{{Kind: 0}, {Kind: 9}, {Kind: KindOption, OptionIdx: -1}, {Kind: KindAnswer, Answer: "\xff"}} {
		if b, err := json.Marshal(r); err == nil {
			t.Errorf("json.Marshal(%+v) = %s, want an error", r, b)
		}
	}
	var r Resolution
	if err := json.Unmarshal([]byte(`{"EnvelopeDigest":"`+resD+`","Kind":"option","OptionIdx":0}`), &r); err == nil || r != (Resolution{}) {
		t.Errorf("a Go-field dump unmarshalled to %+v, %v", r, err)
	}
	res := Result{Outcome: OutcomeAuthority, Reason: "x"}
	b, _ := json.Marshal(res)
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || back != res {
		t.Errorf("Result round trip = %+v, %v", back, err)
	}
	for o := Outcome(1); o.String() != "invalid"; o++ {
		var got Outcome
		if err := got.UnmarshalText([]byte(o.String())); err != nil || got != o {
			t.Errorf("Outcome %v: %v, %v", o, got, err)
		}
	}
	for k := Kind(1); k.String() != "invalid"; k++ {
		var got Kind
		if err := got.UnmarshalText([]byte(k.String())); err != nil || got != k {
			t.Errorf("Kind %v: %v, %v", k, got, err)
		}
	}
	var o Outcome
	var k Kind
	if o.UnmarshalText([]byte("invalid")) == nil || k.UnmarshalText([]byte("Option")) == nil {
		t.Errorf("unknown names accepted")
	}
}

// A resolution with many unknown members costs a bounded problem list.
func TestResolutionProblemsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"resolution":"declined"`)
	const n = 3000
	for i := range n {
		b.WriteString(`,"x` + strconv.Itoa(i) + `":0`)
	}
	b.WriteString("}")
	_, err := ParseResolution([]byte(b.String()))
	me, ok := errors.AsType[*MalformedResolutionError](err)
	if !ok || len(me.Problems) != MaxProblems || len(me.Problems)+me.Omitted != n+1 {
		t.Fatalf("err = %v", err)
	}
	if me.Problems[0].Pointer != "/envelope_digest" || !strings.Contains(me.Error(), strconv.Itoa(n+1)+" problems") {
		t.Errorf("problems %v, message %q", me.Problems[:2], me.Error())
	}
	// Beside the wrapper too.
	b.Reset()
	b.WriteString(`{"binding_moment_resolution":{"envelope_digest":"` + resD + `","resolution":"declined"}`)
	for i := range n {
		b.WriteString(`,"y` + strconv.Itoa(i) + `":0`)
	}
	b.WriteString("}")
	_, err = ParseResolution([]byte(b.String()))
	if me, ok = errors.AsType[*MalformedResolutionError](err); !ok || len(me.Problems) != MaxProblems || me.Omitted != n-MaxProblems {
		t.Fatalf("err = %v", err)
	}
}

// TestParseResolutionAllocs: a well-formed resolution costs one allocation,
// the Resolution returned; its digest and kind are read where they lie.
func TestParseResolutionAllocs(t *testing.T) {
	if resRaceEnabled() {
		t.Skip("sync.Pool drops items at random under -race")
	}
	for _, kind := range []string{"option", "declined"} {
		extra := ""
		if kind == "option" {
			extra = `"option_idx":1`
		}
		src := resJSON(demo.DraftEnvelopeDigest, kind, extra)
		ParseResolution(src) // warm the pool
		if n := testing.AllocsPerRun(100, func() { ParseResolution(src) }); n > 1 {
			t.Errorf("ParseResolution(%s) allocates %v times per call, want 1", kind, n)
		}
	}
}
