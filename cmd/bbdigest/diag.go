package main

// Diagnostics, and the escaping that keeps everything bbdigest writes
// inert on a terminal.
//
// Every pointer, member name, file name and message that reaches stdout or
// stderr goes through appendEscaped (directly, or through quote, fileField,
// safeText or safeJSON), so that:
//
//   - one problem is exactly one line: no newline or carriage return, and no
//     U+2028/U+2029, is written raw;
//   - nothing a terminal interprets is written raw: C0 and C1 controls, ESC,
//     DEL, bidi overrides and every other Unicode format character, private
//     use and unassigned code points, and bytes that are not UTF-8;
//   - escaped text can be told from text that merely looks escaped: quoted
//     fields escape the backslash too.
//
// The escapes are JSON's (\n, \r, \t, \b, \f, \" and \\, else \uXXXX, with
// a UTF-16 surrogate pair above U+FFFF), plus \xHH for a byte that is not
// UTF-8, which JSON cannot hold. So a quoted field of valid UTF-8 is a JSON
// string.

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/envelope"
)

// escMode is what appendEscaped escapes besides the unsafe characters.
type escMode uint8

const (
	escText   escMode = iota // free text: unsafe characters only
	escName                  // a name outside quotes: also the backslash
	escQuoted                // inside double quotes: also '\\' and '"'
)

const hexDigits = "0123456789abcdef"

// printable reports whether the rune r (not an ASCII one) may be written
// as it is: strconv.IsPrint, which admits letters, marks, numbers,
// punctuation and symbols, and rejects controls, format characters (bidi
// overrides, zero-width characters, U+FEFF), separators other than the ASCII
// space (U+2028, U+2029, U+00A0), private use and unassigned code points.
func printable(r rune) bool { return strconv.IsPrint(r) }

// needsEscape reports whether appendEscaped would change s in mode m.
func needsEscape(s string, m escMode) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || (c == '\\' && m != escText) || (c == '"' && m == escQuoted) {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || !printable(r) {
			return true
		}
		i += size
	}
	return false
}

// appendEscaped appends s to b with every unsafe character escaped (see
// the top of this file), and, by mode, the backslash and the double quote.
func appendEscaped(b []byte, s string, m escMode) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\\' && m != escText:
				b = append(b, '\\', '\\')
			case c == '"' && m == escQuoted:
				b = append(b, '\\', '"')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c < 0x20 || c == 0x7f:
				b = appendU(b, rune(c))
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
		case !printable(r):
			b = appendU(b, r)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

// appendU appends r as \uXXXX, or as a UTF-16 surrogate pair of them.
func appendU(b []byte, r rune) []byte {
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		return appendU(appendU(b, hi), lo)
	}
	return append(b, '\\', 'u',
		hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
}

// appendQuoted appends s as a double-quoted string: a JSON string when s is
// valid UTF-8, with \xHH for each byte that is not.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s, escQuoted)
	return append(b, '"')
}

// quote returns s as appendQuoted writes it.
func quote(s string) string { return string(appendQuoted(nil, s)) }

// safeText returns s with the unsafe characters escaped; backslashes and
// quotes are left as they are. For messages that already quote their
// fields.
func safeText(s string) string {
	if !needsEscape(s, escText) {
		return s
	}
	return string(appendEscaped(nil, s, escText))
}

// fileField returns the FILE field of a diagnostic: the name as given when
// it is plain (non-empty, printable, not starting with '"' and without
// ": ", so that the field ends at the first ": "), and quoted otherwise.
func fileField(name string) string {
	if name == "" || name[0] == '"' || strings.Contains(name, ": ") || needsEscape(name, escText) {
		return quote(name)
	}
	return name
}

// safeJSON returns the output of encoding/json with every character that
// encoding/json leaves raw but a terminal would interpret (DEL, C1
// controls, bidi and other format characters) written as \uXXXX. Outside
// strings JSON text is ASCII, so only string contents change, and the
// result is the same JSON value.
func safeJSON(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				out = appendU(append(out, b[last:i]...), rune(c))
				last = i + 1
			}
			i++
			continue
		}
		// encoding/json writes valid UTF-8 only; a stray byte would be
		// written as U+FFFD.
		r, size := utf8.DecodeRune(b[i:])
		if !printable(r) || r == utf8.RuneError && size == 1 {
			out = appendU(append(out, b[last:i]...), r)
			last = i + size
		}
		i += size
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// canonReason is the REASON of a canon-gate rejection: "CLASS: MESSAGE at
// offset N". The pointer is left out: it is the diagnostic's POINTER.
func canonReason(e *canon.Error) string {
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

// rejection writes one rejection diagnostic,
//
//	bbdigest: error: FILE: POINTER: REASON
//
// the format "bbdigest help" documents under Diagnostics.
func (c *cli) rejection(name, pointer, reason string) {
	b := append([]byte("bbdigest: error: "), fileField(name)...)
	b = append(b, ": "...)
	b = appendQuoted(b, pointer)
	b = append(b, ": "...)
	b = appendEscaped(b, reason, escText)
	c.stderr.Write(append(b, '\n'))
}

// reject reports why the input called name was rejected: a canon-gate
// rejection as one line, with its offset; an envelope that is malformed or
// not found as one line per problem.
func (c *cli) reject(name string, err error) {
	if ce, ok := errors.AsType[*canon.Error](err); ok {
		c.rejection(name, ce.Pointer, canonReason(ce))
		return
	}
	for _, p := range envelope.Problems(err) {
		c.rejection(name, p.Pointer, p.Reason)
	}
	if n := omittedProblems(err); n > 0 {
		c.rejection(name, "", "and "+plural(n, "more problem", "more problems")+", not listed")
	}
}

// omittedProblems returns how many problems of a malformed envelope or
// resolution the library counted without listing them (it lists
// envelope.MaxProblems at most).
func omittedProblems(err error) int {
	if me, ok := errors.AsType[*envelope.MalformedError](err); ok {
		return me.Omitted
	}
	if me, ok := errors.AsType[*envelope.MalformedResolutionError](err); ok {
		return me.Omitted
	}
	return 0
}

// ioFailure reports that the input called name could not be opened or
// read: "bbdigest: error: FILE: MESSAGE", MESSAGE being the operation and
// the cause without the path ("open: no such file or directory").
func (c *cli) ioFailure(name string, err error) {
	c.errorf("%s: %s", fileField(name), ioMessage(err))
}

// ioMessage returns err's message without the path of a *fs.PathError,
// which the diagnostic gives, escaped, as its FILE.
func ioMessage(err error) string {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// tooLarge is the rejection of an input longer than limit bytes, as the
// canon gate words it.
func tooLarge(limit int) *canon.Error {
	return &canon.Error{
		Class:  canon.ClassTooLarge,
		Offset: int64(limit),
		Msg:    "input longer than the " + strconv.Itoa(limit) + "-byte bound",
	}
}

// plural returns n and the noun for it, one when n is 1 and many
// otherwise: "1 record", "0 records", "3 records".
func plural[N ~int | ~int64 | ~uint64](n N, one, many string) string {
	noun := many
	if n == 1 {
		noun = one
	}
	return strconv.FormatInt(int64(n), 10) + " " + noun
}

// writeMessage returns the message of a failure to write the output: err's
// own when it names the operation and the file, as an *fs.PathError does
// ("write /dev/stdout: no space left on device"), else "write: " and err.
func writeMessage(err error) string {
	if _, ok := errors.AsType[*fs.PathError](err); ok {
		return err.Error()
	}
	return "write: " + err.Error()
}
