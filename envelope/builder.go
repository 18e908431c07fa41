package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// Builder assembles an envelope from Go values, for an agent about to emit
// one. Fill the fields (or use AddOption), then call Build. The zero value
// is an empty builder; nil Findings and Recommendations are emitted as empty
// arrays.
//
// Build refuses to produce a malformed envelope: it runs the same canon gate
// and validator as Parse on the JSON it writes.
type Builder struct {
	Synopsis        string
	Findings        []string
	Recommendations []string
	Offer           string
	Stem            string
	Options         []BuildOption
	RecommendedIdx  int
	Hatches         Hatches
	Meta            *Meta
}

// BuildOption is one option for a Builder: its label, its reasoning, and
// the action it authorizes. When Action is set (a JSON text), the
// action_digest is computed from it as bbdigest.Digest does: SHA-256 over
// its strict-profile JCS form (§5.6, §6.2). When Action is nil, ActionDigest
// is used as given, for actions whose profile is not JCS. Setting both is
// an error unless they agree; setting neither is an error.
type BuildOption struct {
	Label        string
	Reasoning    string
	Action       []byte
	ActionDigest hashing.Digest
}

// AddOption appends an option whose action is the JSON text action, and
// returns b.
func (b *Builder) AddOption(label, reasoning string, action []byte) *Builder {
	b.Options = append(b.Options, BuildOption{Label: label, Reasoning: reasoning, Action: action})
	return b
}

var (
	errNoAction       = errors.New("no action and no action digest given")
	errDigestMismatch = errors.New("action digest does not match the action")
)

// wire is the JSON shape of an envelope, for Build.
type wire struct {
	Synopsis        string       `json:"synopsis"`
	Findings        []string     `json:"findings"`
	Recommendations []string     `json:"recommendations"`
	Offer           string       `json:"offer"`
	Question        wireQuestion `json:"question"`
	Meta            *wireMeta    `json:"meta,omitempty"`
}

type wireQuestion struct {
	Stem           string       `json:"stem"`
	Options        []wireOption `json:"options"`
	RecommendedIdx int          `json:"recommended_idx"`
	Hatches        wireHatches  `json:"hatches"`
}

type wireOption struct {
	Label        string         `json:"label"`
	Reasoning    string         `json:"reasoning"`
	ActionDigest hashing.Digest `json:"action_digest"`
}

type wireHatches struct {
	FreeText bool `json:"free_text"`
	Dialogue bool `json:"dialogue"`
}

type wireMeta struct {
	DecisionClass   *string `json:"decision_class,omitempty"`
	CalibrationNote *string `json:"calibration_note,omitempty"`
}

// Build returns the envelope b describes. It refuses to build a malformed
// envelope: it fails with a *MalformedError that lists every problem, not
// only the first: an option whose action fails the canon gate or
// contradicts its ActionDigest (each also an *ActionError, which the error
// unwraps to, so errors.Is(err, canon.ErrDuplicateName) works), a string
// that is not valid UTF-8 (reported, never repaired), and every departure
// from the grammar of §4 and §5 (for example one option, or a
// RecommendedIdx out of range), as Parse would report it. b is not
// modified, and the Envelope shares no memory with it.
func (b *Builder) Build() (*Envelope, error) {
	w := wire{
		Synopsis:        b.Synopsis,
		Findings:        b.Findings,
		Recommendations: b.Recommendations,
		Offer:           b.Offer,
		Question: wireQuestion{
			Stem:           b.Stem,
			Options:        make([]wireOption, len(b.Options)),
			RecommendedIdx: b.RecommendedIdx,
			Hatches:        wireHatches(b.Hatches),
		},
	}
	if w.Findings == nil {
		w.Findings = []string{}
	}
	if w.Recommendations == nil {
		w.Recommendations = []string{}
	}
	if b.Meta != nil {
		w.Meta = &wireMeta{DecisionClass: b.Meta.DecisionClass, CalibrationNote: b.Meta.CalibrationNote}
	}
	problems := b.invalidUTF8()
	var causes []error
	for i, o := range b.Options {
		d := o.ActionDigest
		var bad error
		switch {
		case o.Action != nil:
			ad, err := bbdigest.Digest(o.Action)
			switch {
			case err != nil:
				bad = err
			case d != (hashing.Digest{}) && d != ad:
				bad = errDigestMismatch
			}
			d = ad
		case d == (hashing.Digest{}):
			bad = errNoAction
		}
		if bad != nil {
			ae := &ActionError{Index: i, Err: bad}
			problems = append(problems, ae.Problem())
			causes = append(causes, ae)
		}
		w.Question.Options[i] = wireOption{Label: o.Label, Reasoning: o.Reasoning, ActionDigest: d}
	}
	// encoding/json writes invalid UTF-8 as U+FFFD; invalidUTF8 has
	// reported it, and the grammar is still checked on what was written.
	src, err := json.Marshal(&w)
	if err != nil {
		return nil, fmt.Errorf("envelope: %w", err) // not reached: wire has only strings, bools and ints
	}
	var p Parser
	e, err := p.Parse(src)
	if err != nil {
		me, ok := errors.AsType[*MalformedError](err)
		if !ok {
			return nil, err // not reached: what encoding/json writes passes the gate
		}
		problems = append(problems, me.Problems...)
		causes = append(causes, me.causes...)
		if len(problems) > MaxProblems {
			me.Omitted += len(problems) - MaxProblems
			problems = problems[:MaxProblems]
		}
		return nil, &MalformedError{Problems: problems, Omitted: me.Omitted, causes: causes}
	}
	if len(problems) > 0 {
		omitted := max(0, len(problems)-MaxProblems)
		return nil, &MalformedError{Problems: problems[:len(problems)-omitted], Omitted: omitted, causes: causes}
	}
	return e, nil
}

