package envelope

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/casename"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// The actions of draft-morrison-binding-moment-envelope-04 §6.4
// (demo.DraftAction1 and DraftAction2), compact, and the synopsis of the
// envelope offering them.
var (
	resAction0         = compactJSON(demo.DraftAction1())
	resAction1         = compactJSON(demo.DraftAction2())
	resExampleSynopsis = draftDecoded.Synopsis
)

func compactJSON(src []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, src); err != nil {
		panic("BUG: encoding/json cannot compact a demo document: " + err.Error())
	}
	return b.String()
}

// draftHatches is how demo.DraftEnvelope writes its hatches.
const draftHatches = `"hatches": { "free_text": true, "dialogue": true }`

// resEnvelopeJSON returns the §6.4 envelope (demo.DraftEnvelope, as a tool
// result would carry it: whitespace, members unsorted) with the given
// synopsis and hatches.
func resEnvelopeJSON(t testing.TB, synopsis string, freeText, dialogue bool) string {
	t.Helper()
	env := string(demo.DraftEnvelope())
	for _, r := range []struct{ old, new string }{
		{fmt.Sprintf("%q", resExampleSynopsis), fmt.Sprintf("%q", synopsis)},
		{draftHatches, fmt.Sprintf(`"hatches": { "free_text": %t, "dialogue": %t }`, freeText, dialogue)},
	} {
		if strings.Count(env, r.old) != 1 {
			t.Fatalf("demo.DraftEnvelope does not write %s once", r.old)
		}
		env = strings.Replace(env, r.old, r.new, 1)
	}
	return env
}

// resTestEnvelope parses the §6.4 envelope with the given synopsis and
// hatches through Parse.
func resTestEnvelope(t testing.TB, synopsis string, freeText, dialogue bool) *Envelope {
	t.Helper()
	env, err := Parse([]byte(resEnvelopeJSON(t, synopsis, freeText, dialogue)))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return env
}

// resJSON returns a wrapped resolution naming digest, with the given kind
// and extra members (`"option_idx":0` and the like, or "").
func resJSON(digest, kind, extra string) []byte {
	s := fmt.Sprintf(`{"binding_moment_resolution":{"envelope_digest":%q,"resolution":%q`, digest, kind)
	if extra != "" {
		s += "," + extra
	}
	return []byte(s + "}}")
}

func TestExampleEnvelopeDigest(t *testing.T) {
	env := resTestEnvelope(t, resExampleSynopsis, true, true)
	if got := env.Digest().String(); got != demo.DraftEnvelopeDigest {
		t.Fatalf("digest of the §6.4 example = %s, want %s", got, demo.DraftEnvelopeDigest)
	}
	for i, a := range []string{resAction0, resAction1} {
		d, err := bbdigest.Digest([]byte(a))
		if err != nil {
			t.Fatal(err)
		}
		if want := env.Options()[i].ActionDigest; d != want {
			t.Errorf("action %d digest = %s, want %s", i, d, want)
		}
	}
}

