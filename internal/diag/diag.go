// Package diag holds what the bbdigest command and the packages that word
// its messages (archive) share in them: the escaping that keeps every name,
// pointer and message inert on a terminal, and counts with their noun.
//
// Every pointer, member name, file name and message that reaches stdout or
// stderr goes through AppendEscaped (directly, or through Quote, FileField,
// Text or SafeJSON), so that:
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
package diag

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Mode is what AppendEscaped escapes besides the unsafe characters.
type Mode uint8

const (
	ModeText   Mode = iota // free text: unsafe characters only
	ModeName               // a name outside quotes: also the backslash
	ModeQuoted             // inside double quotes: also '\\' and '"'
)

const hexDigits = "0123456789abcdef"

// Printable reports whether the rune r (not an ASCII one) may be written
// as it is: strconv.IsPrint, which admits letters, marks, numbers,
// punctuation and symbols, and rejects controls, format characters (bidi
// overrides, zero-width characters, U+FEFF), separators other than the ASCII
// space (U+2028, U+2029, U+00A0), private use and unassigned code points.
func Printable(r rune) bool { return strconv.IsPrint(r) }

// NeedsEscape reports whether AppendEscaped would change s in mode m.
func NeedsEscape(s string, m Mode) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || (c == '\\' && m != ModeText) || (c == '"' && m == ModeQuoted) {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || !Printable(r) {
			return true
		}
		i += size
	}
	return false
}

// AppendEscaped appends s to b with every unsafe character escaped (see
// the package documentation), and, by mode, the backslash and the double
// quote.
func AppendEscaped(b []byte, s string, m Mode) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\\' && m != ModeText:
				b = append(b, '\\', '\\')
			case c == '"' && m == ModeQuoted:
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
		case !Printable(r):
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

// AppendQuoted appends s as a double-quoted string: a JSON string when s is
// valid UTF-8, with \xHH for each byte that is not.
func AppendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	b = AppendEscaped(b, s, ModeQuoted)
	return append(b, '"')
}

// Quote returns s as AppendQuoted writes it.
func Quote(s string) string { return string(AppendQuoted(nil, s)) }

// AppendJSONString appends s as a JSON string escaped as AppendQuoted
// escapes it: controls, format characters and the other characters a
// terminal interprets as \uXXXX escapes. A byte that is not UTF-8 is
// written U+FFFD, so that the string stays valid JSON (AppendQuoted would
// write \xHH).
func AppendJSONString(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\ufffd")
	}
	return AppendQuoted(b, s)
}

// Text returns s with the unsafe characters escaped; backslashes and
// quotes are left as they are. For messages that already quote their
// fields.
func Text(s string) string {
	if !NeedsEscape(s, ModeText) {
		return s
	}
	return string(AppendEscaped(nil, s, ModeText))
}

// FileField returns the FILE field of a diagnostic: the name as given when
// it is plain (non-empty, printable, not starting with '"' and without
// ": ", so that the field ends at the first ": "), and quoted otherwise.
func FileField(name string) string {
	if name == "" || name[0] == '"' || strings.Contains(name, ": ") || NeedsEscape(name, ModeText) {
		return Quote(name)
	}
	return name
}

// SafeJSON returns the output of encoding/json with every character that
// encoding/json leaves raw but a terminal would interpret (DEL, C1
// controls, bidi and other format characters) written as \uXXXX. Outside
// strings JSON text is ASCII, so only string contents change, and the
// result is the same JSON value. It returns b itself when nothing needs
// an escape.
func SafeJSON(b []byte) []byte {
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
		if !Printable(r) || r == utf8.RuneError && size == 1 {
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

// Plural returns n and the noun for it, one when n is 1 and many
// otherwise: "1 record", "0 records", "3 records".
func Plural[N ~int | ~int64 | ~uint64](n N, one, many string) string {
	noun := many
	if n == 1 {
		noun = one
	}
	return strconv.FormatInt(int64(n), 10) + " " + noun
}

// IOMessage returns err's message without the path of a *fs.PathError,
// which a diagnostic gives, escaped, as its FILE: the operation and the
// cause ("open: no such file or directory").
func IOMessage(err error) string {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// WriteMessage returns the message of a failure to write the output: err's
// own when it names the operation and the file, as an *fs.PathError does
// ("write /dev/stdout: no space left on device"), else "write: " and err.
func WriteMessage(err error) string {
	if _, ok := errors.AsType[*fs.PathError](err); ok {
		return err.Error()
	}
	return "write: " + err.Error()
}
