// Package inerttest holds what the tests of every package that writes
// untrusted text to a terminal or a line-based stream (the CLI's
// diagnostics, internal/diag, internal/sumline) check it with: strings
// that would forge or break a line, or reach a terminal as a control
// sequence, if written raw, and a checker that output holds none of them.
//
// The checker is written from the definitions (utf8.DecodeRune and
// strconv.IsPrint), never with the quoting code under test.
package inerttest

import (
	"strconv"
	"testing"
	"unicode/utf8"
)

// Hostile holds strings that would forge or break a line, or reach a
// terminal as a control sequence, if written raw: line breaks, escape
// sequences, C0 and C1 controls, DEL, bidirectional and zero-width
// format characters, line and paragraph separators, a tag character, a
// private-use character, bytes that are not UTF-8, and the characters
// that quoting itself uses. Callers must not change it.
var Hostile = []string{
	"plain",
	"",
	"x\ny: fake problem\n/synopsis",
	"cr\rreturn",
	"\x1b[31mRED\x1b[0m",
	"\x1b]0;title\x07",
	"tab\there",
	"del\x7f",
	"nul\x00",
	"c1\u0085\u009b",
	"bidi\u202eevil\u202c",
	"isolate\u2066x\u2069",
	"zero\u200bwidth\ufeff",
	"line\u2028para\u2029",
	"nbsp\u00a0",
	"tag\U000E0041",
	"private\ue000",
	"bad\xffutf8\xc3",
	`back\slash`,
	`"quoted"`,
	"colon: space",
	"é€😀",
}

// AssertInert fails t if b holds, other than "\n" ending its lines, a
// character a terminal would interpret or that breaks a line: a control,
// DEL, a non-printable rune (format, separator, private use), or a byte
// that is not UTF-8. what names b in the message.
func AssertInert(t testing.TB, what string, b []byte) {
	t.Helper()
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == '\n':
		case r == utf8.RuneError && size == 1:
			t.Errorf("%s: byte %#x that is not UTF-8 at %d in %q", what, b[i], i, b)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && !strconv.IsPrint(r)):
			t.Errorf("%s: raw %U at %d in %q", what, r, i, b)
		}
		i += size
	}
}
