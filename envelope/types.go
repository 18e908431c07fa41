package envelope

import (
	"slices"

	"github.com/bbdigest/bbdigest/hashing"
)

// Envelope is a well-formed binding_moment value (draft-morrison-binding-
// moment-envelope-04 §4, §5), as returned by Parse or built by a Builder.
//
// An Envelope is one immutable value: its slots, its canonical bytes (§6.1)
// and its digest (§6.2) are read through methods and cannot be changed
// apart, so everything that uses an Envelope (Verify, RenderText,
// MarshalJSON, ToolResult, a Resolver) sees the slots the digest was
// computed over. The methods that return slices return copies. The only
// way to change an Envelope is to parse into it again with
// [Parser.ParseInto] or [Envelope.UnmarshalJSON], which replace the whole
// value, digest included.
//
// The zero Envelope is not an envelope: it has no canonical form, Verify
// treats it as no envelope held, RenderText renders no decision from it and
// MarshalJSON fails.
type Envelope struct {
	synopsis        string   // slot 1
	findings        []string // slot 2
	recommendations []string // slot 3
	offer           string   // slot 4
	stem            string   // slot 5
	options         []Option // slot 6: 2 to 4 entries
	recommendedIdx  int      // slot 7: index into options
	hatches         Hatches  // slot 8
	meta            meta     // the optional meta slot

	// canonical is the JCS (strict profile) of the binding_moment value. It
	// is never written: from Parse and ParseInto it is a view of the text
	// the slots' strings are views of (Parser.textFor), from Build that of
	// the Envelope Build parsed; ParseInto drops it rather than reuse it.
	canonical []byte
	digest    hashing.Digest // SHA-256 of canonical
}

// meta is the meta slot as held by an Envelope.
type meta struct {
	present                bool // the envelope has a meta member
	hasClass, hasNote      bool
	decisionClass, calNote string
}

// Option is one entry of slot 6. It is a plain value: an Envelope hands out
// copies, so changing one changes nothing else.
type Option struct {
	Label        string
	Reasoning    string
	ActionDigest hashing.Digest // digest of the action the option authorizes
}

// Hatches are the two escape hatches of slot 8 (§5.8).
type Hatches struct {
	FreeText bool // answer-space hatch
	Dialogue bool // question-space hatch
}

// Meta is the optional meta slot (§5.9); each member is optional (nil when
// absent). A Builder takes one as input; [Envelope.Meta] returns a copy.
type Meta struct {
	DecisionClass   *string
	CalibrationNote *string
}

// valid reports whether e was made by Parse, Build or UnmarshalJSON.
func (e *Envelope) valid() bool { return e != nil && len(e.canonical) > 0 }

// Digest returns the envelope digest of §6: SHA-256 over the JCS form of
// the binding_moment value alone. The zero Envelope's is the zero Digest.
func (e *Envelope) Digest() hashing.Digest { return e.digest }

// Canonical returns a copy of the canonical bytes the digest is computed
// over (§6.1). [Envelope.AppendCanonical] appends them without allocating.
func (e *Envelope) Canonical() []byte { return slices.Clone(e.canonical) }

// AppendCanonical appends the canonical bytes the digest is computed over
// to dst and returns the extended slice.
func (e *Envelope) AppendCanonical(dst []byte) []byte { return append(dst, e.canonical...) }

// Synopsis returns slot 1.
func (e *Envelope) Synopsis() string { return e.synopsis }

// Findings returns a copy of slot 2 (an empty, non-nil slice when there are
// none).
func (e *Envelope) Findings() []string { return append([]string{}, e.findings...) }

// Recommendations returns a copy of slot 3 (an empty, non-nil slice when
// there are none).
func (e *Envelope) Recommendations() []string { return append([]string{}, e.recommendations...) }

// Offer returns slot 4.
func (e *Envelope) Offer() string { return e.offer }

// Stem returns slot 5, question.stem.
func (e *Envelope) Stem() string { return e.stem }

// Options returns a copy of slot 6, question.options: 2 to 4 entries in
// the order of the envelope.
func (e *Envelope) Options() []Option { return slices.Clone(e.options) }

// NumOptions returns the number of options in slot 6.
func (e *Envelope) NumOptions() int { return len(e.options) }

// Option returns option i of slot 6 (a copy); ok is false when i is not an
// index of the options.
func (e *Envelope) Option(i int) (o Option, ok bool) {
	if i < 0 || i >= len(e.options) {
		return Option{}, false
	}
	return e.options[i], true
}

// RecommendedIdx returns slot 7, question.recommended_idx: an index of the
// options.
func (e *Envelope) RecommendedIdx() int { return e.recommendedIdx }

// Hatches returns slot 8, question.hatches.
func (e *Envelope) Hatches() Hatches { return e.hatches }

// Meta returns a copy of the meta slot, with pointers of its own, or nil
// when the envelope has no meta member. A meta member without members gives
// a Meta whose fields are both nil.
func (e *Envelope) Meta() *Meta {
	if !e.meta.present {
		return nil
	}
	m := new(Meta)
	if e.meta.hasClass {
		s := e.meta.decisionClass
		m.DecisionClass = &s
	}
	if e.meta.hasNote {
		s := e.meta.calNote
		m.CalibrationNote = &s
	}
	return m
}

// DecisionClass returns meta.decision_class; ok is false when it is absent.
func (e *Envelope) DecisionClass() (s string, ok bool) {
	return e.meta.decisionClass, e.meta.hasClass
}

// CalibrationNote returns meta.calibration_note; ok is false when it is
// absent.
func (e *Envelope) CalibrationNote() (s string, ok bool) {
	return e.meta.calNote, e.meta.hasNote
}
