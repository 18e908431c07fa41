package envelope

// This file holds the errors of the package: its sentinels, Problem, and
// the four error types (MalformedError, MalformedResolutionError,
// PlacementError, ActionError), with the helpers that format them.

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/canon"
)

// Sentinels wrapped by the errors of this package.
var (
	// ErrMalformed is wrapped by every *MalformedError.
	ErrMalformed = errors.New("envelope: malformed binding_moment")
	// ErrNoEnvelope: the input is a tool result or an MCP result that
	// carries no binding_moment member.
	ErrNoEnvelope error = &placementReason{"no binding_moment member"}
	// ErrAmbiguous: the input carries binding_moment members in more than
	// one place, and they differ.
	ErrAmbiguous error = &placementReason{"binding_moment members differ"}
)

// placementReason is the cause of a *PlacementError: its message is
// "envelope: " and the reason, which PlacementError.Reason gives alone.
type placementReason struct{ reason string }

func (e *placementReason) Error() string { return "envelope: " + e.reason }

// ErrMalformedResolution is wrapped by every *MalformedResolutionError, so
// callers can write errors.Is(err, envelope.ErrMalformedResolution).
var ErrMalformedResolution = errors.New("envelope: malformed resolution")

// Problem is one way in which an envelope or a resolution is malformed: the
// JSON Pointer (RFC 6901) of the offending value, relative to the
// binding_moment (or binding_moment_resolution) value, and why.
type Problem struct {
	Pointer string `json:"pointer"`
	Reason  string `json:"reason"`
}

// MaxProblems is the most problems a *MalformedError or a
// *MalformedResolutionError lists; the rest are only counted.
const MaxProblems = 100

// maxListed is how many problems Error spells out.
const maxListed = 3

// MalformedError reports that a binding_moment value is not a well-formed
// envelope (§4): it keeps the problems found, in document order, with
// missing members listed after the members of their object. At most
// MaxProblems are kept; Omitted counts the rest, so that an input with
// millions of unknown members costs memory for a hundred problems, not for
// millions.
type MalformedError struct {
	Problems []Problem
	Omitted  int // problems found beyond the first MaxProblems, not listed

	causes []error // errors behind some problems, such as a Builder's *ActionError
}

// Error returns a message such as `envelope: malformed binding_moment: 2
// problems: "/question/options": want 2 to 4 options, got 1; ...`, listing
// the first few problems. Problems holds them all, up to MaxProblems.
func (e *MalformedError) Error() string {
	return problemsMessage(ErrMalformed.Error(), e.Problems, e.Omitted, maxListed)
}

// Unwrap returns ErrMalformed and the errors behind particular problems,
// such as the *ActionError of a Builder option whose action the canon gate
// rejects, so that errors.Is(err, canon.ErrDuplicateName) and errors.As
// with an *ActionError see them.
func (e *MalformedError) Unwrap() []error {
	return append([]error{ErrMalformed}, e.causes...)
}