func TestVerify(t *testing.T) {
	env := resTestEnvelope(t, resExampleSynopsis, true, true)
	other := resTestEnvelope(t, resExampleSynopsis+" Again.", true, true)
	noFree := resTestEnvelope(t, resExampleSynopsis, false, true)
	noDialogue := resTestEnvelope(t, resExampleSynopsis, true, false)
	d := env.Digest().String()

	tests := []struct {
		name   casename.CaseName
		env    *Envelope
		res    []byte
		action string // "" means no action (nil)
		want   Outcome
		reason string // substring of the reason
	}{
		{casename.Name("option0/matching-action"), env, resJSON(d, "option", `"option_idx":0`), resAction0, OutcomeAuthority, "matches"},
		{casename.Name("option1/matching-action"), env, resJSON(d, "option", `"option_idx":1`), resAction1, OutcomeAuthority, "matches"},
		{casename.Name("option0/action-not-canonical"), env, resJSON(d, "option", `"option_idx":0`),
			` { "recipient" : "booking.example", "disclose" : [ "travel_dates" ] } `, OutcomeAuthority, ""},
		{casename.Name("option0/idx-written-1e0-is-option1"), env, resJSON(d, "option", `"option_idx":1e0`), resAction1, OutcomeAuthority, ""},

		// §7.3: the action differs: a record, not authority.
		{casename.Name("option0/other-action"), env, resJSON(d, "option", `"option_idx":0`), resAction1, OutcomeRecord, "differs"},
		{casename.Name("option1/other-action"), env, resJSON(d, "option", `"option_idx":1`), resAction0, OutcomeRecord, "differs"},
		{casename.Name("option0/no-action"), env, resJSON(d, "option", `"option_idx":0`), "", OutcomeRecord, "no action"},
		{casename.Name("option0/action-duplicate-name"), env, resJSON(d, "option", `"option_idx":0`),
			`{"disclose":["travel_dates"],"recipient":"booking.example","recipient":"evil.example"}`, OutcomeRecord, "duplicate-name"},
		{casename.Name("option0/action-non-integer"), env, resJSON(d, "option", `"option_idx":0`), `{"n":1.5}`, OutcomeRecord, "non-integer"},
		{casename.Name("option0/action-syntax"), env, resJSON(d, "option", `"option_idx":0`), `{`, OutcomeRecord, "syntax"},

		// §7.3: option_idx within range for the resolved envelope.
		{casename.Name("option2/out-of-range"), env, resJSON(d, "option", `"option_idx":2`), resAction0, OutcomeMalformed, "out of range"},
		{casename.Name("option99/out-of-range"), env, resJSON(d, "option", `"option_idx":99`), "", OutcomeMalformed, "out of range"},

		// §7.3, §12.5: a resolution names exactly one envelope.
		{casename.Name("option0/other-envelope"), other, resJSON(d, "option", `"option_idx":0`), resAction0, OutcomeDiscarded, "not the envelope held"},
		{casename.Name("option99/other-envelope"), other, resJSON(d, "option", `"option_idx":99`), resAction0, OutcomeDiscarded, "not the envelope held"},
		{casename.Name("declined/other-envelope"), other, resJSON(d, "declined", ""), "", OutcomeDiscarded, ""},

		// The other three kinds never authorize, action or not.
		{casename.Name("declined"), env, resJSON(d, "declined", ""), "", OutcomeDeclined, "declined"},
		{casename.Name("declined/with-action"), env, resJSON(d, "declined", ""), resAction0, OutcomeDeclined, ""},
		{casename.Name("question"), env, resJSON(d, "question", ""), "", OutcomeQuestion, "reopens"},
		{casename.Name("question/with-action"), env, resJSON(d, "question", ""), resAction0, OutcomeQuestion, ""},
		{casename.Name("answer"), env, resJSON(d, "answer", `"answer":"Dates only, and ask me again at check-in."`), "", OutcomeAnswer, ""},
		{casename.Name("answer/with-action"), env, resJSON(d, "answer", `"answer":"share dates"`), resAction0, OutcomeAnswer, ""},

		// §5.8: a hatch the envelope does not offer cannot be invoked.
		{casename.Name("answer/free_text-false"), noFree, resJSON(noFree.Digest().String(), "answer", `"answer":"x"`), "", OutcomeMalformed, "free_text"},
		{casename.Name("question/dialogue-false"), noDialogue, resJSON(noDialogue.Digest().String(), "question", ""), "", OutcomeMalformed, "dialogue"},
		{casename.Name("declined/free_text-false"), noFree, resJSON(noFree.Digest().String(), "declined", ""), "", OutcomeDeclined, ""},
		{casename.Name("question/free_text-false"), noFree, resJSON(noFree.Digest().String(), "question", ""), "", OutcomeQuestion, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name.Name, func(t *testing.T) {
			res, err := ParseResolution(tt.res)
			if err != nil {
				t.Fatalf("%s: ParseResolution: %v", tt.name.Where, err)
			}
			var action []byte
			if tt.action != "" {
				action = []byte(tt.action)
			}
			got := Verify(tt.env, res, action)
			if got.Outcome != tt.want {
				t.Fatalf("%s: Verify = %v (%s), want %v", tt.name.Where, got.Outcome, got.Reason, tt.want)
			}
			if !strings.Contains(got.Reason, tt.reason) || got.Reason == "" {
				t.Errorf("%s: reason %q does not mention %q", tt.name.Where, got.Reason, tt.reason)
			}
			if got.Authorizes() != (tt.want == OutcomeAuthority) {
				t.Errorf("%s: Authorizes() = %v for %v", tt.name.Where, got.Authorizes(), got.Outcome)
			}
		})
	}
}

