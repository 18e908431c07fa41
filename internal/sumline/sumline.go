// Package sumline writes and reads the lines of digest lists: the
// "sha256:<hex>  NAME" lines of bbdigest digest --names, and the lines of
// sha256sum ("<hex>  NAME", "<hex> *NAME", and "SHA256 (NAME) = <hex>" of
// sha256sum --tag) that bbdigest digest --check reads too, a name that
// needs escaping escaped as sha256sum escapes it, and more.
package sumline

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/diag"
)

// AppendName appends a file name to a "DIGEST  NAME" line (or a check
// answer "NAME: OK"). As sha256sum does, a name that needs escaping is
// escaped and the whole line then starts with a backslash, so that every
// file takes exactly one line: sha256sum escapes "\n", "\r" and "\\", and
// bbdigest also every character a terminal would interpret (see
// diag.AppendEscaped; \t, \uXXXX, \xHH). ReadName reverses it.
func AppendName(line []byte, name string) []byte {
	if !diag.NeedsEscape(name, diag.ModeName) {
		return append(line, name...)
	}
	line = append(line, 0)
	copy(line[1:], line)
	line[0] = '\\'
	return diag.AppendEscaped(line, name, diag.ModeName)
}

// digestLen is the length of a digest's text form, "sha256:" and 64 hex
// digits.
const digestLen = len("sha256:") + 64

// Line is one line of a check list: the digest it lists for a file,
// and whether the line is sha256sum's (plain hex, or the BSD tag of
// sha256sum --tag) rather than bbdigest's "sha256:<hex>".
type Line struct {
	Digest string // "sha256:<64 lowercase hex>"
	Name   string
	Plain  bool
}

// improper is the reason given for a line in none of the forms.
const improper = `improperly formatted checksum line: want "sha256:<64 lowercase hex>  NAME" ('bbdigest digest --names'), "<64 hex>  NAME" (sha256sum) or "SHA256 (NAME) = <64 hex>" (sha256sum --tag)`

