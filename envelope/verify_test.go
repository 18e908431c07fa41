package envelope

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest"
	"github.com/bbdigest/bbdigest/hashing"
)

// The example of draft-morrison-binding-moment-envelope-04 §6.4: two
// actions, and the envelope offering them, with the digests the draft gives.
const (
	resAction0 = `{"disclose":["travel_dates"],"recipient":"booking.example"}`
	resAction1 = `{"disclose":["passport_number","travel_dates"],"recipient":"booking.example"}`

	resAction0Digest = "sha256:ff91e3166e64b892004d4b43b05ad6ed7ff0819463da80c72f27f47039c033fa"
	resAction1Digest = "sha256:49be14ae6e74b950c0c7b790fa22538d45fb4853bb0f3b242b28204bee232945"
	resExampleDigest = "sha256:0db384ab1b682c115d79babfefa91f014ad80c007d00c79119d748f32be232d1"

	resExampleSynopsis = "Share the travel dates and withhold the passport number."
)

// resEnvelopeJSON returns the §6.4 envelope with the given synopsis and
// hatches, as a tool result would carry it (whitespace, members unsorted).
func resEnvelopeJSON(synopsis string, freeText, dialogue bool) string {
	return fmt.Sprintf(`{
  "synopsis": %q,
  "findings": [
    "The booking service asks for dates and passport number.",
    "Dates are enough to hold the reservation.",
    "The passport number is only needed at check-in."
  ],
  "recommendations": [
    "Release the travel dates now.",
    "Withhold the passport number until check-in."
  ],
  "offer": "Ask for detail on any item.",
  "question": {
    "stem": "What should be shared with the booking service?",
    "options": [
      {"label": "Share dates only",
       "reasoning": "Holds the booking and keeps the passport number private.",
       "action_digest": %q},
      {"label": "Share dates and passport number",
       "reasoning": "Avoids a second request at check-in.",
       "action_digest": %q}
    ],
    "recommended_idx": 0,
    "hatches": {"free_text": %t, "dialogue": %t}
  }
}`, synopsis, resAction0Digest, resAction1Digest, freeText, dialogue)
}

// resTestEnvelope parses the §6.4 envelope with the given synopsis and
// hatches through Parse.
func resTestEnvelope(t testing.TB, synopsis string, freeText, dialogue bool) *Envelope {
	t.Helper()
	env, err := Parse([]byte(resEnvelopeJSON(synopsis, freeText, dialogue)))
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
	if got := env.Digest().String(); got != resExampleDigest {
		t.Fatalf("digest of the §6.4 example = %s, want %s", got, resExampleDigest)
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
		name   string
		env    *Envelope
		res    []byte
		action string // "" means no action (nil)
		want   Outcome
		reason string // substring of the reason
	}{
		{"option0/matching-action", env, resJSON(d, "option", `"option_idx":0`), resAction0, OutcomeAuthority, "matches"},
		{"option1/matching-action", env, resJSON(d, "option", `"option_idx":1`), resAction1, OutcomeAuthority, "matches"},
		{"option0/action-not-canonical", env, resJSON(d, "option", `"option_idx":0`),
			` { "recipient" : "booking.example", "disclose" : [ "travel_dates" ] } `, OutcomeAuthority, ""},
		{"option0/idx-written-1e0-is-option1", env, resJSON(d, "option", `"option_idx":1e0`), resAction1, OutcomeAuthority, ""},

		// §7.3: the action differs: a record, not authority.
		{"option0/other-action", env, resJSON(d, "option", `"option_idx":0`), resAction1, OutcomeRecord, "differs"},
		{"option1/other-action", env, resJSON(d, "option", `"option_idx":1`), resAction0, OutcomeRecord, "differs"},
		{"option0/no-action", env, resJSON(d, "option", `"option_idx":0`), "", OutcomeRecord, "no action"},
		{"option0/action-duplicate-name", env, resJSON(d, "option", `"option_idx":0`),
			`{"disclose":["travel_dates"],"recipient":"booking.example","recipient":"evil.example"}`, OutcomeRecord, "duplicate-name"},
		{"option0/action-non-integer", env, resJSON(d, "option", `"option_idx":0`), `{"n":1.5}`, OutcomeRecord, "non-integer"},
		{"option0/action-syntax", env, resJSON(d, "option", `"option_idx":0`), `{`, OutcomeRecord, "syntax"},

		// §7.3: option_idx within range for the resolved envelope.
		{"option2/out-of-range", env, resJSON(d, "option", `"option_idx":2`), resAction0, OutcomeMalformed, "out of range"},
		{"option99/out-of-range", env, resJSON(d, "option", `"option_idx":99`), "", OutcomeMalformed, "out of range"},

		// §7.3, §12.5: a resolution names exactly one envelope.
		{"option0/other-envelope", other, resJSON(d, "option", `"option_idx":0`), resAction0, OutcomeDiscarded, "not the envelope held"},
		{"option99/other-envelope", other, resJSON(d, "option", `"option_idx":99`), resAction0, OutcomeDiscarded, "not the envelope held"},
		{"declined/other-envelope", other, resJSON(d, "declined", ""), "", OutcomeDiscarded, ""},

		// The other three kinds never authorize, action or not.
		{"declined", env, resJSON(d, "declined", ""), "", OutcomeDeclined, "declined"},
		{"declined/with-action", env, resJSON(d, "declined", ""), resAction0, OutcomeDeclined, ""},
		{"question", env, resJSON(d, "question", ""), "", OutcomeQuestion, "reopens"},
		{"question/with-action", env, resJSON(d, "question", ""), resAction0, OutcomeQuestion, ""},
		{"answer", env, resJSON(d, "answer", `"answer":"Dates only, and ask me again at check-in."`), "", OutcomeAnswer, ""},
		{"answer/with-action", env, resJSON(d, "answer", `"answer":"share dates"`), resAction0, OutcomeAnswer, ""},

		// §5.8: a hatch the envelope does not offer cannot be invoked.
		{"answer/free_text-false", noFree, resJSON(noFree.Digest().String(), "answer", `"answer":"x"`), "", OutcomeMalformed, "free_text"},
		{"question/dialogue-false", noDialogue, resJSON(noDialogue.Digest().String(), "question", ""), "", OutcomeMalformed, "dialogue"},
		{"declined/free_text-false", noFree, resJSON(noFree.Digest().String(), "declined", ""), "", OutcomeDeclined, ""},
		{"question/free_text-false", noFree, resJSON(noFree.Digest().String(), "question", ""), "", OutcomeQuestion, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseResolution(tt.res)
			if err != nil {
				t.Fatalf("ParseResolution: %v", err)
			}
			var action []byte
			if tt.action != "" {
				action = []byte(tt.action)
			}
			got := Verify(tt.env, res, action)
			if got.Outcome != tt.want {
				t.Fatalf("Verify = %v (%s), want %v", got.Outcome, got.Reason, tt.want)
			}
			if !strings.Contains(got.Reason, tt.reason) || got.Reason == "" {
				t.Errorf("reason %q does not mention %q", got.Reason, tt.reason)
			}
			if got.Authorizes() != (tt.want == OutcomeAuthority) {
				t.Errorf("Authorizes() = %v for %v", got.Authorizes(), got.Outcome)
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
	want, _ := hashing.ParseDigest(resAction0Digest)
	if got, _ := bbdigest.Digest(action); got != want {
		t.Errorf("bbdigest.Digest(action) = %s, want %s", got, want)
	}
}