// TestVerifyDeclinedQuestionDistinct pins §7.3: "The declined and question
// resolutions are distinct, and an implementation SHALL NOT collapse them."
func TestVerifyDeclinedQuestionDistinct(t *testing.T) {
	env := resTestEnvelope(t, resExampleSynopsis, true, true)
	d := env.Digest().String()
	dec, err := ParseResolution(resJSON(d, "declined", ""))
	if err != nil {
		t.Fatal(err)
	}
	que, err := ParseResolution(resJSON(d, "question", ""))
	if err != nil {
		t.Fatal(err)
	}
	if dec.Kind == que.Kind {
		t.Fatalf("declined and question parse to the same kind %v", dec.Kind)
	}
	a, b := Verify(env, dec, nil), Verify(env, que, nil)
	if a.Outcome != OutcomeDeclined || b.Outcome != OutcomeQuestion {
		t.Fatalf("outcomes %v, %v; want declined, question", a.Outcome, b.Outcome)
	}
}

func TestVerifyNil(t *testing.T) {
	env := resTestEnvelope(t, resExampleSynopsis, true, true)
	if got := Verify(env, nil, nil); got.Outcome != OutcomeMalformed {
		t.Errorf("Verify(env, nil) = %v, want malformed", got.Outcome)
	}
	res := &Resolution{EnvelopeDigest: env.Digest(), Kind: KindDeclined}
	if got := Verify(nil, res, nil); got.Outcome != OutcomeDiscarded {
		t.Errorf("Verify(nil, res) = %v, want discarded", got.Outcome)
	}
	// A hand-built Resolution with a negative index or no kind.
	for _, r := range []*Resolution{
		{EnvelopeDigest: env.Digest(), Kind: KindOption, OptionIdx: -1},
		{EnvelopeDigest: env.Digest()},
		{EnvelopeDigest: env.Digest(), Kind: 200},
	} {
		if got := Verify(env, r, []byte(resAction0)); got.Outcome != OutcomeMalformed {
			t.Errorf("Verify(%+v) = %v, want malformed", r, got.Outcome)
		}
	}
}

// TestOutcomeNames pins the stable names the CLI prints, and that only
// authority authorizes.
func TestOutcomeNames(t *testing.T) {
	want := map[Outcome]string{
		0:                "invalid",
		OutcomeAuthority: "authority",
		OutcomeRecord:    "record",
		OutcomeDeclined:  "declined",
		OutcomeAnswer:    "answer",
		OutcomeQuestion:  "question",
		OutcomeDiscarded: "discarded",
		OutcomeMalformed: "malformed",
		99:               "invalid",
	}
	for o, name := range want {
		if got := o.String(); got != name {
			t.Errorf("Outcome(%d).String() = %q, want %q", uint8(o), got, name)
		}
		text, err := o.MarshalText()
		if (err == nil) != (name != "invalid") || err == nil && string(text) != name {
			t.Errorf("Outcome(%d).MarshalText() = %q, %v", uint8(o), text, err)
		}
		if got := (Result{Outcome: o}).Authorizes(); got != (o == OutcomeAuthority) {
			t.Errorf("Result{%v}.Authorizes() = %v", o, got)
		}
	}
	kinds := map[Kind]string{0: "invalid", KindOption: "option", KindAnswer: "answer", KindQuestion: "question", KindDeclined: "declined", 5: "invalid"}
	for k, name := range kinds {
		if got := k.String(); got != name {
			t.Errorf("Kind(%d).String() = %q, want %q", uint8(k), got, name)
		}
		if name != "invalid" && kindByName(name) != k {
			t.Errorf("kindByName(%q) = %v", name, kindByName(name))
		}
	}
}

// resRaceEnabled reports whether the test binary was built with -race,
// under which sync.Pool drops items at random.
func resRaceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

func TestActionDigestAllocs(t *testing.T) {
	if resRaceEnabled() {
		t.Skip("sync.Pool drops items at random under -race")
	}
	action := []byte(resAction0)
	bbdigest.Digest(action) // warm the pool
	if n := testing.AllocsPerRun(100, func() { bbdigest.Digest(action) }); n > 0 {
		t.Errorf("bbdigest.Digest of an action allocates %v times per call", n)
	}
	env := resTestEnvelope(t, resExampleSynopsis, true, true)
	res := &Resolution{EnvelopeDigest: env.Digest(), Kind: KindOption, OptionIdx: 0}
	if n := testing.AllocsPerRun(100, func() { Verify(env, res, action) }); n > 0 {
		t.Errorf("Verify (authority) allocates %v times per call", n)
	}
	want, _ := hashing.ParseDigest(demo.DraftAction1Digest)
	if got, _ := bbdigest.Digest(action); got != want {
		t.Errorf("bbdigest.Digest(action) = %s, want %s", got, want)
	}
}