// invalidUTF8 reports every string of b that is not valid UTF-8.
func (b *Builder) invalidUTF8() []Problem {
	var ps []Problem
	check := func(ptr, s string) {
		if !utf8.ValidString(s) {
			ps = append(ps, Problem{Pointer: ptr, Reason: "invalid UTF-8"})
		}
	}
	check("/synopsis", b.Synopsis)
	for i, s := range b.Findings {
		check("/findings/"+strconv.Itoa(i), s)
	}
	for i, s := range b.Recommendations {
		check("/recommendations/"+strconv.Itoa(i), s)
	}
	check("/offer", b.Offer)
	check("/question/stem", b.Stem)
	for i, o := range b.Options {
		check(optPtr(i, "/label"), o.Label)
		check(optPtr(i, "/reasoning"), o.Reasoning)
	}
	if b.Meta != nil {
		if b.Meta.DecisionClass != nil {
			check("/meta/decision_class", *b.Meta.DecisionClass)
		}
		if b.Meta.CalibrationNote != nil {
			check("/meta/calibration_note", *b.Meta.CalibrationNote)
		}
	}
	return ps
}

// MarshalJSON implements json.Marshaler: the binding_moment value in its
// canonical form (§6.1), the bytes the digest is computed over. It returns
// a copy. Its receiver is a value, so that an Envelope held by value in a
// struct marshals this way too; [Envelope.UnmarshalJSON] reads it back. The
// zero Envelope is an error.
func (e Envelope) MarshalJSON() ([]byte, error) {
	if !e.valid() {
		return nil, errors.New("envelope: MarshalJSON of an Envelope not made by Parse or Build")
	}
	return bytes.Clone(e.canonical), nil
}

// payloadMember is the member under which ToolResult puts a payload that is
// not a JSON object.
const payloadMember = "payload"

// ToolResult returns a tool result carrying env as its additive
// binding_moment member (§8.1), in canonical form.
//
// payload is the tool's conventional payload: a json.RawMessage or []byte
// holding a JSON text, or any other value, which is encoded with
// encoding/json. An object payload gets the binding_moment member added to
// its members; it must not have one already. Any other payload (an array,
// a string, a number) is wrapped as {"binding_moment":...,"payload":...},
// and a nil payload gives {"binding_moment":...} alone.
//
// The strict profile binds the envelope alone (§6.1), so the payload may
// carry fractional numbers and deep nesting: the result is canonical under
// the rfc8785 profile, and a payload that profile rejects (a duplicate
// member name, an unpaired surrogate, invalid UTF-8, a number that
// overflows a double) is rejected with the *canon.Error. Parse reads the
// result back.
func ToolResult(payload any, env *Envelope) ([]byte, error) {
	bm, err := env.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var text []byte
	switch v := payload.(type) {
	case nil:
	case json.RawMessage:
		text = v
	case []byte:
		text = v
	default:
		if text, err = json.Marshal(v); err != nil {
			return nil, fmt.Errorf("envelope: tool result payload: %w", err)
		}
	}
	doc := []byte(`{"binding_moment":`)
	doc = append(doc, bm...)
	if text != nil {
		if err := canon.Validate(text, canon.RFC8785); err != nil {
			return nil, err
		}
		t := bytes.TrimLeft(text, " \t\r\n")
		if t[0] == '{' {
			if _, _, has := jsonread.Find(t, 0, []string{"binding_moment"}); has {
				return nil, errors.New("envelope: tool result payload already has a binding_moment member")
			}
			if rest := bytes.TrimLeft(t[1:], " \t\r\n"); rest[0] != '}' {
				doc = append(doc, ',')
				doc = append(doc, rest...)
			} else {
				doc = append(doc, '}')
			}
		} else {
			doc = append(doc, `,"`+payloadMember+`":`...)
			doc = append(doc, text...)
			doc = append(doc, '}')
		}
	} else {
		doc = append(doc, '}')
	}
	return canon.Canonicalize(doc, canon.RFC8785)
}

// AnnotationName is the tool-manifest annotation of §8.2.
const AnnotationName = "emits_binding_moment"

// AnnotateTool returns the MCP tools/list entry toolJSON (a JSON object)
// with "annotations":{"emits_binding_moment":true} (§8.2), merged into any
// annotations it already has, in canonical form (plain RFC 8785, since a
// manifest may carry fractional numbers such as schema bounds). It fails
// when toolJSON is not an object, fails the canon gate, or has an
// annotations member that is not an object.
func AnnotateTool(toolJSON []byte) ([]byte, error) {
	if err := canon.Validate(toolJSON, canon.RFC8785); err != nil {
		return nil, err
	}
	var tool map[string]json.RawMessage
	if err := json.Unmarshal(toolJSON, &tool); err != nil || tool == nil {
		return nil, errors.New("envelope: tool manifest entry is not a JSON object")
	}
	ann := map[string]json.RawMessage{}
	if a, ok := tool["annotations"]; ok {
		if err := json.Unmarshal(a, &ann); err != nil || ann == nil {
			return nil, errors.New(`envelope: tool manifest entry's "annotations" is not a JSON object`)
		}
	}
	ann[AnnotationName] = json.RawMessage("true")
	a, err := json.Marshal(ann)
	if err != nil {
		return nil, err
	}
	tool["annotations"] = a
	out, err := json.Marshal(tool)
	if err != nil {
		return nil, err
	}
	return canon.Canonicalize(out, canon.RFC8785)
}
