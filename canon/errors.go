package canon

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Class is the stable category of a rejection. Its String names are API:
// the CLI prints them, receipts record them, and they never change. Values
// are never renumbered or reused.
type Class uint8

// The rejection classes. See the package documentation for when each applies.
const (
	ClassSyntax            Class = iota + 1 // "syntax": not a JSON text per RFC 8259
	ClassInvalidUTF8                        // "invalid-utf8": ill-formed UTF-8 in the input
	ClassDuplicateName                      // "duplicate-name": member names collide after escape decoding
	ClassUnpairedSurrogate                  // "unpaired-surrogate": \u escape of a lone UTF-16 surrogate
	ClassNonInteger                         // "non-integer": strict profile, number with a fractional value
	ClassUnsafeInteger                      // "unsafe-integer": strict profile, integer with |n| > 2^53-1
	ClassNumberRange                        // "number-range": rfc8785 profile, number overflows IEEE-754 double
	ClassDepth                              // "depth": containers nested deeper than the profile allows
	ClassTooLarge                           // "too-large": input longer than the configured size bound
)

var classNames = [...]string{
	ClassSyntax:            "syntax",
	ClassInvalidUTF8:       "invalid-utf8",
	ClassDuplicateName:     "duplicate-name",
	ClassUnpairedSurrogate: "unpaired-surrogate",
	ClassNonInteger:        "non-integer",
	ClassUnsafeInteger:     "unsafe-integer",
	ClassNumberRange:       "number-range",
	ClassDepth:             "depth",
	ClassTooLarge:          "too-large",
}

// String returns the stable name of the class, such as "duplicate-name".
func (c Class) String() string {
	if int(c) < len(classNames) && classNames[c] != "" {
		return classNames[c]
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// ParseClass returns the Class whose String is name.
func ParseClass(name string) (Class, bool) {
	for i, n := range classNames {
		if n != "" && n == name {
			return Class(i), true
		}
	}
	return 0, false
}

// Sentinel errors, one per class. Every *Error wraps exactly one of them, so
// callers can write errors.Is(err, canon.ErrDuplicateName).
var (
	ErrSyntax            = errors.New("canon: syntax")
	ErrInvalidUTF8       = errors.New("canon: invalid-utf8")
	ErrDuplicateName     = errors.New("canon: duplicate-name")
	ErrUnpairedSurrogate = errors.New("canon: unpaired-surrogate")
	ErrNonInteger        = errors.New("canon: non-integer")
	ErrUnsafeInteger     = errors.New("canon: unsafe-integer")
	ErrNumberRange       = errors.New("canon: number-range")
	ErrDepth             = errors.New("canon: depth")
	ErrTooLarge          = errors.New("canon: too-large")
)

var sentinels = [...]error{
	ClassSyntax:            ErrSyntax,
	ClassInvalidUTF8:       ErrInvalidUTF8,
	ClassDuplicateName:     ErrDuplicateName,
	ClassUnpairedSurrogate: ErrUnpairedSurrogate,
	ClassNonInteger:        ErrNonInteger,
	ClassUnsafeInteger:     ErrUnsafeInteger,
	ClassNumberRange:       ErrNumberRange,
	ClassDepth:             ErrDepth,
	ClassTooLarge:          ErrTooLarge,
}

// Sentinel returns the sentinel error of class c, or nil for an unknown class.
func (c Class) Sentinel() error {
	if int(c) < len(sentinels) {
		return sentinels[c]
	}
	return nil
}

// Error reports why an input was rejected and where.
//
// Offset is the byte offset in the input at which the offending token (or
// byte) starts. Pointer is the RFC 6901 JSON Pointer of the value being
// parsed when the problem was found ("" for the top-level value); for a
// duplicate name it points at the duplicate member.
type Error struct {
	Class   Class
	Offset  int64
	Pointer string
	Msg     string // human-readable detail without location; may change between versions
}

// Error formats the rejection as
// `canon: <class>: <detail> within "<pointer>" at offset N`
// (the pointer part is left out for too-large, which has none).
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("canon: ")
	b.WriteString(e.Class.String())
	b.WriteString(": ")
	b.WriteString(e.Detail())
	b.WriteString(" at offset ")
	b.WriteString(strconv.FormatInt(e.Offset, 10))
	return b.String()
}

// Detail returns the message and the JSON Pointer, without the class and
// the offset: `<detail> within "<pointer>"`. It is always one line, and
// bounded in length: a pointer longer than 200 bytes is shown cut, ending
// in "...". (The Pointer field itself is always whole.)
func (e *Error) Detail() string {
	if e.Class == ClassTooLarge {
		return e.Msg
	}
	p := strconv.Quote(e.Pointer)
	if len(e.Pointer) > maxShownPointer {
		cut := maxShownPointer
		for cut > 0 && !utf8.RuneStart(e.Pointer[cut]) {
			cut--
		}
		p = strconv.Quote(e.Pointer[:cut]) + "..."
	}
	return e.Msg + " within " + p
}

// maxShownPointer bounds the pointer shown in error messages.
const maxShownPointer = 200

// Unwrap returns the sentinel of e's class.
func (e *Error) Unwrap() error { return e.Class.Sentinel() }

// appendPointerToken appends one reference token, escaped per RFC 6901
// ("~" as "~0", "/" as "~1").
func appendPointerToken(b []byte, tok []byte) []byte {
	b = append(b, '/')
	for _, c := range tok {
		switch c {
		case '~':
			b = append(b, '~', '0')
		case '/':
			b = append(b, '~', '1')
		default:
			b = append(b, c)
		}
	}
	return b
}
