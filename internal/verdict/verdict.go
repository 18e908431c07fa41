// Package verdict is what bbdigest's commands answer in JSON, with stable
// field names: the answer of "envelope validate --json" (Validation), the
// one object "resolution verify" prints (Verify), the problems of a
// rejected input in both (Problem), as they are made from the errors of
// packages canon and envelope, and an approval request as "approve list
// --json" prints it (Request, with its Status as list and show print it).
// It also words a canon-gate rejection's REASON (CanonReason) as every
// diagnostic of the command does. The command writes them, escaped
// (internal/diag), and reports the rejections on stderr.
//
// Tests: TestValidation, TestRejected (each kind of rejection, field by
// field, as JSON), TestCanonReason, TestOmitted, TestSummary.
package verdict

import (
	"errors"
	"strconv"
	"strings"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
)

// Problem is one problem of a rejected input: a canon-gate rejection
// carries its class and byte offset too.
type Problem struct {
	Pointer string `json:"pointer"`
	Reason  string `json:"reason"`
	Class   string `json:"class,omitempty"`
	Offset  *int64 `json:"offset,omitempty"`
}

// Problems returns the problems of an error of envelope.Parse (or of the
// canon gate): one for a *canon.Error, else envelope.Problems' (an empty,
// non-nil list when there are none).
func Problems(err error) []Problem {
	if ce, ok := errors.AsType[*canon.Error](err); ok {
		return []Problem{{Pointer: ce.Pointer, Reason: CanonReason(ce), Class: ce.Class.String(), Offset: &ce.Offset}}
	}
	ps := []Problem{}
	for _, p := range envelope.Problems(err) {
		ps = append(ps, Problem{Pointer: p.Pointer, Reason: p.Reason})
	}
	return ps
}

// Omitted returns how many problems of a malformed envelope or resolution
// the library counted without listing them (it lists envelope.MaxProblems
// at most).
func Omitted(err error) int {
	if me, ok := errors.AsType[*envelope.MalformedError](err); ok {
		return me.Omitted
	}
	if me, ok := errors.AsType[*envelope.MalformedResolutionError](err); ok {
		return me.Omitted
	}
	return 0
}

// CanonReason is the REASON of a canon-gate rejection: "CLASS: MESSAGE at
// offset N". The pointer is left out: it is the diagnostic's POINTER.
func CanonReason(e *canon.Error) string {
	var b strings.Builder
	b.WriteString(e.Class.String())
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	b.WriteString(" at offset ")
	b.WriteString(strconv.FormatInt(e.Offset, 10))
	return b.String()
}

// Validation is the answer of "envelope validate --json".
type Validation struct {
	Valid    bool      `json:"valid"`
	Digest   *string   `json:"digest"`
	Problems []Problem `json:"problems"`
	Omitted  int       `json:"omitted,omitempty"` // problems past the first envelope.MaxProblems
}

// Validate returns the answer for the envelope e that envelope.Parse
// returned with err.
func Validate(e *envelope.Envelope, err error) Validation {
	v := Validation{Valid: err == nil, Problems: []Problem{}}
	if err == nil {
		d := e.Digest().String()
		v.Digest = &d
	} else {
		v.Problems, v.Omitted = Problems(err), Omitted(err)
	}
	return v
}

// Verify is the one JSON object resolution verify prints: a checked
// outcome (Outcome, Reason, SingleUse) or, with Outcome "error", why
// nothing was checked.
type Verify struct {
	Outcome   string    `json:"outcome"`
	Error     string    `json:"error,omitempty"`
	Input     string    `json:"input,omitempty"`
	File      *string   `json:"file,omitempty"`
	Reason    string    `json:"reason"`
	Class     string    `json:"class,omitempty"`
	Pointer   *string   `json:"pointer,omitempty"`
	Offset    *int64    `json:"offset,omitempty"`
	Problems  []Problem `json:"problems,omitempty"`
	Omitted   int       `json:"omitted,omitempty"` // problems past the first envelope.MaxProblems
	SingleUse *bool     `json:"single_use,omitempty"`
}

// The kinds of error outcome of resolution verify (Verify.Error).
const (
	ErrUsage      = "usage"
	ErrUnreadable = "unreadable"
	ErrCanon      = "canon"
	ErrPlacement  = "placement"
	ErrMalformed  = "malformed"
	ErrLedger     = "ledger"
)

// Error returns the error outcome of kind for the input called input (""
// for none), read from file.
func Error(kind, input, file, reason string) Verify {
	v := Verify{Outcome: "error", Error: kind, Input: input, Reason: reason}
	if input != "" {
		v.File = &file
	}
	return v
}

// Rejected returns the error outcome for the input called input, read from
// file, that was rejected with err: by the canon gate (ErrCanon, with its
// class, pointer and offset), for its placement (ErrPlacement), or as a
// malformed envelope (ErrMalformed, with its problems).
func Rejected(input, file string, err error) Verify {
	if ce, ok := errors.AsType[*canon.Error](err); ok {
		v := Error(ErrCanon, input, file, CanonReason(ce))
		v.Class, v.Pointer, v.Offset = ce.Class.String(), &ce.Pointer, &ce.Offset
		return v
	}
	if pe, ok := errors.AsType[*envelope.PlacementError](err); ok {
		v := Error(ErrPlacement, input, file, pe.Reason())
		v.Pointer = &pe.Pointer
		return v
	}
	ps := Problems(err)
	n := len(ps) + Omitted(err)
	reason := "malformed envelope: " + strconv.Itoa(n) + " problem"
	if n != 1 {
		reason += "s"
	}
	v := Error(ErrMalformed, input, file, reason)
	v.Problems, v.Omitted = ps, Omitted(err)
	return v
}
