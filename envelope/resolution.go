package envelope

// This file reads a resolution (draft-morrison-binding-moment-envelope-04
// §7.3): the principal's answer to one binding moment, naming its envelope
// by digest. ParseResolution checks only the resolution itself; whether it
// is authority for anything is decided against an envelope by Verify
// (verify.go), and single use against a ledger.Ledger by Resolver
// (resolver.go).

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/jcs"
	"github.com/bbdigest/bbdigest/internal/jsonread"
)

// Kind is which of the four resolutions of §7.3 the principal gave. Its
// String names are the values of the resolution member and are stable.
type Kind uint8

// The four kinds of resolution. The zero Kind is invalid: a Resolution
// returned by ParseResolution always has one of these.
const (
	KindOption   Kind = iota + 1 // selection of an option from slot 6
	KindAnswer                   // answer-space hatch, with a free-form answer
	KindQuestion                 // question-space hatch: reopen deliberation
	KindDeclined                 // the question as put, answered in the negative
)

var kindNames = [...]string{
	KindOption:   "option",
	KindAnswer:   "answer",
	KindQuestion: "question",
	KindDeclined: "declined",
}

// String returns "option", "answer", "question" or "declined", or
// "invalid" for a value that is none of them.
func (k Kind) String() string {
	if k == 0 || int(k) >= len(kindNames) {
		return "invalid"
	}
	return kindNames[k]
}

