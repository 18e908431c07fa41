package envelope

import (
	"fmt"

	"github.com/bbdigest/bbdigest"
)

// Outcome is what a resolution amounts to when checked against the envelope
// held (§7.3). Its String names are stable: the CLI prints them.
//
// Only OutcomeAuthority authorizes an action. The zero Outcome is not a
// valid outcome and authorizes nothing.
type Outcome uint8

// The outcomes of Verify and Resolver.Resolve. Values are never renumbered.
const (
	// OutcomeAuthority: an option was selected from the envelope held, and
	// the action about to be performed is the one that option's
	// action_digest names. The only outcome that authorizes an action.
	OutcomeAuthority Outcome = iota + 1
	// OutcomeRecord: an option was selected, but no action was given or the
	// action differs from the option's: a record that the principal chose
	// that option, not authority for the action (§7.3).
	OutcomeRecord
	// OutcomeDeclined: the principal answered the question as put in the
	// negative. The agent's continuation is to stop.
	OutcomeDeclined
	// OutcomeAnswer: the answer-space hatch, with a free-form answer. It
	// authorizes nothing; an action it calls for needs a further envelope
	// (§7.2).
	OutcomeAnswer
	// OutcomeQuestion: the question-space hatch. The agent reopens
	// deliberation (§7.2); it authorizes nothing.
	OutcomeQuestion
	// OutcomeDiscarded: the resolution names an envelope other than the one
	// held, one not emitted, or one already resolved (§7.3, §12.5). It is
	// not a decision.
	OutcomeDiscarded
	// OutcomeMalformed: the resolution breaks §7.3 (see ParseResolution),
	// selects an option_idx out of range for the envelope, or invokes a
	// hatch the envelope does not offer (§5.8).
	OutcomeMalformed
)

var outcomeNames = [...]string{
	OutcomeAuthority: "authority",
	OutcomeRecord:    "record",
	OutcomeDeclined:  "declined",
	OutcomeAnswer:    "answer",
	OutcomeQuestion:  "question",
	OutcomeDiscarded: "discarded",
	OutcomeMalformed: "malformed",
}

// String returns the stable name of o: "authority", "record", "declined",
// "answer", "question", "discarded" or "malformed"; "invalid" otherwise.
func (o Outcome) String() string {
	if o == 0 || int(o) >= len(outcomeNames) {
		return "invalid"
	}
	return outcomeNames[o]
}

// MarshalText implements encoding.TextMarshaler with the String name; it
// fails for an invalid Outcome.
func (o Outcome) MarshalText() ([]byte, error) {
	if o == 0 || int(o) >= len(outcomeNames) {
		return nil, fmt.Errorf("envelope: invalid outcome %d", uint8(o))
	}
	return []byte(outcomeNames[o]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler: the inverse of
// MarshalText, so that a Result read back from JSON keeps its Outcome. Any
// other text is an error and leaves o unchanged.
func (o *Outcome) UnmarshalText(text []byte) error {
	for v, n := range outcomeNames {
		if v != 0 && n == string(text) {
			*o = Outcome(v)
			return nil
		}
	}
	return fmt.Errorf("envelope: invalid outcome %q", text)
}

// Result is the outcome of checking a resolution, with a human-readable
// reason. The Reason text may change between versions; match on Outcome.
type Result struct {
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason"`
}

// Authorizes reports whether the resolution is authority for the action it
// was checked with: true for OutcomeAuthority only.
func (r Result) Authorizes() bool { return r.Outcome == OutcomeAuthority }

func newResult(o Outcome, format string, args ...any) Result {
	return Result{Outcome: o, Reason: fmt.Sprintf(format, args...)}
}

// authorityReasons are the reasons of OutcomeAuthority for the indexes slot
// 6 allows (§5.6: at most four options), so that the authority path does not
// allocate.
var authorityReasons = [...]string{
	"option 0 selected and the action matches its action_digest",
	"option 1 selected and the action matches its action_digest",
	"option 2 selected and the action matches its action_digest",
	"option 3 selected and the action matches its action_digest",
}

// Verify checks the resolution res against the envelope env the verifier
// holds, and against action, the JSON text of the action about to be
// performed (nil when there is none), as §7.3 requires:
//
//   - res must name env: res.EnvelopeDigest == env.Digest(), else
//     OutcomeDiscarded;
//   - an option selection must be in range for env's options, else
//     OutcomeMalformed; it is OutcomeAuthority only when action is given
//     and its digest (SHA-256 over its canonical form under the strict
//     profile, §5.6 and §6.2) equals that option's action_digest, and
//     OutcomeRecord otherwise, including when action fails the
//     canonicalization gate;
//   - an answer or question resolution must use a hatch env offers (§5.8,
//     free_text and dialogue), else OutcomeMalformed; otherwise it is
//     OutcomeAnswer or OutcomeQuestion;
//   - a decline is OutcomeDeclined.
//
// Verify does no single-use check: it cannot know whether env was emitted
// or has already been resolved. A host that acts on resolutions must use a
// Resolver, or keep the equivalent state itself (§7.3, last paragraph).
// A nil res is OutcomeMalformed, and a nil env or the zero Envelope (not
// made by Parse or Build) OutcomeDiscarded.
//
// Verify is safe for concurrent use.
func Verify(env *Envelope, res *Resolution, action []byte) Result {
	if res == nil {
		return newResult(OutcomeMalformed, "no resolution")
	}
	if !env.valid() {
		return newResult(OutcomeDiscarded, "no envelope held")
	}
	if res.EnvelopeDigest != env.digest {
		return newResult(OutcomeDiscarded, "resolution names envelope %s, not the envelope held (%s)", res.EnvelopeDigest, env.digest)
	}
	switch res.Kind {
	case KindOption:
		opts := env.options
		if res.OptionIdx < 0 || res.OptionIdx >= len(opts) {
			return newResult(OutcomeMalformed, "option_idx %d is out of range: the envelope has %d options", res.OptionIdx, len(opts))
		}
		want := opts[res.OptionIdx].ActionDigest
		if action == nil {
			return newResult(OutcomeRecord, "option %d selected, but no action was given to compare with its action_digest", res.OptionIdx)
		}
		got, err := bbdigest.Digest(action) // §5.6 under a profile that pins JCS: the strict profile of §6.3
		if err != nil {
			return newResult(OutcomeRecord, "option %d selected, but the action is rejected: %v", res.OptionIdx, err)
		}
		if got != want {
			return newResult(OutcomeRecord, "option %d selected, but the action's digest %s differs from its action_digest %s", res.OptionIdx, got, want)
		}
		if res.OptionIdx < len(authorityReasons) {
			return Result{Outcome: OutcomeAuthority, Reason: authorityReasons[res.OptionIdx]} // no allocation
		}
		return newResult(OutcomeAuthority, "option %d selected and the action matches its action_digest", res.OptionIdx)
	case KindAnswer:
		if !env.hatches.FreeText {
			return newResult(OutcomeMalformed, "answer-space hatch invoked, but the envelope does not offer it (free_text is false)")
		}
		return newResult(OutcomeAnswer, "answer-space hatch: a free-form answer, not authority for any action")
	case KindQuestion:
		if !env.hatches.Dialogue {
			return newResult(OutcomeMalformed, "question-space hatch invoked, but the envelope does not offer it (dialogue is false)")
		}
		return newResult(OutcomeQuestion, "question-space hatch: deliberation reopens, not authority for any action")
	case KindDeclined:
		return newResult(OutcomeDeclined, "the principal declined: not authority for any action")
	}
	return newResult(OutcomeMalformed, "invalid resolution kind %d", uint8(res.Kind))
}
