package envelope

// This file reads a resolution (draft-morrison-binding-moment-envelope-04
// §7.3): the principal's answer to one binding moment, naming its envelope
// by digest. ParseResolution checks only the resolution itself; whether it
// is authority for anything is decided against an envelope by Verify
// (verify.go), and single use against a Ledger by Resolver (ledger.go).

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
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

// kindByName returns the Kind whose String is name, or 0.
func kindByName(name string) Kind {
	for k, n := range kindNames {
		if k != 0 && n == name {
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

// ErrMalformedResolution is wrapped by every *MalformedResolutionError, so
// callers can write errors.Is(err, envelope.ErrMalformedResolution).
var ErrMalformedResolution = errors.New("envelope: malformed resolution")

// MalformedResolutionError reports every way in which a resolution that
// passed the canonicalization gate breaks §7.3. Problems is never empty and
// is ordered by member: the wrapper, envelope_digest, resolution,
// option_idx, answer, then unknown members by name.
type MalformedResolutionError struct {
	Problems []Problem
}

// Error returns a message such as `envelope: malformed resolution: 2
// problems: "/option_idx": required member missing: resolution is "option";
// "/extra": unknown member`, listing the first few problems (the format of
// MalformedError). Problems holds them all.
func (e *MalformedResolutionError) Error() string {
	return problemsMessage(ErrMalformedResolution.Error(), e.Problems, 4)
}

// Unwrap returns ErrMalformedResolution.
func (e *MalformedResolutionError) Unwrap() error { return ErrMalformedResolution }

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
// malformed. Every problem found is reported, in one
// *MalformedResolutionError.
//
// The returned Resolution does not alias src.
func ParseResolution(src []byte) (*Resolution, error) {
	if err := canon.Validate(src, canon.Strict); err != nil {
		return nil, err
	}
	var p resolutionParser
	res := p.parse(src)
	if len(p.problems) > 0 {
		return nil, &MalformedResolutionError{Problems: p.problems}
	}
	return res, nil
}

type resolutionParser struct {
	problems []Problem
}

func (p *resolutionParser) add(pointer, format string, args ...any) {
	p.problems = append(p.problems, Problem{Pointer: pointer, Reason: fmt.Sprintf(format, args...)})
}

// parse reads src, which has passed the strict gate: it is one JSON value
// with unique member names, well-formed strings and safe integers, so
// encoding/json reads it without any of the ambiguities §6.3 removes.
func (p *resolutionParser) parse(src []byte) *Resolution {
	var top map[string]json.RawMessage
	if json.Unmarshal(src, &top) != nil || top == nil {
		p.add("", "a resolution must be a JSON object, not %s", resJSONKind(src))
		return nil
	}
	inner := top
	if raw, ok := top[resolutionWrapper]; ok {
		for _, name := range resSortedNames(top) {
			if name != resolutionWrapper {
				p.add("", "unknown member %q beside %s", name, resolutionWrapper)
			}
		}
		inner = nil
		if json.Unmarshal(raw, &inner) != nil || inner == nil {
			p.add("", "%s must be a JSON object, not %s", resolutionWrapper, resJSONKind(raw))
			return nil
		}
	}

	res := new(Resolution)
	if raw, ok := inner[memberDigest]; !ok {
		p.add("/"+memberDigest, "required member missing")
	} else if s, ok := resString(raw); !ok {
		p.add("/"+memberDigest, "must be a string, not %s", resJSONKind(raw))
	} else if d, err := hashing.ParseDigest(s); err != nil {
		p.add("/"+memberDigest, "not a digest of the form sha256:<64 lowercase hex>: %s", resDigestReason(err))
	} else {
		res.EnvelopeDigest = d
	}

	if raw, ok := inner[memberResolution]; !ok {
		p.add("/"+memberResolution, "required member missing")
	} else if s, ok := resString(raw); !ok {
		p.add("/"+memberResolution, "must be a string, not %s", resJSONKind(raw))
	} else if res.Kind = kindByName(s); res.Kind == 0 {
		p.add("/"+memberResolution, `must be "option", "answer", "question" or "declined", not %q`, s)
	}

	// A member whose presence depends on the kind is judged only when the
	// kind is known; its type is checked whenever it is present.
	if raw, ok := inner[memberOptionIdx]; ok {
		if res.Kind != 0 && res.Kind != KindOption {
			p.add("/"+memberOptionIdx, "must be absent when resolution is %q", res.Kind)
		} else if n, ok := resIndex(raw); !ok {
			p.add("/"+memberOptionIdx, "must be a non-negative integer, not %s", resDescribe(raw))
		} else {
			res.OptionIdx = n
		}
	} else if res.Kind == KindOption {
		p.add("/"+memberOptionIdx, `required member missing: resolution is "option"`)
	}

	if raw, ok := inner[memberAnswer]; ok {
		if res.Kind != 0 && res.Kind != KindAnswer {
			p.add("/"+memberAnswer, "must be absent when resolution is %q", res.Kind)
		} else if s, ok := resString(raw); !ok {
			p.add("/"+memberAnswer, "must be a string, not %s", resJSONKind(raw))
		} else {
			res.Answer = s
		}
	} else if res.Kind == KindAnswer {
		p.add("/"+memberAnswer, `required member missing: resolution is "answer"`)
	}

	for _, name := range resSortedNames(inner) {
		switch name {
		case memberDigest, memberResolution, memberOptionIdx, memberAnswer:
		default:
			p.add("/"+resEscapePointer(name), "unknown member")
		}
	}
	return res
}

func resSortedNames(m map[string]json.RawMessage) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return canon.CompareUTF16([]byte(a), []byte(b)) })
	return names
}

// resEscapePointer escapes a member name as a JSON Pointer reference token
// (RFC 6901 §3).
func resEscapePointer(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}

// resJSONKind names the type of the JSON value raw (which is well-formed).
func resJSONKind(raw []byte) string {
	s := strings.TrimLeft(string(raw[:min(len(raw), 16)]), " \t\r\n")
	if s == "" {
		return "nothing"
	}
	switch s[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// resDescribe is resJSONKind, but gives a number literally (cut to 32 bytes).
func resDescribe(raw []byte) string {
	if k := resJSONKind(raw); k != "a number" {
		return k
	}
	s := strings.TrimSpace(string(raw))
	if len(s) > 32 {
		s = s[:32] + "..."
	}
	return s
}

func resString(raw []byte) (string, bool) {
	if resJSONKind(raw) != "a string" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// resIndex reads a non-negative integer. The strict gate has already
// limited numbers to integers of magnitude at most 2^53-1, but in any
// notation (1.0, 1e0, -0); their canonical form is plain decimal digits.
func resIndex(raw []byte) (int, bool) {
	if resJSONKind(raw) != "a number" {
		return 0, false
	}
	c, err := canon.Canonicalize(raw, canon.Strict)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(string(c), 10, 64)
	if err != nil || n < 0 || int64(int(n)) != n {
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