// MarshalText implements encoding.TextMarshaler with the String name; it
// fails for an invalid Kind.
func (k Kind) MarshalText() ([]byte, error) {
	if k == 0 || int(k) >= len(kindNames) {
		return nil, fmt.Errorf("envelope: invalid resolution kind %d", uint8(k))
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler: the inverse of
// MarshalText. Any other text is an error and leaves k unchanged.
func (k *Kind) UnmarshalText(text []byte) error {
	v := kindByName(text)
	if v == 0 {
		return fmt.Errorf("envelope: invalid resolution kind %q", text)
	}
	*k = v
	return nil
}

// kindByName returns the Kind whose String is name, or 0.
func kindByName[T string | []byte](name T) Kind {
	for k, n := range kindNames {
		if k != 0 && n == string(name) {
			return Kind(k)
		}
	}
	return 0
}

// Resolution is a well-formed binding_moment_resolution value (§7.3), as
// returned by ParseResolution. Well-formed says nothing about the envelope
// it names: see Verify.
type Resolution struct {
	// EnvelopeDigest names the envelope being resolved (§6.2).
	EnvelopeDigest hashing.Digest
	// Kind is which of the four resolutions this is.
	Kind Kind
	// OptionIdx is the zero-based index of the selected option in slot 6.
	// It is meaningful only when Kind is KindOption, and is 0 otherwise.
	// ParseResolution guarantees it is non-negative, not that it is in
	// range: that depends on the envelope, and Verify checks it.
	OptionIdx int
	// Answer is the principal's free-form answer when Kind is KindAnswer,
	// and "" otherwise. It may be empty: §7.3 asks only for a string.
	Answer string
}

// Member names of §7.3.
const (
	resolutionWrapper = "binding_moment_resolution"
	memberDigest      = "envelope_digest"
	memberResolution  = "resolution"
	memberOptionIdx   = "option_idx"
	memberAnswer      = "answer"
)

// ParseResolution parses a resolution (draft-morrison-binding-moment-
// envelope-04 §7.3).
//
// src is first put through the canonicalization gate of §6.3 (the strict
// profile: no duplicate names, no unpaired surrogates, integers only,
// nesting at most 64); a rejection there is returned as the *canon.Error.
// src must then be the object {"binding_moment_resolution": {...}} with no
// other member, or, for hosts that have already taken the value out of its
// tool-call argument, the bare inner object. An object that has a member
// named binding_moment_resolution is always read as the wrapper.
//
// The inner object must have exactly the members of §7.3: envelope_digest
// (REQUIRED, the digest form of §6.2), resolution (REQUIRED, one of
// "option", "answer", "question", "declined"), option_idx (REQUIRED for
// option and absent otherwise, a non-negative integer) and answer (REQUIRED
// for answer and absent otherwise, a string). Any other member is
// malformed. Every problem found is reported (up to MaxProblems), in one
// *MalformedResolutionError.
//
// The returned Resolution does not alias src. ParseResolution is safe for
// concurrent use.
func ParseResolution(src []byte) (*Resolution, error) {
	// The strict gate is the Canonicalizer of a pooled envelope Parser:
	// one pool of them in this package, under the pools' one bound. The
	// canonical bytes are read before the Parser goes back.
	ep := getParser()
	defer putParser(ep)
	doc, err := ep.c.View(src)
	if err != nil {
		return nil, err
	}
	var p resolutionParser
	res := p.parse(doc)
	if len(p.problems) > 0 {
		return nil, &MalformedResolutionError{Problems: p.problems, Omitted: p.omitted}
	}
	return res, nil
}

type resolutionParser struct {
	problems []Problem
	omitted  int
}

func (p *resolutionParser) add(pointer, format string, args ...any) {
	if len(p.problems) >= MaxProblems {
		p.omitted++
		return
	}
	p.problems = append(p.problems, Problem{Pointer: pointer, Reason: fmt.Sprintf(format, args...)})
}

// members are the values of the members of §7.3 in a resolution object,
// nil when absent, and its other member names, raw, in canonical order.
type members struct {
	digest, resolution, optionIdx, answer []byte
	unknown                               [][]byte
}

// parse reads doc, the canonical form of the input (so no whitespace,
// members sorted by name, unique names, safe integers written as plain
// decimal digits), with the walker the envelope decoder uses.
func (p *resolutionParser) parse(doc []byte) *Resolution {
	if doc[0] != '{' {
		p.add("", "a resolution must be a JSON object, not %s", jsonread.KindWithArticle(doc[0]))
		return nil
	}
	inner := doc
	if w := lookup(doc, resolutionWrapper); w.found() {
		for it := jsonread.Object(doc, 0); it.Next(); {
			if string(it.Name()) != resolutionWrapper {
				if len(p.problems) >= MaxProblems {
					p.omitted++
					continue
				}
				p.add("", "unknown member %q beside %s", unquote(it.QuotedName()), resolutionWrapper)
			}
		}
		inner = doc[w.start:w.end]
		if inner[0] != '{' {
			p.add("", "%s must be a JSON object, not %s", resolutionWrapper, jsonread.KindWithArticle(inner[0]))
			return nil
		}
	}
	var m members
	for it := jsonread.Object(inner, 0); it.Next(); {
		v := it.Value()
		switch string(it.Name()) {
		case memberDigest:
			m.digest = v
		case memberResolution:
			m.resolution = v
		case memberOptionIdx:
			m.optionIdx = v
		case memberAnswer:
			m.answer = v
		default:
			if len(m.unknown) < MaxProblems {
				m.unknown = append(m.unknown, it.QuotedName())
			} else {
				p.omitted++ // counted here, reported in order below
			}
		}
	}

	res := new(Resolution)
	switch _, ok := resRaw(m.digest); {
	case m.digest == nil:
		p.add("/"+memberDigest, "required member missing")
	case !ok:
		p.add("/"+memberDigest, "must be a string, not %s", jsonread.KindWithArticle(m.digest[0]))
	default:
		if d, err := parseResDigest(m.digest); err != nil {
			p.add("/"+memberDigest, "not a digest of the form sha256:<64 lowercase hex>: %s", resDigestReason(err))
		} else {
			res.EnvelopeDigest = d
		}
	}

	switch raw, ok := resRaw(m.resolution); {
	case m.resolution == nil:
		p.add("/"+memberResolution, "required member missing")
	case !ok:
		p.add("/"+memberResolution, "must be a string, not %s", jsonread.KindWithArticle(m.resolution[0]))
	default:
		// The names hold nothing canonical JSON escapes, so a string with
		// an escape names no kind: compared as it lies, without a copy.
		if res.Kind = kindByName(raw); res.Kind == 0 {
			s, _ := resString(m.resolution)
			p.add("/"+memberResolution, `must be "option", "answer", "question" or "declined", not %q`, s)
		}
	}

	// A member whose presence depends on the kind is judged only when the
	// kind is known; its type is checked whenever it is present.
	if m.optionIdx != nil {
		if res.Kind != 0 && res.Kind != KindOption {
			p.add("/"+memberOptionIdx, "must be absent when resolution is %q", res.Kind)
		} else if n, ok := resIndex(m.optionIdx); !ok {
			p.add("/"+memberOptionIdx, "must be a non-negative integer, not %s", resDescribe(m.optionIdx))
		} else {
			res.OptionIdx = n
		}
	} else if res.Kind == KindOption {
		p.add("/"+memberOptionIdx, `required member missing: resolution is "option"`)
	}

	if m.answer != nil {
		if res.Kind != 0 && res.Kind != KindAnswer {
			p.add("/"+memberAnswer, "must be absent when resolution is %q", res.Kind)
		} else if s, ok := resString(m.answer); !ok {
			p.add("/"+memberAnswer, "must be a string, not %s", jsonread.KindWithArticle(m.answer[0]))
		} else {
			res.Answer = s
		}
	} else if res.Kind == KindAnswer {
		p.add("/"+memberAnswer, `required member missing: resolution is "answer"`)
	}

	for _, name := range m.unknown {
		p.add("/"+escapePointer(unquote(name)), "unknown member")
	}
	return res
}

// resDescribe names the type of the canonical JSON value v, with its
// article, but gives a number literally (cut to 32 bytes).
func resDescribe(v []byte) string {
	if k := jsonread.KindWithArticle(v[0]); k != "a number" {
		return k
	}
	if len(v) > 32 {
		return string(v[:32]) + "..."
	}
	return string(v)
}

// resRaw returns the body of the canonical JSON string v, still escaped.
func resRaw(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	return v[1 : len(v)-1], true
}

// resString decodes the canonical JSON string v.
func resString(v []byte) (string, bool) {
	raw, ok := resRaw(v)
	if !ok {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), true
	}
	return unquote(v), true
}

// parseResDigest parses the canonical JSON string v as a digest: where it
// lies when it holds no escape (the digest form needs none), else
// unescaped, for ParseDigest's reason.
func parseResDigest(v []byte) (hashing.Digest, error) {
	raw := v[1 : len(v)-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		return hashing.ParseDigest(unquote(v))
	}
	var d hashing.Digest
	err := d.UnmarshalText(raw)
	return d, err
}

// resIndex reads a non-negative integer. The strict gate has limited
// numbers to integers of magnitude at most 2^53-1, and their canonical form
// is plain decimal digits (1.0, 1e0 and -0 are written 1, 1 and 0).
func resIndex(v []byte) (int, bool) {
	if len(v) == 0 || v[0] < '0' || v[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || int64(int(n)) != n {
		return 0, false
	}
	return int(n), true
}

// resDigestReason returns the reason of a *hashing.DigestError, without the
// input it quotes.
func resDigestReason(err error) string {
	var de *hashing.DigestError
	if errors.As(err, &de) {
		return fmt.Sprintf("%s at offset %d", de.Reason, de.Offset)
	}
	return err.Error()
}

// MarshalJSON implements json.Marshaler with the wire form of §7.3, in
// canonical form: {"binding_moment_resolution":{...}} with exactly the
// members r's Kind calls for. An invalid Kind, or an option_idx below zero,
// is an error. [Resolution.UnmarshalJSON] reads it back.
func (r Resolution) MarshalJSON() ([]byte, error) {
	if r.Kind == 0 || int(r.Kind) >= len(kindNames) {
		return nil, fmt.Errorf("envelope: invalid resolution kind %d", uint8(r.Kind))
	}
	if r.Kind == KindOption && r.OptionIdx < 0 {
		return nil, fmt.Errorf("envelope: negative option_idx %d", r.OptionIdx)
	}
	if !utf8.ValidString(r.Answer) {
		return nil, errors.New("envelope: resolution answer is not valid UTF-8")
	}
	b := []byte(`{"` + resolutionWrapper + `":{`)
	if r.Kind == KindAnswer {
		b = append(b, `"answer":`...)
		b = jcs.AppendString(b, r.Answer)
		b = append(b, ',')
	}
	b = append(b, `"envelope_digest":"`...)
	b = r.EnvelopeDigest.AppendTo(b)
	b = append(b, `",`...)
	if r.Kind == KindOption {
		b = append(b, `"option_idx":`...)
		b = strconv.AppendInt(b, int64(r.OptionIdx), 10)
		b = append(b, ',')
	}
	b = append(b, `"resolution":"`...)
	b = append(b, kindNames[r.Kind]...)
	return append(b, `"}}`...), nil
}

// UnmarshalJSON implements json.Unmarshaler with ParseResolution: data is
// the wire form of §7.3 (wrapped or bare), checked as ParseResolution
// checks it. On error r is unchanged.
func (r *Resolution) UnmarshalJSON(data []byte) error {
	v, err := ParseResolution(data)
	if err != nil {
		return err
	}
	*r = *v
	return nil
}
