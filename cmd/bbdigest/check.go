package main

import (
	"bytes"
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/hashing"
)

// check is "bbdigest digest --check LIST": for each line of LIST, as
// "digest --names" writes it ("sha256:<hex>  NAME", or with a leading
// backslash when NAME is escaped), it digests NAME and answers
// "NAME: OK", "NAME: FAILED", "NAME: FAILED open or read" or
// "NAME: FAILED rejected", as sha256sum -c does.
func (c *cli) check(cz *canon.Canonicalizer, list string) int {
	src, err := c.readFile(nil, list, c.limit())
	if err != nil {
		if _, ok := errors.AsType[*canon.Error](err); ok {
			c.reject(list, err)
		} else {
			c.ioFailure(list, err)
		}
		return exitUsage
	}
	status := exitOK
	lines := 0
	var answer, digest []byte
	for n := 1; len(src) > 0; n++ {
		var line []byte
		line, src, _ = bytes.Cut(src, []byte{'\n'})
		lines++
		want, name, reason := parseCheckLine(line)
		if reason != "" {
			c.errorf("%s: line %d: %s", fileField(list), n, reason)
			status = exitRejected
			continue
		}
		verdict := "OK"
		switch {
		case name == "-" && list == "-":
			c.errorf("-: open: stdin is the list of digests being checked")
			verdict = "FAILED open or read"
		default:
			out, code := c.canonicalize(cz, name)
			switch code {
			case exitOK:
				digest = appendDigest(digest[:0], out)
				if string(digest) != want {
					verdict = "FAILED"
				}
			case exitRejected:
				verdict = "FAILED rejected"
			default:
				verdict = "FAILED open or read"
			}
		}
		if verdict != "OK" {
			status = exitRejected
		}
		answer = append(appendName(answer[:0], name), ": "...)
		answer = append(append(answer, verdict...), '\n')
		if code := c.write(answer); code != exitOK {
			return code
		}
	}
	if lines == 0 {
		c.errorf("%s: no check lines", fileField(list))
		return exitRejected
	}
	return status
}

// digestLen is the length of a digest's text form, "sha256:" and 64 hex
// digits.
const digestLen = len("sha256:") + 64

// parseCheckLine returns the digest and the NAME of a check line,
// "sha256:<hex>  NAME", its NAME unescaped when the line starts with a
// backslash; or, for a line that is not a check line, why. A "\r" at the end of the line is dropped
// (a list that went through CRLF conversion): digest writes a "\r" in a
// name as "\r".
func parseCheckLine(line []byte) (digest, name, reason string) {
	const want = `want "sha256:<64 lowercase hex>  NAME", as 'bbdigest digest --names' writes`
	line = bytes.TrimSuffix(line, []byte{'\r'})
	escaped := len(line) > 0 && line[0] == '\\'
	if escaped {
		line = line[1:]
	}
	if len(line) < digestLen+3 || string(line[digestLen:digestLen+2]) != "  " {
		return "", "", "not a check line: " + want
	}
	if _, err := hashing.ParseDigest(string(line[:digestLen])); err != nil {
		return "", "", "not a check line: " + want
	}
	name = string(line[digestLen+2:])
	if escaped {
		var ok bool
		if name, ok = readName(name); !ok {
			return "", "", "bad escape in the name: " + want
		}
	}
	return string(line[:digestLen]), name, ""
}

// readName reverses the escaping of appendName (escName mode of
// appendEscaped) and of the inside of appendQuoted: \\, \", \n, \r, \t, \b,
// \f, \xHH for a byte and \uXXXX for a code point, a UTF-16 surrogate pair
// for one above U+FFFF. It reports false for any other backslash sequence.
func readName(s string) (string, bool) {
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