// Parse reads a line of a check list in one of the forms
//
//	sha256:<64 lowercase hex>  NAME    bbdigest digest --names
//	<64 hex>  NAME, <64 hex> *NAME     sha256sum (text, binary)
//	SHA256 (NAME) = <64 hex>           sha256sum --tag
//
// (hex in either case where sha256sum writes it), NAME unescaped (see
// ReadName) when the line starts with a backslash, as both tools write a
// name that needs escaping. For a line that is none of them it returns why.
// A "\r" at the end of the line is dropped (a list that went through CRLF
// conversion): both tools write a "\r" in a name as "\r".
func Parse(line []byte) (Line, string) {
	s := strings.TrimSuffix(string(line), "\r")
	escaped := strings.HasPrefix(s, `\`)
	if escaped {
		s = s[1:]
	}
	var cl Line
	if strings.HasPrefix(s, "sha256:") {
		if len(s) < digestLen+3 || s[digestLen:digestLen+2] != "  " {
			return cl, improper
		}
		if _, err := hashing.ParseDigest(s[:digestLen]); err != nil {
			return cl, improper
		}
		cl.Digest, cl.Name = s[:digestLen], s[digestLen+2:]
	} else {
		var hex, reason string
		if hex, cl.Name, reason = plainLine(s); reason != "" {
			return cl, reason
		}
		cl.Digest, cl.Plain = "sha256:"+strings.ToLower(hex), true
	}
	if escaped {
		var ok bool
		if cl.Name, ok = ReadName(cl.Name); !ok {
			return cl, "bad escape in the name"
		}
	}
	return cl, ""
}

// plainLine reads a line of sha256sum's, "<64 hex>  NAME", "<64 hex>
// *NAME" or "SHA256 (NAME) = <64 hex>", its leading backslash removed, and
// returns the hex digits and NAME (still escaped), or why it is not such a
// line: a digest of another length, or of another algorithm, is named as
// such.
func plainLine(s string) (hex, name, reason string) {
	if h := hexRun(s); h > 0 && h < len(s) && (s[h] == ' ' || s[h] == '\t') {
		switch {
		case h != 64 && h >= 32: // shorter is more likely a word than a digest
			return "", "", otherLength(h)
		case h != 64 || len(s) < h+3 || s[h] != ' ' || (s[h+1] != ' ' && s[h+1] != '*'):
			return "", "", improper
		}
		return s[:h], s[h+2:], ""
	}
	// "ALGO (NAME) = HEX", as sha256sum --tag writes it; sha256sum also
	// reads "ALGO(NAME)= HEX" and other spacing around the "=".
	a := strings.IndexFunc(s, func(r rune) bool {
		return !('A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-')
	})
	if a <= 0 {
		return "", "", improper
	}
	algo, rest := s[:a], strings.TrimPrefix(s[a:], " ")
	end := strings.LastIndexByte(rest, ')')
	if !strings.HasPrefix(rest, "(") || end < 0 {
		return "", "", improper
	}
	name, rest = rest[1:end], strings.TrimLeft(rest[end+1:], " \t")
	rest, isTag := strings.CutPrefix(rest, "=")
	hex = strings.TrimLeft(rest, " \t")
	h := hexRun(hex)
	switch {
	case !isTag || h == 0 || h != len(hex) || name == "":
		return "", "", improper
	case algo != "SHA256":
		return "", "", "a " + algo + " digest: only SHA-256 is supported, \"SHA256 (NAME) = <64 hex>\""
	case h != 64:
		return "", "", otherLength(h)
	}
	return hex, name, ""
}

// hexRun returns the number of hex digits, in either case, that s
// starts with.
func hexRun(s string) int {
	for i := 0; i < len(s); i++ {
		if _, ok := hexValue(s, i, 1); !ok {
			return i
		}
	}
	return len(s)
}

// otherLength is the reason given for a digest of n hex digits, n not 64,
// naming the tool that writes such digests.
func otherLength(n int) string {
	r := "a digest of " + strconv.Itoa(n) + " hex digits"
	switch n {
	case 32:
		r += " (md5sum writes those)"
	case 40:
		r += " (sha1sum writes those)"
	case 56:
		r += " (sha224sum writes those)"
	case 96:
		r += " (sha384sum writes those)"
	case 128:
		r += " (sha512sum and b2sum write those)"
	}
	return r + ": only SHA-256 is supported, 64 hex digits"
}

// ReadName reverses the escaping of AppendName (diag.ModeName) and of the
// inside of diag.AppendQuoted: \\, \", \n, \r, \t, \b,
// \f, \xHH for a byte and \uXXXX for a code point, a UTF-16 surrogate pair
// for one above U+FFFF. It reports false for any other backslash sequence.
func ReadName(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b []byte
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b = append(b, s[i])
			i++
			continue
		}
		if i+1 == len(s) {
			return "", false
		}
		switch e := s[i+1]; e {
		case '\\':
			b = append(b, '\\')
		case '"': // written in quoted fields only, read for diagnostics
			b = append(b, '"')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'x':
			v, ok := hexValue(s, i+2, 2)
			if !ok {
				return "", false
			}
			b = append(b, byte(v))
			i += 4
			continue
		case 'u':
			r, ok := hexValue(s, i+2, 4)
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(rune(r)) {
				lo, ok := hexValue(s, i+2, 4)
				if !ok || !strings.HasPrefix(s[i:], `\u`) {
					return "", false
				}
				r = int(utf16.DecodeRune(rune(r), rune(lo)))
				if r == utf8.RuneError {
					return "", false
				}
				i += 6
			}
			b = utf8.AppendRune(b, rune(r))
			continue
		default:
			return "", false
		}
		i += 2
	}
	return string(b), true
}

// hexValue reads n lowercase or uppercase hex digits at s[i:].
func hexValue(s string, i, n int) (int, bool) {
	if i+n > len(s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(s[i : i+n]) {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | int(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
