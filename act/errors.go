package act

import (
	"errors"
	"strconv"
	"strings"

	"github.com/bbdigest/bbdigest/canon"
)

// ErrShape is wrapped by every *[Error] about the shape of a call rather
// than the JSON it is written in: the input is not one of the call shapes
// (see the package documentation), holds two of them, misses the tool name,
// carries arguments that are not an object, or does not match the shape
// asked for. Test with errors.Is(err, act.ErrShape).
var ErrShape = errors.New("act: not a tool call")

// ErrMessage is wrapped, beside [ErrShape], by the *[Error] of [Parse],
// [Parser.ParseInto] and [Parser.Digest] for an input that is not one call
// but an assistant message, a model response or a JSON array, which hold
// calls: [Parser.AppendMessage] and [ParseMessage] read those. Test with
// errors.Is(err, act.ErrMessage).
var ErrMessage = errors.New("act: a message, not one tool call")

// ClassShape is the class name that messages give a refusal about the
// shape of a call, which wraps [ErrShape] and has no canon class
// ([Error.Class] is 0): it is printed where a canon refusal prints its
// class's name, and is as stable.
const ClassShape = "shape"

// Error reports why a call was refused and where.
//
// Pointer is the RFC 6901 JSON Pointer, and Offset the byte offset, of the
// offending value in the caller's input, with one exception: when InString
// is set, the problem is inside the text of an OpenAI arguments string,
// Pointer names that string member ("/function/arguments" or
// "/arguments", in a message "/tool_calls/2/function/arguments") and
// Offset counts bytes of its decoded text (the JSON text
// the string holds, after its escapes are decoded), which is what the
// canon gate reads. The *canon.Error in Err then carries the JSON Pointer
// within that text. For [New], Pointer and Offset are within its arguments.
//
// Err is the cause: a *canon.Error for a rejection by the canon gate (its
// class is the rejection's, and errors.Is(err, canon.ErrDuplicateName)
// works through Error), or an error wrapping [ErrShape].
type Error struct {
	Pointer  string
	Offset   int64
	InString bool
	Err      error
}

// Class returns the class of a rejection by the canon gate, the Class of
// the *canon.Error in Err (found with errors.As), and 0 for a refusal
// about the shape of the call, which wraps [ErrShape] instead: test that
// with errors.Is(err, act.ErrShape). Messages name the shape class
// [ClassShape].
func (e *Error) Class() canon.Class {
	if ce, ok := errors.AsType[*canon.Error](e.Err); ok {
		return ce.Class
	}
	return 0
}

// className returns the name that messages give e's class: the canon
// class's, or ClassShape.
func (e *Error) className() string {
	if c := e.Class(); c != 0 {
		return c.String()
	}
	if errors.Is(e.Err, ErrShape) {
		return ClassShape
	}
	return "unknown"
}

// Error formats the refusal as
//
//	act: <class>: <detail> within "<pointer>" at offset N
//
// or, inside the text of an OpenAI arguments string,
//
//	act: <class>: <detail> [within "<inner pointer>"] in the arguments string at "<pointer>", offset N of its decoded text
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("act: ")
	b.WriteString(e.className())
	b.WriteString(": ")
	b.WriteString(e.detail())
	return b.String()
}

// detail returns the message without the "act: CLASS: " prefix, with the
// location, as [Error.Error] writes it.
func (e *Error) detail() string {
	var b strings.Builder
	ce, isCanon := errors.AsType[*canon.Error](e.Err)
	switch {
	case isCanon:
		b.WriteString(ce.Msg)
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	}
	if e.InString {
		if isCanon {
			b.WriteString(" within ")
			b.WriteString(strconv.Quote(ce.Pointer))
		}
		b.WriteString(" in the arguments string at ")
		b.WriteString(strconv.Quote(e.Pointer))
		b.WriteString(", offset ")
		b.WriteString(strconv.FormatInt(e.Offset, 10))
		b.WriteString(" of its decoded text")
		return b.String()
	}
	if !isCanon || ce.Class != canon.ClassTooLarge {
		b.WriteString(" within ")
		b.WriteString(strconv.Quote(e.Pointer))
	}
	b.WriteString(" at offset ")
	b.WriteString(strconv.FormatInt(e.Offset, 10))
	return b.String()
}

// Unwrap returns the cause: a *canon.Error or an error wrapping [ErrShape].
func (e *Error) Unwrap() error { return e.Err }

// shapeError is the cause of a shape problem: its message, wrapping
// ErrShape, and ErrMessage too when the input is a message.
type shapeError struct {
	msg     string
	message bool
}

var (
	causeShape   = []error{ErrShape}
	causeMessage = []error{ErrShape, ErrMessage}
)

func (e *shapeError) Error() string { return e.msg }

func (e *shapeError) Unwrap() []error {
	if e.message {
		return causeMessage
	}
	return causeShape
}

// canonError returns the *Error of a canon gate rejection ce of the
// caller's input, or of a part of it that starts at byte off and JSON
// Pointer ptr.
func canonError(ce *canon.Error, off int, ptr string) *Error {
	if off != 0 || ptr != "" {
		ce = &canon.Error{Class: ce.Class, Offset: ce.Offset + int64(off), Pointer: ptr + ce.Pointer, Msg: ce.Msg}
	}
	return &Error{Pointer: ce.Pointer, Offset: ce.Offset, Err: ce}
}

// asCanon returns err as the *canon.Error that canon's calls return.
func asCanon(err error) *canon.Error {
	ce, ok := errors.AsType[*canon.Error](err)
	if !ok {
		panic("BUG: act: canon returned an error that is not a *canon.Error: " + err.Error())
	}
	return ce
}