// problemsMessage formats `<head>: N problem(s): "<pointer>": <reason>;
// ...`, spelling out the first listed problems: the message of
// MalformedError and MalformedResolutionError. omitted problems were found
// but not kept.
func problemsMessage(head string, problems []Problem, omitted, listed int) string {
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(": ")
	n := len(problems) + omitted
	b.WriteString(strconv.Itoa(n))
	if n == 1 {
		b.WriteString(" problem: ")
	} else {
		b.WriteString(" problems: ")
	}
	for i, p := range problems {
		if i == listed {
			b.WriteString("; ...")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(quote(p.Pointer))
		b.WriteString(": ")
		b.WriteString(p.Reason)
	}
	if len(problems) <= listed && omitted > 0 {
		b.WriteString("; ...")
	}
	return b.String()
}

// MalformedResolutionError reports every way in which a resolution that
// passed the canonicalization gate breaks §7.3. Problems is never empty and
// is ordered by member: the wrapper, envelope_digest, resolution,
// option_idx, answer, then unknown members by name. At most MaxProblems are
// kept; Omitted counts the rest.
type MalformedResolutionError struct {
	Problems []Problem
	Omitted  int // problems found beyond the first MaxProblems, not listed
}

// Error returns a message such as `envelope: malformed resolution: 2
// problems: "/option_idx": required member missing: resolution is "option";
// "/extra": unknown member`, listing the first few problems (the format of
// MalformedError). Problems holds them all, up to MaxProblems.
func (e *MalformedResolutionError) Error() string {
	return problemsMessage(ErrMalformedResolution.Error(), e.Problems, e.Omitted, 4)
}

// Unwrap returns ErrMalformedResolution.
func (e *MalformedResolutionError) Unwrap() error { return ErrMalformedResolution }

// PlacementError reports that no single binding_moment value could be
// found in the input. Pointer is the JSON Pointer, in the input, of the
// object that should have carried it (or of the second, differing one).
type PlacementError struct {
	Pointer string
	Err     error // ErrNoEnvelope or ErrAmbiguous
}

// Error returns a message such as
// `envelope: no binding_moment member within "/result/structuredContent"`.
func (e *PlacementError) Error() string {
	return e.Err.Error() + " within " + quote(e.Pointer)
}

// Reason returns why, without the package's name or the pointer, such as
// "no binding_moment member": what a caller that reports the pointer
// apart (Problems, the bbdigest command) prints.
func (e *PlacementError) Reason() string {
	if r, ok := errors.AsType[*placementReason](e.Err); ok {
		return r.reason
	}
	return e.Err.Error()
}

// Unwrap returns ErrNoEnvelope or ErrAmbiguous.
func (e *PlacementError) Unwrap() error { return e.Err }

// ActionError reports an option whose action cannot be digested, or whose
// action and ActionDigest disagree. A Builder lists it as a Problem of its
// *MalformedError, at Pointer, and the MalformedError unwraps to it.
type ActionError struct {
	Index int   // index of the option
	Err   error // a *canon.Error, or why the action and digest disagree
}

// Error returns a message such as
// `envelope: option 1 action: canon: duplicate-name: ...`.
func (e *ActionError) Error() string {
	return "envelope: option " + strconv.Itoa(e.Index) + " action: " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *ActionError) Unwrap() error { return e.Err }

// Problem returns the problem a Builder lists for e. For a *canon.Error
// the pointer is the option's, followed by "/action" and the error's
// pointer inside the action (such as "/question/options/1/action/a"), and
// the reason gives the class, message and byte offset in the action; the
// other causes are problems of the option's action_digest.
func (e *ActionError) Problem() Problem {
	if ce, ok := errors.AsType[*canon.Error](e.Err); ok {
		return Problem{
			Pointer: optPtr(e.Index, "/action") + ce.Pointer,
			Reason: "action rejected by the canon gate: " + ce.Class.String() + ": " + ce.Msg +
				" at offset " + strconv.FormatInt(ce.Offset, 10) + " of the action",
		}
	}
	return Problem{Pointer: optPtr(e.Index, "/action_digest"), Reason: e.Err.Error()}
}

// Problems turns an error from Parse into Problems, as Validate does; it
// returns nil for a nil error.
func Problems(err error) []Problem {
	if err == nil {
		return nil
	}
	if m, ok := errors.AsType[*MalformedError](err); ok {
		return m.Problems
	}
	if ce, ok := errors.AsType[*canon.Error](err); ok {
		return []Problem{{Pointer: ce.Pointer, Reason: ce.Class.String() + ": " + ce.Msg}}
	}
	if pe, ok := errors.AsType[*PlacementError](err); ok {
		return []Problem{{Pointer: pe.Pointer, Reason: pe.Reason()}}
	}
	return []Problem{{Pointer: "", Reason: err.Error()}}
}

// escapePointer escapes a member name for a JSON Pointer (RFC 6901 §3).
func escapePointer(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}

// quote quotes a pointer for a message, keeping it on one line.
func quote(s string) string {
	if utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	return strconv.QuoteToASCII(s)
}
