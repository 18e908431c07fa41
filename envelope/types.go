package envelope

import "github.com/bbdigest/bbdigest/hashing"

// Envelope is a well-formed binding_moment value (draft-morrison-binding-
// moment-envelope-04 §4, §5), as returned by Parse or built by a Builder.
// Its digest (§6) is computed from the canonical bytes of the value.
type Envelope struct {
	Synopsis        string   // slot 1
	Findings        []string // slot 2
	Recommendations []string // slot 3
	Offer           string   // slot 4
	Question        Question // slots 5 to 8
	Meta            *Meta    // optional; nil when absent

	canonical []byte         // JCS (strict profile) of the binding_moment value
	digest    hashing.Digest // SHA-256 of canonical
}

// Question holds the binding slots.
type Question struct {
	Stem           string   // slot 5
	Options        []Option // slot 6: 2 to 4 entries
	RecommendedIdx int      // slot 7: index into Options
	Hatches        Hatches  // slot 8
}

// Option is one entry of slot 6.
type Option struct {
	Label        string
	Reasoning    string
	ActionDigest hashing.Digest // digest of the action the option authorises
}

// Hatches are the two escape hatches of slot 8 (§5.8).
type Hatches struct {
	FreeText bool // answer-space hatch
	Dialogue bool // question-space hatch
}

// Meta is the optional meta slot (§5.9); each member is optional (nil when
// absent).
type Meta struct {
	DecisionClass   *string
	CalibrationNote *string
}

// Digest returns the envelope digest of §6: SHA-256 over the JCS form of
// the binding_moment value alone.
func (e *Envelope) Digest() hashing.Digest { return e.digest }

// Canonical returns the canonical bytes the digest is computed over. The
// caller must not modify them.
func (e *Envelope) Canonical() []byte { return e.canonical }

// Problem is one way in which an envelope or a resolution is malformed: the
// JSON Pointer (RFC 6901) of the offending value, relative to the
// binding_moment (or binding_moment_resolution) value, and why.
type Problem struct {
	Pointer string `json:"pointer"`
	Reason  string `json:"reason"`
}
