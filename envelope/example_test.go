package envelope_test

import (
	"errors"
	"fmt"

	"github.com/bbdigest/bbdigest/envelope"
	"github.com/bbdigest/bbdigest/internal/demo"
)

func ExampleParse() {
	src := demo.DraftEnvelope()
	e, err := envelope.Parse(src)
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Digest())
	fmt.Println(len(e.Canonical()), "canonical bytes")
	o, _ := e.Option(e.RecommendedIdx())
	fmt.Println(o.Label)
	// Output:
	// sha256:0db384ab1b682c115d79babfefa91f014ad80c007d00c79119d748f32be232d1
	// 895 canonical bytes
	// Share dates only
}

func ExampleValidate() {
	src := []byte(`{"synopsis":"Renew now.","findings":[],"recommendations":[],"offer":"Ask.",
		"question":{"stem":"Renew?","options":[{"label":"Renew","reasoning":"Cheap.","action_digest":"sha256:00"}],
		"recommended_idx":1,"hatches":{"free_text":true}},"colour":"red"}`)
	for _, p := range envelope.Validate(src) {
		fmt.Printf("%s: %s\n", p.Pointer, p.Reason)
	}
	// Output:
	// /colour: member not defined by the envelope grammar
	// /question/hatches/dialogue: missing required member
	// /question/options/0/action_digest: want "sha256:" and 64 lowercase hex digits: want 64 hex digits, got 2 bytes
	// /question/options: want 2 to 4 options, got 1
	// /question/recommended_idx: out of range: 1 is not an index of the 1 options
}

func ExampleBuilder() {
	b := &envelope.Builder{
		Synopsis:        "Share the travel dates and withhold the passport number.",
		Findings:        []string{"Dates are enough to hold the reservation."},
		Recommendations: []string{"Release the travel dates now."},
		Offer:           "Ask for detail on any item.",
		Stem:            "What should be shared with the booking service?",
		Hatches:         envelope.Hatches{FreeText: true, Dialogue: true},
	}
	b.AddOption("Share dates only", "Keeps the passport number private.",
		[]byte(`{"disclose":["travel_dates"],"recipient":"booking.example"}`))
	b.AddOption("Share dates and passport number", "Avoids a second request.",
		[]byte(`{"disclose":["passport_number","travel_dates"],"recipient":"booking.example"}`))
	e, err := b.Build()
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Options()[0].ActionDigest)
	result, _ := envelope.ToolResult([]byte(`{"rooms":3}`), e)
	fmt.Println(string(result[len(result)-12:]))

	b.RecommendedIdx = 2
	_, err = b.Build()
	fmt.Println(errors.Is(err, envelope.ErrMalformed))
	// Output:
	// sha256:ff91e3166e64b892004d4b43b05ad6ed7ff0819463da80c72f27f47039c033fa
	// },"rooms":3}
	// true
}

func ExampleRenderText() {
	src := demo.DraftEnvelope()
	e, _ := envelope.Parse(src)
	fmt.Print(envelope.RenderText(e))
	// Output:
	// Synopsis: "Share the travel dates and withhold the passport number."
	//
	// Findings:
	//   - "The booking service asks for dates and passport number."
	//   - "Dates are enough to hold the reservation."
	//   - "The passport number is only needed at check-in."
	//
	// Recommendations:
	//   - "Release the travel dates now."
	//   - "Withhold the passport number until check-in."
	//
	// Offer: "Ask for detail on any item."
	//
	// Question: "What should be shared with the booking service?"
	// * 1. "Share dates only"  (recommended)
	//        "Holds the booking and keeps the passport number private."
	//   2. "Share dates and passport number"
	//        "Avoids a second request at check-in."
	//   d. Decline: answer no to the question as put
	//   a. Answer in your own words instead of choosing an option
	//   q. Reject the question and reopen the discussion
	//
	// Envelope: sha256:0db384ab1b682c115d79babfefa91f014ad80c007d00c79119d748f32be232d1
}
